// The tensor-program generator (see tensor_gen.h for the contract): TensorBuilder
// (gen/tensor/builder.h) fills positions top-down from the families of
// gen/tensor_families.def, hard inputs are drawn (gen/tensor/hard_inputs.cpp), then the
// tensor oracle checks the program and repairs it locally.
#include "gen/tensor_gen.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "gen/tensor/builder.h"
#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {

/// `root` with `from` replaced by `to` (the nodes above it rebuilt).
UOp substitute(Context& ctx, UOp root, UOp from, UOp to) {
  NodeMap<UOp> now;
  for (UOp u : toposort(root)) {
    if (u == from) {
      now[u] = to;
      continue;
    }
    std::vector<UOp> src;
    for (UOp s : u.src()) src.push_back(*now.find(s));
    now[u] = ctx.make(u.op(), u.dtype(), std::move(src), u.arg(), u.shape());
  }
  return *now.find(root);
}

/// True when some node of the program is an op that SEMANTICS.md lets be undefined for
/// some operands: an integer division or shift, or a float reaching an integer CAST or
/// BITCAST. Without one no element can be, and the oracle run is skipped (it costs far more
/// than generating, most of all for the large reductions).
bool may_be_undefined(UOp root) {
  for (UOp u : toposort(root)) {
    const Op op = u.op();
    if (op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod ||
        op == Op::Shl || op == Op::Shr)
      return true;
    if ((op == Op::Cast || op == Op::Bitcast) && u.src(0).dtype().is_float() && u.dtype().is_int())
      return true;
  }
  return false;
}

}  // namespace

// CONST 1 is a harmless divisor, shift amount and cast operand.
void check_and_repair_tensor_program(Context& ctx, Kernel& k, const TensorGenPolicy& p,
                                     TensorGenResult& res) {
  if (!p.check) return;
  for (int round = 0;; ++round) {
    // Only the outputs that can be undefined run: seed 0 fills each input slot the same
    // whichever PARAMs the program holds.
    std::vector<UOp> partial;
    for (UOp out : k.root.src())
      if (may_be_undefined(out)) partial.push_back(out);
    if (partial.empty()) return;
    const UOp checked = tensor::realize(ctx, std::move(partial));
    // The program's @input lines (hard inputs) hold on every seed: check with them.
    Kernel view = k;
    view.root = checked;
    auto run = oracle::eval_tensor_program(checked, make_inputs(view, 0));
    if (!run) {
      res.oracle_error = run.error().message;
      return;
    }
    if (run->status != RunStatus::Ub || !run->ub) return;
    if (round >= p.max_repairs) {
      res.still_undefined = true;
      return;
    }
    const UOp bad = run->ub->node;
    k.root = substitute(ctx, k.root, bad, tensor::constant(ctx, bad.dtype(), 1, bad.shape()));
    ++res.repairs;
    res.repaired = true;
  }
}

TensorGenResult generate_tensor_program(Context& ctx, const GenPolicy& policy, Entropy& entropy) {
  TensorGenResult res;
  Kernel& k = res.program;
  k.root = TensorBuilder(ctx, policy.tensor, entropy).build();
  draw_hard_inputs(k, policy.tensor, entropy);
  res.entropy_exhausted = entropy.exhausted();
  k.header.name = "tensor-gen";
  k.header.seed = 0;
  k.header.extra.emplace_back("generator", kTensorGeneratorVersion);
  check_and_repair_tensor_program(ctx, k, policy.tensor, res);
  fit_given_inputs(k);  // a repair may have removed an input an @input line gave
  res.nodes = static_cast<int>(toposort(k.root).size());
  return res;
}

TensorGenResult generate_tensor_program(Context& ctx, const GenPolicy& policy, uint64_t seed) {
  SeedEntropy e(seed);
  TensorGenResult r = generate_tensor_program(ctx, policy, e);
  r.program.header.name = fmt::format("tensor-gen-{}", seed);
  r.program.header.extra.emplace_back("gen-seed", std::to_string(seed));
  return r;
}

}  // namespace uopfuzz::gen
