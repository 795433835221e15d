/** \file De-duplication: a finding's signature names the bug, not the case.
 *
 * Signature = kind / culprit rule / backend. The culprit is found by trace replay: the
 * rewrite trace is replayed on the failing inputs (the graph after step k is the pipeline
 * stopped after k rule applications, SimplifyOptions::stop_after), and the first step
 * whose graph checks unclean against the original (a stored value changed, UB, a graph
 * that no longer verifies) is blamed, found by bisecting the step count. A step whose
 * rule ran rewrites of its own (reduce_collapse's inner rules) is then narrowed to the
 * inner non-symbolic rule whose disabling alone hides the finding, if one does.
 *
 * Rule bisection is the fallback (YARPGen's opt-bisect): when the replay cannot show the
 * finding (another backend's, non-determinism), the culprit is the first rule whose
 * disabling alone makes the check come back clean, trying the seeds' range/reduce rules
 * in pipeline order before the symbolic layer. Findings with one signature are one bug.
 *
 * An external simplifier under test (CheckOptions::simplifier, not the built-in one): a
 * failure of its own (crash, hang, protocol) is signed "<kind>/external[@where]/<name>"
 * with no replay. Another finding is replayed when it honours stop_after (the culprit is
 * the rule of the blamed step: its trace's, else the rule whose hit count that step
 * raised), else bisected over the rules it reported hitting when it honours disable (its
 * own rule names), else its culprit is "unknown".
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
  int checks_run = 0;     ///< how many re-checks the blame took
  bool by_trace = false;  ///< the culprit is a replayed step's rule (else: rule bisection)
  uint64_t step = 0;      ///< by_trace: the blamed step, 1-based in the pipeline's trace

  std::string text() const;  ///< "mismatch/split_range/oracle"
};

/// Whether `options` check with an external simplifier (neither null nor the built-in one).
bool is_external(const CheckOptions& options);

/// The culprit of a failure of the simplifier under test: "external", or "external@where"
/// when it said where in its own source it failed.
std::string failure_culprit(const sut::Failure& failure);

/// Signs `found` (a finding of `kernel` under `options`): trace replay, else bisection.
Signature signature_of(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                       const CheckResult& found, std::string_view backend = "oracle");

/// The rule bisection alone (the fallback), over the rules that fired in `found`.
Signature bisect_rules(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                       const CheckResult& found, std::string_view backend = "oracle");

}  // namespace uopfuzz::check
