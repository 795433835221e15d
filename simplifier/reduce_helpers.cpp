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
  switch (op_kind(n.op())) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return false;  // loads are the caller's (gated, or in bounds)
    case OpKind::Alu: break;
  }
  // Every ALU op states its fault class in ops.def, so a new op cannot count as safe
  // by omission.
  switch (alu_fault(n.op())) {
    case AluFault::Total: return false;
    case AluFault::DivByZero:
    case AluFault::Faults: return true;
    case AluFault::CastRange:
      return (n.src(0).dtype().is_float() && !n.dtype().is_float() && !n.dtype().is_bool()) ||
             (n.dtype().is_index() && n.src(0).dtype() == dtypes::UInt64);
    case AluFault::IndexOverflow: return n.dtype().is_index();
  }
  return false;
}

bool may_fault(RewriteCtx& rc, UOp u) {
  return any_node(u, [&](UOp n) {
    switch (op_kind(n.op())) {
      case OpKind::Structural:
        switch (structural_op(n.op())) {
          case StructuralOp::Load: {  // faults only out of bounds
            UOp buf = n.src(0).src(0), idx = n.src(0).src(1);
            if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) idx = idx.src(1);
            Interval b = state(rc).analysis.bounds(idx);
            return buf.op() != Op::Param || b.lo < 0 || b.hi >= buf.arg<ParamArg>().size;
          }
          case StructuralOp::Range:
          case StructuralOp::Index:
          case StructuralOp::Store:
          case StructuralOp::End:
          case StructuralOp::Reduce:
          case StructuralOp::Sink: return false;
        }
        return false;
      case OpKind::Leaf:
      case OpKind::Tensor:
      case OpKind::Schedule: return false;
      case OpKind::Alu: break;
    }
    switch (alu_fault(n.op())) {
      case AluFault::Total: return false;
      case AluFault::DivByZero:
        // An integer divisor proven positive is never 0 (nor -1 under the minimum). Calling
        // r % 2 faulting held reduce_collapse back until split_ranges had made r % 2 a
        // range, leaving a result that kernel_graph changed on a second simplify (a
        // not-idempotent finding).
        return !n.dtype().is_int() || state(rc).analysis.bounds(n.src(1)).lo <= 0;
      case AluFault::Faults: return true;
      case AluFault::CastRange:
        return n.src(0).dtype().is_float() && !n.dtype().is_float() && !n.dtype().is_bool();
      case AluFault::IndexOverflow:
        return n.dtype().is_index() && state(rc).analysis.bounds(n) == dtype_interval(n.dtype());
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
