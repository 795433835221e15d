// A float sum is rewritten (count * v, sum(x) + sum(y)) only when every partial sum, in
// either order, is exactly representable, so both sides round nowhere. The proof is a
// small "dyadic" analysis: a float node whose every value is j * 2^e for an integer
// |j| <= k (CONSTs, casts of bounded integers, and +, -, *, max, min, where, REDUCE ADD
// of such). Loaded floats are unknown: their sums are left alone.
#include "simplifier/exact_float.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

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

using DyadicMemo = std::unordered_map<UOp, std::optional<Dyadic>, UOpHash>;

std::optional<Dyadic> dyadic_of(RewriteCtx& rc, UOp u, DyadicMemo& memo);

std::optional<Dyadic> dyadic_compute(RewriteCtx& rc, UOp u, DyadicMemo& memo) {
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
  switch (op_kind(u.op())) {
    case OpKind::Leaf:
      switch (leaf_op(u.op())) {
        case LeafOp::Const: {
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
        case LeafOp::Var: {  // a float temporary of reduce_collapse: (e, k) carried in (min, max)
          const auto& v = u.arg<VarArg>();
          if (!v.name.starts_with(kTmpPrefix) || v.max < 0) return std::nullopt;
          return check({v.max, static_cast<int>(v.min)});
        }
        case LeafOp::Invalid:
        case LeafOp::Param: return std::nullopt;  // loaded, rounded or not a float: unknown
      }
      break;
    case OpKind::Structural:
      switch (structural_op(u.op())) {
        case StructuralOp::Reduce: {
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
        case StructuralOp::Range:
        case StructuralOp::Index:
        case StructuralOp::Load:
        case StructuralOp::Store:
        case StructuralOp::End:
        case StructuralOp::Sink: return std::nullopt;  // loaded, rounded or not a float: unknown
      }
      break;
    case OpKind::Alu:
      switch (alu_op(u.op())) {
        case AluOp::Cast: {
          DType from = u.src(0).dtype();
          if (from.is_float()) {
            auto d = sub(0);
            return d ? check(*d) : std::nullopt;
          }
          if (!from.is_int() && !from.is_bool()) return std::nullopt;
          Interval iv = state(rc).analysis.bounds(u.src(0));
          return check({std::max<__int128>(-__int128{iv.lo}, iv.hi), 0});
        }
        case AluOp::Neg: return sub(0);
        case AluOp::Add:
        case AluOp::Sub:
        case AluOp::Max:
        case AluOp::Min:
        case AluOp::Where: {
          size_t i = u.op() == Op::Where ? 1 : 0;
          auto a = sub(i), b = sub(i + 1);
          if (!a || !b) return std::nullopt;
          __int128 ka, kb;
          auto e = align(*a, *b, ka, kb);
          if (!e) return std::nullopt;
          bool sum = u.op() == Op::Add || u.op() == Op::Sub;
          return check({sum ? ka + kb : std::max(ka, kb), *e});
        }
        case AluOp::Mul: {
          auto a = sub(0), b = sub(1);
          if (!a || !b || a->k > (__int128{1} << 60) || b->k > (__int128{1} << 60))
            return std::nullopt;
          return check({a->k * b->k, a->e + b->e});
        }
        case AluOp::Bitcast:
        case AluOp::Reciprocal:
        case AluOp::Sqrt:
        case AluOp::Exp2:
        case AluOp::Log2:
        case AluOp::Sin:
        case AluOp::Trunc:
        case AluOp::Quantize:
        case AluOp::Dequantize:
        case AluOp::Requantize:
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod:
        case AluOp::CmpLt:
        case AluOp::CmpNe:
        case AluOp::CmpEq:
        case AluOp::And:
        case AluOp::Or:
        case AluOp::Xor:
        case AluOp::Shl:
        case AluOp::Shr: return std::nullopt;  // loaded, rounded or not a float: unknown
      }
      break;
    case OpKind::Tensor:
    case OpKind::Schedule: return std::nullopt;  // loaded, rounded or not a float: unknown
  }
  return std::nullopt;
}

std::optional<Dyadic> dyadic_of(RewriteCtx& rc, UOp u, DyadicMemo& memo) {
  if (auto it = memo.find(u); it != memo.end()) return it->second;
  std::optional<Dyadic> d = dyadic_compute(rc, u, memo);
  memo.emplace(u, d);
  return d;
}

}  // namespace

bool representable(DType dt, __int128 k, int e) {
  FloatFormat f = float_format(dt);
  if (k < 0 || k >= (__int128{1} << f.precision)) return false;
  return k == 0 || (e >= f.min_exp && std::ldexp(static_cast<double>(k), e) <= f.max);
}

std::optional<Dyadic> dyadic(RewriteCtx& rc, UOp u) {
  DyadicMemo memo;
  return dyadic_of(rc, u, memo);
}

bool exact_multiple(RewriteCtx& rc, UOp v, int64_t n) {
  if (v.is_const() && !std::isfinite(v.const_value().f))
    return true;  // inf, NaN: n >= 1 copies are v
  auto d = dyadic(rc, v);
  return d && n >= 0 && d->k <= (__int128{1} << 62) / std::max<int64_t>(n, 1) &&
         representable(v.dtype(), d->k * std::max<int64_t>(n, 1), d->e);
}

bool exact_split(RewriteCtx& rc, DType dt, UOp x, UOp y, __int128 iters) {
  auto dx = dyadic(rc, x), dy = dyadic(rc, y);
  if (!dx || !dy) return false;
  int e = std::min(dx->e, dy->e);
  if (dx->e - e > 60 || dy->e - e > 60) return false;
  __int128 k = (dx->k << (dx->e - e)) + (dy->k << (dy->e - e));
  return k <= (__int128{1} << 62) / iters && representable(dt, k * iters, e);
}

UOp times_count(RewriteCtx& rc, UOp v, UOp count) {
  Context& ctx = rc.ctx;
  Analysis& an = state(rc).analysis;
  const DType dt = v.dtype();
  if (dt.is_float() && !exact_multiple(rc, v, an.bounds(count).hi)) return UOp();
  if (an.bounds(count).lo < 0) count = ctx.alu(Op::Max, {count, ctx.const_int(dtypes::Index, 0)});
  UOp c = dt.is_index() ? count : ctx.make(Op::Cast, dt, {count});
  if (!dt.is_float()) return ctx.alu(Op::Mul, {v, c});
  UOp sum = ctx.alu(Op::Add, {ctx.alu(Op::Mul, {v, c}), ctx.const_int(dt, 0)});
  if (an.bounds(count).lo >= 1) return sum;
  return ctx.alu(Op::Where, {ctx.alu(Op::CmpLt, {ctx.const_int(dtypes::Index, 0), count}), sum,
                             ctx.const_int(dt, 0)});
}

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

}  // namespace uopfuzz::simplifier
