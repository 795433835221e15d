// The load-collapse rules: pm_reduce_load_collapse (the inner rules of reduce_collapse
// plus the gather) and pm_load_collapse (a sum over one range through them, and the lift
// that keeps additions off loaded indexes).
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "simplifier/reduce_helpers.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

// sum_r where(idx != r, 0, e) -> where(0 <= idx < N, e[r := idx], 0), loads gated. With
// the range behind a lossless cast, idx has the cast's dtype and is compared as an index.
UOp gather_ne(RewriteCtx& rc, const Bindings& b) {
  Context& ctx = rc.ctx;
  SimplifyState& st = state(rc);
  UOp red = b["red"], r = b["r"], idx = b["idx"], e = b["e"];
  if (UOp rcast = b["rcast"]) {
    if (!lossless_range_cast(rc, rcast)) return UOp();  // CAST(r) == idx for several r
    idx = ctx.make(Op::Cast, r.dtype(), {idx});
  }
  UOp n = r.src(0);
  const bool unchecked = st.bugs.has(Bug::GatherNoBoundsCheck);  // planted: no [0, N) check
  // e is evaluated at r := idx only when 0 <= idx < N; otherwise at r := 0, a point the
  // original evaluated too (WHERE evaluates both sides, so e must never see an index the
  // loop never produced). That needs N >= 1: with no iteration the original evaluated
  // nothing.
  if (!unchecked && st.analysis.vmin(n) < 1) return UOp();
  UOp valid, at;
  if (unchecked) {
    valid = ctx.const_bool(true), at = idx;
  } else {
    valid = ctx.alu(Op::And,
                    {ctx.alu(Op::CmpLt, {idx_const(ctx, -1), idx}), ctx.alu(Op::CmpLt, {idx, n})});
    at = ctx.alu(Op::Where, {valid, idx, idx_const(ctx, 0)});
  }
  // e[r := at], every load whose address depends on r gated by the validity as well. A
  // gated-off load reads 0, a value the original may never have loaded: where an op above
  // one can be undefined on it (a float-to-int cast of 0 - 1, a division by it), the
  // always-evaluated e would be undefined where the original was not, so nothing is done.
  std::vector<UOp> topo = toposort(e);
  auto open = open_ranges(topo);
  std::unordered_map<UOp, UOp, UOpHash> done;
  std::unordered_set<UOp, UOpHash> reads_gated;  // nodes that may hold a gated-off load's 0
  for (UOp u : topo) {
    if (u == r) {
      done[u] = at;
      continue;
    }
    std::vector<UOp> src;
    bool changed = false;
    for (UOp s : u.src()) {
      src.push_back(done.at(s));
      changed |= src.back() != s;
      if (reads_gated.count(s)) reads_gated.insert(u);
    }
    if (reads_gated.count(u) && may_fault_on_some_operand(u)) return UOp();
    if (u.op() == Op::Load && !unchecked && in_set(open[u], r)) reads_gated.insert(u);
    if (u.op() == Op::Index && !unchecked && in_set(open[u], r)) {
      UOp i = src[1];
      if (i.op() == Op::Where && i.src(2).op() == Op::Invalid)
        src[1] = ctx.alu(Op::Where, {ctx.alu(Op::And, {valid, i.src(0)}), i.src(1), i.src(2)});
      else
        src[1] = ctx.alu(Op::Where, {valid, i, ctx.invalid()});
      changed = true;
    }
    done[u] = changed ? ctx.make(u.op(), u.dtype(), std::move(src), u.arg()) : u;
  }
  UOp term = done.at(e);
  const DType dt = red.dtype();
  if (dt.is_float()) term = ctx.alu(Op::Add, {term, zero(ctx, dt)});  // the sum is never -0
  return ctx.alu(Op::Where, {valid, term, zero(ctx, dt)});
}

}  // namespace

RuleSet pm_reduce_load_collapse() {
  Pat r = Pat::op(Op::Range).named("r"), idx = Pat::var("idx"), e = Pat::var("e");
  RuleSet rs;
  // (x+y) != c -> x != c-y, y and c without range (also through a cast of x+y)
  rs.add("lift_add_ne", Pat::op(Op::CmpNe).named("n"), [](RewriteCtx& rc, const Bindings& b) {
    UOp n = b["n"];
    for (int k = 0; k < 2; ++k)
      if (UOp out = lift_add(rc, Op::CmpNe, n.src(k), n.src(1 - k), no_range, false)) return out;
    return UOp();
  });
  // sum_r where(idx != r, 0, e) -> where(0 <= idx < N, e[r := idx], 0), loads gated; r may
  // sit behind a cast that keeps every value it takes (tinygrad compares int32(r))
  rs.add(
      "gather_ne",
      sum_r(where(idx != range_or_cast("r", "rcast"), Pat::lit(0), e)).when(no_range_in({"idx"})),
      gather_ne);
  return rs + pm_reduce_collapse();
}

RuleSet pm_load_collapse() {
  RuleSet r;
  // a sum over one range -> a closed form or one access (reduce_collapse with the load rules)
  r.add(
      "load_collapse",
      Pat::op(Op::Reduce, {Pat::var("u"), Pat::op(Op::Range)}).arg(ReduceArg{Op::Add}).named("red"),
      [](RewriteCtx& rc, const Bindings& b) {
        static const RuleSet inner = pm_reduce_load_collapse();
        return collapse(rc, b["red"], inner);
      });
  // (x+y) < c -> x < c-y when x reads memory and y, c do not: no addition on a loaded index
  r.add("lift_add_lt_load", Pat::op(Op::CmpLt, {Pat::var("a"), Pat::var("c")}),
        [](RewriteCtx& rc, const Bindings& b) {
          return lift_add(rc, Op::CmpLt, b["a"], b["c"], no_load, true);
        });
  return r;
}

}  // namespace uopfuzz::simplifier
