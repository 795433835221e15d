#include "ir/analysis.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace uopfuzz::ir {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Floor division for intervals (b != 0).
int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Interval dtype_interval(DType dt) {
  if (dt.is_int() || dt.is_bool()) return {dt.int_min(), dt.int_max()};
  return {kMin, kMax};
}

Interval Analysis::bounds(UOp u) {
  if (const Interval* known = cache_.find(u)) return *known;
  // Fill the cache bottom-up without recursion, so deep graphs do not overflow the
  // stack. The walk stops at cached nodes: a rewrite asks about a few new nodes over a
  // large analysed graph, so walking everything below them would cost the whole graph.
  // (node, index of the next source to visit); in a DAG a node is pushed at most once,
  // since it is cached before the walk leaves it and it cannot be its own source.
  std::vector<std::pair<UOp, size_t>> stack{{u, 0}};
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < n.num_src()) {
      UOp s = n.src(next++);
      if (!cache_.contains(s)) stack.emplace_back(s, 0);
      continue;
    }
    cache_.emplace(n, compute(n));
    stack.pop_back();
  }
  return cache_.at(u);
}

Interval Analysis::compute(UOp u) {
  const DType dt = u.dtype();
  const Interval full = dtype_interval(dt);
  if (!(dt.is_int() || dt.is_bool())) return full;
  // Clamp to the dtype: an interval outside it means the value may wrap (sized ints).
  auto fit = [&](__int128 lo, __int128 hi) -> Interval {
    if (lo < full.lo || hi > full.hi) return full;
    return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  };
  auto b = [&](size_t i) { return cache_.at(u.src(i)); };
  // A uint64 interval cannot hold values from 2^63 up: one that reaches INT64_MAX means
  // "no upper bound", which no rule below may narrow.
  auto unbounded = [&](size_t i) { return u.src(i).dtype() == dtypes::UInt64 && b(i).hi == kMax; };
  switch (op_kind(u.op())) {
    case OpKind::Leaf:
      switch (leaf_op(u.op())) {
        case LeafOp::Const: {
          Value v = u.const_value();
          if (dt.kind() == DTypeKind::Unsigned && v.u > static_cast<uint64_t>(kMax)) return full;
          return {v.i, v.i};
        }
        case LeafOp::Var: {
          const auto& v = u.arg<VarArg>();
          return fit(v.min, v.max);
        }
        case LeafOp::Invalid:
        case LeafOp::Param: return full;
      }
      break;
    case OpKind::Structural:
      switch (structural_op(u.op())) {
        case StructuralOp::Range: {
          Interval e = b(0);
          return {0, std::max<int64_t>(0, e.hi - 1)};
        }
        case StructuralOp::Load: {
          UOp buf = u.src(0).src(0);
          Interval r = full;
          if (buf.op() == Op::Param) {
            const auto& p = buf.arg<ParamArg>();
            if (p.vmin) r.lo = std::max(r.lo, *p.vmin);
            if (p.vmax) r.hi = std::min(r.hi, *p.vmax);
          }
          if (u.num_src() == 2) {  // a gated load may yield its alternative
            Interval alt = b(1);
            r = {std::min(r.lo, alt.lo), std::max(r.hi, alt.hi)};
          } else if (u.src(0).src(1).op() == Op::Where) {
            r = {std::min<int64_t>(r.lo, 0), std::max<int64_t>(r.hi, 0)};
          }
          return r;
        }
        case StructuralOp::Reduce: {
          Interval v = b(0);
          __int128 nlo = 1, nhi = 1;
          for (size_t i = 1; i < u.num_src(); ++i) {
            if (u.src(i).op() != Op::Range)
              continue;  // a range of one folded to a constant: one iteration
            Interval e = cache_.at(u.src(i).src(0));
            nlo *= std::max<int64_t>(0, e.lo);
            nhi *= std::max<int64_t>(0, e.hi);
            if (nhi > (__int128{1} << 62)) return full;
          }
          switch (op_kind(u.arg<ReduceArg>().op)) {
            case OpKind::Leaf:
            case OpKind::Structural:
            case OpKind::Tensor:
            case OpKind::Schedule: return full;
            case OpKind::Alu:
              switch (alu_op(u.arg<ReduceArg>().op)) {
                case AluOp::Add: {
                  __int128 lo = std::min(nlo * v.lo, nhi * v.lo),
                           hi = std::max(nlo * v.hi, nhi * v.hi);
                  return fit(lo, hi);
                }
                case AluOp::Max:
                case AluOp::Min:
                  if (nlo >= 1) return v;  // never the identity
                  return full;
                case AluOp::Neg:
                case AluOp::Cast:
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
                case AluOp::Sub:
                case AluOp::Mul:
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
                case AluOp::Shr:
                case AluOp::Where: return full;
              }
              break;
          }
          return full;
        }
        case StructuralOp::Index:
        case StructuralOp::Store:
        case StructuralOp::End:
        case StructuralOp::Sink: return full;
      }
      break;
    case OpKind::Alu:
      switch (alu_op(u.op())) {
        case AluOp::Add: return fit(__int128{b(0).lo} + b(1).lo, __int128{b(0).hi} + b(1).hi);
        case AluOp::Sub:
          if (unbounded(0)) return full;
          return fit(__int128{b(0).lo} - b(1).hi, __int128{b(0).hi} - b(1).lo);
        case AluOp::Neg: return fit(-__int128{b(0).hi}, -__int128{b(0).lo});
        case AluOp::Mul: {
          Interval x = b(0), y = b(1);
          __int128 c[4] = {__int128{x.lo} * y.lo, __int128{x.lo} * y.hi, __int128{x.hi} * y.lo,
                           __int128{x.hi} * y.hi};
          return fit(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
        }
        case AluOp::FloorDiv:
        case AluOp::Cdiv: {
          Interval x = b(0), y = b(1);
          if (y.lo <= 0 || dt.kind() == DTypeKind::Unsigned) {
            if (y.lo > 0 && x.lo >= 0 && !unbounded(0)) return {x.lo / y.hi, x.hi / y.lo};
            return full;
          }
          if (u.op() == Op::Cdiv && x.lo < 0) {  // |x / y| <= max(|x.lo|, x.hi) for y >= 1
            __int128 m = std::max(-__int128{x.lo}, __int128{x.hi});
            return fit(-m, std::max<int64_t>(x.hi, 0));
          }
          // Positive divisor: monotone in x, and for fixed sign of x monotone in y.
          int64_t c[4] = {floordiv(x.lo, y.lo), floordiv(x.lo, y.hi), floordiv(x.hi, y.lo),
                          floordiv(x.hi, y.hi)};
          return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
        }
        case AluOp::FloorMod:
        case AluOp::Cmod: {
          Interval x = b(0), y = b(1);
          if (y.lo <= 0 || unbounded(0) || unbounded(1)) return full;
          if (y.is_const() && floordiv(x.lo, y.lo) == floordiv(x.hi, y.lo) &&
              (x.lo >= 0 || u.op() == Op::FloorMod)) {
            // one period: the modulus is a shift (q may pass INT64_MIN for x near it)
            const __int128 q = __int128{floordiv(x.lo, y.lo)} * y.lo;
            return {static_cast<int64_t>(x.lo - q), static_cast<int64_t>(x.hi - q)};
          }
          if (x.lo >= 0) return {0, std::min(x.hi, y.hi - 1)};
          if (u.op() == Op::FloorMod) return {0, y.hi - 1};
          return {-(y.hi - 1), std::max<int64_t>(0, std::min(x.hi, y.hi - 1))};
        }
        case AluOp::Max: return {std::max(b(0).lo, b(1).lo), std::max(b(0).hi, b(1).hi)};
        case AluOp::Min: return {std::min(b(0).lo, b(1).lo), std::min(b(0).hi, b(1).hi)};
        case AluOp::CmpLt: {
          Interval x = b(0), y = b(1);
          if (u.src(0).dtype().is_float()) return {0, 1};
          if (x.hi < y.lo) return {1, 1};
          if (x.lo >= y.hi && !unbounded(1)) return {0, 0};
          return {0, 1};
        }
        case AluOp::CmpNe:
        case AluOp::CmpEq: {
          Interval x = b(0), y = b(1);
          if (u.src(0).dtype().is_float()) return {0, 1};
          bool disjoint = x.hi < y.lo || y.hi < x.lo;
          bool same = x.is_const() && y.is_const() && x.lo == y.lo;
          if (disjoint) return u.op() == Op::CmpNe ? Interval{1, 1} : Interval{0, 0};
          if (same) return u.op() == Op::CmpNe ? Interval{0, 0} : Interval{1, 1};
          return {0, 1};
        }
        case AluOp::Where: {
          Interval c = b(0), x = b(1), y = b(2);
          if (c.lo == 1) return x;
          if (c.hi == 0) return y;
          return {std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
        }
        case AluOp::Cast: {
          DType from = u.src(0).dtype();
          if (from.is_float()) return full;
          Interval x = b(0);
          if (dt.is_bool())
            return x.lo > 0 || x.hi < 0 ? Interval{1, 1}
                   : x.is_const()       ? Interval{0, 0}
                                        : Interval{0, 1};
          if (unbounded(0)) return full;  // uint64 from 2^63 up is negative as int64
          return fit(x.lo, x.hi);
        }
        case AluOp::And:
          if (dt.is_bool()) return {b(0).lo & b(1).lo, b(0).hi & b(1).hi};
          if (b(0).lo >= 0 && b(1).lo >= 0) return {0, std::min(b(0).hi, b(1).hi)};
          return full;
        case AluOp::Or:
          if (dt.is_bool()) return {b(0).lo | b(1).lo, b(0).hi | b(1).hi};
          return full;
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
        case AluOp::Xor:
        case AluOp::Shl:
        case AluOp::Shr: return full;
      }
      break;
    case OpKind::Tensor:
    case OpKind::Schedule: return full;
  }
  return full;
}

bool Analysis::divides(UOp u, int64_t v) {
  if (v == 1) return true;
  if (v <= 0) return false;
  // Wrapping breaks divisibility (3 * 50 in int8 is -106), so only the leaves of a sized
  // integer type are proven; index arithmetic never wraps in a UB-free kernel.
  if (!u.dtype().is_index() && u.op() != Op::Const && u.op() != Op::Var && u.op() != Op::Load)
    return false;
  switch (op_kind(u.op())) {
    case OpKind::Leaf:
      switch (leaf_op(u.op())) {
        case LeafOp::Const:
          // A uint64 constant from 2^63 up is no int64: test its own value (2^64 - 3 reads
          // -3 as int64, which 3 divides; 2^64 - 3 itself is 1 mod 3).
          if (u.dtype().kind() == DTypeKind::Unsigned)
            return u.const_value().u % static_cast<uint64_t>(v) == 0;
          return !u.dtype().is_float() && u.const_value().i % v == 0;
        case LeafOp::Var: {
          const auto& m = u.arg<VarArg>().multiple_of;
          return m && *m % v == 0;
        }
        case LeafOp::Invalid:
        case LeafOp::Param: return false;
      }
      break;
    case OpKind::Structural:
      switch (structural_op(u.op())) {
        case StructuralOp::Load: {
          UOp buf = u.src(0).src(0);
          if (buf.op() != Op::Param || u.num_src() == 2 || u.src(0).src(1).op() == Op::Where)
            return false;
          const auto& m = buf.arg<ParamArg>().multiple_of;
          return m && *m % v == 0;
        }
        case StructuralOp::Range:
        case StructuralOp::Index:
        case StructuralOp::Store:
        case StructuralOp::End:
        case StructuralOp::Reduce:
        case StructuralOp::Sink: return false;
      }
      break;
    case OpKind::Alu:
      switch (alu_op(u.op())) {
        case AluOp::Add: return divides(u.src(0), v) && divides(u.src(1), v);
        case AluOp::Mul: return divides(u.src(0), v) || divides(u.src(1), v);
        case AluOp::Neg:
        case AluOp::Cast:
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
        case AluOp::Sub:
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod:
        case AluOp::Max:
        case AluOp::Min:
        case AluOp::CmpLt:
        case AluOp::CmpNe:
        case AluOp::CmpEq:
        case AluOp::And:
        case AluOp::Or:
        case AluOp::Xor:
        case AluOp::Shl:
        case AluOp::Shr:
        case AluOp::Where: return false;
      }
      break;
    case OpKind::Tensor:
    case OpKind::Schedule: return false;
  }
  return false;
}

}  // namespace uopfuzz::ir
