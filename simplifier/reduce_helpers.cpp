#include "simplifier/reduce_helpers.h"

#include <algorithm>
#include <string>
#include <vector>

#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

bool has_range(UOp u) {
  return any_node(u, [](UOp n) { return n.op() == Op::Range; });
}
bool no_range(UOp u) {
  return !has_range(u);
}
bool no_load(UOp u) {
  return !any_node(u, [](UOp n) { return n.op() == Op::Load || n.op() == Op::Index; });
}
bool contains(UOp root, UOp what) {
  return any_node(root, [what](UOp n) { return n == what; });
}
bool in_set(const RangeSet& s, UOp r) {
  return std::find(s.begin(), s.end(), r) != s.end();
}

bool may_fault_on_some_operand(UOp n) {
  switch (n.op()) {
    case Op::Cdiv:
    case Op::Cmod:
    case Op::FloorDiv:
    case Op::FloorMod:
    case Op::Shl:
    case Op::Shr:
    case Op::Bitcast: return true;
    case Op::Cast:
      return (n.src(0).dtype().is_float() && !n.dtype().is_float() && !n.dtype().is_bool()) ||
             (n.dtype().is_index() && n.src(0).dtype() == dtypes::UInt64);
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Neg: return n.dtype().is_index();
    default: return false;  // total ALU ops; loads are the caller's (gated, or in bounds)
  }
}

bool may_fault(RewriteCtx& rc, UOp u) {
  return any_node(u, [&](UOp n) {
    switch (n.op()) {
      case Op::Cdiv:
      case Op::Cmod:
      case Op::FloorDiv:
      case Op::FloorMod:
        // An integer divisor proven positive is never 0 (nor -1 under the minimum). Calling
        // r % 2 faulting held reduce_collapse back until split_ranges had made r % 2 a
        // range, leaving a result that kernel_graph changed on a second simplify (a
        // not-idempotent finding).
        return !n.dtype().is_int() || state(rc).analysis.bounds(n.src(1)).lo <= 0;
      case Op::Shl:
      case Op::Shr:
      case Op::Bitcast: return true;
      case Op::Load: {  // faults only out of bounds
        UOp buf = n.src(0).src(0), idx = n.src(0).src(1);
        if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) idx = idx.src(1);
        Interval b = state(rc).analysis.bounds(idx);
        return buf.op() != Op::Param || b.lo < 0 || b.hi >= buf.arg<ParamArg>().size;
      }
      case Op::Cast:
        return n.src(0).dtype().is_float() && !n.dtype().is_float() && !n.dtype().is_bool();
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Neg:
        return n.dtype().is_index() && state(rc).analysis.bounds(n) == dtype_interval(n.dtype());
      case Op::Const:
      case Op::Invalid:
      case Op::Param:
      case Op::Var:
      case Op::Range:
      case Op::Index:
      case Op::Store:
      case Op::End:
      case Op::Reduce:
      case Op::Reshape:
      case Op::Permute:
      case Op::Expand:
      case Op::Pad:
      case Op::Shrink:
      case Op::Flip:
      case Op::ReduceAxis:
      case Op::Contiguous:
      case Op::Realize:
      case Op::Bufferize:
      case Op::Sink:
      case Op::Reciprocal:
      case Op::Sqrt:
      case Op::Exp2:
      case Op::Log2:
      case Op::Sin:
      case Op::Trunc:
      case Op::Quantize:
      case Op::Dequantize:
      case Op::Requantize:
      case Op::Max:
      case Op::Min:
      case Op::CmpLt:
      case Op::CmpNe:
      case Op::CmpEq:
      case Op::And:
      case Op::Or:
      case Op::Xor:
      case Op::Where: return false;
    }
    return false;
  });
}

Interval bnd(RewriteCtx& rc, UOp u) {
  return state(rc).analysis.bounds(u);
}

bool fits(DType dt, __int128 lo, __int128 hi) {
  Interval d = dtype_interval(dt);
  return lo >= d.lo && hi <= d.hi;
}

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

Pat::Pred no_range_in(std::initializer_list<std::string_view> names) {
  return [names = std::vector<std::string_view>(names)](const Bindings& b) {
    return std::all_of(names.begin(), names.end(),
                       [&](std::string_view n) { return no_range(b[n]); });
  };
}
Pat::Pred not_invalid(std::initializer_list<std::string_view> names) {
  return [names = std::vector<std::string_view>(names)](const Bindings& b) {
    return std::none_of(names.begin(), names.end(),
                        [&](std::string_view n) { return b[n].op() == Op::Invalid; });
  };
}
Pat::Pred range_in(std::string_view name) {
  return [name](const Bindings& b) { return has_range(b[name]); };
}

Pat sum_r(const Pat& value) {
  return Pat::op(Op::Reduce, {value, Pat::op(Op::Range).named("r")})
      .arg(ReduceArg{Op::Add})
      .named("red");
}
Pat sum(const Pat& value) {
  return Pat::op(Op::Reduce, {value}).rest().arg(ReduceArg{Op::Add}).named("red");
}
Pat where(const Pat& cond, const Pat& a, const Pat& b) {
  return Pat::op(Op::Where, {cond, a, b});
}

Pat range_or_cast(std::string_view range, std::string_view cast) {
  Pat r = Pat::op(Op::Range).named(std::string(range));
  return Pat::any_of({r, Pat::op(Op::Cast, {r}).named(std::string(cast))});
}

bool lossless_range_cast(RewriteCtx& rc, UOp cast) {
  const DType dt = cast.dtype();
  if (!dt.is_int()) return false;  // a float or bool compare is not an integer equality
  if (!dt.is_signed() && dt.bits() == 64) return false;  // index(i) must be exact: not uint64
  Interval r = bnd(rc, cast.src(0));
  return fits(dt, r.lo, r.hi);
}

Pat negation(const Pat& b) {
  Pat yes = Pat::lit(1).dtype(dtypes::Bool), no = Pat::lit(0).dtype(dtypes::Bool);
  return Pat::any_of({Pat::ops({Op::Xor, Op::CmpNe}, {b, yes}), Pat::op(Op::CmpEq, {b, no})})
      .dtype(dtypes::Bool);
}

}  // namespace uopfuzz::simplifier
