/** \file De-duplication: a finding's signature names the bug, not the case.
 *
 * Signature = kind / culprit rule / backend, where the culprit is the first rule whose
 * disabling alone makes the check come back clean (rule bisection, as YARPGen's
 * opt-bisect), trying the seeds' range/reduce rules in pipeline order before the
 * symbolic layer. Findings with one signature are one bug. Like any bisection by
 * disabling, it may name a rule that enables the faulty one when no other path leads
 * there (a flatten fault after a split is signed by split_range, with its own kind).
 */
#pragma once

#include <string>
#include <string_view>

#include "check/differential.h"

namespace uopfuzz::check {

struct Signature {
  FindingKind kind = FindingKind::None;
  std::string culprit;  ///< a rule name, or "unknown" when no single rule's absence hides it
  std::string backend = "oracle";
  int checks_run = 0;  ///< how many re-checks the bisection took

  std::string text() const;  ///< "mismatch/split_range/oracle"
};

/// Bisects the rules that fired in `found` (a finding of `kernel` under `options`).
Signature signature_of(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                       const CheckResult& found, std::string_view backend = "oracle");

}  // namespace uopfuzz::check
