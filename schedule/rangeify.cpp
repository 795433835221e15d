#include "schedule/rangeify.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "ir/graph.h"
#include "ir/rewrite.h"
#include "ir/tensor.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::UOp;

namespace {

UOp index_const(ir::Context& ctx, int64_t v) {
  return ctx.const_int(ir::dtypes::Index, v);
}

UOp both(ir::Context& ctx, UOp a, UOp b) {
  if (!a) return b;
  if (!b) return a;
  return ctx.alu(Op::And, {a, b});
}

bool is_int_division(Op op) {
  return op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod;
}

/// True for a condition the symbolic rules proved always true.
bool always(UOp cond) {
  return cond && cond.is_const() && cond.const_value().u != 0;
}

/// The sources' indices for the output index `out` of a RESHAPE from `in` to `out_shape`:
/// the row-major linear index re-split by the input sizes.
std::vector<UOp> reshape_access(IndexSimplifier& simplify, const std::vector<UOp>& out,
                                const ir::Shape& out_shape, ir::Shape in,
                                const LoweringBugSet& bugs) {
  ir::Context& ctx = simplify.ctx();
  std::vector<int64_t> out_strides = ir::row_major_strides(out_shape);
  UOp linear = index_const(ctx, 0);
  for (size_t i = 0; i < out.size(); ++i)
    linear =
        ctx.alu(Op::Add, {linear, ctx.alu(Op::Mul, {out[i], index_const(ctx, out_strides[i])})});
  linear = simplify(linear);
  ir::Shape split = in;
  if (bugs.contains(LoweringBug::ReshapeSizesReversed)) std::reverse(split.begin(), split.end());
  std::vector<int64_t> strides = ir::row_major_strides(split);
  std::vector<UOp> idx;
  for (size_t i = 0; i < in.size(); ++i) {
    UOp v = ctx.alu(Op::FloorDiv, {linear, index_const(ctx, strides[i])});
    // The first dim needs no wrap: the linear index stays below the element count.
    if (i > 0) v = ctx.alu(Op::FloorMod, {v, index_const(ctx, std::max<int64_t>(split[i], 1))});
    idx.push_back(simplify(v));
  }
  return idx;
}

std::unordered_set<UOp, ir::UOpHash> ranges_in(UOp expr) {
  std::unordered_set<UOp, ir::UOpHash> out;
  for (UOp u : ir::toposort(expr))
    if (u.op() == Op::Range) out.insert(u);
  return out;
}

/// True when every reader's gate uses only ranges that the (shared) index uses.
bool gates_in_scope(const std::vector<Access>& reads) {
  bool differ = std::any_of(reads.begin(), reads.end(),
                            [&](const Access& a) { return a.valid != reads[0].valid; });
  if (!differ) return true;
  std::unordered_set<UOp, ir::UOpHash> open;
  for (UOp i : reads[0].idx) open.merge(ranges_in(i));
  for (const Access& a : reads) {
    if (!a.valid) continue;
    for (UOp r : ranges_in(a.valid))
      if (!open.contains(r)) return false;
  }
  return true;
}

}  // namespace

IndexSimplifier::IndexSimplifier(ir::Context& ctx)
    : ctx_(ctx), state_(std::make_unique<simplifier::SimplifyState>()) {}
IndexSimplifier::~IndexSimplifier() = default;

UOp IndexSimplifier::operator()(UOp expr) {
  static const ir::RuleSet rules = simplifier::symbolic();
  ir::RewriteOptions o;
  o.state = state_.get();
  return ir::graph_rewrite(ctx_, expr, rules, o).root;
}

UOp fresh_range(ir::Context& ctx, RangeifyPlan& plan, int64_t size, ir::AxisType type) {
  // A reduce over a size-0 dim keeps its (empty) range: the result is the identity.
  if (size == 1) return index_const(ctx, 0);
  ir::RangeArg arg;
  arg.axis = {plan.next_axis++};
  arg.type = type;
  return ctx.make(Op::Range, ir::dtypes::Index, {index_const(ctx, size)}, arg);
}

Access source_access(IndexSimplifier& simplify, UOp node, const NodeRanges& nr,
                     const LoweringBugSet& bugs, UOp* own_gate) {
  ir::Context& ctx = simplify.ctx();
  Access a{nr.at.idx, nr.at.valid, nr.at.broadcast};
  if (own_gate) *own_gate = UOp();
  const ir::Shape& in = node.num_src() ? node.src(0).shape() : node.shape();
  switch (ir::op_kind(node.op())) {
    case ir::OpKind::Leaf:
    case ir::OpKind::Structural:
    case ir::OpKind::Alu:
    case ir::OpKind::Schedule: break;
    case ir::OpKind::Tensor:
      switch (ir::tensor_op(node.op())) {
        case ir::TensorOp::Reshape:
          a.idx = reshape_access(simplify, nr.at.idx, node.shape(), in, bugs);
          break;
        case ir::TensorOp::Permute: {
          const auto& order = node.arg<ir::AxesArg>().axes;
          for (size_t i = 0; i < order.size(); ++i)
            a.idx[static_cast<size_t>(order[i])] = nr.at.idx[i];
          break;
        }
        case ir::TensorOp::Expand:
          for (size_t i = 0; i < in.size(); ++i) {
            if (in[i] != 1) continue;
            a.idx[i] = index_const(ctx, 0);
            if (node.shape()[i] != 1) a.broadcast = true;
          }
          break;
        case ir::TensorOp::Pad: {
          const auto& pairs = node.arg<ir::PadArg>().pairs;
          UOp gate;
          for (size_t i = 0; i < in.size(); ++i) {
            auto [before, after] = pairs[i];
            UOp r = nr.at.idx[i];
            // r >= before spelled as tinygrad does, not (r < before): the reduce rules that
            // fold a sum over a gate (bound_lower, bound_two_sided) match this form.
            if (before > 0)
              gate = both(ctx, gate,
                          ctx.alu(Op::CmpNe, {ctx.alu(Op::CmpLt, {r, index_const(ctx, before)}),
                                              ctx.const_bool(true)}));
            if (after > 0) {
              int64_t end = in[i] + before + (bugs.contains(LoweringBug::PadValidOffByOne) ? 1 : 0);
              gate = both(ctx, gate, ctx.alu(Op::CmpLt, {r, index_const(ctx, end)}));
            }
            a.idx[i] = simplify(ctx.alu(Op::Sub, {r, index_const(ctx, before)}));
          }
          if (gate) gate = simplify(gate);
          if (always(gate)) gate = UOp();
          if (own_gate) *own_gate = gate;
          a.valid = both(ctx, a.valid, gate);
          if (a.valid) a.valid = simplify(a.valid);
          break;
        }
        case ir::TensorOp::Shrink: {
          const auto& pairs = node.arg<ir::PadArg>().pairs;
          for (size_t i = 0; i < in.size(); ++i)
            if (pairs[i].first != 0)
              a.idx[i] =
                  simplify(ctx.alu(Op::Add, {nr.at.idx[i], index_const(ctx, pairs[i].first)}));
          break;
        }
        case ir::TensorOp::Flip:
          for (int64_t ax : node.arg<ir::AxesArg>().axes) {
            size_t i = static_cast<size_t>(ax);
            int64_t last = bugs.contains(LoweringBug::FlipNoSizeMinusOne) ? in[i] : in[i] - 1;
            a.idx[i] = simplify(ctx.alu(Op::Sub, {index_const(ctx, last), nr.at.idx[i]}));
          }
          break;
        case ir::TensorOp::ReduceAxis: {
          const auto& axes = node.arg<ir::ReduceAxisArg>().axes;
          for (size_t k = 0; k < axes.size(); ++k)
            a.idx[static_cast<size_t>(axes[k])] = nr.reduce_ranges[k];
          break;
        }
        case ir::TensorOp::Contiguous:
        case ir::TensorOp::Realize: break;
      }
      break;
  }
  return a;
}

Result<RangeifyPlan> rangeify(IndexSimplifier& simplify, UOp root, const LoweringBugSet& bugs) {
  ir::Context& ctx = simplify.ctx();
  RangeifyPlan plan;
  if (root.op() != Op::Realize) return Error{"unsupported: the root is not a REALIZE"};
  plan.outputs.assign(root.src().begin(), root.src().end());
  std::unordered_set<UOp, ir::UOpHash> is_output(plan.outputs.begin(), plan.outputs.end());
  std::vector<UOp> topo = ir::toposort(root);
  std::unordered_map<UOp, std::vector<Access>, ir::UOpHash> reads;

  // Consumers before sources: when a node is reached, every read of it is known.
  for (size_t t = topo.size(); t-- > 0;) {
    UOp n = topo[t];
    if (n == root || ir::numel(n.shape()) == 0) continue;  // nothing of it is ever read
    if (n.op() == Op::Bufferize) return Error{"unsupported: BUFFERIZE in a tensor program"};
    bool realize = is_output.contains(n) || n.op() == Op::Contiguous;
    // Inputs and constants are read where they are; only an output copy needs a kernel.
    if (!realize && (n.op() == Op::Param || n.op() == Op::Const)) continue;
    const std::vector<Access>& r = reads[n];
    if (!realize && r.empty()) continue;  // read only by nodes of no elements
    if (!realize) {
      bool agree =
          std::all_of(r.begin(), r.end(), [&](const Access& a) { return a.idx == r[0].idx; });
      if (!agree && !bugs.contains(LoweringBug::MultiConsumerReuse)) realize = true;
      // The OR of the readers' gates is evaluated wherever the node is: a gate over a range
      // its index does not use (one only its own reader has open) cannot be shared.
      if (!realize && r.size() > 1 && !gates_in_scope(r)) realize = true;
      // Fusion decision: a reduce whose result is broadcast is computed once, not per
      // broadcast element.
      bool broadcast = std::any_of(r.begin(), r.end(), [](const Access& a) { return a.broadcast; });
      if (broadcast && n.op() == Op::ReduceAxis && !n.arg<ir::ReduceAxisArg>().axes.empty())
        realize = true;
    }
    NodeRanges nr;
    if (!realize) {
      nr.at.idx = r[0].idx;
      bool everywhere = false;
      for (const Access& a : r) {
        nr.at.broadcast = nr.at.broadcast || a.broadcast;
        if (!a.valid)
          everywhere = true;
        else if (!everywhere)
          nr.at.valid = nr.at.valid ? ctx.alu(Op::Or, {nr.at.valid, a.valid}) : a.valid;
      }
      if (everywhere) nr.at.valid = UOp();
      if (nr.at.valid) nr.at.valid = simplify(nr.at.valid);
      if (always(nr.at.valid)) nr.at.valid = UOp();
      // Where a read is gated, the loads below read 0 at the gated-off elements: a
      // division there could divide by that 0, so it is computed where it is valid.
      if (nr.at.valid && is_int_division(n.op())) realize = true;
    }
    nr.realized = realize;
    if (realize) {
      nr.at = Access{};
      for (int64_t d : n.shape())
        nr.at.idx.push_back(fresh_range(ctx, plan, d, ir::AxisType::Loop));
    }
    if (n.op() == Op::ReduceAxis)
      for (int64_t ax : n.arg<ir::ReduceAxisArg>().axes)
        nr.reduce_ranges.push_back(fresh_range(ctx, plan, n.src(0).shape()[static_cast<size_t>(ax)],
                                               ir::AxisType::Reduce));
    Access a = source_access(simplify, n, nr, bugs);
    for (UOp s : n.src()) reads[s].push_back(a);
    plan.nodes.emplace(n, std::move(nr));
  }
  return plan;
}

}  // namespace uopfuzz::schedule
