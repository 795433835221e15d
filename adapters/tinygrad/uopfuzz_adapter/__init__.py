"""The tinygrad adapter's modules (see ../README.md)."""
