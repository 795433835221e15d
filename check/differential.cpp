#include "check/differential.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string_view>

#include "backends/float_sums.h"
#include "backends/registry.h"
#include "check/bounds_check.h"
#include "check/idempotence.h"
#include "check/pipeline_check.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::check {

using namespace ir;

std::string_view finding_kind_name(FindingKind k) {
  switch (k) {
    case FindingKind::None: return "none";
    case FindingKind::Mismatch: return "mismatch";
    case FindingKind::UbIntroduced: return "ub-introduced";
    case FindingKind::VerifierFailure: return "verifier-failure";
    case FindingKind::NonConvergence: return "non-convergence";
    case FindingKind::RewriteError: return "rewrite-error";
    case FindingKind::Crash: return "crash";
    case FindingKind::Timeout: return "timeout";
    case FindingKind::BackendError: return "backend-error";
    case FindingKind::Latency: return "latency";
    case FindingKind::RewriteStepLimit: return "rewrite-step-limit";
    case FindingKind::NotIdempotent: return "not-idempotent";
    case FindingKind::Protocol: return "protocol";
    case FindingKind::UnsoundBounds: return "unsound-bounds";
  }
  return "?";
}

namespace {

// Position of a float on the integer line (monotonic, +0 and -0 adjacent), in the
// output dtype's own precision.
int64_t ulp_position(DType dt, double v) {
  // A negative float of magnitude bits m sits at -m - 1, so -0 is at -1, next to +0.
  if (dt.bytes() == 2) {
    int64_t b = half_bits(v);
    return (b & 0x8000) ? -(b & 0x7fff) - 1 : b;
  }
  if (dt.bytes() == 4) {
    float f = static_cast<float>(v);
    int32_t b;
    std::memcpy(&b, &f, 4);
    return b < 0 ? -int64_t{b & 0x7fffffff} - 1 : b;
  }
  int64_t b;
  std::memcpy(&b, &v, 8);
  return b < 0 ? -(b & 0x7fffffffffffffff) - 1 : b;
}

bool agrees(DType dt, Value want, Value got, Tolerance tol) {
  if (same_bits(want, got)) return true;
  if (!dt.is_float()) return false;
  if (tol.zero_sign_free && want.f == 0 && got.f == 0) return true;
  const int ulps = tol.ulps;
  if (ulps <= 0) return false;
  // A NaN only matches a NaN, an infinity only the same infinity (both handled above).
  if (std::isnan(want.f) || std::isnan(got.f) || std::isinf(want.f) || std::isinf(got.f))
    return false;
  int64_t d = ulp_position(dt, want.f) - ulp_position(dt, got.f);
  return (d < 0 ? -d : d) <= ulps;
}

// Two orders of one float sum: NaN matches only NaN; otherwise within the bound.
bool sum_agrees(Value want, Value got, double bound) {
  if (same_bits(want, got)) return true;
  if (std::isnan(want.f) || std::isnan(got.f)) return false;
  if (std::isinf(bound)) return true;
  return std::abs(want.f - got.f) <= bound;  // an infinity is never within a finite bound
}

struct BackendRun {
  std::string name;
  backends::Backend* backend = nullptr;
  std::shared_ptr<backends::Kernel> original, rewrite;
};

}  // namespace

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void add_backend(std::vector<std::string>& backends, const std::string& name) {
  if (std::find(backends.begin(), backends.end(), name) == backends.end()) backends.push_back(name);
}

bool agrees_at(const Buffer& want, size_t i, Value got, Tolerance tol) {
  if (tol.sum_bounds && i < tol.sum_bounds->size())
    return sum_agrees(want.get(i), got, (*tol.sum_bounds)[i]);
  return agrees(want.dtype(), want.get(i), got, tol);
}

std::optional<size_t> first_difference(const Buffer& want, const Buffer* got, Tolerance tol) {
  for (size_t i = 0; i < want.size(); ++i) {
    // An output the rewrite no longer writes reads as its initial zero.
    Value g = got && i < got->size() ? got->get(i) : Value::of_int(0);
    if (!agrees_at(want, i, g, tol)) return i;
  }
  return std::nullopt;
}

Tolerance OutputTolerance::at(int slot) const {
  Tolerance t = declared;
  auto b = sum_bounds.find(slot);
  t.sum_bounds = b == sum_bounds.end() ? nullptr : &b->second;
  return t;
}

Result<OutputTolerance> output_tolerance(Context& ctx, backends::Backend& backend, UOp graph,
                                         const oracle::Inputs& inputs) {
  OutputTolerance t;
  t.declared = Tolerance(backend.tolerance_ulps(graph), !backend.caps().signed_zeros);
  if (backend.caps().reassociates_float_sums) {
    auto b = backends::sum_bounds(ctx, graph, inputs);
    if (!b) return Error{"no sum bounds: " + b.error().message};
    t.sum_bounds = std::move(*b);
  }
  return t;
}

namespace {

// Records a mismatch of `got` against the reference outputs `want`; true if one was found.
bool compare(CheckResult& res, uint64_t seed, const std::map<int, Buffer>& want,
             const std::map<int, Buffer>& got, const OutputTolerance& tolerance,
             const std::string& backend, const std::string& what) {
  for (const auto& [slot, w] : want) {
    auto it = got.find(slot);
    const Buffer* g = it == got.end() ? nullptr : &it->second;
    const Tolerance tol = tolerance.at(slot);
    auto i = first_difference(w, g, tol);
    if (!i) continue;
    Value gv = g && *i < g->size() ? g->get(*i) : Value::of_int(0);
    res.kind = FindingKind::Mismatch;
    res.backend = backend;
    res.mismatch =
        Mismatch{seed, slot, *i, format_value(w.dtype(), w.get(*i)), format_value(w.dtype(), gv)};
    res.details = fmt::format("seed {}: out[{}][{}] is {} on the original but {} on {}", seed, slot,
                              *i, res.mismatch->expected, res.mismatch->got, what);
    if (tol.sum_bounds)
      res.details +=
          fmt::format(" (a reassociated sum, allowed {:g} apart)", (*tol.sum_bounds)[*i]);
    return true;
  }
  return false;
}

// Times the original against the rewrite on the latency backend; a confirmed regression
// becomes res's finding.
void check_latency(CheckResult& res, const Kernel& kernel, UOp rewritten, uint64_t seed,
                   const CheckOptions& options) {
  const LatencyOptions& lo = *options.latency;
  backends::Backend* backend = backends::find_backend(lo.backend);
  if (!backend) {
    res.kind = FindingKind::BackendError;
    res.backend = lo.backend;
    res.details = fmt::format("no backend named '{}'", lo.backend);
    return;
  }
  std::shared_ptr<backends::Kernel> compiled[2];
  for (int i = 0; i < 2; ++i) {
    auto k = backend->compile(i == 0 ? kernel.root : rewritten);
    if (!k) {
      if (backends::is_unsupported(k.error())) {
        res.notes.push_back(fmt::format("{}: not timed ({})", lo.backend, k.error().message));
        return;
      }
      res.kind = FindingKind::BackendError;
      res.backend = lo.backend;
      res.details = fmt::format("the {} does not compile on {}: {}",
                                i == 0 ? "original" : "rewrite", lo.backend, k.error().message);
      return;
    }
    compiled[i] = k.value();
  }
  oracle::Inputs in = oracle::make_inputs(kernel, seed, options.vars);
  auto verdict = detect_regression(*compiled[0], *compiled[1], in, lo);
  if (!verdict) {
    res.kind = FindingKind::BackendError;
    res.backend = lo.backend;
    res.details =
        fmt::format("seed {}: timing on {} failed: {}", seed, lo.backend, verdict.error().message);
    return;
  }
  res.latency = std::move(*verdict);
  if (!res.latency->confirmed) return;
  res.kind = FindingKind::Latency;
  res.backend = lo.backend;
  res.details = fmt::format("seed {}: {}", seed, res.latency->summary());
}

}  // namespace

namespace {
void (*g_check_started)() = nullptr;
}  // namespace

void set_check_started_hook(void (*hook)()) {
  g_check_started = hook;
}

CheckResult check_kernel(Context& ctx, const Kernel& kernel, const CheckOptions& options) {
  if (g_check_started) g_check_started();
  // A simplifier at a whole-pipeline stage runs the kernel on its devices itself.
  if (runs_pipeline(options, kernel.root)) return check_kernel_pipeline(ctx, kernel, options);
  CheckResult res;
  simplifier::SimplifyOptions so = options.simplify;
  so.bounds = options.check_bounds;
  sut::Outcome outcome = sut::simplify_with(options.simplifier.get(), ctx, kernel.root, so);
  res.child_seconds = outcome.child_seconds;
  res.protocol_seconds = outcome.protocol_seconds;
  if (outcome.failure) {
    const sut::Failure& f = *outcome.failure;
    res.simplifier_failure = f;
    switch (f.kind) {
      case sut::FailureKind::Unsupported: return res;
      case sut::FailureKind::Crash: res.kind = FindingKind::Crash; break;
      case sut::FailureKind::Hang: res.kind = FindingKind::Timeout; break;
      case sut::FailureKind::Protocol: res.kind = FindingKind::Protocol; break;
    }
    res.backend = options.simplifier->name();
    res.details = fmt::format("the simplifier under test ({}): {}: {}", options.simplifier->name(),
                              sut::failure_kind_name(f.kind), f.reason);
    return res;
  }
  res.simplified = std::move(outcome.result);
  UOp rewritten = res.simplified.root;
  auto errors = verify(rewritten);
  if (!errors.empty()) {
    res.kind = FindingKind::VerifierFailure;
    res.details =
        fmt::format("the rewrite does not verify: [{}] {} at {}", verify_rule_name(errors[0].rule),
                    errors[0].message, describe(errors[0].node));
    return res;
  }
  if (!res.simplified.converged) {
    res.kind = FindingKind::NonConvergence;
    for (const auto& s : res.simplified.stages)
      if (!s.converged)
        res.details = fmt::format("stage {} hit its cap of {} rewrites", s.name,
                                  options.simplify.max_rewrites);
    return res;
  }
  auto original = oracle::Program::compile(kernel.root);
  if (!original) {
    res.kind = FindingKind::RewriteError;
    res.details = "the original does not compile on the oracle: " + original.error().message;
    return res;
  }
  auto rewrite = oracle::Program::compile_verified(rewritten);  // verified above
  if (!rewrite) {
    res.kind = FindingKind::RewriteError;
    res.details = "the rewrite does not compile on the oracle: " + rewrite.error().message;
    return res;
  }
  // The other backends: every one listed, and the sampled ones that pick this graph.
  std::vector<std::string> backend_names;
  for (const std::string& name : options.backends)
    if (name != "oracle") backend_names.push_back(name);
  if (options.sampled.pick)
    for (const std::string& name : options.sampled.names)
      if (options.sampled.pick(name, rewritten != kernel.root, res.simplified.hits))
        add_backend(backend_names, name);
  // Compile both graphs once (kernels are cached by graph).
  std::vector<BackendRun> extra;
  for (const std::string& name : backend_names) {
    BackendRun br{name, backends::find_backend(name), nullptr, nullptr};
    if (!br.backend) {
      res.kind = FindingKind::BackendError;
      res.backend = name;
      res.details = fmt::format("no backend named '{}'", name);
      return res;
    }
    // Both graphs in one call: the cpu compiles them as one module.
    backends::CompileOptions co;
    co.opt_level = options.opt_level;
    const std::array<UOp, 2> graphs{kernel.root, rewritten};
    const auto compile_started = std::chrono::steady_clock::now();
    auto compiled = br.backend->compile_all(graphs, co);
    const double compile_seconds = seconds_since(compile_started);
    res.backend_times.seconds[name] += compile_seconds;
    if (br.backend->caps().opt_levels)
      res.backend_times.compiles.emplace_back(
          fmt::format("{}/{}", name, backends::opt_level_name(co.opt_level)), compile_seconds);
    for (auto [k, slot, what] : {std::tuple{&compiled[0], &br.original, "original"},
                                 std::tuple{&compiled[1], &br.rewrite, "rewrite"}}) {
      if (*k) {
        *slot = k->value();
        continue;
      }
      if (backends::is_unsupported(k->error())) {
        res.notes.push_back(
            fmt::format("{}: the {} is skipped ({})", name, what, k->error().message));
        continue;
      }
      res.kind = FindingKind::BackendError;
      res.backend = name;
      res.details =
          fmt::format("the {} does not compile on {}: {}", what, name, k->error().message);
      return res;
    }
    extra.push_back(std::move(br));
  }

  // A simplifier that declares it does not keep the sign of zero (x+0 -> x) has its
  // rewrite's float outputs compared with +0 matching -0 (SEMANTICS.md, "Comparing results").
  const bool zero_sign_free =
      options.simplifier && options.simplifier->capabilities().zero_sign_free;
  OutputTolerance rewrite_tolerance;
  rewrite_tolerance.declared = Tolerance(0, zero_sign_free);
  oracle::RunOptions ro;
  ro.max_steps = options.max_steps;
  // The bounds the simplifier believes, held against the original's values on every seed;
  // the first wrong one is a finding of its own once the rest checks clean, and the
  // diagnosis of any other finding of its seed.
  const std::vector<sut::ClaimedBounds> claims = std::move(outcome.bounds);
  const std::vector<sut::ClaimedBounds> rewrite_claims = std::move(outcome.rewrite_bounds);
  ro.observe_values = !claims.empty();
  std::optional<BoundsViolation> violation;
  auto diagnose = [&](std::optional<BoundsViolation> seen) {
    if (!seen || violation) return;
    violation = std::move(seen);
    res.unsound_bounds_op = std::string(op_name(violation->node.op()));
  };
  auto with_diagnosis = [&](CheckResult& r) -> CheckResult& {
    if (violation && r.kind != FindingKind::None) r.details += "; " + violation->text;
    return r;
  };
  std::optional<uint64_t>
      clean_seed;  // the first seed both graphs ran without UB: the latency inputs
  backends::RunOptions bro;
  bro.threads = options.threads;
  for (int k = 0; k < options.seeds; ++k) {
    const uint64_t seed = options.base_seed + static_cast<uint64_t>(k);
    oracle::Inputs in = oracle::make_inputs(kernel, seed, options.vars);
    auto a = original->run(in, ro);
    if (!a) {
      res.kind = FindingKind::RewriteError;
      res.details = "the original cannot run: " + a.error().message;
      return res;
    }
    if (k == 0) {
      res.original_ran = true;
      res.original_steps = a->steps;
      res.original_iterations = a->iterations;
    }
    if (a->status != oracle::RunStatus::Ok) {
      ++res.seeds_skipped;  // nothing to compare against
      continue;
    }
    if (ro.observe_values) diagnose(find_unsound_bounds(kernel.root, claims, a->observed));
    ro.observe_values = !rewrite_claims.empty();  // the rewrite's own claims, where made
    auto b = rewrite->run(in, ro);
    if (b && b->status == oracle::RunStatus::Ok && ro.observe_values)
      diagnose(find_unsound_bounds(rewritten, rewrite_claims, b->observed));
    ro.observe_values = !claims.empty();
    if (!b) {
      res.kind = FindingKind::RewriteError;
      res.details = fmt::format("seed {}: the rewrite cannot run: {}", seed, b.error().message);
      return res;
    }
    if (b->status == oracle::RunStatus::Ub) {
      res.kind = FindingKind::UbIntroduced;
      res.details = fmt::format("seed {}: the rewrite has undefined behaviour at {}: {}", seed,
                                describe(b->ub->node), b->ub->what);
      return with_diagnosis(res);
    }
    if (b->status == oracle::RunStatus::StepLimit) {
      res.kind = FindingKind::RewriteStepLimit;
      res.details = fmt::format(
          "seed {}: the rewrite ran past the step limit of {} where the original finished in {} "
          "steps",
          seed, options.max_steps, a->steps);
      return with_diagnosis(res);
    }
    ++res.seeds_run;
    if (!clean_seed) clean_seed = seed;
    if (compare(res, seed, a->outputs, b->outputs, rewrite_tolerance, "oracle", "the rewrite"))
      return with_diagnosis(res);
    for (BackendRun& br : extra) {
      for (auto [compiled, what, graph] :
           {std::tuple{br.original.get(), "the original", kernel.root},
            std::tuple{br.rewrite.get(), "the rewrite", rewritten}}) {
        if (!compiled) continue;  // skipped: unsupported (noted)
        // A rewrite that left the graph alone is the same kernel: it ran as the original.
        if (compiled == br.rewrite.get() && br.rewrite == br.original &&
            std::string_view(what) == "the rewrite")
          continue;
        const auto run_started = std::chrono::steady_clock::now();
        auto out = compiled->run(in, bro);
        res.backend_times.seconds[br.name] += seconds_since(run_started);
        if (!out) {
          res.kind = FindingKind::BackendError;
          res.backend = br.name;
          res.details = fmt::format("seed {}: {} cannot run on {}: {}", seed, what, br.name,
                                    out.error().message);
          return res;
        }
        // The oracle ran the rewrite bit for bit like the original (compared above), so
        // the graph's own sum bounds hold against the original's outputs too.
        auto tol = output_tolerance(ctx, *br.backend, graph, in);
        if (tol && graph == rewritten) tol->declared.zero_sign_free |= zero_sign_free;
        if (!tol) {
          res.kind = FindingKind::BackendError;
          res.backend = br.name;
          res.details =
              fmt::format("seed {}: {} on {}: {}", seed, what, br.name, tol.error().message);
          return res;
        }
        if (compare(res, seed, a->outputs, out->outputs, *tol, br.name,
                    fmt::format("{} on {}", what, br.name)))
          return res;
      }
    }
  }
  // Results agree; a wrong fact is still wrong, whether or not a rule used it.
  if (violation) {
    res.kind = FindingKind::UnsoundBounds;
    res.backend = "oracle";
    res.details =
        fmt::format("{} believes a wrong fact: {}",
                    options.simplifier ? options.simplifier->name() : "builtin", violation->text);
    return res;
  }
  // Results agree: is the rewrite a fixed point (a second simplify changes nothing)? An
  // external simplifier is asked again only when it can run its final stage alone.
  if (auto why = not_idempotent(ctx, res.simplified, options.simplify, options.simplifier.get())) {
    res.kind = FindingKind::NotIdempotent;
    res.details = *why;
    return res;
  }
  // Is the rewrite slower? A graph the simplifier left alone cannot be.
  if (options.latency && clean_seed && rewritten != kernel.root)
    check_latency(res, kernel, rewritten, *clean_seed, options);
  return res;
}

}  // namespace uopfuzz::check
