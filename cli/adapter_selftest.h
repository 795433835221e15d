/** \file `selftest --simplifier tinygrad` (or external:CMD): a campaign per planted bug of the
 * external simplifier, each of which must be found. */
#pragma once

#include <string>

#include "fuzz/selftest.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::cli {

/// Exit status when the simplifier cannot be run here (no tinygrad): ctest reads it as
/// skipped (SKIP_RETURN_CODE), the adapter's own suites use the same.
constexpr int kExitSkipped = 77;

/// Runs the planted bugs' campaigns of `spec` and prints the table (and `json_path`).
/// Exit: 0 all found, 1 one missed, 77 the simplifier cannot be made, 2 it lists no bugs.
int run_adapter_selftest(const fuzz::SelftestOptions& options, const std::string& spec,
                         const sut::ExternalOptions& external, const std::string& json_path);

}  // namespace uopfuzz::cli
