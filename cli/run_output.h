/** \file The flags of `uopfuzz run` and what it prints: a case's run as text or --json, and
 * a graph run end to end on a simplifier's own devices. */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/expectations.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"

namespace uopfuzz::cli {

struct RunFlags {
  std::string file;
  std::string backend;  ///< empty: the oracle (a tensor program: the tensor oracle, not lowered)
  std::optional<uint64_t> seed;
  std::vector<std::string> vars;
  bool json = false;
  uint64_t max_steps = 2'000'000'000;
  bool dump_ir = false;
  int threads = 1;
  SimplifierFlags simplifier;  ///< what rewrites a tensor program's kernels (with --backend)
  LoweringOptionFlags lowering;
};

/// What ran: the backend, or for a tensor program the tensor oracle or the lowered Program.
std::string backend_label(const RunFlags& f, const LoadedKernel& k);

/// Prints the run as `--json` asks, or as text. `failed_kernel`: a lowered Program's kernel
/// that hit UB (its nodes are not the file's), else -1; `label`: what ran, when not the backend.
void print_run(const RunFlags& f, const LoadedKernel& k, uint64_t seed, const check::CaseRun& c,
               int failed_kernel = -1, const std::string& label = "");

/// A graph run end to end by a simplifier that runs whole graphs on its own devices, each
/// device's outputs checked against the header's expectations; exit 1 when one misses them.
int run_on_devices(const RunFlags& f, const LoadedKernel& k, uint64_t seed,
                   const std::map<std::string, int64_t>& vars, sut::Simplifier& sim);

}  // namespace uopfuzz::cli
