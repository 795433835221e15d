#include "check/differential.h"

#include <fmt/format.h>

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
  }
  return "?";
}

CheckResult check_kernel(Context& ctx, const Kernel& kernel, const CheckOptions& options) {
  CheckResult res;
  res.simplified = simplifier::simplify(ctx, kernel.root, options.simplify);
  UOp rewritten = res.simplified.root;
  auto errors = verify(rewritten);
  if (!errors.empty()) {
    res.kind = FindingKind::VerifierFailure;
    res.details = fmt::format("the rewrite does not verify: [{}] {} at {}", verify_rule_name(errors[0].rule),
                              errors[0].message, describe(errors[0].node));
    return res;
  }
  if (!res.simplified.converged) {
    res.kind = FindingKind::NonConvergence;
    for (const auto& s : res.simplified.stages)
      if (!s.converged) res.details = fmt::format("stage {} hit its cap of {} rewrites", s.name, options.simplify.max_rewrites);
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
  oracle::RunOptions ro;
  ro.max_steps = options.max_steps;
  for (int k = 0; k < options.seeds; ++k) {
    const uint64_t seed = options.base_seed + static_cast<uint64_t>(k);
    oracle::Inputs in = oracle::make_inputs(kernel.root, seed, options.vars);
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
    auto b = rewrite->run(in, ro);
    if (!b) {
      res.kind = FindingKind::RewriteError;
      res.details = fmt::format("seed {}: the rewrite cannot run: {}", seed, b.error().message);
      return res;
    }
    if (b->status == oracle::RunStatus::Ub) {
      res.kind = FindingKind::UbIntroduced;
      res.details = fmt::format("seed {}: the rewrite has undefined behaviour at {}: {}", seed, describe(b->ub->node), b->ub->what);
      return res;
    }
    if (b->status == oracle::RunStatus::StepLimit) {
      ++res.seeds_skipped;  // the rewrite may legitimately be slower; not a wrong result
      continue;
    }
    ++res.seeds_run;
    for (const auto& [slot, want] : a->outputs) {
      auto it = b->outputs.find(slot);
      const Buffer* got = it == b->outputs.end() ? nullptr : &it->second;
      for (size_t i = 0; i < want.size(); ++i) {
        // An output the rewrite no longer writes reads as its initial zero.
        Value g = got && i < got->size() ? got->get(i) : Value::of_int(0);
        if (same_bits(want.get(i), g)) continue;
        res.kind = FindingKind::Mismatch;
        res.mismatch = Mismatch{seed, slot, i, format_value(want.dtype(), want.get(i)), format_value(want.dtype(), g)};
        res.details = fmt::format("seed {}: out[{}][{}] is {} on the original but {} on the rewrite", seed, slot, i,
                                  res.mismatch->expected, res.mismatch->got);
        return res;
      }
    }
  }
  return res;
}

}  // namespace uopfuzz::check
