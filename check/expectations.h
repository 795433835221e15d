/** \file A case checked against its recorded expectations (the .uop header's @expect and @output):
 * the oracle runs it first, then the chosen backend where the oracle found it free of undefined
 * behaviour; `uopfuzz run` and `replay` print the verdict. */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "check/differential.h"
#include "ir/kernel.h"
#include "ir/result.h"
#include "oracle/interpreter.h"

namespace uopfuzz::check {

/// One output element that differs from its @output value (within the backend's tolerance).
struct ExpectationMismatch {
  int slot = 0;
  size_t index = 0;
  std::string expected, got;  ///< formatted values
};

struct ExpectationVerdict {
  std::vector<ExpectationMismatch> mismatches;
  /// The outcome matches @expect (ok or ub), it did not hit the step limit, and every
  /// @output element agrees.
  bool pass = false;
};

/// Compares a run with the header's expectations. `run.outputs` are compared only when
/// `run.status` is Ok; `tolerance` is what the backend that produced them declares.
ExpectationVerdict check_expectations(const ir::KernelHeader& header, const oracle::RunOutput& run,
                                      const OutputTolerance& tolerance = {});

struct CaseRunOptions {
  std::string backend = "oracle";
  uint64_t seed = 0;                    ///< input-fill seed
  std::map<std::string, int64_t> vars;  ///< VAR values (others seed-derived)
  uint64_t max_steps = 2'000'000'000;   ///< oracle steps
  int threads = 1;                      ///< threads a compiled backend may use
  bool keep_listing = false;            ///< compile for a listing even when it does not run
};

struct CaseRun {
  oracle::Inputs inputs;
  /// The oracle's status, steps and UB report; the outputs are the backend's when it ran.
  oracle::RunOutput run;
  std::string listing;           ///< the backend's listing (keep_listing)
  bool backend_skipped = false;  ///< a compiled backend was not run: the oracle's run is not Ok
  ExpectationVerdict verdict;
};

/// Why a case could not be checked: the input is at fault (exit 2) or the backend is (a
/// finding, exit 1).
struct CaseError {
  bool finding = false;
  std::string message;
};

/// Runs the kernel on the oracle, then on `options.backend` (a registered backend) when
/// the oracle's run is Ok, and checks the header's expectations with that backend's
/// tolerance. A backend that cannot compile the kernel is a finding unless it says the
/// kernel is unsupported (bad input); a run that fails is bad input.
std::variant<CaseRun, CaseError> run_case(ir::Context& ctx, const ir::Kernel& kernel,
                                          const CaseRunOptions& options);

}  // namespace uopfuzz::check
