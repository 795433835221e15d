// The elementwise family: an ALU op of the position's dtype over operands of its shape
// (TensorIntOpWeights, TensorFloatOpWeights, TensorBoolOpWeights), with integer divisors
// that are never 0 and shift amounts in [0, bits).
#include <array>

#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

UOp TensorBuilder::elementwise(DType dt, const Shape& s, int depth) {
  if (dt.is_bool()) return bool_op(s, depth);
  auto two = [&](Op op) { return tensor::alu(ctx_, op, {fill(dt, s, depth), fill(dt, s, depth)}); };
  auto one = [&](Op op) { return tensor::alu(ctx_, op, {fill(dt, s, depth)}); };
  auto where = [&] {
    return tensor::alu(ctx_, Op::Where,
                       {fill(dtypes::Bool, s, depth), fill(dt, s, depth), fill(dt, s, depth)});
  };
  if (dt.is_float()) {
    const TensorFloatOpWeights& w = p_.float_ops;
    switch (e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.neg, w.trunc, w.where})) {
      case 0: return two(Op::Add);
      case 1: return two(Op::Sub);
      case 2: return two(Op::Mul);
      case 3: return two(Op::Max);
      case 4: return two(Op::Min);
      case 5: return one(Op::Neg);
      case 6: return one(Op::Trunc);
      default: return where();
    }
  }
  const TensorIntOpWeights& w = p_.int_ops;
  constexpr std::array<Op, 15> ops = {Op::Add, Op::Sub,  Op::Mul,  Op::Max,      Op::Min,
                                      Op::Neg, Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod,
                                      Op::And, Op::Or,   Op::Xor,  Op::Shl,      Op::Shr};
  // Ops undefined for some operands are off where only total ops may be drawn.
  auto partial = [&](double weight) { return total_ops_only_ ? 0.0 : weight; };
  const size_t k = e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.neg, partial(w.cdiv),
                            partial(w.cmod), partial(w.floordiv), partial(w.floormod), w.and_,
                            w.or_, w.xor_, partial(w.shl), partial(w.shr), w.where});
  if (k == ops.size()) return where();
  const Op op = ops[k];
  if (op == Op::Neg) return one(op);
  UOp a = fill(dt, s, depth);
  if (op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod)
    return tensor::alu(ctx_, op, {a, divisor(dt, s, depth)});
  if (op == Op::Shl || op == Op::Shr) return tensor::alu(ctx_, op, {a, shift_amount(dt, s, depth)});
  return tensor::alu(ctx_, op, {a, fill(dt, s, depth)});
}

UOp TensorBuilder::bool_op(const Shape& s, int depth) {
  const TensorBoolOpWeights& w = p_.bool_ops;
  const DType b = dtypes::Bool;
  static constexpr Op kLogic[] = {Op::And, Op::Or, Op::Xor};
  static constexpr Op kCompare[] = {Op::CmpLt, Op::CmpNe, Op::CmpEq};
  switch (e_.pick({w.logic, w.compare, w.where})) {
    case 0: {
      const Op op = option(kLogic);
      return tensor::alu(ctx_, op, {fill(b, s, depth), fill(b, s, depth)});
    }
    case 1: {
      const DType d = draw_dtype_except(b);
      const Op op = option(kCompare);
      return tensor::alu(ctx_, op, {fill(d, s, depth), fill(d, s, depth)});
    }
    default:
      return tensor::alu(ctx_, Op::Where,
                         {fill(b, s, depth), fill(b, s, depth), fill(b, s, depth)});
  }
}

/// Never 0 where it is computed: an input of nonzero range (p_divisor_input; a gated-off
/// read of it loads 0, which is what the lowering's gate guards are for), a nonzero CONST
/// or x | 1 (INT_MIN / -1 wraps on sized integers: defined).
UOp TensorBuilder::divisor(DType dt, const Shape& s, int depth) {
  if (e_.chance(p_.p_divisor_input))
    if (UOp d = nonzero_input(dt, s)) return d;
  if (e_.chance(p_.p_divisor_const)) {
    int64_t v = e_.between(1, p_.divisor_const_max);
    if (dt.is_signed() && coin()) v = -v;
    return tensor::constant_value(ctx_, dt, Value::of_int(v), s);
  }
  return tensor::alu(ctx_, Op::Or,
                     {fill(dt, s, depth), tensor::constant_value(ctx_, dt, Value::of_int(1), s)});
}

/// In [0, bits): a CONST or x & (bits - 1).
UOp TensorBuilder::shift_amount(DType dt, const Shape& s, int depth) {
  const int64_t bits = dt.bits();
  if (e_.chance(p_.p_shift_const))
    return tensor::constant_value(ctx_, dt, Value::of_int(e_.between(0, bits - 1)), s);
  return tensor::alu(
      ctx_, Op::And,
      {fill(dt, s, depth), tensor::constant_value(ctx_, dt, Value::of_int(bits - 1), s)});
}

}  // namespace uopfuzz::gen
