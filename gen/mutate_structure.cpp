// The mutators that add structure (gen/mutators.def): wrap-in-reduce (a value becomes a
// REDUCE over a fresh range) and splice (a sub-graph of a donor kernel replaces a value).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <unordered_map>

#include "gen/builder.h"
#include "gen/mutators.h"
#include "ir/analysis.h"
#include "ir/graph.h"

namespace uopfuzz::gen::mutation {

using namespace ir;

std::optional<Change> wrap_in_reduce(Context& ctx, const std::vector<UOp>& topo, Entropy& e,
                                     const GenPolicy& p, const MutationKnobs& knobs) {
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (value_dtype(u.child().dtype())) uses.push_back(u);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp v = u.child();
  const DType dt = v.dtype();
  const int64_t trips = e.chance(knobs.p_empty_reduce) ? 0 : e.between(1, knobs.max_reduce_trips);
  // A policy without ends 0 or 1 (a simplifier declines them, gen/declines.h) gets none here.
  if ((trips == 0 && p.p_const_end_zero <= 0) || (trips == 1 && p.p_const_end_one <= 0))
    return std::nullopt;
  Nodes mk(ctx);
  UOp r = ctx.make(Op::Range, dtypes::Index, {ctx.const_int(dtypes::Index, trips)},
                   RangeArg{{fresh_axis(topo)}, AxisType::Reduce});
  Op op = Op::Add;
  UOp body = v;
  std::string shape;
  switch (e.below(4)) {
    case 0:
      op = std::array{Op::Add, Op::Mul, Op::Max, Op::Min}[e.below(4)];
      shape = "unparented";
      break;
    case 1: {
      UOp cut = ctx.const_int(dtypes::Index, e.between(-1, trips + 1));
      const bool upper = e.chance(knobs.p_bound_above);
      body = mk.where(mk.lt(r, cut), upper ? v : mk.zero(dt), upper ? mk.zero(dt) : v);
      shape = upper ? "bounded above" : "bounded below";
      break;
    }
    case 2:
      body = ctx.alu(Op::Add, {v, mk.convert(dt, r)});
      shape = "plus the range";
      break;
    default:
      body =
          ctx.alu(Op::Mul,
                  {v, mk.convert(dt, mk.lt(r, ctx.const_int(dtypes::Index, e.between(0, trips))))});
      shape = "times a casted bound";
      break;
  }
  UOp red = ctx.make(Op::Reduce, dt, {body, r}, ReduceArg{op});
  return Change{
      u.user, with_src(ctx, u.user, u.slot, red),
      fmt::format("a value wrapped in a REDUCE {} over {} ({})", op_name(op), trips, shape)};
}

/// Copies a range-free sub-graph of a donor, with its buffers, VARs and range axes renumbered
/// past the parent's so that nothing merges by accident.
class Splicer {
 public:
  Splicer(Context& ctx, const std::vector<UOp>& parent_topo, const Kernel& donor)
      : ctx_(ctx), donor_(donor) {
    for (UOp u : parent_topo) {
      if (u.op() == Op::Param) slot_offset_ = std::max(slot_offset_, u.arg<ParamArg>().slot + 1);
      if (u.op() == Op::Var) names_.insert(u.arg<VarArg>().name);
    }
    axis_offset_ = fresh_axis(parent_topo);
  }

  UOp copy(UOp root) {
    for (UOp u : toposort(root)) {
      std::vector<UOp> src;
      for (UOp s : u.src()) src.push_back(done_.at(s));
      Arg arg = u.arg();
      if (u.op() == Op::Param) {
        ParamArg pa = u.arg<ParamArg>();
        pa.slot += slot_offset_;
        arg = pa;
      } else if (u.op() == Op::Var) {
        VarArg va = u.arg<VarArg>();
        const std::string old = va.name;
        for (int k = 0; names_.count(va.name); ++k) va.name = fmt::format("v{}", k);
        names_.insert(va.name);
        for (const auto& [name, value] : donor_.header.vars)
          if (name == old) vars_.emplace_back(va.name, value);
        arg = va;
      } else if (u.op() == Op::Range) {
        RangeArg ra = u.arg<RangeArg>();
        if (!ra.axis.empty()) ra.axis[0] += axis_offset_;
        arg = ra;
      }
      done_[u] = ctx_.make(u.op(), u.dtype(), std::move(src), std::move(arg));
    }
    return done_.at(root);
  }
  std::vector<std::pair<std::string, int64_t>> vars() const { return vars_; }

 private:
  Context& ctx_;
  const Kernel& donor_;
  int slot_offset_ = 0;
  int32_t axis_offset_ = 0;
  std::set<std::string> names_;
  std::unordered_map<UOp, UOp, UOpHash> done_;
  std::vector<std::pair<std::string, int64_t>> vars_;
};

std::optional<Change> splice(Context& ctx, const std::vector<UOp>& topo, const Kernel& donor,
                             Entropy& e, const MutationKnobs& knobs) {
  const std::vector<UOp> dtopo = toposort(donor.root);
  const NodeMap<RangeSet> open = open_ranges(dtopo);
  // Per node: whether its sub-graph reads an output buffer, and its size counted as a tree
  // (an upper bound of its node count: shared sources count once per use).
  NodeMap<bool> reads_output(dtopo.size());
  NodeMap<size_t> size(dtopo.size());
  for (UOp u : dtopo) {
    bool reads = u.op() == Op::Param && u.arg<ParamArg>().output;
    size_t n = 1;
    for (UOp s : u.src()) {
      reads |= reads_output.at(s);
      n = std::min<size_t>(n + size.at(s), 1000);
    }
    reads_output[u] = reads;
    size[u] = n;
  }
  std::vector<UOp> pieces;
  for (UOp u : dtopo) {
    if (!(op_in(u.op(), Alu) || u.op() == Op::Reduce) || u.dtype().is_index() ||
        !open.at(u).empty() || is_gated_index(u))
      continue;
    if (!reads_output.at(u) && size.at(u) <= knobs.max_splice_nodes) pieces.push_back(u);
  }
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (!u.child().dtype().is_index()) uses.push_back(u);
  if (pieces.empty() || uses.empty()) return std::nullopt;
  const UOp piece = draw(e, pieces);
  const Use u = draw(e, uses);
  Splicer s(ctx, topo, donor);
  UOp copied = Nodes(ctx).convert(u.child().dtype(), s.copy(piece));
  return Change{u.user, with_src(ctx, u.user, u.slot, copied),
                fmt::format("a {}-node {} spliced in for a {}", toposort(piece).size(),
                            op_name(piece.op()), op_name(u.child().op())),
                s.vars()};
}

}  // namespace uopfuzz::gen::mutation
