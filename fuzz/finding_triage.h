/** \file What a campaign's findings of an external simplifier are: the root cause
 * (root-causes.md) that explains each, so that only those no known cause explains are
 * reported as new, and the standalone reproducer written beside each kept case. */
#pragma once

#include <string>
#include <vector>

#include "check/differential.h"
#include "fuzz/campaign.h"
#include "fuzz/root_causes.h"
#include "ir/kernel.h"
#include "ir/result.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::fuzz {

struct FindingTriage {
  std::string root_cause;        ///< the id of the cause that explains it; "" : a new root cause
  std::string verdict;           ///< that cause's verdict (real, difference)
  std::string reproducer;        ///< the script written for it ("" when none was)
  std::string reproducer_error;  ///< why none could be written, when one was asked for
};

struct TriageOptions {
  /// Write a reproducer beside each written case for this system ("" : none; "tinygrad").
  std::string emit;
  sut::ExternalOptions external;  ///< how to run the system's adapter
  /// The campaign's check (its simplifier under test): a tensor program's finding is
  /// reproduced by the lowered kernel on which it shows.
  check::CheckOptions check;
};

/// The root-causes file for a campaign of `simplifier` whose findings go to `findings_dir`:
/// `given` when set; else the one in findings_dir when there is one; else the repository's,
/// corpus/findings/<simplifier>/root-causes.md.
std::string pick_root_causes_path(const std::string& given, const std::string& findings_dir,
                                  const std::string& simplifier);

/// The kernel a reproducer of `found` (a corpus case) shows: the case itself when it is a
/// kernel; for a tensor program, the first of the kernels its lowering makes (at the options
/// its header records) on which `check` (the case's simplifier under test) still finds
/// something, with the case's header lines. Errors: a program that does not lower, or none
/// of whose kernels shows a finding any more.
Result<ir::Kernel> kernel_to_reproduce(ir::Context& ctx, const ir::Kernel& found,
                                       const check::CheckOptions& check);

/// One FindingTriage per finding, in order.
std::vector<FindingTriage> triage_findings(const std::vector<NewFinding>& findings,
                                           const RootCauses& causes, const TriageOptions& options);

}  // namespace uopfuzz::fuzz
