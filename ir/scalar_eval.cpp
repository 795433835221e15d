#include "ir/scalar_eval.h"

#include <cmath>
#include <limits>

#include "ir/quant.h"

namespace uopfuzz::ir {
namespace {

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

// Sized integer arithmetic wraps: do it on uint64 (defined in C++) and re-canonicalize.
inline Value wrapped(DType dt, uint64_t raw) {
  return wrap_int(dt, static_cast<int64_t>(raw));
}

inline bool is_unsigned(DType dt) {
  return dt.kind() == DTypeKind::Unsigned;
}

// Floor division helpers on int64 (b != 0, not MIN/-1).
inline int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

EvalError int_binary(Op op, DType dt, Value a, Value b, Value& r) {
  const bool index = dt.is_index();
  switch (op_kind(op)) {
    // Not binary integer ops: eval_alu handles the unary ones and WHERE before this.
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return EvalError::Unsupported;
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Add:
          if (index)
            return __builtin_add_overflow(a.i, b.i, &r.i) ? EvalError::IndexOverflow
                                                          : EvalError::None;
          r = wrapped(dt, a.u + b.u);
          return EvalError::None;
        case AluOp::Sub:
          if (index)
            return __builtin_sub_overflow(a.i, b.i, &r.i) ? EvalError::IndexOverflow
                                                          : EvalError::None;
          r = wrapped(dt, a.u - b.u);
          return EvalError::None;
        case AluOp::Mul:
          if (index)
            return __builtin_mul_overflow(a.i, b.i, &r.i) ? EvalError::IndexOverflow
                                                          : EvalError::None;
          r = wrapped(dt, a.u * b.u);
          return EvalError::None;
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod: {
          if (b.u == 0) return EvalError::DivisionByZero;
          const bool div = op == Op::Cdiv || op == Op::FloorDiv;
          if (is_unsigned(dt)) {
            r = Value::of_uint(div ? a.u / b.u : a.u % b.u);
            return EvalError::None;
          }
          if (a.i == kI64Min && b.i == -1) {  // only reachable for int64 and index
            if (!div) {
              r = Value::of_int(0);
              return EvalError::None;
            }
            if (index) return EvalError::IndexOverflow;
            r = Value::of_int(kI64Min);  // wraps
            return EvalError::None;
          }
          int64_t v = op == Op::Cdiv       ? a.i / b.i
                      : op == Op::Cmod     ? a.i % b.i
                      : op == Op::FloorDiv ? floordiv(a.i, b.i)
                                           : floormod(a.i, b.i);
          r = wrap_int(dt, v);  // -128 / -1 in int8 is 128: wraps to -128
          return EvalError::None;
        }
        case AluOp::Max:
        case AluOp::Min: {
          bool a_less = is_unsigned(dt) ? a.u < b.u : a.i < b.i;
          r = (op == Op::Max) == a_less ? b : a;
          return EvalError::None;
        }
        case AluOp::CmpLt:
          r = Value::of_int(is_unsigned(dt) ? a.u < b.u : a.i < b.i);
          return EvalError::None;
        case AluOp::CmpNe: r = Value::of_int(a.u != b.u); return EvalError::None;
        case AluOp::CmpEq: r = Value::of_int(a.u == b.u); return EvalError::None;
        case AluOp::And: r = wrapped(dt, a.u & b.u); return EvalError::None;
        case AluOp::Or: r = wrapped(dt, a.u | b.u); return EvalError::None;
        case AluOp::Xor: r = wrapped(dt, a.u ^ b.u); return EvalError::None;
        case AluOp::Shl:
        case AluOp::Shr: {
          const int bits = dt.bits();
          bool in_range =
              is_unsigned(dt) ? b.u < static_cast<uint64_t>(bits) : (b.i >= 0 && b.i < bits);
          if (!in_range) return EvalError::ShiftOutOfRange;
          if (op == Op::Shr) {
            r = is_unsigned(dt) ? Value::of_uint(a.u >> b.i)
                                : Value::of_int(a.i >> b.i);  // arithmetic
            return EvalError::None;
          }
          if (index) {  // index SHL is multiplication by 2^b: overflow is UB
            int64_t v = static_cast<int64_t>(a.u << b.i);
            if ((v >> b.i) != a.i) return EvalError::IndexOverflow;
            r = Value::of_int(v);
            return EvalError::None;
          }
          r = wrapped(dt, a.u << b.i);
          return EvalError::None;
        }
        // Not binary integer ops: eval_alu handles the unary ones and WHERE before this.
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
        case AluOp::Where: return EvalError::Unsupported;
      }
      break;
  }
  return EvalError::Unsupported;
}

EvalError float_binary(Op op, DType dt, double a, double b, Value& r) {
  switch (op_kind(op)) {
    // Integer-only ops, and what eval_alu handles before this.
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return EvalError::Unsupported;
    case OpKind::Alu:
      switch (alu_op(op)) {
        // Computing in double and rounding once is the correctly rounded float16/float32
        // result for + - * (53 >= 2p + 2), so this equals native float arithmetic.
        case AluOp::Add: r = round_float(dt, a + b); return EvalError::None;
        case AluOp::Sub: r = round_float(dt, a - b); return EvalError::None;
        case AluOp::Mul: r = round_float(dt, a * b); return EvalError::None;
        case AluOp::Max:
        case AluOp::Min: {
          if (std::isnan(a) || std::isnan(b)) {
            r = round_float(dt, NAN);
            return EvalError::None;
          }
          if (a == b) {  // +0 vs -0: MAX prefers +0, MIN prefers -0
            bool pick_a = (op == Op::Max) ? !std::signbit(a) : std::signbit(a);
            r = Value::of_float(pick_a ? a : b);
            return EvalError::None;
          }
          r = Value::of_float((op == Op::Max) == (a < b) ? b : a);
          return EvalError::None;
        }
        case AluOp::CmpLt: r = Value::of_int(a < b); return EvalError::None;
        case AluOp::CmpNe: r = Value::of_int(a != b); return EvalError::None;
        case AluOp::CmpEq: r = Value::of_int(a == b); return EvalError::None;
        // Integer-only ops, and what eval_alu handles before this.
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod:
        case AluOp::And:
        case AluOp::Or:
        case AluOp::Xor:
        case AluOp::Shl:
        case AluOp::Shr:
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
        case AluOp::Where: return EvalError::Unsupported;
      }
      break;
  }
  return EvalError::Unsupported;
}

EvalError cast(DType in, DType out, Value x, Value& r) {
  if (out.is_bool()) {
    r = Value::of_int(in.is_float() ? (x.f != 0.0 || std::isnan(x.f)) : x.u != 0);
    return EvalError::None;
  }
  if (in.is_float()) {
    if (out.is_float()) {
      r = round_float(out, x.f);
      return EvalError::None;
    }
    if (std::isnan(x.f)) return EvalError::CastOutOfRange;
    double t = std::trunc(x.f);
    double lo = out.is_signed() ? -std::ldexp(1.0, out.bits() - 1) : 0.0;
    double hi_excl = std::ldexp(1.0, out.is_signed() ? out.bits() - 1 : out.bits());
    if (!(t >= lo && t < hi_excl)) return EvalError::CastOutOfRange;
    r = is_unsigned(out) ? Value::of_uint(static_cast<uint64_t>(t))
                         : Value::of_int(static_cast<int64_t>(t));
    return EvalError::None;
  }
  // Source is an integer or bool.
  const bool src_unsigned = is_unsigned(in);
  if (out.is_float()) {
    switch (out.scalar()) {
      case ScalarType::Float32:
        r = Value::of_float(src_unsigned ? static_cast<float>(x.u) : static_cast<float>(x.i));
        return EvalError::None;
      case ScalarType::Float64:
        r = Value::of_float(src_unsigned ? static_cast<double>(x.u) : static_cast<double>(x.i));
        return EvalError::None;
      case ScalarType::Float16:  // exact via double below 2^53, and anything larger is inf anyway
        r = round_float(out, src_unsigned ? static_cast<double>(x.u) : static_cast<double>(x.i));
        return EvalError::None;
      case ScalarType::Void:
      case ScalarType::Bool:
      case ScalarType::Int8:
      case ScalarType::Int16:
      case ScalarType::Int32:
      case ScalarType::Int64:
      case ScalarType::UInt8:
      case ScalarType::UInt16:
      case ScalarType::UInt32:
      case ScalarType::UInt64:
      case ScalarType::Index: return EvalError::Unsupported;  // out.is_float() holds
    }
  }
  if (out.is_index() && src_unsigned &&
      x.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return EvalError::IndexOverflow;
  r = wrap_int(out, x.i);
  return EvalError::None;
}

EvalError bitcast(DType in, DType out, Value x, Value& r) {
  if (in.is_float() && std::isnan(x.f) && !out.is_float()) return EvalError::NanBitcast;
  Buffer tmp(in, 1);
  tmp.set(0, x);
  Buffer view(out, 1);
  std::memcpy(view.data(), tmp.data(), static_cast<size_t>(out.bytes()));
  r = view.get(0);
  return EvalError::None;
}

}  // namespace

std::string_view eval_error_name(EvalError e) {
  switch (e) {
    case EvalError::None: return "none";
    case EvalError::DivisionByZero: return "division by zero";
    case EvalError::ShiftOutOfRange: return "shift amount out of range";
    case EvalError::IndexOverflow: return "index overflow";
    case EvalError::CastOutOfRange: return "float to int cast out of range";
    case EvalError::NanBitcast: return "bitcast of NaN to an integer";
    case EvalError::Unsupported: return "unsupported: not an ALU op for these dtypes";
  }
  return "?";
}

EvalError eval_alu(Op op, DType in, DType out, const Value* args, Value& result) {
  switch (op_kind(op)) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return EvalError::Unsupported;
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Where: result = args[0].i ? args[1] : args[2]; return EvalError::None;
        case AluOp::Cast: return cast(in, out, args[0], result);
        case AluOp::Bitcast: return bitcast(in, out, args[0], result);
        case AluOp::Neg:
          if (in.is_float()) {
            result = round_float(in, -args[0].f);
            return EvalError::None;
          }
          if (in.is_index()) {
            if (args[0].i == kI64Min) return EvalError::IndexOverflow;
            result = Value::of_int(-args[0].i);
            return EvalError::None;
          }
          result = wrapped(in, 0 - args[0].u);
          return EvalError::None;
        case AluOp::Reciprocal: result = round_float(in, 1.0 / args[0].f); return EvalError::None;
        case AluOp::Sqrt: result = round_float(in, std::sqrt(args[0].f)); return EvalError::None;
        case AluOp::Exp2: result = round_float(in, std::exp2(args[0].f)); return EvalError::None;
        case AluOp::Log2: result = round_float(in, std::log2(args[0].f)); return EvalError::None;
        case AluOp::Sin: result = round_float(in, std::sin(args[0].f)); return EvalError::None;
        case AluOp::Trunc: result = round_float(in, std::trunc(args[0].f)); return EvalError::None;
        // The quantized conversions: ir/quant.h is their definition.
        case AluOp::Quantize:
          if (!in.is_float() || !out.is_quantized()) return EvalError::Unsupported;
          result = wrap_int(out, quantize_value(args[0].f, out));
          return EvalError::None;
        case AluOp::Dequantize:
          if (!in.is_quantized() || !out.is_float()) return EvalError::Unsupported;
          result = round_float(out, dequantize_value(args[0].i, in, out));
          return EvalError::None;
        case AluOp::Requantize: {
          if (!in.is_quantized() || !out.is_quantized()) return EvalError::Unsupported;
          auto r = requantizer(quant_params(in).scale, quant_params(out).scale);
          if (!r || requantize_unsupported(in, out)) return EvalError::Unsupported;
          result =
              wrap_int(out, requantize_centered(args[0].i - quant_params(in).zero_point, *r, out));
          return EvalError::None;
        }
        case AluOp::Add:
        case AluOp::Sub:
        case AluOp::Mul:
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
          if (in.is_float()) return float_binary(op, in, args[0].f, args[1].f, result);
          return int_binary(op, in, args[0], args[1], result);
      }
      break;
  }
  return EvalError::Unsupported;
  if (in.is_float()) return float_binary(op, in, args[0].f, args[1].f, result);
  return int_binary(op, in, args[0], args[1], result);
}

Value reduce_identity(Op op, DType dt) {
  switch (op_kind(op)) {
    // Not reduce ops (the verifier refuses them as a REDUCE's op): no identity.
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return Value::of_int(0);
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Add: return dt.is_float() ? Value::of_float(0.0) : Value::of_int(0);
        case AluOp::Mul: return dt.is_float() ? Value::of_float(1.0) : Value::of_int(1);
        case AluOp::Max:
          if (dt.is_float()) return Value::of_float(-INFINITY);
          return is_unsigned(dt) ? Value::of_uint(0) : Value::of_int(dt.int_min());
        case AluOp::Min:
          if (dt.is_float()) return Value::of_float(INFINITY);
          if (is_unsigned(dt))
            return Value::of_uint(dt.bits() == 64 ? ~uint64_t{0} : (uint64_t{1} << dt.bits()) - 1);
          return Value::of_int(dt.int_max());
        // Not reduce ops (the verifier refuses them as a REDUCE's op): no identity.
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
        case AluOp::CmpLt:
        case AluOp::CmpNe:
        case AluOp::CmpEq:
        case AluOp::And:
        case AluOp::Or:
        case AluOp::Xor:
        case AluOp::Shl:
        case AluOp::Shr:
        case AluOp::Where: return Value::of_int(0);
      }
      break;
  }
  return Value::of_int(0);
}

}  // namespace uopfuzz::ir
