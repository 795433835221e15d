/** \file Flags that several subcommands take (backends, the simplifier, the latency detector, the
 * Vulkan device), and their checks, which print what is wrong. */
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/latency.h"
#include "simplifier/simplifier.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::cli {

/// "oracle, cpu, ..." for help texts and errors.
std::string backend_list();

/// Whether every name is in the registry (backends/backends.def); prints the first that is not.
bool valid_backends(const std::vector<std::string>& names);

/// Whether NAME is a compiled backend (one the latency detector can time on).
bool is_compiled_backend(const std::string& name);

/// "" when `backend`'s device opens, else why not. Tried in a child process: a campaign
/// parent must not hold a device (and its driver's threads) when it forks workers.
std::string device_problem(const std::string& backend);

/// Which simplifier is under test (--simplifier builtin|tinygrad|external:CMD) and how an
/// external one runs (sut/simplifier_under_test.h).
struct SimplifierFlags {
  std::string spec = "builtin";
  double timeout_s = 10;  ///< per graph
  std::string tinygrad_path;
  std::string tinygrad_stage = "symbolic";
  std::vector<std::string> adapter_bugs;
  bool external() const { return spec != "builtin"; }
};

void add_simplifier_flags(CLI::App& cmd, SimplifierFlags& flags);

/// The simplifier under test: null for the built-in one (called directly, at its in-process
/// speed), or the external one `flags` name (started on first use); nullopt (and a printed
/// error) when it cannot be made, or when `options` ask for what it cannot do (the built-in
/// planted bugs without the `bugs` capability, rules switched off without `disable`).
std::optional<std::shared_ptr<sut::Simplifier>> simplifier_under_test(
    const SimplifierFlags& flags, const simplifier::SimplifyOptions& options = {});

/// How the flags start an external simplifier (its timeout, tinygrad, stage, planted bugs).
sut::ExternalOptions external_options(const SimplifierFlags& flags);

/// Which simplifier runs and how (simplify, check, fuzz): the simplifier under test's flags
/// too.
struct SimplifyFlags {
  bool no_optimize = false;
  std::vector<std::string> bugs;
  std::vector<std::string> disabled;
  SimplifierFlags simplifier;
};

void add_simplify_flags(CLI::App& cmd, SimplifyFlags& flags);

/// The simplifier's options, or nullopt (and a printed error) for an unknown bug or rule
/// (an external simplifier's rule names are its own: not checked here).
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
