// pm_reduce_collapse: the inner rules of reduce_collapse (collapse.cpp), which rewrite a
// sum over one range into a closed form. One rule per row, its left-hand side whole in
// the pattern, its gates named (Pat::when); the comment says what it does.
//
// Where these rules are stricter than tinygrad's, SEMANTICS.md is why:
//  - Floats are compared by bits. REDUCE ADD starts from +0, so a sum is never -0 and a
//    sum of zero terms is +0 even when the term is inf or NaN: every "count * v" a rule
//    builds for a float v is `v * count + 0.0`, guarded by `count > 0` unless the count
//    is provably positive, and a float sum is regrouped only where no partial sum of
//    either side can round (exact_float.h): tinygrad reassociates freely, which a
//    bitwise comparison reports. Likewise x * float(bool) becomes a WHERE for a constant
//    x only.
//  - Sized integers wrap and index arithmetic may not overflow: a rule that moves a term
//    across a comparison fires only when the interval analysis proves no wrap.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "simplifier/exact_float.h"
#include "simplifier/reduce_helpers.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

// ---- lifts across comparisons

// u cast to dt; a round trip cast(cast(z, t), dt) with z of dtype dt is z itself when z's
// values fit t (so r.cast(int32).cast(index) is r again and the bound rules see r).
UOp cast_to(RewriteCtx& rc, UOp u, DType dt) {
  if (u.dtype() == dt) return u;
  if (u.op() == Op::Cast && u.src(0).dtype() == dt && dt.is_int() && u.dtype().is_int()) {
    Interval iv = bnd(rc, u.src(0));
    if (fits(u.dtype(), iv.lo, iv.hi)) return u.src(0);
  }
  return rc.ctx.make(Op::Cast, dt, {u});
}

}  // namespace

UOp lift_add(RewriteCtx& rc, Op cmp, UOp a, UOp c, bool (*free)(UOp), bool x_must_be_bound) {
  Context& ctx = rc.ctx;
  const DType dt = c.dtype();
  UOp cast, s = a;
  if (a.op() == Op::Cast && a.src(0).op() == Op::Add) cast = a, s = a.src(0);
  if (s.op() != Op::Add || !dt.is_int() || !s.dtype().is_int() || !free(c)) return UOp();
  UOp best_x, best_y;
  for (int k = 1; k >= 0; --k) {  // prefer the split where x holds what y does not
    UOp x = s.src(1 - k), y = s.src(k);
    if (!free(y)) continue;
    bool x_free = free(x);
    if (x_must_be_bound && x_free) continue;
    Interval bx = bnd(rc, x), by = bnd(rc, y), bc = bnd(rc, c);
    __int128 slo = __int128{bx.lo} + by.lo, shi = __int128{bx.hi} + by.hi;
    // x+y must not wrap in its own dtype (index: a UB-free kernel never overflows it).
    if (!s.dtype().is_index() && !fits(s.dtype(), slo, shi)) continue;
    if (cast && !(fits(dt, bx.lo, bx.hi) && fits(dt, by.lo, by.hi) && fits(dt, slo, shi))) continue;
    if (!fits(dt, __int128{bc.lo} - by.hi, __int128{bc.hi} - by.lo)) continue;  // c-y is new
    if (!best_x || !x_free) best_x = x, best_y = y;
    if (!x_free) break;
  }
  if (!best_x) return UOp();
  UOp x = best_x, y = best_y;
  if (cast) x = cast_to(rc, x, dt), y = cast_to(rc, y, dt);
  return ctx.alu(cmp, {x, ctx.alu(Op::Sub, {c, y})});
}

namespace {

// x*y < c -> x < (c+y-1)//y (ceil division) for an integer y > 0 without range.
UOp lift_mul_lt(RewriteCtx& rc, const Bindings& b) {
  Context& ctx = rc.ctx;
  SimplifyState& st = state(rc);
  UOp m = b["m"], c = b["c"];
  const DType dt = m.dtype();
  for (int k = 1; k >= 0; --k) {
    UOp x = m.src(1 - k), y = m.src(k);
    if (!no_range(y)) continue;
    Interval bx = bnd(rc, x), by = bnd(rc, y), bc = bnd(rc, c);
    if (by.lo <= 0 && !st.bugs.has(Bug::LiftMulNonPositive)) continue;    // gate: y.vmin > 0
    if (!dt.is_index()) {                                                 // x*y must not wrap
      __int128 p[4] = {__int128{bx.lo} * by.lo, __int128{bx.lo} * by.hi,  //
                       __int128{bx.hi} * by.lo, __int128{bx.hi} * by.hi};
      if (!fits(dt, *std::min_element(p, p + 4), *std::max_element(p, p + 4))) continue;
    }
    // c + (y - 1) must not wrap either.
    if (!fits(dt, __int128{by.lo} - 1, __int128{by.hi} - 1) ||
        !fits(dt, __int128{bc.lo} + by.lo - 1, __int128{bc.hi} + by.hi - 1))
      continue;
    UOp ym1 = ctx.alu(Op::Sub, {y, ctx.const_int(dt, 1)});
    return ctx.alu(Op::CmpLt, {x, ctx.alu(Op::FloorDiv, {ctx.alu(Op::Add, {c, ym1}), y})});
  }
  return UOp();
}

// ---- the bound rules: sum_r of a where gated by r against bounds without range

// The number of r in [max(L,0), min(U,N)): clamp(min(U,N) - max(L,0), 0, N), built as
// max(min(U,N) - max(L,0), 0) (the difference never exceeds N). L or U may be absent.
UOp bound_count(RewriteCtx& rc, UOp lo, UOp hi, UOp n) {
  Context& ctx = rc.ctx;
  UOp top = hi ? smin(rc, hi, n) : n;
  if (hi && !lo && state(rc).bugs.has(Bug::BoundOffByOne)) {  // planted: counts min(U, N) + 1
    UOp plus = ctx.alu(Op::Add, {top, idx_const(ctx, 1)});
    return smax(rc, smin(rc, plus, n), idx_const(ctx, 0));
  }
  UOp x = top;
  if (lo) {
    UOp bot = smax(rc, lo, idx_const(ctx, 0));
    Interval t = bnd(rc, top), l = bnd(rc, bot);
    if (!fits(dtypes::Index, __int128{t.lo} - l.hi, __int128{t.hi} - l.lo)) return UOp();
    x = ctx.alu(Op::Sub, {top, bot});
  }
  return smax(rc, x, idx_const(ctx, 0));
}

// ---- reduce_affine_sum: sum_{r<n} v(r) -> v(0)*n + (v(1) - v(0)) * n(n-1)/2, v affine in r

/// Does `u` read the range `r`?
bool mentions(UOp u, UOp r, std::unordered_map<UOp, bool, UOpHash>& memo) {
  if (u == r) return true;
  if (auto it = memo.find(u); it != memo.end()) return it->second;
  bool found = false;
  for (UOp s : u.src()) found = found || mentions(s, r, memo);
  memo.emplace(u, found);
  return found;
}

/// Is `u` affine in the range `r` in the ring its dtype computes in? Index arithmetic is
/// exact, sized integers wrap (arithmetic modulo 2^bits keeps affinity), and a CAST keeps it
/// only when it is that ring's homomorphism: from index, or from a sized integer at least as
/// wide (truncation). A widening CAST (sign or zero extension) does not.
struct AffineCheck {
  UOp r;
  std::unordered_map<UOp, bool, UOpHash> seen, affine;
  bool free(UOp u) { return !mentions(u, r, seen); }
  bool operator()(UOp u) {
    if (u == r) return true;
    if (auto it = affine.find(u); it != affine.end()) return it->second;
    bool ok = free(u);
    const Op op = u.op();
    if (!ok && (u.dtype().is_int() || u.dtype().is_index())) {
      if (op == Op::Add || op == Op::Sub)
        ok = (*this)(u.src(0)) && (*this)(u.src(1));
      else if (op == Op::Neg)
        ok = (*this)(u.src(0));
      else if (op == Op::Mul)
        ok = (free(u.src(0)) && (*this)(u.src(1))) || (free(u.src(1)) && (*this)(u.src(0)));
      else if (op == Op::Cast) {
        const DType from = u.src(0).dtype();
        ok = (from.is_index() || (from.is_int() && from.bits() >= u.dtype().bits())) &&
             (*this)(u.src(0));
      }
    }
    affine.emplace(u, ok);
    return ok;
  }
};

// A sized-integer sum only: it wraps, so the closed form is exact in the same ring whatever
// the size of its terms (an index sum could overflow in n*v(0) where the loop did not).
// v(0) and v(1) are iterations the loop runs (n >= 2), so evaluating them adds no UB.
UOp reduce_affine_sum(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"], r = b["r"], v = red.src(0);
  const DType dt = red.dtype();
  if (!dt.is_int() || dt.is_index() || !r.src(0).is_const()) return UOp();
  const int64_t n = r.src(0).const_value().i;
  AffineCheck affine{r, {}, {}};
  if (n < 2 || n > (int64_t{1} << 31) || affine.free(v) || !affine(v)) return UOp();
  Context& ctx = rc.ctx;
  UOp v0 = substitute(ctx, v, {{r, idx_const(ctx, 0)}});
  UOp v1 = substitute(ctx, v, {{r, idx_const(ctx, 1)}});
  const int64_t pairs = n * (n - 1) / 2;  // exact: n <= 2^31
  return ctx.alu(Op::Add,
                 {ctx.alu(Op::Mul, {v0, ctx.const_int(dt, n)}),
                  ctx.alu(Op::Mul, {ctx.alu(Op::Sub, {v1, v0}), ctx.const_int(dt, pairs)})});
}

// sum_r where(r<U, v, 0) -> clamp(min(U,N), 0, N) * v
UOp bound_upper(RewriteCtx& rc, const Bindings& b) {
  UOp count = bound_count(rc, UOp(), b["hi"], b["r"].src(0));
  return count ? times_count(rc, b["v"], count) : UOp();
}

// sum_r where(r<L, 0, v) -> clamp(N - max(L,0), 0, N) * v
UOp bound_lower(RewriteCtx& rc, const Bindings& b) {
  UOp count = bound_count(rc, b["lo"], UOp(), b["r"].src(0));
  return count ? times_count(rc, b["v"], count) : UOp();
}

// sum_r where(!(r<L) & (r<U), v, 0) -> clamp(min(U,N) - max(L,0), 0, N) * v
UOp bound_two_sided(RewriteCtx& rc, const Bindings& b) {
  UOp count = bound_count(rc, b["lo"], b["hi"], b["r"].src(0));
  return count ? times_count(rc, b["v"], count) : UOp();
}

}  // namespace

RuleSet pm_reduce_collapse() {
  Pat x = Pat::var("x"), y = Pat::var("y"), c = Pat::var("c"), v = Pat::var("v");
  Pat r = Pat::op(Op::Range).named("r"), lo = Pat::var("lo"), hi = Pat::var("hi");
  Pat lit0 = Pat::lit(0);
  auto is_int = [](DType dt) { return dt.is_int(); };

  RuleSet rs;
  // (x+y) < c -> x < c-y, y and c without range (also through a cast of x+y)
  rs.add("lift_add_lt", Pat::op(Op::CmpLt, {Pat::var("a"), c}),
         [](RewriteCtx& rc, const Bindings& b) {
           return lift_add(rc, Op::CmpLt, b["a"], b["c"], no_range, false);
         });
  // x*y < c -> x < (c+y-1)//y, y and c without range, y.vmin > 0
  rs.add("lift_mul_lt", (Pat::op(Op::Mul).dtype_if(is_int).named("m") < c).when(no_range_in({"c"})),
         lift_mul_lt);
  // where(!b, x, y) -> where(b, y, x) (so where(!(r<L), v, 0) meets the lower bound)
  rs.add("where_not_swap", where(negation(Pat::var("b")), x, y).when(not_invalid({"x", "y"})),
         [](RewriteCtx& rc, const Bindings& b) {
           return rc.ctx.alu(Op::Where, {b["b"], b["y"], b["x"]});
         });
  // sum_r where(r<U, v, 0) -> clamp(min(U,N), 0, N) * v
  rs.add("bound_upper", sum_r(where(r < hi, v, lit0)).when(no_range_in({"v", "hi"})), bound_upper);
  // sum_r where(r<L, 0, v) -> clamp(N - max(L,0), 0, N) * v
  rs.add("bound_lower", sum_r(where(r < lo, lit0, v)).when(no_range_in({"v", "lo"})), bound_lower);
  // sum_r where(!(r<L) & (r<U), v, 0) -> clamp(min(U,N) - max(L,0), 0, N) * v
  rs.add("bound_two_sided",
         sum_r(where((negation(r < lo) & (r < hi)).dtype(dtypes::Bool), v, lit0))
             .when(no_range_in({"v", "lo", "hi"})),
         bound_two_sided);
  // sum g.where(x, INVALID) -> g.where(sum x, INVALID), g without range
  rs.add("reduce_where_invalid",
         sum(where(Pat::var("g"), x, Pat::op(Op::Invalid).named("inv"))).when(no_range_in({"g"})),
         [](RewriteCtx& rc, const Bindings& b) {
           UOp red = b["red"];
           std::vector<UOp> src(red.src().begin(), red.src().end());
           src[0] = b["x"];
           UOp s = rc.ctx.make(Op::Reduce, b["x"].dtype(), std::move(src), red.arg());
           return rc.ctx.alu(Op::Where, {b["g"], s, b["inv"]});
         });
  // sum_{r<n} v(r) -> v(0)*n + (v(1)-v(0))*n(n-1)/2, v affine in r (sized integers)
  rs.add("reduce_affine_sum", sum_r(x), reduce_affine_sum);
  // sum(x+y) -> sum(x) + sum(y)
  rs.add("reduce_split_add", sum(x + y), [](RewriteCtx& rc, const Bindings& b) {
    UOp red = b["red"];
    __int128 iters = 1;
    for (size_t i = 1; i < red.num_src(); ++i) {
      if (red.src(i).op() != Op::Range) return UOp();
      iters *= std::max<int64_t>(1, bnd(rc, red.src(i).src(0)).hi);
      if (iters > (__int128{1} << 62)) return UOp();
    }
    if (red.dtype().is_index()) {  // neither partial sum may overflow where the whole did not
      for (UOp t : {b["x"], b["y"]}) {
        Interval iv = bnd(rc, t);
        if (!fits(dtypes::Index, iters * iv.lo, iters * iv.hi)) return UOp();
      }
    }
    // floats: only when no partial sum of either order rounds
    if (red.dtype().is_float() && !exact_split(rc, red.dtype(), b["x"], b["y"], iters))
      return UOp();
    std::vector<UOp> sx(red.src().begin(), red.src().end()), sy = sx;
    sx[0] = b["x"], sy[0] = b["y"];
    return rc.ctx.alu(Op::Add, {rc.ctx.make(Op::Reduce, red.dtype(), std::move(sx), red.arg()),
                                rc.ctx.make(Op::Reduce, red.dtype(), std::move(sy), red.arg())});
  });
  // sum (x&y).where(c, 0) -> x.where(sum y.where(c, 0), 0), x without range and y with one
  // (tinygrad: a PARAM x and "* x"; a WHERE is exact for floats too)
  Pat gate = (Pat::var("gx") & Pat::var("gy")).dtype(dtypes::Bool);
  rs.add("reduce_and_gate",
         sum(where(gate, c, lit0.named("z"))).when(no_range_in({"gx"})).when(range_in("gy")),
         [](RewriteCtx& rc, const Bindings& b) {
           UOp red = b["red"];
           Context& ctx = rc.ctx;
           std::vector<UOp> src(red.src().begin(), red.src().end());
           src[0] = ctx.alu(Op::Where, {b["gy"], b["c"], b["z"]});
           UOp s = ctx.make(Op::Reduce, red.dtype(), std::move(src), red.arg());
           return ctx.alu(Op::Where, {b["gx"], s, zero(ctx, red.dtype())});
         });
  // x * cast(g) -> g.where(x, 0) for a bool g (floats: a constant x, g.where(x, x*0))
  rs.add("mul_casted_bool", x * Pat::op(Op::Cast, {Pat::var("g").dtype(dtypes::Bool)}).named("cg"),
         [](RewriteCtx& rc, const Bindings& b) {
           UOp xv = b["x"];
           const DType dt = xv.dtype();
           if (b["cg"].dtype() != dt) return UOp();
           if (!dt.is_float()) return rc.ctx.alu(Op::Where, {b["g"], xv, zero(rc.ctx, dt)});
           if (!xv.is_const())
             return UOp();  // x * 0.0 is -0 or NaN for some x: exact only for a constant
           return rc.ctx.alu(Op::Where, {b["g"], xv, rc.ctx.alu(Op::Mul, {xv, zero(rc.ctx, dt)})});
         });
  return rs + pm_reduce_unparented() + symbolic();
}

}  // namespace uopfuzz::simplifier
