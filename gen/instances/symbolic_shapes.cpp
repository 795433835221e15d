// Nodes shaped like the left-hand side of a symbolic rule: divmod shapes of integers,
// boolean identities, and the identities and constant folds of every dtype.
#include <cstdint>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
// The shapes of each draw, one name per case in the order of the draw (drawn uniformly).
enum class DivmodShape : uint8_t {
  CRound,          ///< x cdiv c, x cmod c
  FloorMod,        ///< x % c
  FloorDiv,        ///< x // c
  ScaledDividend,  ///< (x*k) // d, (x*k) % d, d | k or not
  ScaledAddend,    ///< (x + y*k) // d, (x + y*k) % d
  DivDiv,          ///< (x//a)//d
  ModMod,          ///< (x%a)%d, d | a or not
  Recombine,       ///< (x//c)*c + x%c
  TwoRanges,       ///< (r*c1 + r2) // c, % c over two ranges (index only)
  Offset,          ///< (x + k) // c, (x + k) % c
  FloorDivOne,     ///< x // 1
  CRoundOne,       ///< x cdiv 1, x cmod 1
};
constexpr DivmodShape kDivmodShapes[] = {
    DivmodShape::CRound,         DivmodShape::FloorMod,     DivmodShape::FloorDiv,
    DivmodShape::ScaledDividend, DivmodShape::ScaledAddend, DivmodShape::DivDiv,
    DivmodShape::ModMod,         DivmodShape::Recombine,    DivmodShape::TwoRanges,
    DivmodShape::Offset,         DivmodShape::FloorDivOne,  DivmodShape::CRoundOne};

enum class BoolShape : uint8_t {
  SelfCompare,  ///< x<x, x!=x, x==x
  AndTrue,      ///< b & true
  FalseAnd,     ///< false & b
  OrConst,      ///< b | true, b | false
  WhereSame,    ///< c ? b : b
  CastSelf,     ///< cast to bool of a bool
  WhereConst,   ///< true ? b : y, false ? b : y
};
constexpr BoolShape kBoolShapes[] = {
    BoolShape::SelfCompare, BoolShape::AndTrue,  BoolShape::FalseAnd,  BoolShape::OrConst,
    BoolShape::WhereSame,   BoolShape::CastSelf, BoolShape::WhereConst};

enum class Identity : uint8_t {
  AddZero,
  SubZero,
  MulOne,
  MulZero,
  SubSelf,
  NegNeg,
  MaxSelf,
  WhereSame,
  WhereConst,
  CastSelf,
  AddConsts,    ///< (x+c)+c2
  MulConsts,    ///< (x*c)*c2
  SubConst,     ///< x-c
  ConstFirst,   ///< c op x
  ZeroOperand,  ///< x&0, x|0 (integers); x + (-0.0) (floats)
  DivOne,       ///< x//1 (integers); x - (-0.0) (floats)
};
constexpr Identity kIdentities[] = {
    Identity::AddZero,    Identity::SubZero,    Identity::MulOne,      Identity::MulZero,
    Identity::SubSelf,    Identity::NegNeg,     Identity::MaxSelf,     Identity::WhereSame,
    Identity::WhereConst, Identity::CastSelf,   Identity::AddConsts,   Identity::MulConsts,
    Identity::SubConst,   Identity::ConstFirst, Identity::ZeroOperand, Identity::DivOne};
}  // namespace

ir::UOp InstanceBuilder::shape(DType dt, int d, const Scope& s, bool divmod) {
  auto e = [&](DType t) { return expr(t, d, s, divmod); };
  const bool is_int = dt.is_int();
  if (is_int && (divmod || chance(w_.p_int_divmod_shape))) {
    UOp a = e(dt);
    UOp c = divisor(dt), c2 = divisor(dt);
    auto fdiv = [&](UOp x, UOp y) { return alu(Op::FloorDiv, x, y); };
    auto fmod = [&](UOp x, UOp y) { return alu(Op::FloorMod, x, y); };
    switch (option(kDivmodShapes)) {
      case DivmodShape::CRound: return alu(one_of<Op>({Op::Cdiv, Op::Cmod}), a, c);
      case DivmodShape::FloorMod: return fmod(a, c);
      case DivmodShape::FloorDiv: return fdiv(a, c);
      case DivmodShape::ScaledDividend: {
        UOp k =
            chance(w_.p_factor_multiple_of_divisor) ? C(dt, c.const_value().i * between(1, 4)) : c2;
        return alu(one_of<Op>({Op::FloorDiv, Op::FloorMod}), mul(a, k), c);
      }
      case DivmodShape::ScaledAddend: {
        int64_t dv = c.const_value().i;
        UOp k =
            C(dt, chance(w_.p_addend_multiple_of_divisor) ? dv * between(-2, 3) : between(-5, 9));
        return alu(one_of<Op>({Op::FloorDiv, Op::FloorMod}), add(a, mul(e(dt), k)), c);
      }
      case DivmodShape::DivDiv: return fdiv(fdiv(a, c2), c);
      case DivmodShape::ModMod: {  // x scaled up so that x%a does not fold by bounds
        UOp a2 = chance(w_.p_modulus_multiple_of_divisor) ? C(dt, c.const_value().i * between(1, 4))
                                                          : c2;
        return fmod(fmod(mul(a, C(dt, between(5, 13))), a2), c);
      }
      case DivmodShape::Recombine: return add(mul(fdiv(a, c), c), fmod(a, c));
      case DivmodShape::TwoRanges: {
        if (!dt.is_index() || s.ranges.size() < 2) break;
        UOp r = s.ranges[0], r2 = s.ranges[1];
        UOp c1 = I(between(1, 8));
        return alu(one_of<Op>({Op::FloorDiv, Op::FloorMod, Op::Cdiv, Op::Cmod}),
                   add(mul(r, c1), r2), chance(w_.p_divisor_is_stride) ? c1 : c);
      }
      case DivmodShape::Offset:
        return alu(one_of<Op>({Op::FloorDiv, Op::FloorMod}), add(a, C(dt, between(-12, 12))), c);
      case DivmodShape::FloorDivOne: return fdiv(a, C(dt, 1));
      case DivmodShape::CRoundOne: return alu(one_of<Op>({Op::Cdiv, Op::Cmod}), a, C(dt, 1));
    }
  }
  if (dt.is_bool()) {
    UOp b = e(dt);
    switch (option(kBoolShapes)) {
      case BoolShape::SelfCompare: {
        DType in = one_of<DType>(
            {ir::dtypes::Index, ir::dtypes::Int32, ir::dtypes::Bool, ir::dtypes::Float32});
        UOp x = e(in);
        return alu(one_of<Op>({Op::CmpLt, Op::CmpNe, Op::CmpEq}), x, x);
      }
      case BoolShape::AndTrue: return band(b, ctx_.const_bool(true));
      case BoolShape::FalseAnd: return band(ctx_.const_bool(false), b);
      case BoolShape::OrConst: return alu(Op::Or, b, ctx_.const_bool(coin()));
      case BoolShape::WhereSame: return where(e(dt), b, b);
      case BoolShape::CastSelf: return cast(dt, b);
      case BoolShape::WhereConst: return where(ctx_.const_bool(coin()), b, e(dt));
    }
    return UOp();
  }
  UOp a = e(dt);
  const UOp z = dt.is_float() ? F(dt, chance(w_.p_positive_zero_operand) ? 0.0 : -0.0) : C(dt, 0);
  const UOp one = dt.is_float() ? F(dt, 1.0) : C(dt, 1);
  switch (option(kIdentities)) {
    case Identity::AddZero: return coin() ? add(a, z) : add(z, a);
    case Identity::SubZero: return sub(a, z);
    case Identity::MulOne: return coin() ? mul(a, one) : mul(one, a);
    case Identity::MulZero: return mul(a, z);
    case Identity::SubSelf: return sub(a, a);
    case Identity::NegNeg: return neg(neg(a));
    case Identity::MaxSelf: return alu(one_of<Op>({Op::Max, Op::Min}), a, a);
    case Identity::WhereSame: return where(e(ir::dtypes::Bool), a, a);
    case Identity::WhereConst: return where(ctx_.const_bool(coin()), a, e(dt));
    case Identity::CastSelf: return cast(dt, a);
    case Identity::AddConsts:
      return add(add(a, small_const(dt, wild_ok(s))), small_const(dt, wild_ok(s)));
    case Identity::MulConsts:
      return mul(mul(a, small_const(dt, wild_ok(s))), small_const(dt, wild_ok(s)));
    case Identity::SubConst: return sub(a, small_const(dt, wild_ok(s)));
    case Identity::ConstFirst:
      return alu(one_of<Op>({Op::Add, Op::Mul, Op::Max, Op::Min}), small_const(dt, wild_ok(s)), a);
    case Identity::ZeroOperand:
      if (is_int) return alu(one_of<Op>({Op::And, Op::Or}), a, C(dt, 0));
      return add(a, F(dt, -0.0));  // x + (-0.0): an identity, but not one the int rule may take
    case Identity::DivOne:         // x - (-0.0) for floats: not an identity at x = -0
      if (is_int) return alu(Op::FloorDiv, a, C(dt, 1));
      return sub(a, F(dt, -0.0));
  }
  return UOp();
}

}  // namespace uopfuzz::gen
