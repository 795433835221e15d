#include "check/program_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/float_sums.h"
#include "backends/program_runner.h"
#include "backends/registry.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::check {

using namespace ir;

namespace {

// A lowering that makes a kernel ir::verify rejects reports it among its "unsupported:"
// errors, but a wrong kernel is the lowering's fault, not a limit of it.
bool invalid_kernel(const Error& e) {
  return e.message.find("of the lowering does not verify") != std::string::npos;
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

// The reassociated-sum bounds of output `output` (a REALIZE index), when the kernel that
// writes it stores a reassociable sum there: the program is run on the oracle kernel by
// kernel, so that the bounds are computed on the inputs that kernel really reads.
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
  oracle::RunOptions ro;
  ro.max_steps = max_steps;
  for (const ProgramKernel& k : p.kernels) {
    Inputs kin;
    kin.vars = in.vars;
    for (const auto& [slot, b] : k.buffer_of_slot) kin.buffers[slot] = bufs[b];
    auto sums = backends::sum_bounds(ctx, k.root, kin);
    auto run = oracle::run(k.root, kin, ro);
    if (!run || run->status != RunStatus::Ok) return std::nullopt;
    for (auto& [slot, out] : run->outputs) {
      const int b = k.buffer_of_slot.at(slot);
      bufs[b] = std::move(out);
      if (b != target) continue;
      bounds.reset();  // a later writer decides
      if (sums)
        if (auto s = sums->find(slot); s != sums->end()) bounds = s->second;
    }
  }
  return bounds;
}

// What running one program on one backend and comparing with the reference gave.
struct Verdict {
  FindingKind kind = FindingKind::None;
  std::string details;
  std::optional<Mismatch> mismatch;
  std::optional<std::string> skipped;  ///< the backend cannot run it (unsupported): why
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
  backends::RunOptions ro;
  ro.max_steps = co.max_steps;
  ro.threads = co.threads;
  const bool oracle = backend_name == "oracle";
  for (const SeedCase& c : ref.cases) {
    auto out = backends::run_program(*backend, p, c.inputs, ro);
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
  if (!lowered) {
    ++checks;
    return !unsupported(lowered.error());
  }
  return shows_finding(ctx, *lowered, ref, backend, co, checks);
}

// Runs `p` on the oracle and on each backend, and records the first difference in `res`.
void compare_all(Context& ctx, const Program& p, const Reference& ref, const CheckOptions& co,
                 ProgramCheckResult& res) {
  res.seeds_run = static_cast<int>(ref.cases.size());
  for (const std::string& b : backends_of(co)) {
    Verdict v = run_and_compare(ctx, p, ref, b, co);
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
    return;
  }
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
  auto lowered = schedule::lower(ctx, program.root, options.lower);
  if (!lowered) {
    if (unsupported(lowered.error())) {
      res.unsupported = "the lowering cannot take it: " + lowered.error().message;
      return res;
    }
    res.kind =
        invalid_kernel(lowered.error()) ? FindingKind::VerifierFailure : FindingKind::RewriteError;
    res.lowering_wrong = true;
    res.details = "the lowering fails: " + lowered.error().message;
    return res;
  }
  res.kernels = lowered->kernels.size();
  res.simplified = schedule::simplify_program(ctx, *lowered, co.simplify);
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
  return res;
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
  simplifier::SimplifyOptions traced = co.simplify;
  traced.trace = true;
  simplifier::SimplifyResult run = simplifier::simplify(ctx, lowered.kernels[j].root, traced);
  if (run.steps != run.trace.size()) return "";
  Program p = lowered;
  for (size_t k = 0; k < j; ++k) p.kernels[k] = simplified.kernels[k];
  auto bad = [&](uint64_t steps) {
    simplifier::SimplifyOptions stopped = co.simplify;
    stopped.stop_after = steps;
    p.kernels[j].root = simplifier::simplify(ctx, lowered.kernels[j].root, stopped).root;
    return shows_finding(ctx, p, ref, backend, co, sig.checks_run);
  };
  const uint64_t steps = run.trace.size();
  if (steps == 0 || !bad(steps)) return "";
  uint64_t good = 0, worse = steps;  // invariant: !bad(good) (kernel j as lowered), bad(worse)
  while (worse - good > 1) {
    uint64_t mid = good + (worse - good) / 2;
    (bad(mid) ? worse : good) = mid;
  }
  sig.by_trace = true;
  sig.step = worse;
  return run.trace[worse - 1].rule;
}

}  // namespace

Signature sign_program_finding(Context& ctx, const Kernel& program,
                               const ProgramCheckOptions& options,
                               const ProgramCheckResult& found) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = found.backend;
  sig.culprit = "unknown";
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
        break;
      }
    }
    return sig;
  }

  auto lowered = schedule::lower(ctx, program.root, options.lower);
  if (lowered) {
    const schedule::SimplifiedProgram all = schedule::simplify_program(ctx, *lowered, co.simplify);
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
  // Fallback: the first rule whose disabling alone makes the program check clean.
  for (const std::string& rule : bisection_order()) {
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
