/** \file What a campaign's findings of an external simplifier are: the root cause
 * (root-causes.md) that explains each, so that only those no known cause explains are
 * reported as new, and the standalone reproducer written beside each kept case. */
#pragma once

#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/root_causes.h"
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
};

/// The root-causes file for a campaign of `simplifier` whose findings go to `findings_dir`:
/// `given` when set; else the one in findings_dir when there is one; else the repository's,
/// corpus/findings/<simplifier>/root-causes.md.
std::string pick_root_causes_path(const std::string& given, const std::string& findings_dir,
                                  const std::string& simplifier);

/// One FindingTriage per finding, in order.
std::vector<FindingTriage> triage_findings(const std::vector<NewFinding>& findings,
                                           const RootCauses& causes, const TriageOptions& options);

}  // namespace uopfuzz::fuzz
