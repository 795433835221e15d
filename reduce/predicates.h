/** \file Standard interestingness predicates for the reducer: keep a differential-check finding. */
#pragma once

#include <cstdint>
#include <string>

#include "check/dedup.h"
#include "check/differential.h"
#include "reduce/reducer.h"

namespace uopfuzz::reduce {

/// The oracle step limit keeps_finding uses by default for every run it makes.
inline constexpr uint64_t kPredicateMaxSteps = 1'000'000;

/// Interesting when
///  1. the candidate itself (the original of the check) runs on the oracle without
///     undefined behaviour and within the step limit for every seed and VAR setting the
///     check uses (seeds opts.base_seed.., VARs from opts.vars, else seed-derived). The
///     check skips such seeds; the reducer must instead refuse the candidate, or it
///     drifts into cases that are invalid because the original is undefined;
///  2. check::check_kernel with `opts` (max_steps lowered to `max_steps`) reports `kind`.
/// Each call copies the kernel into a fresh Context, so the answer depends on the kernel
/// alone (not on node ids left by earlier calls) and memory does not grow.
Interesting keeps_finding(const check::CheckOptions& opts, check::FindingKind kind,
                          uint64_t max_steps = kPredicateMaxSteps);

/// keeps_finding, and also the finding's whole signature (kind, culprit rule, backend): the
/// candidate's check is signed the same way (check::signature_of) and must name
/// `signature`. Signing runs only on candidates whose kind already matches (the few the
/// reducer keeps), so it costs little. With it a minimized case is the same bug, not
/// merely the same kind of finding.
Interesting keeps_signature(const check::CheckOptions& opts, const check::Signature& signature,
                            uint64_t max_steps = kPredicateMaxSteps);

/// Part 1 alone: the kernel runs without UB and within `max_steps` for every seed/VAR
/// setting `opts` makes the check use.
bool original_is_defined(const ir::Kernel& k, const check::CheckOptions& opts,
                         uint64_t max_steps = kPredicateMaxSteps);

struct FindingReduction {
  check::FindingKind kind = check::FindingKind::None;  ///< what check_kernel found on the start
  std::string details;                                 ///< its line, on the start
  ReduceResult result;  ///< start_interesting is false when there was nothing to keep
};

/// What a tool calls to minimize a case: check `k` with `opts`; on a finding, reduce
/// it with keeps_finding(opts, that kind). With no finding, or one the predicate does
/// not hold for (the original has UB or runs past `max_steps` on one of the seeds), the
/// kernel comes back unchanged with result.start_interesting false.
FindingReduction reduce_finding(ir::Context& ctx, const ir::Kernel& k,
                                const check::CheckOptions& opts, const ReduceOptions& options = {},
                                uint64_t max_steps = kPredicateMaxSteps);

}  // namespace uopfuzz::reduce
