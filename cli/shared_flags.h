/** \file Flags that several subcommands take (backends, the simplifier, the latency detector, the
 * Vulkan device), and their checks, which print what is wrong. */
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "check/latency.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::cli {

/// "oracle, cpu, ..." for help texts and errors.
std::string backend_list();

/// Whether every name is in the registry (backends/backends.def); prints the first that is not.
bool valid_backends(const std::vector<std::string>& names);

/// Whether NAME is a compiled backend (one the latency detector can time on).
bool is_compiled_backend(const std::string& name);

/// Which simplifier runs (simplify, check, fuzz).
struct SimplifyFlags {
  bool no_optimize = false;
  std::vector<std::string> bugs;
  std::vector<std::string> disabled;
};

void add_simplify_flags(CLI::App& cmd, SimplifyFlags& flags);

/// The simplifier's options, or nullopt (and a printed error) for an unknown bug or rule.
std::optional<simplifier::SimplifyOptions> simplify_options(const SimplifyFlags& flags);

/// The latency-regression detector (check/latency.h; check and fuzz).
struct LatencyFlags {
  bool on = false;
  check::LatencyOptions options;
};

void add_latency_flags(CLI::App& cmd, LatencyFlags& flags);

/// The detector's options (nullopt inside when --latency is off), or nullopt (and a
/// printed error) when a flag is out of range or the backend's device cannot be opened.
std::optional<std::optional<check::LatencyOptions>> latency_options(const LatencyFlags& flags);

/// --device, shared by every subcommand that runs kernels.
void add_device_flag(CLI::App& cmd, std::string& device);

}  // namespace uopfuzz::cli
