#include "check/program_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "backends/float_sums.h"
#include "backends/program_runner.h"
#include "backends/registry.h"
#include "check/bounds_check.h"
#include "check/pipeline_check.h"
#include "check/quant_metamorphic.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "oracle/tensor_eval.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::check {

using namespace ir;

namespace {

// A lowering that makes a kernel ir::verify rejects reports it among its "unsupported:"
// errors, but a wrong kernel is the lowering's fault, not a limit of it.
bool invalid_kernel(const Error& e) {
  return e.message.find("does not verify") != std::string::npos;
}

bool unsupported(const Error& e) {
  return e.message.rfind("unsupported", 0) == 0 && !invalid_kernel(e);
}

// One input seed the reference ran without undefined behaviour: its inputs and outputs.
struct SeedCase {
  uint64_t seed = 0;
  Inputs inputs;
  std::map<int, Buffer> want;  ///< by REALIZE index
};

struct Reference {
  std::vector<SeedCase> cases;
  int skipped = 0;
  std::optional<std::string> unsupported;
};

Reference reference(const Kernel& program, const CheckOptions& co) {
  Reference ref;
  for (int k = 0; k < co.seeds; ++k) {
    const uint64_t seed = co.base_seed + static_cast<uint64_t>(k);
    SeedCase c{seed, make_inputs(program, seed, co.vars), {}};
    auto run = oracle::eval_tensor_program(program.root, c.inputs);
    if (!run) {
      ref.unsupported = "the tensor oracle cannot run it: " + run.error().message;
      return ref;
    }
    if (run->status != RunStatus::Ok) {
      ++ref.skipped;
      continue;
    }
    c.want = std::move(run->outputs);
    ref.cases.push_back(std::move(c));
  }
  return ref;
}

}  // namespace

std::optional<std::vector<double>> output_sum_bounds(Context& ctx, const Program& p,
                                                     const Inputs& in, int output,
                                                     uint64_t max_steps) {
  std::vector<Buffer> bufs;
  int target = -1;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const ProgramBuffer& pb = p.buffers[b];
    auto given = in.buffers.find(pb.index);
    bufs.push_back(pb.role == ProgramBuffer::Role::Input && given != in.buffers.end()
                       ? given->second
                       : Buffer(pb.dtype, static_cast<size_t>(pb.size)));
    if (pb.role == ProgramBuffer::Role::Output && pb.index == output) target = static_cast<int>(b);
  }
  std::optional<std::vector<double>> bounds;
  std::map<int, backends::SumTerms> terms_of_buffer;  // buffer -> the sums stored there
  oracle::RunOptions ro;
  ro.max_steps = max_steps;
  for (const ProgramKernel& k : p.kernels) {
    Inputs kin;
    kin.vars = in.vars;
    for (const auto& [slot, b] : k.buffer_of_slot) kin.buffers[slot] = bufs[b];
    // Sums an earlier kernel stored (a split reduce's partial sums) count with their terms.
    std::map<int, backends::SumTerms> carried;
    for (const auto& [slot, b] : k.buffer_of_slot)
      if (auto t = terms_of_buffer.find(b); t != terms_of_buffer.end()) carried[slot] = t->second;
    auto sums = backends::sum_terms(ctx, k.root, kin, carried);
    auto run = oracle::run(k.root, kin, ro);
    if (!run || run->status != RunStatus::Ok) return std::nullopt;
    for (auto& [slot, out] : run->outputs) {
      const int b = k.buffer_of_slot.at(slot);
      bufs[b] = std::move(out);
      terms_of_buffer.erase(b);  // a later writer decides
      if (sums)
        if (auto s = sums->find(slot); s != sums->end()) terms_of_buffer[b] = s->second;
      if (b != target) continue;
      bounds.reset();
      if (auto t = terms_of_buffer.find(b); t != terms_of_buffer.end())
        bounds = backends::bounds_of(t->second);
    }
  }
  return bounds;
}

namespace {

// What running one program on one backend and comparing with the reference gave.
struct Verdict {
  FindingKind kind = FindingKind::None;
  std::string details;
  std::optional<Mismatch> mismatch;
  std::optional<std::string> skipped;  ///< the backend cannot run it (unsupported): why
  std::string culprit;                 ///< set by an UnsoundBounds verdict: "builtin/<OP>"
};

Verdict run_and_compare(Context& ctx, const Program& p, const Reference& ref,
                        const std::string& backend_name, const CheckOptions& co) {
  Verdict v;
  backends::Backend* backend = backends::find_backend(backend_name);
  if (!backend) {
    v.kind = FindingKind::BackendError;
    v.details = fmt::format("no backend named '{}'", backend_name);
    return v;
  }
  Tolerance declared;
  if (backend_name != "oracle") {
    int ulps = 0;
    for (const ProgramKernel& k : p.kernels) ulps = std::max(ulps, backend->tolerance_ulps(k.root));
    declared = Tolerance(ulps, !backend->caps().signed_zeros);
  }
  // A simplifier under test that declares it does not keep the sign of zero (x+0 -> x):
  // the program's float outputs compare with +0 matching -0 (SEMANTICS.md, "Comparing results").
  if (co.simplifier && co.simplifier->capabilities().zero_sign_free) declared.zero_sign_free = true;
  backends::RunOptions ro;
  ro.max_steps = co.max_steps;
  ro.threads = co.threads;
  backends::CompileOptions compile;
  compile.opt_level = co.opt_level;
  const bool oracle = backend_name == "oracle";
  // The lowered kernels' values on the oracle, held against ir/analysis's facts about them
  // (what the kernel rules trust): the lowering makes index shapes the kernel generator
  // does not, and a wrong fact about them is a finding whether or not a rule used it.
  std::vector<std::vector<sut::ClaimedBounds>> claims;
  if (oracle && co.check_bounds)
    for (const ProgramKernel& k : p.kernels) claims.push_back(sut::builtin_bounds(k.root));
  ro.observe_values = !claims.empty();
  std::optional<BoundsViolation> violation;
  for (const SeedCase& c : ref.cases) {
    auto out = backends::run_program(*backend, p, c.inputs, ro, compile);
    if (!out) {
      if (unsupported(out.error())) {
        v.skipped = out.error().message;
        return v;
      }
      v.kind = oracle ? FindingKind::RewriteError : FindingKind::BackendError;
      v.details = fmt::format("seed {}: the lowered program cannot run on {}: {}", c.seed,
                              backend_name, out.error().message);
      return v;
    }
    if (out->status == RunStatus::Ub) {
      v.kind = FindingKind::UbIntroduced;
      v.details = fmt::format(
          "seed {}: kernel {} of the lowered program has undefined behaviour{}", c.seed,
          out->failed_kernel,
          out->ub ? fmt::format(" at {}: {}", describe(out->ub->node), out->ub->what) : "");
      return v;
    }
    if (out->status == RunStatus::StepLimit) {
      v.kind = FindingKind::RewriteStepLimit;
      v.details = fmt::format("seed {}: kernel {} of the lowered program ran past the step limit",
                              c.seed, out->failed_kernel);
      return v;
    }
    for (const auto& [o, want] : c.want) {
      auto it = out->outputs.find(o);
      const Buffer* got = it == out->outputs.end() ? nullptr : &it->second;
      auto i = first_difference(want, got, declared);
      std::optional<std::vector<double>> bounds;
      if (i && want.dtype().is_float()) {
        bounds = output_sum_bounds(ctx, p, c.inputs, o, co.max_steps);
        if (bounds) {
          Tolerance with_sums = declared;
          with_sums.sum_bounds = &*bounds;
          i = first_difference(want, got, with_sums);
        }
      }
      if (!i) continue;
      Value g = got && *i < got->size() ? got->get(*i) : Value::of_int(0);
      v.kind = FindingKind::Mismatch;
      v.mismatch = Mismatch{c.seed, o, *i, format_value(want.dtype(), want.get(*i)),
                            format_value(want.dtype(), g)};
      v.details = fmt::format("seed {}: output {}[{}] is {} on the tensor oracle but {} on {}",
                              c.seed, o, *i, v.mismatch->expected, v.mismatch->got, backend_name);
      if (bounds && *i < bounds->size())
        v.details += fmt::format(" (a reassociated sum, allowed {:g} apart)", (*bounds)[*i]);
      return v;
    }
    for (size_t k = 0; k < out->observed.size() && k < claims.size() && !violation; ++k)
      if ((violation = find_unsound_bounds(p.kernels[k].root, claims[k], out->observed[k])))
        v.details = fmt::format(
            "seed {}: kernel {} of the lowered program: builtin believes a "
            "wrong fact: {}",
            c.seed, k, violation->text);
  }
  // Results agree; a wrong fact is still wrong.
  if (violation) {
    v.kind = FindingKind::UnsoundBounds;
    v.culprit = fmt::format("builtin/{}", ir::op_name(violation->node.op()));
  } else {
    v.details.clear();
  }
  return v;
}

std::vector<std::string> backends_of(const CheckOptions& co) {
  std::vector<std::string> names{"oracle"};
  for (const std::string& b : co.backends)
    if (b != "oracle") names.push_back(b);
  return names;
}

// The first kernel that does not verify: its index and the error; nullopt when all do.
std::optional<std::string> unverified(const Program& p) {
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    auto errors = verify(p.kernels[k].root);
    if (!errors.empty())
      return fmt::format("kernel {} does not verify: [{}] {} at {}", k,
                         verify_rule_name(errors[0].rule), errors[0].message,
                         describe(errors[0].node));
  }
  return std::nullopt;
}

// Whether `p` shows any finding on `backend` (a kernel that does not verify included).
bool shows_finding(Context& ctx, const Program& p, const Reference& ref, const std::string& backend,
                   const CheckOptions& co, int& checks) {
  ++checks;
  if (unverified(p)) return true;
  return run_and_compare(ctx, p, ref, backend, co).kind != FindingKind::None;
}

// Whether the lowering under `lo` is wrong by itself (fails, or its unsimplified program
// disagrees with the reference on `backend`).
bool lowering_wrong(Context& ctx, const Kernel& program, const schedule::LowerOptions& lo,
                    const Reference& ref, const std::string& backend, const CheckOptions& co,
                    int& checks) {
  auto lowered = schedule::lower(ctx, program.root, lo);
  if (!lowered) {  // a failure, or a decline of a program the oracle runs (check_program)
    ++checks;
    return true;
  }
  return shows_finding(ctx, *lowered, ref, backend, co, checks);
}

// Runs `p` on the oracle and on each backend, and records the first difference in `res`.
void compare_all(Context& ctx, const Program& p, const Reference& ref, const CheckOptions& co,
                 ProgramCheckResult& res) {
  res.seeds_run = static_cast<int>(ref.cases.size());
  for (const std::string& b : backends_of(co)) {
    const auto started = std::chrono::steady_clock::now();
    Verdict v = run_and_compare(ctx, p, ref, b, co);
    if (b != "oracle") res.backend_times.seconds[b] += seconds_since(started);
    if (v.skipped) {
      if (b == "oracle") {
        res.unsupported = "the program runner cannot run it: " + *v.skipped;
        return;
      }
      res.notes.push_back(fmt::format("{}: skipped ({})", b, *v.skipped));
      continue;
    }
    if (v.kind == FindingKind::None) continue;
    res.kind = v.kind;
    res.details = v.details;
    res.backend = b;
    res.mismatch = v.mismatch;
    res.culprit = v.culprit;
    return;
  }
}

// Each kernel of `lowered` rewritten by the simplifier under test; the first kernel it gives
// no rewrite of stops it.
struct KernelsSimplified {
  schedule::SimplifiedProgram simplified;
  std::optional<sut::Failure> failure;
  size_t failed_kernel = 0;
  double child_seconds = 0, protocol_seconds = 0;
};

// The latency path: times the lowering's decisions on the first seed the reference ran; a
// confirmed slowdown of the Program as found becomes res's finding.
void time_decisions(Context& ctx, const Kernel& program, const ProgramCheckOptions& options,
                    const Reference& ref, ProgramCheckResult& res) {
  const LatencyOptions& lo = *options.check.latency;
  if (ref.cases.empty()) return;
  const SeedCase& c = ref.cases.front();
  auto timed =
      time_lowering_decisions(ctx, program, options.lower, options.check.simplify, c.inputs, lo);
  if (!timed) {
    res.kind = FindingKind::BackendError;
    res.backend = lo.backend;
    res.details = fmt::format("seed {}: timing the lowering's decisions on {} failed: {}", c.seed,
                              lo.backend, timed.error().message);
    return;
  }
  for (const std::string& n : timed->notes) res.notes.push_back(n);
  res.latency = std::move(*timed);
  if (const DecisionTiming* d = res.latency->finding()) {
    res.kind = FindingKind::Latency;
    res.backend = lo.backend;
    res.details =
        fmt::format("seed {}: with {} ({} kernels) vs without ({} kernels): {}", c.seed, d->culprit,
                    d->kernels_found, d->kernels_without, d->verdict.summary());
  }
}

KernelsSimplified simplify_kernels(Context& ctx, const Program& lowered, const CheckOptions& co) {
  KernelsSimplified out;
  if (!co.simplifier) {
    out.simplified = schedule::simplify_program(ctx, lowered, co.simplify);
    return out;
  }
  out.simplified.program = lowered;
  for (size_t j = 0; j < lowered.kernels.size(); ++j) {
    ProgramKernel& k = out.simplified.program.kernels[j];
    sut::Outcome r = co.simplifier->simplify(ctx, k.root, co.simplify);
    out.child_seconds += r.child_seconds;
    out.protocol_seconds += r.protocol_seconds;
    if (r.failure) {
      out.failure = std::move(r.failure);
      out.failed_kernel = j;
      return out;
    }
    k.root = r.result.root;
    out.simplified.converged = out.simplified.converged && r.result.converged;
    for (const auto& [rule, n] : r.result.hits) out.simplified.hits[rule] += n;
  }
  return out;
}

// Kernel j's rewrite by the simplifier under test, stopped after `steps` rule applications.
UOp simplify_stopped(Context& ctx, UOp kernel, const CheckOptions& co, uint64_t steps) {
  simplifier::SimplifyOptions stopped = co.simplify;
  stopped.stop_after = steps;
  return sut::simplify_with(co.simplifier.get(), ctx, kernel, stopped).result.root;
}

}  // namespace

ProgramCheckResult check_program(Context& ctx, const Kernel& program,
                                 const ProgramCheckOptions& options) {
  ProgramCheckResult res;
  const CheckOptions& co = options.check;
  if (!program.root || !is_tensor_program(program.root)) {
    res.unsupported = "not a tensor program (its root is not REALIZE)";
    return res;
  }
  // A simplifier that runs whole programs schedules, lowers and runs them itself.
  if (runs_pipeline(co, program.root)) return check_program_pipeline(ctx, program, options);
  if (auto errors = verify(program.root); !errors.empty()) {
    res.unsupported = fmt::format("the program does not verify: [{}] {}",
                                  verify_rule_name(errors[0].rule), errors[0].message);
    return res;
  }
  Reference ref = reference(program, co);
  res.seeds_skipped = ref.skipped;
  if (ref.unsupported) {
    res.unsupported = ref.unsupported;
    return res;
  }
  schedule::LowerReport report;
  auto lowered = schedule::lower(ctx, program.root, options.lower, &report);
  res.lowering_hits = report.hits;
  if (!lowered) {
    // The lowering and the tensor oracle take the same programs (SEMANTICS.md lists what
    // neither does: a quantized REDUCE_AXIS MUL, a kernel op in a tensor program); the
    // oracle ran this one, so a decline here is a capability the lowering lost.
    res.kind =
        invalid_kernel(lowered.error()) ? FindingKind::VerifierFailure : FindingKind::RewriteError;
    res.lowering_wrong = true;
    res.details =
        (unsupported(lowered.error()) ? "the lowering declines a program the tensor oracle runs: "
                                      : "the lowering fails: ") +
        lowered.error().message;
    return res;
  }
  res.kernels = lowered->kernels.size();
  KernelsSimplified by = simplify_kernels(ctx, *lowered, co);
  res.child_seconds = by.child_seconds;
  res.protocol_seconds = by.protocol_seconds;
  if (by.failure) {
    const sut::Failure& f = *by.failure;
    res.simplifier_failure = f;
    const std::string who = co.simplifier->name();
    switch (f.kind) {
      case sut::FailureKind::Unsupported:
        res.unsupported = fmt::format("the simplifier under test ({}) declines kernel {}: {}", who,
                                      by.failed_kernel, f.reason);
        return res;
      case sut::FailureKind::Crash: res.kind = FindingKind::Crash; break;
      case sut::FailureKind::Hang: res.kind = FindingKind::Timeout; break;
      case sut::FailureKind::Protocol: res.kind = FindingKind::Protocol; break;
    }
    res.backend = who;
    res.details = fmt::format("the simplifier under test ({}) on kernel {}: {}: {}", who,
                              by.failed_kernel, sut::failure_kind_name(f.kind), f.reason);
    return res;
  }
  res.simplified = std::move(by.simplified);
  if (auto why = unverified(res.simplified.program)) {
    res.kind = FindingKind::VerifierFailure;
    res.details = "the simplified program: " + *why;
    return res;
  }
  if (!res.simplified.converged) {
    res.kind = FindingKind::NonConvergence;
    res.details = "a kernel's pipeline hit its rewrite cap";
    return res;
  }
  compare_all(ctx, res.simplified.program, ref, co, res);
  if (res.kind == FindingKind::RewriteStepLimit && res.backend == "oracle") {
    // The reference has no step limit; the lowered program may simply be too long for this
    // one. As a kernel's check skips a seed on which the original runs past it, a program whose
    // unsimplified lowering runs past it too is not checked: only a rewrite that made it
    // longer is the simplifier's finding.
    ProgramCheckResult unsimplified;
    CheckOptions oracle_only = co;
    oracle_only.backends = {"oracle"};
    oracle_only.sampled = {};
    compare_all(ctx, *lowered, ref, oracle_only, unsimplified);
    if (unsimplified.kind == FindingKind::RewriteStepLimit) {
      res.kind = FindingKind::None;
      res.unsupported =
          fmt::format("the lowered program itself runs past the step limit of {} ({})",
                      co.max_steps, res.details);
      res.details.clear();
      return res;
    }
  }
  if (res.kind == FindingKind::None && !res.unsupported) {
    // The second oracle: a definition that the tensor oracle and the lowering share wrongly,
    // or a bug the program's own types hide (equal input and output types), shows here.
    QuantMetamorphicResult m = check_quant_metamorphic(ctx, program, options, co.base_seed);
    if (m.disagreement) {
      res.kind = FindingKind::Mismatch;
      res.details = "metamorphic: " + *m.disagreement;
      res.metamorphic_witness = std::move(m.witness);
      return res;
    }
  }
  if (co.latency && res.kind == FindingKind::None && !res.unsupported)
    time_decisions(ctx, program, options, ref, res);
  return res;
}

Result<std::map<int, Buffer>> run_under_test(Context& ctx, const Kernel& program,
                                             const ProgramCheckOptions& options,
                                             const Inputs& inputs) {
  auto lowered = schedule::lower(ctx, program.root, options.lower);
  if (!lowered) return lowered.error();
  KernelsSimplified by = simplify_kernels(ctx, *lowered, options.check);
  if (by.failure) {
    const bool declined = by.failure->kind == sut::FailureKind::Unsupported;
    return Error{fmt::format("{}the simplifier under test on kernel {}: {}: {}",
                             declined ? "unsupported: " : "", by.failed_kernel,
                             sut::failure_kind_name(by.failure->kind), by.failure->reason)};
  }
  if (auto why = unverified(by.simplified.program)) return Error{"the simplified program: " + *why};
  backends::Backend* oracle = backends::find_backend("oracle");
  if (!oracle) return Error{"no oracle backend"};
  backends::RunOptions ro;
  ro.max_steps = options.check.max_steps;
  auto out = backends::run_program(*oracle, by.simplified.program, inputs, ro);
  if (!out) return out.error();
  if (out->status == RunStatus::Ub)
    return Error{fmt::format("kernel {} has undefined behaviour{}", out->failed_kernel,
                             out->ub ? ": " + out->ub->what : "")};
  if (out->status == RunStatus::StepLimit)
    return Error{fmt::format("kernel {} ran past the step limit", out->failed_kernel)};
  return std::move(out->outputs);
}

ProgramCheckResult compare_lowered(Context& ctx, const Kernel& program, const Program& lowered,
                                   const CheckOptions& options) {
  ProgramCheckResult res;
  Reference ref = reference(program, options);
  res.seeds_skipped = ref.skipped;
  if (ref.unsupported) {
    res.unsupported = ref.unsupported;
    return res;
  }
  res.kernels = lowered.kernels.size();
  res.simplified.program = lowered;
  compare_all(ctx, lowered, ref, options, res);
  return res;
}

namespace {

// Range and reduce rules before the symbolic layer (as check::bisect_rules orders them).
std::vector<std::string> bisection_order() {
  std::vector<std::string> names = simplifier::rule_names_in_pipeline_order();
  auto symbolic = simplifier::symbolic().names();
  std::stable_partition(names.begin(), names.end(), [&](const std::string& n) {
    return std::find(symbolic.begin(), symbolic.end(), n) == symbolic.end();
  });
  return names;
}

// Which step of kernel j's pipeline first makes the program show the finding, the kernels
// before j simplified and those after it as lowered: the rule of that step, or "".
std::string replay_kernel(Context& ctx, const Program& lowered, const Program& simplified, size_t j,
                          const Reference& ref, const std::string& backend, const CheckOptions& co,
                          Signature& sig) {
  // An external simplifier is replayed when it honours stop_after; without a trace, a step's
  // rule is the one whose hit count it raised.
  const bool external = is_external(co);
  if (external && !co.simplifier->capabilities().stop_after) return "";
  const bool traced = !external || co.simplifier->capabilities().trace;
  simplifier::SimplifyOptions so = co.simplify;
  so.trace = traced;
  const sut::Outcome run =
      sut::simplify_with(co.simplifier.get(), ctx, lowered.kernels[j].root, so);
  if (run.failure || (traced && run.result.steps != run.result.trace.size())) return "";
  uint64_t steps = run.result.trace.size();
  if (!traced)
    for (const auto& [rule, n] : run.result.hits) steps += n;
  Program p = lowered;
  for (size_t k = 0; k < j; ++k) p.kernels[k] = simplified.kernels[k];
  auto bad = [&](uint64_t k) {
    p.kernels[j].root = simplify_stopped(ctx, lowered.kernels[j].root, co, k);
    return shows_finding(ctx, p, ref, backend, co, sig.checks_run);
  };
  if (steps == 0 || !bad(steps)) return "";
  uint64_t good = 0, worse = steps;  // invariant: !bad(good) (kernel j as lowered), bad(worse)
  while (worse - good > 1) {
    uint64_t mid = good + (worse - good) / 2;
    (bad(mid) ? worse : good) = mid;
  }
  sig.by_trace = true;
  sig.step = worse;
  if (traced) return run.result.trace[worse - 1].rule;
  simplifier::SimplifyOptions before = co.simplify, after = co.simplify;
  before.stop_after = worse - 1;
  after.stop_after = worse;
  const sut::Outcome a = co.simplifier->simplify(ctx, lowered.kernels[j].root, before);
  const sut::Outcome b = co.simplifier->simplify(ctx, lowered.kernels[j].root, after);
  if (!a.failure && !b.failure)
    for (const auto& [rule, n] : b.result.hits) {
      auto was = a.result.hits.find(rule);
      if (n > (was == a.result.hits.end() ? 0 : was->second)) return rule;
    }
  sig.by_trace = false;
  return "";
}

// A metamorphic finding's signature: backend "metamorphic" (so it dedups apart from the
// differential check's findings), the culprit the planted lowering bug, tensor-stage rule or
// simplifier rule whose absence alone makes the check pass.
Signature sign_metamorphic(Context& ctx, const Kernel& program, const ProgramCheckOptions& options,
                           const ProgramCheckResult& found) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = "metamorphic";
  sig.culprit = "unknown";
  auto passes = [&](const ProgramCheckOptions& o) {
    ++sig.checks_run;
    return !check_quant_metamorphic(ctx, program, o, o.check.base_seed).disagreement;
  };
  for (schedule::LoweringBug b : options.lower.bugs) {
    ProgramCheckOptions without = options;
    without.lower.bugs.erase(b);
    if (passes(without)) {
      sig.culprit = std::string(schedule::lowering_bug_name(b));
      return sig;
    }
  }
  for (const auto& [rule, n] : found.lowering_hits) {
    if (n == 0 || options.lower.disabled.count(rule)) continue;
    ProgramCheckOptions without = options;
    without.lower.disabled.insert(rule);
    if (passes(without)) {
      sig.culprit = rule;
      return sig;
    }
  }
  if (is_external(options.check) && !options.check.simplifier->capabilities().disable) return sig;
  std::vector<std::string> suspects;
  if (!is_external(options.check))
    suspects = bisection_order();
  else
    for (const auto& [rule, n] : found.simplified.hits) suspects.push_back(rule);
  for (const std::string& rule : suspects) {
    // The rules that fired on the original program: the two-domain program is its reduce.
    if (!found.simplified.hits.count(rule) || options.check.simplify.disabled.count(rule)) continue;
    ProgramCheckOptions without = options;
    without.check.simplify.disabled.insert(rule);
    if (passes(without)) {
      sig.culprit = rule;
      break;
    }
  }
  return sig;
}

}  // namespace

std::string tensor_rule_culprit(Context& ctx, const Kernel& program,
                                const ProgramCheckOptions& options, const std::string& backend,
                                Signature& sig) {
  CheckOptions co = options.check;
  co.latency.reset();
  Reference ref = reference(program, co);
  if (ref.unsupported) return "";
  schedule::LowerReport report;
  (void)schedule::lower(ctx, program.root, options.lower, &report);
  for (const std::string& rule : schedule::tensor_rule_names()) {
    auto fired = report.hits.find(rule);
    if (fired == report.hits.end() || fired->second == 0 || options.lower.disabled.count(rule))
      continue;
    schedule::LowerOptions without = options.lower;
    without.disabled.insert(rule);
    if (!lowering_wrong(ctx, program, without, ref, backend, co, sig.checks_run)) return rule;
  }
  return "";
}

Signature sign_program_finding(Context& ctx, const Kernel& program,
                               const ProgramCheckOptions& options,
                               const ProgramCheckResult& found) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = found.backend;
  sig.culprit = "unknown";
  if (!found.culprit.empty()) {
    sig.culprit = found.culprit;
    return sig;
  }
  if (found.simplifier_failure && found.kind != FindingKind::None) {
    sig.culprit = failure_culprit(*found.simplifier_failure);
    return sig;
  }
  if (found.kind == FindingKind::Latency && found.latency && found.latency->finding()) {
    sig.culprit = found.latency->finding()->culprit;  // the decision timed is the culprit
    return sig;
  }
  if (found.metamorphic_witness) return sign_metamorphic(ctx, program, options, found);
  CheckOptions co = options.check;
  co.latency.reset();
  Reference ref = reference(program, co);
  if (ref.unsupported) return sig;

  if (found.lowering_wrong ||
      lowering_wrong(ctx, program, options.lower, ref, found.backend, co, sig.checks_run)) {
    sig.culprit = "lowering";
    // With planted lowering bugs on: the one whose absence alone makes the lowering right.
    for (schedule::LoweringBug b : options.lower.bugs) {
      schedule::LowerOptions without = options.lower;
      without.bugs.erase(b);
      if (!lowering_wrong(ctx, program, without, ref, found.backend, co, sig.checks_run)) {
        sig.culprit = std::string(schedule::lowering_bug_name(b));
        return sig;
      }
    }
    if (std::string rule = tensor_rule_culprit(ctx, program, options, found.backend, sig);
        !rule.empty())
      sig.culprit = rule;
    return sig;
  }

  auto lowered = schedule::lower(ctx, program.root, options.lower);
  if (lowered) {
    const schedule::SimplifiedProgram all = simplify_kernels(ctx, *lowered, co).simplified;
    Program p = *lowered;
    for (size_t j = 0; j < p.kernels.size(); ++j) {
      p.kernels[j] = all.program.kernels[j];
      if (!shows_finding(ctx, p, ref, found.backend, co, sig.checks_run)) continue;
      std::string rule = replay_kernel(ctx, *lowered, all.program, j, ref, found.backend, co, sig);
      if (!rule.empty()) {
        sig.culprit = rule;
        return sig;
      }
      break;
    }
  }
  // Fallback: the first rule whose disabling alone makes the program check clean (an
  // external simplifier's own rules, those it reported hitting, when it honours disable).
  std::vector<std::string> suspects;
  if (!is_external(co))
    suspects = bisection_order();
  else if (co.simplifier->capabilities().disable)
    for (const auto& [rule, n] : found.simplified.hits) suspects.push_back(rule);
  for (const std::string& rule : suspects) {
    if (!found.simplified.hits.count(rule) || co.simplify.disabled.count(rule)) continue;
    ProgramCheckOptions without = options;
    without.check.simplify.disabled.insert(rule);
    ++sig.checks_run;
    ProgramCheckResult r = check_program(ctx, program, without);
    if (r.kind == FindingKind::None && !r.unsupported) {
      sig.culprit = rule;
      break;
    }
  }
  return sig;
}

}  // namespace uopfuzz::check
