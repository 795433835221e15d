#include "reduce/predicates.h"

#include <algorithm>

#include "oracle/interpreter.h"

namespace uopfuzz::reduce {

bool original_is_defined(const ir::Kernel& k, const check::CheckOptions& opts, uint64_t max_steps) {
  auto program = oracle::Program::compile(k.root);
  if (!program) return false;
  oracle::RunOptions ro;
  ro.max_steps = max_steps;
  for (int s = 0; s < opts.seeds; ++s) {
    oracle::Inputs in =
        oracle::make_inputs(k, opts.base_seed + static_cast<uint64_t>(s), opts.vars);
    auto run = program->run(in, ro);
    if (!run || run->status != oracle::RunStatus::Ok) return false;
  }
  return true;
}

namespace {

// Checks a candidate the way both predicates need: in a fresh Context (the answer depends
// on the kernel alone), refusing it when its own original is undefined. Calls `verdict`
// with the check's result and the Context the candidate lives in.
template <class Verdict>
Interesting on_defined_candidates(const check::CheckOptions& opts, uint64_t max_steps,
                                  Verdict verdict) {
  check::CheckOptions o = opts;
  o.max_steps = std::min(o.max_steps, max_steps);
  return [o, verdict](const ir::Kernel& k) {
    ir::Context ctx;
    ir::Kernel copy = clone_kernel(ctx, k);
    if (!original_is_defined(copy, o, o.max_steps)) return false;
    return verdict(ctx, copy, o, check::check_kernel(ctx, copy, o));
  };
}

}  // namespace

Interesting keeps_finding(const check::CheckOptions& opts, check::FindingKind kind,
                          uint64_t max_steps) {
  return on_defined_candidates(opts, max_steps,
                               [kind](ir::Context&, const ir::Kernel&, const check::CheckOptions&,
                                      const check::CheckResult& r) { return r.kind == kind; });
}

Interesting keeps_signature(const check::CheckOptions& opts, const check::Signature& signature,
                            uint64_t max_steps) {
  return on_defined_candidates(
      opts, max_steps,
      [signature](ir::Context& ctx, const ir::Kernel& k, const check::CheckOptions& o,
                  const check::CheckResult& r) {
        return r.kind == signature.kind &&
               check::signature_of(ctx, k, o, r, r.backend).text() == signature.text();
      });
}

FindingReduction reduce_finding(ir::Context& ctx, const ir::Kernel& k,
                                const check::CheckOptions& opts, const ReduceOptions& options,
                                uint64_t max_steps) {
  FindingReduction fr;
  check::CheckResult found = check::check_kernel(ctx, k, opts);
  fr.kind = found.kind;
  fr.details = found.details;
  if (found.kind == check::FindingKind::None) {
    fr.result.kernel = k;
    fr.result.start_interesting = false;
    fr.result.start_nodes = fr.result.final_nodes = node_count(k.root);
    return fr;
  }
  fr.result = reduce(ctx, k, keeps_finding(opts, found.kind, max_steps), options);
  return fr;
}

}  // namespace uopfuzz::reduce
