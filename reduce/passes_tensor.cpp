// Reducer passes (passes.def) on tensor programs: dropping outputs, ops, movement ops and
// reduced axes, shrinking dims and constants. Shapes flow from the leaves to the root, so
// an edit that changes a node's shape rebuilds every node above it with its shape
// re-inferred (ir::infer_shape) and the args that name sizes adjusted; an edit that leaves
// some node with no shape is not proposed.
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "reduce/edit.h"
#include "reduce/passes.h"

namespace uopfuzz::reduce {

using namespace ir;

namespace {

using Replacements = std::unordered_map<UOp, UOp, UOpHash>;

bool is_movement(Op op) {
  return op == Op::Reshape || op == Op::Permute || op == Op::Expand || op == Op::Pad ||
         op == Op::Shrink || op == Op::Flip;
}

/// A RESHAPE target for `count` elements close to `target`: one dim scaled (the last that
/// can be), else the source's own shape.
Shape reshape_target(Shape target, int64_t count, const Shape& source) {
  const int64_t old_count = numel(target);
  if (old_count == count) return target;
  for (size_t d = target.size(); d-- > 0;) {
    if (old_count == 0 || target[d] == 0) break;
    const int64_t rest = old_count / target[d];
    if (rest > 0 && count % rest == 0) {
      target[d] = count / rest;
      return target;
    }
  }
  return source;
}

/// `u` rebuilt on the new sources `src` (its old ones changed shape or identity), or null
/// when the op does not fit them. RESHAPE and EXPAND targets follow the dims that changed;
/// a SHRINK window is kept inside a dim that got smaller.
UOp refit(Context& ctx, UOp u, std::vector<UOp> src) {
  const Op op = u.op();
  if (op == Op::Realize) return ctx.make(op, u.dtype(), std::move(src));
  Arg arg = u.arg();
  Shape declared = u.shape();
  const Shape& was = u.src(0).shape();
  const Shape& in = src[0].shape();
  if (in != was) {
    if (op == Op::Reshape) declared = reshape_target(declared, numel(in), in);
    if (op == Op::Expand && in.size() == was.size())
      for (size_t i = 0; i < in.size(); ++i)
        if (in[i] != was[i]) declared[i] = in[i];
    if (op == Op::Shrink && in.size() == was.size()) {
      PadArg window = std::get<PadArg>(arg);
      for (size_t i = 0; i < in.size(); ++i) {
        auto& [begin, end] = window.pairs[i];
        const int64_t width = std::min(end - begin, in[i]);
        begin = std::min(begin, in[i] - width);
        end = begin + width;
      }
      arg = window;
    }
  }
  auto shape = infer_shape(op, src, arg, declared);
  if (!std::holds_alternative<Shape>(shape)) return {};
  return ctx.make(op, u.dtype(), std::move(src), std::move(arg), std::get<Shape>(shape));
}

/// The program under `root` with each key of `with` replaced by its value and every node
/// above rebuilt (refit), or null when some node no longer fits its sources.
UOp rebuild(Context& ctx, UOp root, const Replacements& with) {
  Replacements done = with;
  for (UOp u : toposort(root)) {
    if (done.count(u)) continue;
    std::vector<UOp> src;
    bool changed = false;
    for (UOp s : u.src()) {
      UOp n = done.at(s);
      changed |= n != s;
      src.push_back(n);
    }
    UOp n = changed ? refit(ctx, u, std::move(src)) : u;
    if (!n) return {};
    done.emplace(u, n);
  }
  return done.at(root);
}

/// Adds the program `k` with root `root` (null: nothing), its @output lines kept only
/// where the output they describe still has as many elements as they list, in its dtype.
void push_program(Candidates& out, const Kernel& k, UOp root) {
  if (!root || root == k.root) return;
  Kernel c{k.header, root};
  std::erase_if(c.header.outputs, [&](const ExpectedOutput& o) {
    const auto slot = static_cast<size_t>(o.slot);
    return o.slot < 0 || slot >= root.num_src() ||
           static_cast<int64_t>(o.values.size()) != numel(root.src(slot).shape()) ||
           (slot < k.root.num_src() && k.root.src(slot).dtype() != root.src(slot).dtype());
  });
  out.push_back(std::move(c));
}

void push_rebuilt(Context& ctx, Candidates& out, const Kernel& k, UOp from, UOp to) {
  push_program(out, k, rebuild(ctx, k.root, {{from, to}}));
}

/// `leaf` (a PARAM or CONST) with the shape `shape`.
UOp reshaped_leaf(Context& ctx, UOp leaf, Shape shape) {
  Arg arg = leaf.arg();
  if (leaf.op() == Op::Param) std::get<ParamArg>(arg).size = numel(shape);
  return ctx.make(leaf.op(), leaf.dtype(), {}, std::move(arg), std::move(shape));
}

bool is_op(UOp u) {
  return !op_in(u.op(), Leaf) && u.op() != Op::Realize;
}

}  // namespace

void propose_TensorDropOutput(Context& ctx, const Kernel& k, Candidates& out) {
  const UOp root = k.root;
  if (root.num_src() < 2) return;
  for (size_t i = 0; i < root.num_src(); ++i) {
    std::vector<UOp> kept;
    for (size_t j = 0; j < root.num_src(); ++j)
      if (j != i) kept.push_back(root.src(j));
    Kernel c{k.header, ctx.make(Op::Realize, root.dtype(), std::move(kept))};
    const int dropped = static_cast<int>(i);
    std::erase_if(c.header.outputs, [&](const ExpectedOutput& o) { return o.slot == dropped; });
    for (ExpectedOutput& o : c.header.outputs)
      if (o.slot > dropped) --o.slot;
    out.push_back(std::move(c));
  }
}

void propose_TensorDropOp(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  // Users before sources: replacing a node near the root removes the most.
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!is_op(u)) continue;
    std::vector<UOp> with;
    auto add = [&](UOp s) {
      if (s != u && s.dtype() == u.dtype() && s.shape() == u.shape() &&
          std::find(with.begin(), with.end(), s) == with.end())
        with.push_back(s);
    };
    for (UOp s : u.src()) add(s);  // direct operands first
    std::vector<UOp> below = toposort(u);
    for (auto jt = below.rbegin(); jt != below.rend(); ++jt)
      add(*jt);  // then deeper, nearest first
    for (double v : {0.0, 1.0}) add(tensor::constant(ctx, u.dtype(), v, u.shape()));
    for (UOp s : with) push_rebuilt(ctx, out, k, u, s);
  }
  // An output takes any shape and dtype: each may become any op below it, which drops the
  // conversions and broadcasts that only carried a value to the output's type and shape.
  for (size_t i = 0; i < k.root.num_src(); ++i) {
    std::vector<UOp> below = toposort(k.root.src(i));
    for (auto it = below.rbegin() + 1; it < below.rend(); ++it) {
      if (!is_op(*it) ||
          (it->dtype() == k.root.src(i).dtype() && it->shape() == k.root.src(i).shape()))
        continue;  // a leaf is not worth an output; same type and shape were proposed above
      std::vector<UOp> src(k.root.src().begin(), k.root.src().end());
      src[i] = *it;
      push_program(out, k, ctx.make(Op::Realize, k.root.dtype(), std::move(src)));
    }
  }
}

void propose_TensorDropMovement(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp m = *it;
    if (!is_movement(m.op())) continue;
    UOp source = m.src(0);
    push_rebuilt(ctx, out, k, m, source);
    // Where the users cannot take the source's shape, the same elements under the old
    // shape still drop the movement (a PERMUTE, FLIP, ... becomes a plain RESHAPE).
    if (m.op() != Op::Reshape && numel(source.shape()) == numel(m.shape()))
      push_rebuilt(ctx, out, k, m, tensor::reshape(ctx, source, m.shape()));
  }
}

void propose_TensorDropReduceAxis(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp r = *it;
    if (r.op() != Op::ReduceAxis) continue;
    const ReduceAxisArg& a = r.arg<ReduceAxisArg>();
    for (int64_t axis : a.axes) {
      std::vector<int64_t> kept;
      for (int64_t x : a.axes)
        if (x != axis) kept.push_back(x);
      UOp smaller = tensor::reduce_axis(ctx, r.src(0), a.op, std::move(kept));
      // A quantized reduce may yield another quantized type than it reads: keep the node's.
      if (smaller.dtype() != r.dtype())
        smaller = ctx.make(Op::ReduceAxis, r.dtype(), {r.src(0)}, smaller.arg(), smaller.shape());
      push_rebuilt(ctx, out, k, r, smaller);
    }
  }
}

void propose_TensorShrinkDim(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> leaves;
  for (UOp u : topo)
    if ((u.op() == Op::Param || u.op() == Op::Const) && !u.shape().empty()) leaves.push_back(u);
  for (UOp leaf : leaves) {
    const Shape& shape = leaf.shape();
    std::vector<UOp> same_shape;
    for (UOp other : leaves)
      if (other.shape() == shape) same_shape.push_back(other);
    for (size_t d = 0; d < shape.size(); ++d) {
      std::vector<int64_t> sizes;
      for (int64_t n : {int64_t{1}, shape[d] / 2, shape[d] - 1})
        if (n >= 1 && n < shape[d] && std::find(sizes.begin(), sizes.end(), n) == sizes.end())
          sizes.push_back(n);
      for (int64_t n : sizes) {
        auto smaller = [&](UOp u) {
          Shape s = u.shape();
          s[d] = n;
          return reshaped_leaf(ctx, u, std::move(s));
        };
        // Elementwise ops need equal shapes: every leaf of this shape shrunk at once keeps
        // them equal where one alone would not.
        if (same_shape.size() > 1) {
          Replacements all;
          for (UOp u : same_shape) all.emplace(u, smaller(u));
          push_program(out, k, rebuild(ctx, k.root, all));
        }
        push_rebuilt(ctx, out, k, leaf, smaller(leaf));
      }
    }
  }
}

void propose_TensorConstValue(Context& ctx, const Kernel& k, Candidates& out) {
  for (UOp c : toposort(k.root)) {
    if (c.op() != Op::Const) continue;
    for (UOp v : const_candidates(ctx, c))
      push_rebuilt(ctx, out, k, c,
                   tensor::constant_value(ctx, c.dtype(), v.const_value(), c.shape()));
  }
}

}  // namespace uopfuzz::reduce
