#include "check/dedup.h"

#include <fmt/format.h>

#include <algorithm>

namespace uopfuzz::check {

std::string Signature::text() const {
  // A wrong fact is the simplifier's, about one op, wherever the value was computed.
  if (kind == FindingKind::UnsoundBounds)
    return fmt::format("{}/{}", finding_kind_name(kind), culprit);
  return fmt::format("{}/{}/{}", finding_kind_name(kind), culprit, backend);
}

namespace {

// The seeds' range/reduce rules before the symbolic layer: a symbolic fold often merely
// enables a faulty range rule (or cleans up after it), and disabling it would hide the
// finding without naming the rule at fault.
const std::vector<std::string>& bisection_order() {
  static const std::vector<std::string> order = [] {
    std::vector<std::string> names = simplifier::rule_names_in_pipeline_order();
    auto symbolic = simplifier::symbolic().names();
    std::stable_partition(names.begin(), names.end(), [&](const std::string& n) {
      return std::find(symbolic.begin(), symbolic.end(), n) == symbolic.end();
    });
    return names;
  }();
  return order;
}

bool is_symbolic_or_flatten(const std::string& rule) {
  static const std::vector<std::string> layers = [] {
    auto names = simplifier::symbolic().names();
    for (const auto& n : simplifier::pm_flatten_range().names()) names.push_back(n);
    return names;
  }();
  return std::find(layers.begin(), layers.end(), rule) != layers.end();
}

// The finding disappears when the check comes back clean; another kind of finding instead
// (e.g. a verifier failure once flatten_range is off) is not an absence.
bool hidden_without(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                    const std::string& rule, Signature& sig) {
  CheckOptions without = options;
  without.check_bounds = false;  // the rewrite is judged, not the facts about the original
  without.simplify.disabled.insert(rule);
  ++sig.checks_run;
  return check_kernel(ctx, kernel, without).kind == FindingKind::None;
}

// Replays the trace: the smallest k whose graph after k steps checks unclean (0: none).
// The oracle alone judges, the reference as in check_kernel; a step count that does not
// reproduce the finding at its end (non-determinism) gives 0.
uint64_t first_bad_step(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                        uint64_t steps, Signature& sig) {
  CheckOptions replay = options;
  replay.backends = {"oracle"};
  replay.latency.reset();
  replay.check_bounds = false;  // the rewrite after k steps is judged, not the original's facts
  auto bad = [&](uint64_t k) {
    replay.simplify.stop_after = k;
    ++sig.checks_run;
    FindingKind kind = check_kernel(ctx, kernel, replay).kind;
    return kind != FindingKind::None && kind != FindingKind::NonConvergence;
  };
  if (steps == 0 || !bad(steps) || bad(0)) return 0;
  uint64_t good = 0, worse = steps;  // invariant: !bad(good), bad(worse)
  while (worse - good > 1) {
    uint64_t mid = good + (worse - good) / 2;
    (bad(mid) ? worse : good) = mid;
  }
  return worse;
}

// The kinds a replay on the oracle can show: the rewrite's own graph is wrong.
bool replayable(FindingKind k) {
  switch (k) {
    case FindingKind::Mismatch:
    case FindingKind::UbIntroduced:
    case FindingKind::VerifierFailure:
    case FindingKind::RewriteError:
    case FindingKind::RewriteStepLimit: return true;
    case FindingKind::None:
    case FindingKind::NonConvergence:
    case FindingKind::Crash:
    case FindingKind::Timeout:
    case FindingKind::BackendError:
    case FindingKind::Latency:
    case FindingKind::Protocol:
    case FindingKind::UnsoundBounds:
    // A pipeline stopped after k steps is not meant to be a fixed point: bisect rules.
    case FindingKind::NotIdempotent: return false;
  }
  return false;
}

// The culprit of the step after which the rewrite first shows the finding, for an external
// simplifier honouring stop_after: the k-step replay bisected as first_bad_step does. Without
// a trace, the rule whose hit count step k raised.
Signature replay_external(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                          const CheckResult& found, std::string_view backend) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = std::string(backend);
  sig.culprit = "unknown";
  sut::Simplifier& s = *options.simplifier;
  const bool traced = s.capabilities().trace;
  simplifier::SimplifyOptions so = options.simplify;
  so.trace = traced;
  const sut::Outcome run = s.simplify(ctx, kernel.root, so);
  if (run.failure) return sig;
  uint64_t steps = traced ? run.result.trace.size() : 0;
  if (!traced)
    for (const auto& [rule, n] : run.result.hits) steps += n;
  const uint64_t k = first_bad_step(ctx, kernel, options, steps, sig);
  if (k == 0) return sig;
  sig.by_trace = true;
  sig.step = k;
  if (traced) {
    sig.culprit = run.result.trace[k - 1].rule;
    return sig;
  }
  simplifier::SimplifyOptions before = options.simplify, after = options.simplify;
  before.stop_after = k - 1;
  after.stop_after = k;
  const sut::Outcome a = s.simplify(ctx, kernel.root, before);
  const sut::Outcome b = s.simplify(ctx, kernel.root, after);
  if (a.failure || b.failure) return sig;
  for (const auto& [rule, n] : b.result.hits) {
    auto was = a.result.hits.find(rule);
    if (n > (was == a.result.hits.end() ? 0 : was->second)) {
      sig.culprit = rule;
      break;
    }
  }
  return sig;
}

}  // namespace

bool is_external(const CheckOptions& options) {
  return options.simplifier && options.simplifier->name() != "builtin";
}

std::string failure_culprit(const sut::Failure& failure) {
  return failure.where.empty() ? "external" : "external@" + failure.where;
}

Signature bisect_rules(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                       const CheckResult& found, std::string_view backend) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = std::string(backend);
  sig.culprit = "unknown";
  if (is_external(options)) {
    // Its own rule names, in no pipeline order we know: those it reported hitting.
    if (!options.simplifier->capabilities().disable) return sig;
    for (const auto& [rule, n] : found.simplified.hits) {
      if (options.simplify.disabled.count(rule)) continue;
      if (hidden_without(ctx, kernel, options, rule, sig)) {
        sig.culprit = rule;
        break;
      }
    }
    return sig;
  }
  for (const std::string& rule : bisection_order()) {
    if (!found.simplified.hits.count(rule) || options.simplify.disabled.count(rule)) continue;
    if (hidden_without(ctx, kernel, options, rule, sig)) {
      sig.culprit = rule;
      break;
    }
  }
  return sig;
}

Signature signature_of(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                       const CheckResult& found, std::string_view backend) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = std::string(backend);
  if (!found.culprit.empty()) {  // the check named it (a whole-pipeline run's stage)
    sig.culprit = found.culprit;
    return sig;
  }
  if (found.simplifier_failure && found.kind != FindingKind::None) {
    sig.culprit = failure_culprit(*found.simplifier_failure);
    return sig;
  }
  if (found.kind == FindingKind::UnsoundBounds) {
    sig.culprit = fmt::format("{}/{}", options.simplifier ? options.simplifier->name() : "builtin",
                              found.unsound_bounds_op);
    return sig;
  }
  if (is_external(options)) {
    if (backend == "oracle" && replayable(found.kind) &&
        options.simplifier->capabilities().stop_after) {
      Signature replayed = replay_external(ctx, kernel, options, found, backend);
      if (replayed.culprit != "unknown") return replayed;
      sig.checks_run = replayed.checks_run;
    }
    Signature fallback = bisect_rules(ctx, kernel, options, found, backend);
    fallback.checks_run += sig.checks_run;
    return fallback;
  }
  if (backend == "oracle" && replayable(found.kind)) {
    CheckOptions traced = options;
    traced.simplify.trace = true;
    simplifier::SimplifyResult run = simplifier::simplify(ctx, kernel.root, traced.simplify);
    const uint64_t k = first_bad_step(ctx, kernel, options, run.trace.size(), sig);
    if (k > 0 && run.steps == run.trace.size()) {
      sig.by_trace = true;
      sig.step = k;
      sig.culprit = run.trace[k - 1].rule;
      // A step whose rule ran rewrites of its own (a collapse and its inner rules): the
      // inner rules that fired in it, other than the cleanup layers, are suspects first.
      simplifier::SimplifyOptions before = options.simplify, after = options.simplify;
      before.stop_after = k - 1;
      after.stop_after = k;
      auto hits_before = simplifier::simplify(ctx, kernel.root, before).hits;
      auto hits_after = simplifier::simplify(ctx, kernel.root, after).hits;
      for (const std::string& rule : bisection_order()) {
        if (rule == sig.culprit || is_symbolic_or_flatten(rule)) continue;
        auto a = hits_after.find(rule);
        if (a == hits_after.end() || a->second <= hits_before[rule]) continue;
        if (hidden_without(ctx, kernel, options, rule, sig)) {
          sig.culprit = rule;
          break;
        }
      }
      return sig;
    }
  }
  Signature fallback = bisect_rules(ctx, kernel, options, found, backend);
  fallback.checks_run += sig.checks_run;
  return fallback;
}

}  // namespace uopfuzz::check
