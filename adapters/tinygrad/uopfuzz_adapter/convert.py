""".uop kernel text <-> tinygrad UOp graph.

The contract the rest of the adapter uses: to_tinygrad() turns a kernel's .uop text into a
tinygrad SINK plus what from_tinygrad() needs to turn a rewritten SINK back into .uop text.
Anything the two IRs do not share raises Unsupported with a reason a person can read
("op BUFFERIZE", "dtype float16 BITCAST ..."); the server answers `unsupported` with it.
"""


class Unsupported(Exception):
  """A kernel (or a rewrite) the two IRs cannot share; str(e) is the reason."""


class Conversion:
  """What from_tinygrad needs from to_tinygrad: buffer slots, VAR names, axis ids..."""


def to_tinygrad(text):
  """(sink UOp, Conversion) for the kernel in `text` (.uop). Raises Unsupported."""
  raise Unsupported("the converter is not built yet")


def from_tinygrad(sink, conversion):
  """.uop text of a tinygrad SINK that came from to_tinygrad(...) and was rewritten.
  Raises Unsupported for ops the rewrite introduced that .uop cannot express."""
  raise Unsupported("the converter is not built yet")
