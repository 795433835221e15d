// BUFFERIZE folds (buffers.h): constants need no buffer, an INDEX at a buffer's own ranges
// is its value, and the flatten stage that makes a multi-range buffer one linear range.

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "schedule/buffers.h"

namespace uopfuzz::schedule {

using ir::Bindings;
using ir::Op;
using ir::Pat;
using ir::RewriteCtx;
using ir::UOp;

BufferRead buffer_read(UOp index) {
  BufferRead r;
  for (size_t k = 1; k < index.num_src(); ++k) {
    UOp i = index.src(k);
    if (i.op() == Op::Invalid) {
      r.invalid = true;
      r.idx.push_back(i);
    } else if (i.op() == Op::Where && i.src(2).op() == Op::Invalid) {
      r.gate = i.src(0);  // one gate for every index of a read (bufferize.h)
      r.idx.push_back(i.src(1));
    } else {
      r.idx.push_back(i);
    }
  }
  return r;
}

UOp gated_value(ir::Context& ctx, const BufferRead& r, UOp value) {
  UOp zero = ctx.const_int(value.dtype(), 0);
  if (r.invalid) return zero;
  if (!r.gate) return value;
  return ctx.alu(Op::Where, {r.gate, value, zero});
}

UOp gated_index(ir::Context& ctx, const BufferRead& r, UOp i) {
  if (r.invalid) return ctx.invalid();
  if (!r.gate) return i;
  return ctx.alu(Op::Where, {r.gate, i, ctx.invalid()});
}

namespace {

bool removable(UOp b) {
  return b.arg<ir::BufferizeArg>().removable;
}

/// The reader's indices are the BUFFERIZE's own ranges, the same nodes in the same order
/// (a gated index is a WHERE, never one of them). Bugged: any ranges of the same count. A
/// buffer of no ranges is not folded: a scalar buffer stays (dead axis removal made it).
bool reads_at_own_ranges(const Bindings& b, const LoweringBugSet& bugs) {
  UOp buf = b["b"], index = b["i"];
  if (index.num_src() != buf.num_src() || buf.num_src() == 1) return false;
  const bool any = bugs.count(LoweringBug::IdentityAnyRanges) > 0;
  bool looped = false;
  for (size_t k = 1; k < index.num_src(); ++k) {
    UOp i = index.src(k), r = buf.src(k);
    looped = looped || r.op() == Op::Range;
    if (i == r) continue;
    if (!(any && i.op() == r.op() && (r.op() == Op::Range || r.op() == Op::Const))) return false;
  }
  // Only CONST ranges: a one-element buffer read at 0 from a reader's loop is a broadcast,
  // not an identity; folding it recomputes the value per element (a reduce kept for a
  // broadcast would be recomputed: found by the latency check). The decision tree decides.
  return looped;
}

const LoweringBugSet& bugs_of(RewriteCtx& rc) {
  return rc.get<BufferRuleState>().options->bugs;
}

}  // namespace

ir::RuleSet buffer_fold_rules() {
  ir::RuleSet r;
  Pat c = Pat::cvar("c");
  Pat buf = Pat::op(Op::Bufferize).named("b");
  r.add("bufferize_const",  // BUFFERIZE(CONST c, r...) -> CONST c (outputs keep their store)
        Pat::op(Op::Bufferize, {c}).rest().named("b").when([](const Bindings& b) {
          return removable(b["b"]);
        }),
        [](RewriteCtx&, const Bindings& b) { return b["c"]; });
  r.add("index_const",  // INDEX(CONST c, i...) -> CONST c (0 where the read is gated off)
        Pat::op(Op::Index, {c}).rest().named("i"), [](RewriteCtx& rc, const Bindings& b) {
          return gated_value(rc.ctx, buffer_read(b["i"]), b["c"]);
        });
  r.add("index_invalid",  // INDEX(BUFFERIZE, .., INVALID, ..) -> 0 (the read is off everywhere)
        Pat::op(Op::Index, {buf}).rest().named("i").when([](const Bindings& b) {
          return buffer_read(b["i"]).invalid;
        }),
        [](RewriteCtx& rc, const Bindings& b) { return rc.ctx.const_int(b["i"].dtype(), 0); });
  r.add("index_bufferize_identity",  // INDEX(BUFFERIZE(x, r...), r...) -> x
        Pat::op(Op::Index, {buf}).rest().named("i"), [](RewriteCtx& rc, const Bindings& b) {
          return reads_at_own_ranges(b, bugs_of(rc)) ? b["b"].src(0) : UOp();
        });
  return r;
}

namespace {

/// The sizes of a BUFFERIZE's ranges, or nothing if one has a symbolic end.
std::optional<ir::Shape> static_shape(UOp b) {
  ir::Shape shape;
  for (size_t k = 1; k < b.num_src(); ++k) {
    UOp r = b.src(k);
    if (r.op() == Op::Const) {
      shape.push_back(1);
    } else if (r.op() == Op::Range && r.src(0).op() == Op::Const) {
      shape.push_back(r.src(0).const_value().i);
    } else {
      return std::nullopt;
    }
  }
  return shape;
}

bool flattens(UOp b) {
  return b.op() == Op::Bufferize && removable(b) && b.num_src() > 2 && static_shape(b);
}

int32_t next_axis(const std::vector<UOp>& topo) {
  int32_t next = 0;
  for (UOp u : topo)
    if (u.op() == Op::Range)
      for (int32_t a : u.arg<ir::RangeArg>().axis) next = std::max(next, a + 1);
  return next;
}

UOp index_const(ir::Context& ctx, int64_t v) {
  return ctx.const_int(ir::dtypes::Index, v);
}

/// `u` with each INDEX's index expressions run through the symbolic rules again (after a
/// substitution made them (lin // s) % n sums).
UOp simplify_indices(IndexSimplifier& simplify, UOp root) {
  ir::Context& ctx = simplify.ctx();
  std::unordered_map<UOp, UOp, ir::UOpHash> out;
  for (UOp u : ir::toposort(root)) {
    std::vector<UOp> src;
    for (UOp s : u.src()) src.push_back(out.at(s));
    if (u.op() == Op::Index)
      for (size_t k = 1; k < src.size(); ++k) {
        UOp i = src[k];
        const bool gated = i.op() == Op::Where && i.src(2).op() == Op::Invalid;
        src[k] = gated ? ctx.alu(Op::Where, {simplify(i.src(0)), simplify(i.src(1)), i.src(2)})
                       : simplify(i);
      }
    out[u] = src == std::vector<UOp>(u.src().begin(), u.src().end())
                 ? u
                 : ctx.make(u.op(), u.dtype(), std::move(src), u.arg(), u.shape());
  }
  return out.at(root);
}

}  // namespace

UOp flatten_bufferizes(IndexSimplifier& simplify, UOp graph,
                       std::map<std::string, uint64_t>& hits) {
  ir::Context& ctx = simplify.ctx();
  const std::vector<UOp> topo = ir::toposort(graph);
  int32_t axis = next_axis(topo);
  std::unordered_map<UOp, UOp, ir::UOpHash> out;
  for (UOp u : topo) {
    std::vector<UOp> src;
    for (UOp s : u.src()) src.push_back(out.at(s));
    if (flattens(u)) {
      const ir::Shape shape = *static_shape(u);
      const std::vector<int64_t> strides = ir::row_major_strides(shape);
      ir::RangeArg arg;
      arg.axis = {axis++};
      arg.type = ir::AxisType::Loop;
      UOp lin = ctx.make(Op::Range, ir::dtypes::Index, {index_const(ctx, ir::numel(shape))}, arg);
      std::unordered_map<UOp, UOp, ir::UOpHash> at;
      for (size_t k = 1; k < u.num_src(); ++k) {
        if (u.src(k).op() != Op::Range) continue;
        UOp v = ctx.alu(Op::FloorDiv, {lin, index_const(ctx, strides[k - 1])});
        if (k > 1) v = ctx.alu(Op::FloorMod, {v, index_const(ctx, shape[k - 1])});
        at.emplace(u.src(k), simplify(v));
      }
      UOp value = simplify_indices(simplify, ir::substitute(ctx, src[0], at));
      out[u] = ctx.make(Op::Bufferize, u.dtype(), {value, lin}, u.arg());
      ++hits[kFlattenRule];
    } else if (u.op() == Op::Index && flattens(u.src(0))) {
      const ir::Shape shape = *static_shape(u.src(0));
      const std::vector<int64_t> strides = ir::row_major_strides(shape);
      BufferRead r = buffer_read(ctx.make(Op::Index, u.dtype(), src));
      UOp sum = index_const(ctx, 0);
      for (size_t k = 0; k < r.idx.size(); ++k)
        if (!r.invalid)
          sum = ctx.alu(Op::Add, {sum, ctx.alu(Op::Mul, {r.idx[k], index_const(ctx, strides[k])})});
      out[u] = ctx.make(Op::Index, u.dtype(), {src[0], gated_index(ctx, r, simplify(sum))});
    } else {
      out[u] = src == std::vector<UOp>(u.src().begin(), u.src().end())
                   ? u
                   : ctx.make(u.op(), u.dtype(), std::move(src), u.arg(), u.shape());
    }
  }
  return out.at(graph);
}

}  // namespace uopfuzz::schedule
