// Reduce rules: pm_reduce_unparented, reduce_collapse with its inner rules
// (pm_reduce_collapse), and the load-collapse variants (pm_reduce_load_collapse,
// pm_load_collapse). One rule per row; the comment says what it does.
//
// Where these rules are stricter than tinygrad's, SEMANTICS.md is why:
//  - A REDUCE over zero iterations is its identity, and a node is evaluated only inside
//    the loops of its ranges. Dropping a range is therefore only exact when the range
//    runs at least once (end.vmin >= 1); the one exception is a REDUCE left with no range
//    at all, whose value is evaluated outside the loops anyway (ADD, MUL only).
//  - Floats are compared by bits. REDUCE ADD starts from +0, so a sum is never -0 and a
//    sum of zero terms is +0 even when the term is inf or NaN: every "count * v" a rule
//    builds for a float v is `v * count + 0.0` (the +0.0 turns -0 into +0), guarded by
//    `count > 0` unless the count is provably positive. And a float sum is rewritten
//    (count * v, sum(x+y) -> sum(x) + sum(y)) only when no partial sum of either side can
//    round (the "dyadic" proof below): tinygrad reassociates freely, which a bitwise
//    comparison reports. Likewise x * float(bool) becomes a WHERE for a constant x only,
//    and a float power x^n is built only as the REDUCE's own chain x*x*...*x.
//  - Sized integers wrap and index arithmetic may not overflow: a rule that moves a term
//    across a comparison fires only when the interval analysis proves no wrap.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "ir/graph.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

constexpr std::string_view kTmpPrefix = "__rc";  // reserved names of reduce_collapse temporaries
constexpr uint64_t kInnerMaxRewrites = 20'000;
constexpr int64_t kMaxFloatPowerChain = 64;  // x^n for floats as n-1 exact MULs, n at most this

// ---- small graph queries

template <class Pred>
bool any_node(UOp root, Pred pred) {
  std::vector<UOp> stack{root};
  std::unordered_set<UOp, UOpHash> seen{root};
  while (!stack.empty()) {
    UOp u = stack.back();
    stack.pop_back();
    if (pred(u)) return true;
    for (UOp s : u.src())
      if (seen.insert(s).second) stack.push_back(s);
  }
  return false;
}

bool has_range(UOp u) { return any_node(u, [](UOp n) { return n.op() == Op::Range; }); }
bool has_load(UOp u) { return any_node(u, [](UOp n) { return n.op() == Op::Load || n.op() == Op::Index; }); }
bool contains(UOp root, UOp what) { return any_node(root, [what](UOp n) { return n == what; }); }
bool no_range(UOp u) { return !has_range(u); }
bool no_load(UOp u) { return !has_load(u); }

// Can evaluating u be undefined (SEMANTICS.md)? Conservative: division, modulo, shifts,
// bitcasts, float-to-int casts, loads, and index arithmetic whose bounds may overflow.
// Removing a loop that may run zero times evaluates its body's range-free parts where
// the original evaluated nothing, so that is only done for bodies that cannot fault.
bool may_fault(RewriteCtx& rc, UOp u) {
  return any_node(u, [&](UOp n) {
    switch (n.op()) {
      case Op::Cdiv: case Op::Cmod: case Op::FloorDiv: case Op::FloorMod:
      case Op::Shl: case Op::Shr: case Op::Bitcast:
        return true;
      case Op::Load: {  // faults only out of bounds
        UOp buf = n.src(0).src(0), idx = n.src(0).src(1);
        if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) idx = idx.src(1);
        Interval b = state(rc).analysis.bounds(idx);
        return buf.op() != Op::Param || b.lo < 0 || b.hi >= buf.arg<ParamArg>().size;
      }
      case Op::Cast: return n.src(0).dtype().is_float() && !n.dtype().is_float() && !n.dtype().is_bool();
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Neg:
        return n.dtype().is_index() && state(rc).analysis.bounds(n) == dtype_interval(n.dtype());
      default: return false;
    }
  });
}

bool in_set(const RangeSet& s, UOp r) { return std::find(s.begin(), s.end(), r) != s.end(); }

bool is_add_reduce(UOp red) { return red.op() == Op::Reduce && red.arg<ReduceArg>().op == Op::Add; }

// The bool b of a negation !b, in any of the spellings a graph may use.
UOp negated(UOp u) {
  auto is_bool_const = [](UOp c, int64_t v) { return c.is_const() && c.dtype().is_bool() && c.const_value().i == v; };
  if (!u.dtype().is_bool() || u.num_src() != 2) return UOp();
  for (int k = 0; k < 2; ++k) {
    UOp b = u.src(k), c = u.src(1 - k);
    if ((u.op() == Op::Xor || u.op() == Op::CmpNe) && is_bool_const(c, 1)) return b;  // b ^ true, b != true
    if (u.op() == Op::CmpEq && is_bool_const(c, 0)) return b;                         // b == false
  }
  return UOp();
}

// ---- interval helpers

Interval bnd(RewriteCtx& rc, UOp u) { return state(rc).analysis.bounds(u); }

// [lo, hi] lies within dt's range (no wrap for sized ints, no overflow for index).
bool fits(DType dt, __int128 lo, __int128 hi) {
  Interval d = dtype_interval(dt);
  return lo >= d.lo && hi <= d.hi;
}

// MAX/MIN that fold when the bounds already decide them (the count formulas stay small).
UOp smax(RewriteCtx& rc, UOp a, UOp b) {
  if (bnd(rc, a).lo >= bnd(rc, b).hi) return a;
  if (bnd(rc, b).lo >= bnd(rc, a).hi) return b;
  return rc.ctx.alu(Op::Max, {a, b});
}
UOp smin(RewriteCtx& rc, UOp a, UOp b) {
  if (bnd(rc, a).hi <= bnd(rc, b).lo) return a;
  if (bnd(rc, b).hi <= bnd(rc, a).lo) return b;
  return rc.ctx.alu(Op::Min, {a, b});
}

UOp zero(Context& ctx, DType dt) { return ctx.const_int(dt, 0); }
UOp idx_const(Context& ctx, int64_t v) { return ctx.const_int(dtypes::Index, v); }

// ---- exact float sums
//
// A float sum is rewritten (count * v, sum(x) + sum(y)) only when every partial sum, in
// either order, is exactly representable, so both sides round nowhere. The proof is a
// small "dyadic" analysis: a float node whose every value is j * 2^e for an integer
// |j| <= k (CONSTs, casts of bounded integers, and +, -, *, max, min, where, REDUCE ADD
// of such). Loaded floats are unknown: their sums are left alone.

struct Dyadic {
  __int128 k;  ///< bound on |j|
  int e;       ///< every value is a multiple of 2^e
};

struct FloatFormat {
  int precision;  ///< significand bits, the implicit one included
  int min_exp;    ///< exponent of the smallest subnormal
  double max;     ///< largest finite value
};

FloatFormat float_format(DType dt) {
  if (dt == dtypes::Float16) return {11, -24, 65504.0};
  if (dt == dtypes::Float32) return {24, -149, 3.4028234663852886e38};
  return {53, -1074, std::numeric_limits<double>::max()};
}

// Every j * 2^e with |j| <= k is a value of dt.
bool representable(DType dt, __int128 k, int e) {
  FloatFormat f = float_format(dt);
  if (k < 0 || k >= (__int128{1} << f.precision)) return false;
  return k == 0 || (e >= f.min_exp && std::ldexp(static_cast<double>(k), e) <= f.max);
}

std::optional<Dyadic> dyadic_of(RewriteCtx& rc, UOp u, std::unordered_map<UOp, std::optional<Dyadic>, UOpHash>& memo);

std::optional<Dyadic> dyadic_compute(RewriteCtx& rc, UOp u, std::unordered_map<UOp, std::optional<Dyadic>, UOpHash>& memo) {
  const DType dt = u.dtype();
  if (!dt.is_float()) return std::nullopt;
  auto sub = [&](size_t i) { return dyadic_of(rc, u.src(i), memo); };
  auto check = [&](Dyadic d) -> std::optional<Dyadic> {
    if (representable(dt, d.k, d.e)) return d;
    return std::nullopt;
  };
  // a and b on the grid of the finer one: their bounds in units of 2^min(e).
  auto align = [](Dyadic a, Dyadic b, __int128& ka, __int128& kb) {
    int e = std::min(a.e, b.e);
    if (a.e - e > 60 || b.e - e > 60) return std::optional<int>();
    ka = a.k << (a.e - e), kb = b.k << (b.e - e);
    return std::optional<int>(e);
  };
  switch (u.op()) {
    case Op::Const: {
      double v = u.const_value().f;
      if (!std::isfinite(v)) return std::nullopt;
      if (v == 0) return Dyadic{0, 0};
      int ex;
      double m = std::frexp(std::fabs(v), &ex);  // |v| = m * 2^ex, m in [0.5, 1)
      auto j = static_cast<int64_t>(std::ldexp(m, 53));
      int e = ex - 53;
      while ((j & 1) == 0) j >>= 1, ++e;
      return check({j, e});
    }
    case Op::Var: {  // a float temporary of reduce_collapse: (e, k) carried in (min, max)
      const auto& v = u.arg<VarArg>();
      if (!v.name.starts_with(kTmpPrefix) || v.max < 0) return std::nullopt;
      return check({v.max, static_cast<int>(v.min)});
    }
    case Op::Cast: {
      DType from = u.src(0).dtype();
      if (from.is_float()) {
        auto d = sub(0);
        return d ? check(*d) : std::nullopt;
      }
      if (!from.is_int() && !from.is_bool()) return std::nullopt;
      Interval iv = state(rc).analysis.bounds(u.src(0));
      return check({std::max<__int128>(-__int128{iv.lo}, iv.hi), 0});
    }
    case Op::Neg: return sub(0);
    case Op::Add:
    case Op::Sub:
    case Op::Max:
    case Op::Min:
    case Op::Where: {
      size_t i = u.op() == Op::Where ? 1 : 0;
      auto a = sub(i), b = sub(i + 1);
      if (!a || !b) return std::nullopt;
      __int128 ka, kb;
      auto e = align(*a, *b, ka, kb);
      if (!e) return std::nullopt;
      bool sum = u.op() == Op::Add || u.op() == Op::Sub;
      return check({sum ? ka + kb : std::max(ka, kb), *e});
    }
    case Op::Mul: {
      auto a = sub(0), b = sub(1);
      if (!a || !b || a->k > (__int128{1} << 60) || b->k > (__int128{1} << 60)) return std::nullopt;
      return check({a->k * b->k, a->e + b->e});
    }
    case Op::Reduce: {
      if (u.arg<ReduceArg>().op != Op::Add) return std::nullopt;
      auto a = sub(0);
      if (!a) return std::nullopt;
      __int128 k = a->k;
      for (size_t i = 1; i < u.num_src(); ++i) {
        if (u.src(i).op() != Op::Range) return std::nullopt;
        k *= std::max<int64_t>(0, state(rc).analysis.bounds(u.src(i).src(0)).hi);
        if (k > (__int128{1} << 62)) return std::nullopt;
      }
      return check({k, a->e});
    }
    default: return std::nullopt;
  }
}

std::optional<Dyadic> dyadic_of(RewriteCtx& rc, UOp u, std::unordered_map<UOp, std::optional<Dyadic>, UOpHash>& memo) {
  if (auto it = memo.find(u); it != memo.end()) return it->second;
  std::optional<Dyadic> d = dyadic_compute(rc, u, memo);
  memo.emplace(u, d);
  return d;
}

std::optional<Dyadic> dyadic(RewriteCtx& rc, UOp u) {
  std::unordered_map<UOp, std::optional<Dyadic>, UOpHash> memo;
  return dyadic_of(rc, u, memo);
}

// Summing up to `n` copies of a float v is exact (each partial sum k * v is a value).
bool exact_multiple(RewriteCtx& rc, UOp v, int64_t n) {
  if (v.is_const() && !std::isfinite(v.const_value().f)) return true;  // inf, NaN: n >= 1 copies are v
  auto d = dyadic(rc, v);
  return d && n >= 0 && d->k <= (__int128{1} << 62) / std::max<int64_t>(n, 1) &&
         representable(v.dtype(), d->k * std::max<int64_t>(n, 1), d->e);
}

// v summed `count` times (count: an index node, possibly <= 0 meaning no terms), as
// REDUCE ADD would: v * count for integers (wrapping agrees with repeated addition),
// and for floats v * count + 0.0, and 0 when the count may be zero; a null UOp when
// that is not provably exact for a float v.
UOp times_count(RewriteCtx& rc, UOp v, UOp count) {
  Context& ctx = rc.ctx;
  const DType dt = v.dtype();
  if (dt.is_float() && !exact_multiple(rc, v, bnd(rc, count).hi)) return UOp();
  if (bnd(rc, count).lo < 0) count = ctx.alu(Op::Max, {count, idx_const(ctx, 0)});
  UOp c = dt.is_index() ? count : ctx.make(Op::Cast, dt, {count});
  if (!dt.is_float()) return ctx.alu(Op::Mul, {v, c});
  UOp sum = ctx.alu(Op::Add, {ctx.alu(Op::Mul, {v, c}), zero(ctx, dt)});
  if (bnd(rc, count).lo >= 1) return sum;
  return ctx.alu(Op::Where, {ctx.alu(Op::CmpLt, {idx_const(ctx, 0), count}), sum, zero(ctx, dt)});
}

// x^n (n >= 1) as REDUCE MUL would compute it: integers by repeated squaring (exact modulo
// 2^bits), floats as the left fold x*x*...*x (each step rounds as the REDUCE's steps do).
UOp power(Context& ctx, UOp x, int64_t n) {
  if (x.dtype().is_float()) {
    UOp acc = x;
    for (int64_t i = 1; i < n; ++i) acc = ctx.alu(Op::Mul, {acc, x});
    return acc;
  }
  UOp result, base = x;
  while (n > 0) {
    if (n & 1) result = result ? ctx.alu(Op::Mul, {result, base}) : base;
    n >>= 1;
    if (n) base = ctx.alu(Op::Mul, {base, base});
  }
  return result;
}

// ---- reduce_unparented

UOp reduce_unparented(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"];
  const Op op = red.arg<ReduceArg>().op;
  if (op != Op::Add && op != Op::Mul && op != Op::Max && op != Op::Min) return UOp();
  SimplifyState& st = state(rc);
  UOp x = red.src(0);
  auto open = open_ranges(toposort(x));
  const RangeSet& used = open[x];

  // How each dropped range changes the result (a planted bug may treat MAX/MIN or MUL as ADD).
  Op mode = op;
  if ((op == Op::Max || op == Op::Min) && st.bugs.has(Bug::UnparentedMaxMultiplies)) mode = Op::Add;
  if (op == Op::Mul && st.bugs.has(Bug::UnparentedMulMultiplies)) mode = Op::Add;
  const bool fdt = red.dtype().is_float();

  std::vector<UOp> keep, sure, zero_trip;  // sure: runs >= 1 time; zero_trip: may run 0 times
  for (size_t i = 1; i < red.num_src(); ++i) {
    UOp r = red.src(i);
    if (r.op() != Op::Range || in_set(used, r)) {
      keep.push_back(r);
      continue;
    }
    UOp end = r.src(0);
    if (mode == Op::Mul) {  // the power needs a constant exponent
      if (!end.is_const() || (fdt && end.const_value().i > kMaxFloatPowerChain)) {
        keep.push_back(r);
        continue;
      }
    }
    // Extra gate (SEMANTICS.md): a zero-trip REDUCE is the identity, so a range is only
    // dropped when it provably runs, unless no range at all is left (below). A float
    // product also waits for that: (prod x)^n rounds differently from the interleaved
    // product, while x*x*...*x of one value is the REDUCE's own sequence of steps.
    const bool only_alone = mode == Op::Mul && fdt;
    (st.analysis.vmin(end) >= 1 && !only_alone ? sure : zero_trip).push_back(r);
  }
  // A range that may run zero times goes only when every range goes: then the value is
  // evaluated outside the loops anyway, and ADD (count max(end, 0)) and MUL (x^0 = 1) are
  // exact. MAX/MIN of zero iterations is the identity, never the value: those stay.
  const bool all_go = keep.empty() && (mode == Op::Add || mode == Op::Mul) && !may_fault(rc, x);
  if (!all_go) {
    keep.insert(keep.end(), zero_trip.begin(), zero_trip.end());
    zero_trip.clear();
  }
  if (sure.empty() && zero_trip.empty()) return UOp();
  // A float sum regrouped (x*n0 summed n1 times instead of x summed n0*n1 times) rounds
  // like the original only if no partial sum of the original rounds either: prove it for
  // the original's whole trip count, the kept ranges' included (a fuzzer found
  // float16 sums of a subnormal constant over 6 x 7 iterations that rounded).
  if (fdt && mode == Op::Add) {
    __int128 total = 1;
    for (size_t i = 1; i < red.num_src(); ++i) {
      UOp r = red.src(i);
      if (r.op() != Op::Range) continue;
      total *= std::max<int64_t>(1, st.analysis.vmax(r.src(0)));
      if (total > (__int128{1} << 40)) return UOp();
    }
    if (!exact_multiple(rc, x, static_cast<int64_t>(total))) return UOp();
  }

  Context& ctx = rc.ctx;
  UOp ret = x;
  if (!keep.empty()) {
    std::vector<UOp> src{x};
    for (size_t i = 1; i < red.num_src(); ++i)  // keep the original order
      if (std::find(keep.begin(), keep.end(), red.src(i)) != keep.end()) src.push_back(red.src(i));
    ret = ctx.make(Op::Reduce, red.dtype(), std::move(src), red.arg());
  }
  std::vector<UOp> gone = sure;
  gone.insert(gone.end(), zero_trip.begin(), zero_trip.end());
  if (mode == Op::Mul && fdt) {
    // A float product of one value over several ranges is one left fold of all their
    // iterations: x^(n0*n1*...) as x*x*...*x, never (x^n0)^n1 (which rounds differently).
    int64_t n = 1;
    for (UOp r : gone) {
      n *= std::max<int64_t>(0, r.src(0).const_value().i);
      if (n > kMaxFloatPowerChain) return UOp();
    }
    return n >= 1 ? power(ctx, ret, n) : ctx.const_int(red.dtype(), 1);
  }
  for (UOp r : gone) {
    UOp end = r.src(0);
    switch (mode) {
      case Op::Add:  // sum over r of x -> x * end
        ret = times_count(rc, ret, end);
        if (!ret) return UOp();  // a float sum we cannot prove exact
        break;
      case Op::Mul: {                                          // product over r of x -> x ^ end
        int64_t n = end.const_value().i;
        ret = n >= 1 ? power(ctx, ret, n) : ctx.const_int(red.dtype(), 1);
        break;
      }
      default: break;  // max/min over r of x -> x
    }
  }
  return ret;
}

// ---- reduce_collapse: the driver

void add_hits(SimplifyState& st, const RewriteResult& r) {
  for (const auto& [name, n] : r.hits) st.nested_hits[name] += n;
}

// Sum over each range of `red` in turn, with the part that does not depend on the range
// replaced by bounded temporaries, rewritten by `inner`; all ranges must go.
UOp collapse(RewriteCtx& rc, UOp red, const RuleSet& inner) {
  if (!is_add_reduce(red) || red.num_src() < 2) return UOp();
  Context& ctx = rc.ctx;
  SimplifyState& st = state(rc);
  UOp u = red.src(0);
  // Collapsing one range of several regroups a float sum; like reduce_unparented, that
  // is exact only if no partial sum over the whole nest can round.
  if (red.dtype().is_float() && red.num_src() > 2) {
    __int128 total = 1;
    for (size_t i = 1; i < red.num_src(); ++i) {
      if (red.src(i).op() != Op::Range) return UOp();
      total *= std::max<int64_t>(1, st.analysis.vmax(red.src(i).src(0)));
      if (total > (__int128{1} << 40)) return UOp();
    }
    if (!exact_multiple(rc, u, static_cast<int64_t>(total))) return UOp();
  }
  for (size_t i = 1; i < red.num_src(); ++i) {
    UOp r = red.src(i);
    if (r.op() != Op::Range) return UOp();
    // A closed form evaluates the body's range-free parts even when the loop runs zero
    // times: only for bodies that cannot fault (a fuzzer found sum_{r<0} 0/0).
    if (st.analysis.vmin(r.src(0)) < 1 && may_fault(rc, u) && !st.bugs.has(Bug::CollapseZeroTrip)) return UOp();
    UOp sub = ctx.make(Op::Reduce, red.dtype(), {u, r}, red.arg());
    std::vector<UOp> topo = toposort(sub);
    auto open = open_ranges(topo);
    // The part that depends on r (r itself included); a STORE or REDUCE in it stops us.
    std::unordered_set<UOp, UOpHash> included;
    for (UOp n : topo) {
      if (n.op() == Op::Var && n.arg<VarArg>().name.starts_with(kTmpPrefix)) return UOp();  // name clash
      if (n == sub || !in_set(open[n], r)) continue;
      if (n.op() == Op::Store || n.op() == Op::Reduce || n.op() == Op::End) return UOp();
      included.insert(n);
    }
    // Outside inputs -> fresh bounded temporaries (VAR "__rc<id>"). CONST, PARAM, VAR and
    // INVALID are already opaque leaves, and an INDEX is an address, not a value (LOAD
    // needs it in place). Integer and bool inputs keep their interval. A float input
    // becomes a float-typed VAR: an opaque placeholder that holds no range, carrying in
    // (min, max) what the exact-sum analysis knew of the input (its grid exponent and
    // bound, max = -1: nothing); it is put back before anything runs it.
    std::unordered_map<UOp, UOp, UOpHash> to_tmp, from_tmp;
    for (UOp n : topo) {
      if (n != sub && !included.count(n)) continue;
      for (UOp s : n.src()) {
        if (included.count(s) || to_tmp.count(s)) continue;
        Op o = s.op();
        if (o == Op::Const || o == Op::Param || o == Op::Var || o == Op::Invalid || o == Op::Index) continue;
        if (s.dtype().is_void()) continue;
        VarArg v{std::string(kTmpPrefix) + std::to_string(s.id()), 0, 0, std::nullopt};
        if (!s.dtype().is_float()) {
          Interval iv = st.analysis.bounds(s);
          v.min = iv.lo, v.max = iv.hi;
        } else if (auto d = dyadic(rc, s)) {  // what the exact-sum proofs know of it
          v.min = d->e, v.max = static_cast<int64_t>(d->k);
        } else {
          v.max = -1;  // nothing known
        }
        UOp tmp = ctx.make(Op::Var, s.dtype(), {}, v);
        to_tmp.emplace(s, tmp);
        from_tmp.emplace(tmp, s);
      }
    }
    RewriteOptions o;
    o.max_rewrites = kInnerMaxRewrites;
    o.disabled = st.disabled;
    o.state = &st;
    RewriteResult res = graph_rewrite(ctx, substitute(ctx, sub, to_tmp), inner, o);
    if (!res.converged) return UOp();
    add_hits(st, res);
    UOp out = substitute(ctx, res.root, from_tmp);
    // Gate: the collapse must remove r.
    if (contains(out, r)) return UOp();
    // A range of one folded to a constant leaves a REDUCE over a non-RANGE: not ours to keep.
    if (any_node(out, [](UOp n) {
          if (n.op() != Op::Reduce) return false;
          for (size_t k = 1; k < n.num_src(); ++k)
            if (n.src(k).op() != Op::Range) return true;
          return false;
        }))
      return UOp();
    u = out;
  }
  return u;
}

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

// (x+y) cmp c -> x cmp c-y, also through a cast of x+y: when y and c are free (of ranges,
// or of loads), and no step wraps or overflows. `x_must_be_bound`: x must not be free.
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

// x*y < c -> x < (c+y-1)//y (ceil division) for an integer y > 0 without range.
UOp lift_mul_lt(RewriteCtx& rc, const Bindings& b) {
  Context& ctx = rc.ctx;
  SimplifyState& st = state(rc);
  UOp m = b["m"], c = b["c"];
  const DType dt = m.dtype();
  if (!dt.is_int() || !no_range(c)) return UOp();
  for (int k = 1; k >= 0; --k) {
    UOp x = m.src(1 - k), y = m.src(k);
    if (!no_range(y)) continue;
    Interval bx = bnd(rc, x), by = bnd(rc, y), bc = bnd(rc, c);
    if (by.lo <= 0 && !st.bugs.has(Bug::LiftMulNonPositive)) continue;  // gate: y.vmin > 0
    if (!dt.is_index()) {  // x*y must not wrap
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

bool lt_of(UOp c, UOp r, UOp& bound) {
  if (c.op() != Op::CmpLt || c.src(0) != r) return false;
  bound = c.src(1);
  return true;
}

UOp bound_result(RewriteCtx& rc, UOp lo, UOp hi, UOp r, UOp v) {
  if (!no_range(v) || (lo && !no_range(lo)) || (hi && !no_range(hi))) return UOp();
  UOp count = bound_count(rc, lo, hi, r.src(0));
  return count ? times_count(rc, v, count) : UOp();
}

// sum_r where(r<U, v, 0) -> clamp(min(U,N), 0, N) * v
UOp bound_upper(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"], w = b["w"], r = b["r"], hi;
  if (!is_add_reduce(red) || !lt_of(w.src(0), r, hi) || !w.src(2).is_const()) return UOp();
  return bound_result(rc, UOp(), hi, r, w.src(1));
}

// sum_r where(r<L, 0, v) -> clamp(N - max(L,0), 0, N) * v
UOp bound_lower(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"], w = b["w"], r = b["r"], lo;
  if (!is_add_reduce(red) || !lt_of(w.src(0), r, lo) || !w.src(1).is_const()) return UOp();
  return bound_result(rc, lo, UOp(), r, w.src(2));
}

// sum_r where(!(r<L) & (r<U), v, 0) -> clamp(min(U,N) - max(L,0), 0, N) * v
UOp bound_two_sided(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"], w = b["w"], r = b["r"];
  UOp both = w.src(0);
  if (!is_add_reduce(red) || both.op() != Op::And || !both.dtype().is_bool()) return UOp();
  for (int k = 0; k < 2; ++k) {
    UOp lo, hi, neg = negated(both.src(k));
    if (neg && lt_of(neg, r, lo) && lt_of(both.src(1 - k), r, hi)) return bound_result(rc, lo, hi, r, w.src(1));
  }
  return UOp();
}

// ---- the gather: sum_r where(idx != r, 0, e) -> one gated access

UOp gather_ne(RewriteCtx& rc, const Bindings& b) {
  Context& ctx = rc.ctx;
  SimplifyState& st = state(rc);
  UOp red = b["red"], ne = b["ne"], r = b["r"], e = b["e"];
  if (!is_add_reduce(red)) return UOp();
  UOp idx = ne.src(0) == r ? ne.src(1) : ne.src(1) == r ? ne.src(0) : UOp();
  if (!idx || !no_range(idx)) return UOp();
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
    valid = ctx.alu(Op::And, {ctx.alu(Op::CmpLt, {idx_const(ctx, -1), idx}), ctx.alu(Op::CmpLt, {idx, n})});
    at = ctx.alu(Op::Where, {valid, idx, idx_const(ctx, 0)});
  }
  // e[r := at], every load whose address depends on r gated by the validity as well.
  std::vector<UOp> topo = toposort(e);
  auto open = open_ranges(topo);
  std::unordered_map<UOp, UOp, UOpHash> done;
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
    }
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

// ---- rule sets

RuleSet pm_reduce_unparented() {
  RuleSet r;
  // sum/prod/max/min over ranges x does not use -> x * end, x ^ end, x
  r.add("reduce_unparented", Pat::op(Op::Reduce).named("red"), reduce_unparented);
  return r;
}

RuleSet pm_reduce_collapse() {
  Pat x = Pat::var("x"), y = Pat::var("y"), c = Pat::var("c");
  Pat rng = Pat::op(Op::Range).named("r");
  Pat lit0 = Pat::lit(0);
  // A REDUCE over exactly the range r / over any ranges; WHERE(a, b, d).
  auto sum1 = [&](Pat value) { return Pat::op(Op::Reduce, {value, rng}).named("red"); };
  auto sum = [](Pat value) { return Pat::op(Op::Reduce, {value}).rest().named("red"); };
  auto where = [](Pat a, Pat b, Pat d) { return Pat::op(Op::Where, {a, b, d}); };

  RuleSet r;
  // (x+y) < c -> x < c-y, y and c without range (also through a cast of x+y)
  r.add("lift_add_lt", Pat::op(Op::CmpLt, {Pat::var("a"), c}), [](RewriteCtx& rc, const Bindings& b) {
    return lift_add(rc, Op::CmpLt, b["a"], b["c"], no_range, false);
  });
  // x*y < c -> x < (c+y-1)//y, y and c without range, y.vmin > 0
  r.add("lift_mul_lt", Pat::op(Op::CmpLt, {Pat::op(Op::Mul).named("m"), c}), lift_mul_lt);
  // where(!b, x, y) -> where(b, y, x) (so where(!(r<L), v, 0) meets the lower bound)
  r.add("where_not_swap", where(Pat::var("n"), x, y), [](RewriteCtx& rc, const Bindings& b) {
    UOp inner = negated(b["n"]);
    if (!inner || b["x"].op() == Op::Invalid || b["y"].op() == Op::Invalid) return UOp();
    return rc.ctx.alu(Op::Where, {inner, b["y"], b["x"]});
  });
  // sum_r where(r<U, v, 0) -> clamp(min(U,N), 0, N) * v
  r.add("bound_upper", sum1(where(Pat::op(Op::CmpLt), x, lit0).named("w")), bound_upper);
  // sum_r where(r<L, 0, v) -> clamp(N - max(L,0), 0, N) * v
  r.add("bound_lower", sum1(where(Pat::op(Op::CmpLt), lit0, x).named("w")), bound_lower);
  // sum_r where(!(r<L) & (r<U), v, 0) -> clamp(min(U,N) - max(L,0), 0, N) * v
  r.add("bound_two_sided", sum1(where(Pat::op(Op::And), x, lit0).named("w")), bound_two_sided);
  // sum g.where(x, INVALID) -> g.where(sum x, INVALID), g without range
  r.add("reduce_where_invalid", sum(where(Pat::var("g"), x, Pat::op(Op::Invalid))),
        [](RewriteCtx& rc, const Bindings& b) {
          UOp red = b["red"], g = b["g"];
          if (!is_add_reduce(red) || !no_range(g)) return UOp();
          std::vector<UOp> src(red.src().begin(), red.src().end());
          src[0] = b["x"];
          UOp s = rc.ctx.make(Op::Reduce, b["x"].dtype(), std::move(src), red.arg());
          return rc.ctx.alu(Op::Where, {g, s, red.src(0).src(2)});
        });
  // sum(x+y) -> sum(x) + sum(y)
  r.add("reduce_split_add", sum(x + y), [](RewriteCtx& rc, const Bindings& b) {
    UOp red = b["red"];
    if (!is_add_reduce(red)) return UOp();
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
    if (red.dtype().is_float()) {  // floats: only when no partial sum of either order rounds
      auto dx = dyadic(rc, b["x"]), dy = dyadic(rc, b["y"]);
      if (!dx || !dy) return UOp();
      int e = std::min(dx->e, dy->e);
      if (dx->e - e > 60 || dy->e - e > 60) return UOp();
      __int128 k = (dx->k << (dx->e - e)) + (dy->k << (dy->e - e));
      if (k > (__int128{1} << 62) / iters || !representable(red.dtype(), k * iters, e)) return UOp();
    }
    std::vector<UOp> sx(red.src().begin(), red.src().end()), sy = sx;
    sx[0] = b["x"], sy[0] = b["y"];
    return rc.ctx.alu(Op::Add, {rc.ctx.make(Op::Reduce, red.dtype(), std::move(sx), red.arg()),
                                rc.ctx.make(Op::Reduce, red.dtype(), std::move(sy), red.arg())});
  });
  // sum (x&y).where(c, 0) -> x.where(sum y.where(c, 0), 0), x without range (tinygrad: a
  // PARAM x and "* x"; a WHERE is exact for floats too)
  r.add("reduce_and_gate", sum(where(Pat::op(Op::And).named("g"), c, lit0)), [](RewriteCtx& rc, const Bindings& b) {
    UOp red = b["red"], g = b["g"];
    if (!is_add_reduce(red) || !g.dtype().is_bool()) return UOp();
    for (int k = 0; k < 2; ++k) {
      UOp gx = g.src(k), gy = g.src(1 - k);
      if (!no_range(gx) || no_range(gy)) continue;  // x: no range; y: the part that has one
      Context& ctx = rc.ctx;
      std::vector<UOp> src(red.src().begin(), red.src().end());
      src[0] = ctx.alu(Op::Where, {gy, b["c"], red.src(0).src(2)});
      UOp s = ctx.make(Op::Reduce, red.dtype(), std::move(src), red.arg());
      return ctx.alu(Op::Where, {gx, s, zero(ctx, red.dtype())});
    }
    return UOp();
  });
  // x * cast(g) -> g.where(x, 0) for a bool g (floats: a constant x, g.where(x, x*0))
  r.add("mul_casted_bool", x * Pat::op(Op::Cast, {Pat::var("g").dtype(dtypes::Bool)}).named("cg"),
        [](RewriteCtx& rc, const Bindings& b) {
          UOp v = b["x"];
          const DType dt = v.dtype();
          if (b["cg"].dtype() != dt) return UOp();
          if (!dt.is_float()) return rc.ctx.alu(Op::Where, {b["g"], v, zero(rc.ctx, dt)});
          if (!v.is_const()) return UOp();  // x * 0.0 is -0 or NaN for some x: exact only for a constant
          return rc.ctx.alu(Op::Where, {b["g"], v, rc.ctx.alu(Op::Mul, {v, zero(rc.ctx, dt)})});
        });
  return r + pm_reduce_unparented() + symbolic();
}

RuleSet pm_reduce_load_collapse() {
  Pat rng = Pat::op(Op::Range).named("r");
  Pat gather = Pat::op(Op::Where, {Pat::op(Op::CmpNe).named("ne"), Pat::lit(0), Pat::var("e")});
  RuleSet r;
  // (x+y) != c -> x != c-y, y and c without range (also through a cast of x+y)
  r.add("lift_add_ne", Pat::op(Op::CmpNe).named("n"), [](RewriteCtx& rc, const Bindings& b) {
    UOp n = b["n"];
    for (int k = 0; k < 2; ++k)
      if (UOp out = lift_add(rc, Op::CmpNe, n.src(k), n.src(1 - k), no_range, false)) return out;
    return UOp();
  });
  // sum_r where(idx != r, 0, e) -> where(0 <= idx < N, e[r := idx], 0), loads gated
  r.add("gather_ne", Pat::op(Op::Reduce, {gather, rng}).named("red"), gather_ne);
  return r + pm_reduce_collapse();
}

RuleSet pm_reduce_simplify() {
  RuleSet r = pm_reduce_unparented();
  // sum over ranges of f -> a closed form (reduce_collapse with pm_reduce_collapse)
  r.add("reduce_collapse", Pat::op(Op::Reduce).named("red"), [](RewriteCtx& rc, const Bindings& b) {
    static const RuleSet inner = pm_reduce_collapse();
    return collapse(rc, b["red"], inner);
  });
  return r;
}

RuleSet pm_load_collapse() {
  RuleSet r;
  // a sum over one range -> a closed form or one access (reduce_collapse with the load rules)
  r.add("load_collapse", Pat::op(Op::Reduce, {Pat::var("u"), Pat::op(Op::Range)}).named("red"),
        [](RewriteCtx& rc, const Bindings& b) {
          static const RuleSet inner = pm_reduce_load_collapse();
          return collapse(rc, b["red"], inner);
        });
  // (x+y) < c -> x < c-y when x reads memory and y, c do not: no addition on a loaded index
  r.add("lift_add_lt_load", Pat::op(Op::CmpLt, {Pat::var("a"), Pat::var("c")}), [](RewriteCtx& rc, const Bindings& b) {
    return lift_add(rc, Op::CmpLt, b["a"], b["c"], no_load, true);
  });
  return r;
}

}  // namespace uopfuzz::simplifier
