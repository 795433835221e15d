/** \file `--compare A,B` (fuzz and check): two simplifiers on the same kernels, both rewrites
 * checked, their strength compared per rule family (fuzz/compare.h); the summary and JSON. */
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "check/differential.h"
#include "cli/shared_flags.h"
#include "fuzz/campaign.h"
#include "ir/kernel.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::cli {

/// The two simplifier specs of `--compare A,B` (empty: no comparison).
void add_compare_flag(CLI::App& cmd, std::vector<std::string>& specs);

/// `fuzz --compare`: generated kernels of `seed` (tensor programs from `tensor_source` when
/// given: their kernel and buffer counts compared as well) (graph i as in a campaign) for `seconds`
/// or `max_graphs`, checked with `check` per side; prints progress and the summary, writes
/// `json_path` when given. Exit: 2 for bad specs, 1 when either side had a finding, else 0.
int run_fuzz_compare(const std::vector<std::string>& specs, const sut::ExternalOptions& external,
                     const check::CheckOptions& check, uint64_t seed, double seconds,
                     uint64_t max_graphs, const fuzz::GraphSource& source,
                     const std::string& json_path, const fuzz::GraphSource& tensor_source = {});

/// `check FILE --compare`: one kernel, both checks and the comparison (text or JSON).
int run_check_compare(const std::vector<std::string>& specs, const sut::ExternalOptions& external,
                      const std::string& file, ir::Context& ctx, const ir::Kernel& kernel,
                      const check::CheckOptions& check, bool json);

}  // namespace uopfuzz::cli
