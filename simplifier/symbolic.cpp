// The symbolic layer: constant folding by the one scalar semantics (ir/scalar_eval),
// algebraic identities, canonical operand order, and the divmod folding the range rules
// rely on. One rule per row; the comment says what it does.
//
// Soundness notes: identities that fail for floats (x+0 with x=-0, x*0 with x=inf) are
// integer-only; divmod rules are index-only, because sized integers wrap and index
// arithmetic (UB on overflow) does not.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/graph.h"
#include "ir/scalar_eval.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

bool is_int(DType d) {
  return d.is_int();
}
bool is_int_or_bool(DType d) {
  return d.is_int() || d.is_bool();
}

int64_t ival(UOp c) {
  return c.const_value().i;
}
bool fits_index(__int128 lo, __int128 hi) {
  Interval d = dtype_interval(dtypes::Index);
  return lo >= d.lo && hi <= d.hi;
}
bool positive_const(const Bindings& b, std::string_view name) {
  UOp c = b[name];
  return c.is_const() && c.dtype().is_int() && ival(c) > 0;
}

UOp fold_const(RewriteCtx& rc, const Bindings& b) {
  UOp n = b["n"];
  Value args[3];
  for (size_t i = 0; i < n.num_src(); ++i) {
    if (!n.src(i).is_const()) return UOp();
    args[i] = n.src(i).const_value();
  }
  DType in = operand_dtype(n);
  Value out;
  if (eval_alu(n.op(), in, n.dtype(), args, out) != EvalError::None) return UOp();  // keep the UB
  return rc.ctx.const_value(n.dtype(), out);
}

// An int/bool ALU node whose bounds pin it to one value is that value.
UOp fold_bounds(RewriteCtx& rc, const Bindings& b) {
  UOp n = b["n"];
  if (!is_int_or_bool(n.dtype())) return UOp();
  if (n.op() == Op::Where && n.src(2).op() == Op::Invalid) return UOp();
  Interval i = state(rc).analysis.bounds(n);
  if (!i.is_const()) return UOp();
  // A uint64 interval at INT64_MAX stands for every value from there up (ir/analysis.cpp).
  if (n.dtype() == dtypes::UInt64 && i.lo == std::numeric_limits<int64_t>::max()) return UOp();
  return rc.ctx.const_int(n.dtype(), i.lo);
}

// y / c for a y that divides c exactly and visibly: a CONST, or y = z * k with c | k.
UOp exact_div(Context& ctx, UOp y, int64_t c) {
  if (y.is_const()) return ival(y) % c == 0 ? ctx.const_int(y.dtype(), ival(y) / c) : UOp();
  if (y.op() == Op::Mul)
    for (int s = 0; s < 2; ++s) {
      UOp k = y.src(1 - s);
      if (k.is_const() && ival(k) % c == 0)
        return ival(k) == c ? y.src(s)
                            : ctx.alu(Op::Mul, {y.src(s), ctx.const_int(k.dtype(), ival(k) / c)});
    }
  if (y.op() == Op::Add) {
    UOp a = exact_div(ctx, y.src(0), c), d = exact_div(ctx, y.src(1), c);
    if (a && d) return ctx.alu(Op::Add, {a, d});
  }
  return UOp();
}

// A REDUCE whose value depends only on constants and its own ranges, over a small
// constant trip count, is a constant: evaluate it as the oracle would (the left fold in
// lexicographic order, by the same scalar semantics), so it is bit-exact for floats too.
// This is what unrolling plus folding does in tinygrad's codegen (arange(10).sum() -> 45).
constexpr int64_t kMaxFoldTrips = 4096;
constexpr size_t kMaxFoldNodes = 64;

UOp fold_reduce(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"];
  const Op op = red.arg<ReduceArg>().op;
  std::vector<UOp> ranges;
  int64_t trips = 1;
  for (size_t i = 1; i < red.num_src(); ++i) {
    UOp r = red.src(i);
    // planted: no check that the end is a CONST (ival then throws on any other node)
    if (r.op() != Op::Range ||
        (!r.src(0).is_const() && !state(rc).bugs.has(Bug::FoldReduceUncheckedEnd)))
      return UOp();
    int64_t n = std::max<int64_t>(0, ival(r.src(0)));
    trips *= std::max<int64_t>(n, 1);
    if (trips > kMaxFoldTrips) return UOp();
    ranges.push_back(r);
  }
  std::vector<UOp> topo = toposort(red.src(0));
  if (topo.size() > kMaxFoldNodes) return UOp();
  for (UOp n : topo) {
    bool own_range = std::find(ranges.begin(), ranges.end(), n) != ranges.end();
    bool ok = n.is_const() || own_range ||
              (op_in(n.op(), Alu) && !(n.op() == Op::Where && n.src(2).op() == Op::Invalid));
    if (!ok) return UOp();
  }
  std::unordered_map<UOp, Value, UOpHash> val;
  std::vector<int64_t> idx(ranges.size(), 0);
  Value acc = reduce_identity(op, red.dtype());
  if (!state(rc).bugs.has(
          Bug::FoldReduceEmptyLoop))  // planted: no early exit, the odometer below never wraps
    for (UOp r : ranges)
      if (ival(r.src(0)) <= 0) return rc.ctx.const_value(red.dtype(), acc);  // no iterations
  while (true) {
    for (size_t k = 0; k < ranges.size(); ++k) val[ranges[k]] = Value::of_int(idx[k]);
    for (UOp n : topo) {
      if (n.is_const()) val[n] = n.const_value();
      if (!op_in(n.op(), Alu)) continue;
      Value args[3];
      for (size_t s = 0; s < n.num_src(); ++s) args[s] = val.at(n.src(s));
      DType in = operand_dtype(n);
      if (eval_alu(n.op(), in, n.dtype(), args, val[n]) != EvalError::None)
        return UOp();  // keep the UB
    }
    Value step[2] = {acc, val.at(red.src(0))};
    if (eval_alu(op, red.dtype(), red.dtype(), step, acc) != EvalError::None) return UOp();
    size_t k = ranges.size();  // next index, last range fastest
    while (k > 0 && ++idx[k - 1] == ival(ranges[k - 1].src(0))) idx[--k] = 0;
    if (k == 0) break;
  }
  return rc.ctx.const_value(red.dtype(), acc);
}

// ---- divmod_recombine_scaled: (m%c)*k + (m//c)*(c*k) -> m*k among the terms of an index sum

// The terms of an index ADD tree, left to right; at most kMaxSumTerms of them.
constexpr size_t kMaxSumTerms = 16;
bool sum_terms(UOp u, std::vector<UOp>& out) {
  if (u.op() != Op::Add || !u.dtype().is_index()) {
    out.push_back(u);
    return out.size() <= kMaxSumTerms;
  }
  return sum_terms(u.src(0), out) && sum_terms(u.src(1), out);
}

// A term as base * k with k a CONST (k = 1 for a bare term).
struct ScaledTerm {
  UOp base;
  __int128 k;
};
ScaledTerm scaled(UOp t) {
  if (t.op() == Op::Mul)
    for (int s = 0; s < 2; ++s)
      if (t.src(1 - s).is_const()) return {t.src(s), ival(t.src(1 - s))};
  return {t, 1};
}

// Floor division makes m == (m//c)*c + m%c for every m and every c != 0, so the pair is
// m*k exactly. The other terms are summed after it in a new order: every partial sum
// must fit index by the bounds, since the original's order may have kept them in range.
UOp divmod_recombine_scaled(RewriteCtx& rc, const Bindings& b) {
  std::vector<UOp> terms;
  if (!sum_terms(b["n"], terms)) return UOp();
  for (size_t i = 0; i < terms.size(); ++i) {
    ScaledTerm mod = scaled(terms[i]);
    if (mod.base.op() != Op::FloorMod || !mod.base.src(1).is_const()) continue;
    UOp m = mod.base.src(0), c = mod.base.src(1);
    if (ival(c) == 0) continue;
    for (size_t j = 0; j < terms.size(); ++j) {
      ScaledTerm div = scaled(terms[j]);
      if (j == i || div.base.op() != Op::FloorDiv || div.base.src(0) != m || div.base.src(1) != c ||
          div.k != mod.k * ival(c))
        continue;
      Context& ctx = rc.ctx;
      UOp out = mod.k == 1 ? m : ctx.alu(Op::Mul, {m, ctx.const_int(dtypes::Index, mod.k)});
      if (terms.size() == 2) return out;  // the whole sum: its value, which fit
      Interval mb = state(rc).analysis.bounds(m);
      __int128 lo = std::min(mb.lo * mod.k, mb.hi * mod.k),
               hi = std::max(mb.lo * mod.k, mb.hi * mod.k);
      if (!fits_index(lo, hi)) return UOp();
      for (size_t t = 0; t < terms.size(); ++t) {
        if (t == i || t == j) continue;
        Interval tb = state(rc).analysis.bounds(terms[t]);
        lo += tb.lo, hi += tb.hi;
        if (!fits_index(lo, hi)) return UOp();
        out = ctx.alu(Op::Add, {out, terms[t]});
      }
      return out;
    }
  }
  return UOp();
}

// ---- mod_congruence: (sum of k_i*t_i + k) % c -> sum of r_i*t_i + (k mod c) - q*c

__int128 floor_div128(__int128 v, __int128 c) {  // c > 0
  __int128 q = v / c;
  return (v % c != 0 && v < 0) ? q - 1 : q;
}

// A floor modulo depends on its operand only modulo c, and r_i == k_i (mod c), so the
// congruent sum has the remainder of the original; when its bounds stay within one period
// [q*c, q*c + c) that remainder is the sum minus q*c. Each r_i is k_i mod c or that minus c
// (tinygrad's fold_divmod_congruence: both for a lone term or a tie at c/2, else the
// smaller in magnitude), trying the combinations in order.
UOp mod_congruence(RewriteCtx& rc, const Bindings& b) {
  const int64_t c = ival(b["c"]);
  std::vector<UOp> terms;
  if (!sum_terms(b["x"], terms)) return UOp();
  __int128 konst = 0;
  std::vector<ScaledTerm> vars;
  for (UOp t : terms) {
    if (t.is_const())
      konst += ival(t);
    else
      vars.push_back(scaled(t));
  }
  bool reduces = konst < 0 || konst >= c;
  for (const ScaledTerm& v : vars) reduces = reduces || v.k < 0 || v.k >= c;
  if (vars.empty() || !reduces) return UOp();  // nothing to reduce: mod_one_period's case
  std::vector<std::vector<__int128>> choices;
  size_t combos = 1;
  for (const ScaledTerm& v : vars) {
    __int128 r = v.k - floor_div128(v.k, c) * c;
    if (r * 2 == c || vars.size() == 1)
      choices.push_back({r, r - c});
    else
      choices.push_back({r * 2 <= c ? r : r - c});
    combos *= choices.back().size();
    if (combos > 16) return UOp();
  }
  const __int128 kc = konst - floor_div128(konst, c) * c;
  Analysis& an = state(rc).analysis;
  for (size_t combo = 0; combo < combos; ++combo) {
    std::vector<__int128> rem(vars.size());
    size_t pick = combo;
    __int128 lo = kc, hi = kc;
    bool fits = true;
    for (size_t i = 0; i < vars.size() && fits; ++i) {
      rem[i] = choices[i][pick % choices[i].size()];
      pick /= choices[i].size();
      Interval tb = an.bounds(vars[i].base);
      lo += std::min(tb.lo * rem[i], tb.hi * rem[i]);
      hi += std::max(tb.lo * rem[i], tb.hi * rem[i]);
      fits = fits_index(lo, hi);
    }
    if (!fits || floor_div128(lo, c) != floor_div128(hi, c)) continue;
    Context& ctx = rc.ctx;
    UOp out;
    for (size_t i = 0; i < vars.size(); ++i) {
      if (rem[i] == 0) continue;
      UOp t = rem[i] == 1
                  ? vars[i].base
                  : ctx.alu(Op::Mul, {vars[i].base,
                                      ctx.const_int(dtypes::Index, static_cast<int64_t>(rem[i]))});
      out = out ? ctx.alu(Op::Add, {out, t}) : t;
    }
    const __int128 shift = kc - floor_div128(lo, c) * c;
    if (!out) return ctx.const_int(dtypes::Index, static_cast<int64_t>(shift));
    return shift == 0
               ? out
               : ctx.alu(Op::Add, {out, ctx.const_int(dtypes::Index, static_cast<int64_t>(shift))});
  }
  return UOp();
}

}  // namespace

RuleSet symbolic() {
  Pat x = Pat::var("x"), y = Pat::var("y"), c = Pat::cvar("c"), c2 = Pat::cvar("c2");
  auto ret = [](const char* name) {
    return [name](RewriteCtx&, const Bindings& b) { return b[name]; };
  };
  auto zero = [](RewriteCtx& rc, const Bindings&) { return rc.ctx.const_int(rc.node.dtype(), 0); };
  auto one = [](RewriteCtx& rc, const Bindings&) { return rc.ctx.const_int(rc.node.dtype(), 1); };
  auto fdiv = [](Pat a, Pat b) { return Pat::op(Op::FloorDiv, {a, b}); };
  auto fmod = [](Pat a, Pat b) { return Pat::op(Op::FloorMod, {a, b}); };
  const Pat lit0 = Pat::lit(0), lit1 = Pat::lit(1);

  RuleSet r;
  // ---- folding
  r.add("fold_const", Pat::group(Alu).named("n"), fold_const);                 // op(c1, c2) -> c
  r.add("fold_reduce", Pat::op(Op::Reduce).rest().named("red"), fold_reduce);  // sum_{r<10} r -> 45
  // ---- identities
  r.add("add_zero", (x + lit0).dtype_if(is_int), ret("x"));  // x+0 -> x
  r.add("sub_zero", (x - Pat::lit(0).named("z")).when([](const Bindings& b) {
    return !b["z"].dtype().is_float() ||
           !std::signbit(b["z"].const_value().f);  // x - (-0) is not x for x = -0
  }),
        ret("x"));                                       // x-0 -> x
  r.add("mul_one", x * lit1, ret("x"));                  // x*1 -> x
  r.add("mul_zero", (x * lit0).dtype_if(is_int), zero);  // x*0 -> 0
  r.add("sub_self", (x - x).dtype_if(is_int), zero);  // NOLINT(misc-redundant-expression): x-x -> 0
  r.add("neg_neg", Pat::op(Op::Neg, {Pat::op(Op::Neg, {x})}), ret("x"));  // -(-x) -> x
  r.add("floordiv_one", fdiv(x, lit1), ret("x"));                         // x//1 -> x
  r.add("cdiv_one", Pat::op(Op::Cdiv, {x, lit1}), ret("x"));              // x/1 -> x
  r.add("mod_one", Pat::ops({Op::FloorMod, Op::Cmod}, {x, lit1}), zero);  // x%1 -> 0
  r.add("max_self", Pat::ops({Op::Max, Op::Min}, {x, x}), ret("x"));      // max(x,x) -> x
  r.add("or_true", (x | lit1).dtype(dtypes::Bool), one);                  // x | true -> true
  // After the arithmetic identities, as in tinygrad (its vmin == vmax fold comes after them):
  // x*0, x%1 and x|true have one value too, and would otherwise never reach their rule.
  r.add("fold_bounds", Pat::group(Alu).named("n"), fold_bounds);          // vmin == vmax -> c
  r.add("where_same", Pat::op(Op::Where, {Pat::var(), x, x}), ret("x"));  // c ? x : x -> x
  r.add("where_true", Pat::op(Op::Where, {c, x, y}), [](RewriteCtx&, const Bindings& b) {
    UOp picked = ival(b["c"]) ? b["x"] : b["y"];         // true ? x : y -> x
    return picked.op() == Op::Invalid ? UOp() : picked;  // a gate that is never valid stays a gate
  });
  r.add("cast_noop", Pat::op(Op::Cast, {x}).named("n").when([](const Bindings& b) {
    return b["n"].dtype() == b["x"].dtype();
  }),
        ret("x"));                                              // cast(x) to its own dtype -> x
  r.add("range_one", Pat::op(Op::Range, {Pat::lit(1)}), zero);  // RANGE(1) -> 0 (flatten drops it)
  r.add("cmp_self", Pat::ops({Op::CmpLt, Op::CmpNe}, {x, x}).when([](const Bindings& b) {
    return is_int_or_bool(b["x"].dtype());
  }),
        zero);  // x<x, x!=x -> false
  r.add("eq_self", Pat::op(Op::CmpEq, {x, x}).when([](const Bindings& b) {
    return is_int_or_bool(b["x"].dtype());
  }),
        one);                                                        // x==x -> true
  r.add("and_true", (x & lit1).dtype(dtypes::Bool), ret("x"));       // x & true -> x
  r.add("and_false", (x & lit0).dtype_if(is_int_or_bool), zero);     // x & 0 -> 0
  r.add("or_false", (x | lit0).dtype_if(is_int_or_bool), ret("x"));  // x | 0 -> x
  // ---- canonical order: constants on the right, constants gathered
  r.add("const_to_right", Pat::group(Commutative).named("n").when([](const Bindings& b) {
    UOp n = b["n"];
    return n.num_src() == 2 && n.src(0).is_const() && !n.src(1).is_const();
  }),
        [](RewriteCtx& rc, const Bindings& b) {
          UOp n = b["n"];
          return rc.ctx.make(n.op(), n.dtype(), {n.src(1), n.src(0)}, n.arg());  // c+x -> x+c
        });
  // Index constants combine only where c+c2 (c*c2) does not overflow: the x between them
  // can keep the original in range ((x + INT64_MAX) + 1 for x < 0; (x * 2^62) * 4 for x = 0).
  r.add("add_consts", ((x + c) + c2).dtype_if(is_int), [](RewriteCtx& rc, const Bindings& b) {
    int64_t sum;
    if (b["x"].dtype().is_index() && __builtin_add_overflow(ival(b["c"]), ival(b["c2"]), &sum))
      return UOp();
    return rc.ctx.alu(Op::Add,
                      {b["x"], rc.ctx.alu(Op::Add, {b["c"], b["c2"]})});  // (x+c)+c2 -> x+(c+c2)
  });
  r.add("mul_consts", ((x * c) * c2).dtype_if(is_int), [](RewriteCtx& rc, const Bindings& b) {
    int64_t product;
    if (b["x"].dtype().is_index() && __builtin_mul_overflow(ival(b["c"]), ival(b["c2"]), &product))
      return UOp();
    return rc.ctx.alu(Op::Mul,
                      {b["x"], rc.ctx.alu(Op::Mul, {b["c"], b["c2"]})});  // (x*c)*c2 -> x*(c*c2)
  });
  r.add("sub_const", (x - c).dtype_if(is_int).when([](const Bindings& b) {
    return ival(b["c"]) != std::numeric_limits<int64_t>::min() && ival(b["c"]) != 0;
  }),
        [](RewriteCtx& rc, const Bindings& b) {
          return rc.ctx.alu(
              Op::Add, {b["x"], rc.ctx.const_int(b["x"].dtype(), -ival(b["c"]))});  // x-c -> x+(-c)
        });
  // ---- divmod (index only, positive constant divisors)
  auto pos_c = [&](const Bindings& b) { return positive_const(b, "c"); };
  auto nonneg_x = [](RewriteCtx& rc, UOp u) { return state(rc).analysis.vmin(u) >= 0; };
  r.add("cdiv_to_floordiv", Pat::op(Op::Cdiv, {x, c}).dtype(dtypes::Index).when(pos_c),
        [nonneg_x](RewriteCtx& rc, const Bindings& b) {  // x/c -> x//c when x >= 0
          return nonneg_x(rc, b["x"]) ? rc.ctx.alu(Op::FloorDiv, {b["x"], b["c"]}) : UOp();
        });
  r.add("cmod_to_floormod", Pat::op(Op::Cmod, {x, c}).dtype(dtypes::Index).when(pos_c),
        [nonneg_x](RewriteCtx& rc, const Bindings& b) {  // x%c (C) -> x%c (floor) when x >= 0
          return nonneg_x(rc, b["x"]) ? rc.ctx.alu(Op::FloorMod, {b["x"], b["c"]}) : UOp();
        });
  r.add("mod_one_period", fmod(x, c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          Interval i = state(rc).analysis.bounds(b["x"]);  // x%c -> x - q*c when x//c is constant q
          int64_t cv = ival(b["c"]);
          if (state(rc).bugs.has(Bug::ModIgnoresNegative) && i.hi < cv)
            return b["x"];             // planted: forgets x >= 0
          auto fl = [cv](int64_t v) {  // floor(v / cv) without overflow (cv > 0)
            int64_t q = v / cv;
            return (v % cv != 0 && v < 0) ? q - 1 : q;
          };
          if (fl(i.lo) != fl(i.hi)) return UOp();
          __int128 shift = -__int128{fl(i.lo)} * cv;
          if (shift < std::numeric_limits<int64_t>::min() ||
              shift > std::numeric_limits<int64_t>::max())
            return UOp();
          return shift == 0
                     ? b["x"]
                     : rc.ctx.alu(Op::Add, {b["x"], rc.ctx.const_int(dtypes::Index,
                                                                     static_cast<int64_t>(shift))});
        });
  r.add("mul_div", fdiv(x * c2, c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          int64_t k = ival(b["c2"]), d = ival(b["c"]);  // (x*k)//d -> x*(k/d) when d | k
          if (k % d) return UOp();
          return rc.ctx.alu(Op::Mul, {b["x"], rc.ctx.const_int(dtypes::Index, k / d)});
        });
  r.add("mul_mod", fmod(x * c2, c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          return ival(b["c2"]) % ival(b["c"]) == 0 ? rc.ctx.const_int(dtypes::Index, 0)
                                                   : UOp();  // (x*k)%d -> 0 when d | k
        });
  r.add("add_div", fdiv(x + y, c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          UOp q = exact_div(rc.ctx, b["y"], ival(b["c"]));  // (x+y)//c -> x//c + y/c when c | y
          if (!q) return UOp();
          return rc.ctx.alu(Op::Add, {rc.ctx.alu(Op::FloorDiv, {b["x"], b["c"]}), q});
        });
  r.add("add_mod", fmod(x + y, c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          if (!state(rc).analysis.divides(b["y"], ival(b["c"])))
            return UOp();  // (x+y)%c -> x%c when c | y
          return rc.ctx.alu(Op::FloorMod, {b["x"], b["c"]});
        });
  r.add("div_div", fdiv(fdiv(x, c2), c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          int64_t a = ival(b["c2"]), d = ival(b["c"]);  // (x//a)//d -> x//(a*d)
          __int128 p = __int128{a} * d;
          if (a <= 0 || p > std::numeric_limits<int64_t>::max()) return UOp();
          return rc.ctx.alu(Op::FloorDiv,
                            {b["x"], rc.ctx.const_int(dtypes::Index, static_cast<int64_t>(p))});
        });
  r.add("mod_mod", fmod(fmod(x, c2), c).dtype(dtypes::Index).when(pos_c),
        [](RewriteCtx& rc, const Bindings& b) {
          int64_t a = ival(b["c2"]), d = ival(b["c"]);  // (x%a)%d -> x%d when d | a
          return a > 0 && a % d == 0 ? rc.ctx.alu(Op::FloorMod, {b["x"], b["c"]}) : UOp();
        });
  r.add("divmod_recombine", (fdiv(x, c) * c + fmod(x, c)).dtype(dtypes::Index).when(pos_c),
        ret("x"));  // (x//c)*c + x%c -> x
  r.add("divmod_recombine_scaled", Pat::op(Op::Add).dtype(dtypes::Index).named("n"),
        divmod_recombine_scaled);  // (m%c)*k + (m//c)*(c*k) + rest -> m*k + rest
  // Last of the divmod rules: it generalizes mul_mod and add_mod, which keep their cases.
  r.add("mod_congruence", fmod(x, c).dtype(dtypes::Index).when(pos_c),
        mod_congruence);  // (24*j + w) % 23 -> j + w when 0 <= j + w < 23
  // ---- quantized: after fold_const, which takes REQUANTIZE of a CONST
  return r + pm_requantize();
}

}  // namespace uopfuzz::simplifier
