#include "backends/vulkan/glsl_alu.h"

#include <fmt/format.h>

#include <cstring>

#include "backends/vulkan/glsl_library.h"
#include "ir/ops.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"

namespace uopfuzz::backends::vulkan {

using namespace ir;

namespace {

bool is_unsigned(DType dt) {
  return dt.kind() == DTypeKind::Unsigned;
}

}  // namespace

std::string gtype(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Int8: return "int8_t";
    case ScalarType::Int16: return "int16_t";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::UInt8: return "uint8_t";
    case ScalarType::UInt16: return "uint16_t";
    case ScalarType::UInt32: return "uint";
    case ScalarType::UInt64: return "uint64_t";
    case ScalarType::Float16: return "float16_t";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    case ScalarType::Index: return "int64_t";
    case ScalarType::Void: return "void";
  }
  return "void";
}
std::string stype(DType dt) {
  return dt.is_bool() ? "uint8_t" : gtype(dt);
}

namespace {

// The unsigned type of a signed integer type's width ("" for any other type).
std::string unsigned_twin(DType dt) {
  if (!dt.is_signed()) return "";
  return dt.bits() == 8    ? "uint8_t"
         : dt.bits() == 16 ? "uint16_t"
         : dt.bits() == 32 ? "uint"
                           : "uint64_t";
}

// The unsigned integer type of a float's bits, and the bit-cast functions.
struct FloatBits {
  const char* uint_type;
  const char* to_bits;    // float -> uint bits
  const char* from_bits;  // uint bits -> float
};
FloatBits float_bits(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Float16: return {"uint16_t", "float16BitsToUint16", "uint16BitsToFloat16"};
    case ScalarType::Float32: return {"uint", "floatBitsToUint", "uintBitsToFloat"};
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
    case ScalarType::Float64:
    case ScalarType::Index: return {"uint64_t", "doubleBitsToUint64", "uint64BitsToDouble"};
  }
  return {"uint64_t", "doubleBitsToUint64", "uint64BitsToDouble"};
}

}  // namespace

std::string literal(DType dt, Value v) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return v.i ? "true" : "false";
    case ScalarType::Int8: return fmt::format("int8_t({})", v.i);
    case ScalarType::Int16: return fmt::format("int16_t({})", v.i);
    case ScalarType::Int32: return fmt::format("int(0x{:x}u)", static_cast<uint32_t>(v.i));
    case ScalarType::Int64:
    case ScalarType::Index: return fmt::format("int64_t(0x{:x}ul)", v.u);
    case ScalarType::UInt8: return fmt::format("uint8_t({}u)", v.u);
    case ScalarType::UInt16: return fmt::format("uint16_t({}u)", v.u);
    case ScalarType::UInt32: return fmt::format("0x{:x}u", v.u);
    case ScalarType::UInt64: return fmt::format("0x{:x}ul", v.u);
    case ScalarType::Float16:
      return fmt::format("uint16BitsToFloat16(uint16_t({}u))", half_bits(v.f));
    case ScalarType::Float32: {
      float f = static_cast<float>(v.f);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return fmt::format("uintBitsToFloat(0x{:x}u)", b);
    }
    case ScalarType::Float64: return fmt::format("uint64BitsToDouble(0x{:x}ul)", v.u);
    case ScalarType::Void: return "0";
  }
  return "0";
}

std::string GlslAlu::helper(const std::string& name, const std::string& text) {
  if (helper_names_.insert(name).second) helpers_.push_back(text);
  return name;
}

std::string GlslAlu::alu(Op op, DType in, DType out, const std::string* a) {
  switch (op_kind(op)) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: break;
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Where: return fmt::format("({} ? {} : {})", a[0], a[1], a[2]);
        case AluOp::Cast: return cast(in, out, a[0]);
        case AluOp::Bitcast: return bitcast(in, out, a[0]);
        case AluOp::Quantize: return quantize(out, a[0]);
        case AluOp::Dequantize: return dequantize(in, out, a[0]);
        case AluOp::Requantize: return requantize(in, out, a[0]);
        case AluOp::Neg:
        case AluOp::Reciprocal:
        case AluOp::Sqrt:
        case AluOp::Exp2:
        case AluOp::Log2:
        case AluOp::Sin:
        case AluOp::Trunc:
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
          if (in.is_float()) return float_op(op, in, a);
          if (in.is_bool()) return bool_op(op, a);
          return int_op(op, in, a);
      }
      break;
  }
  return unsupported(op, in);
}

// An op this renderer has no code for: the first such is the render's error, and a
// placeholder keeps the renderer going until it returns.
std::string GlslAlu::unsupported(Op op, DType dt) {
  if (!error_)
    error_ = Error{fmt::format("unsupported: the Vulkan backend cannot render {} of {}",
                               op_name(op), dt.name())};
  return "0";
}

std::string GlslAlu::bool_op(Op op, const std::string* a) {
  switch (op_kind(op)) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule:
      return unsupported(op, dtypes::Bool);  // not a bool op (the verifier refuses it)
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::And: return fmt::format("({} && {})", a[0], a[1]);
        case AluOp::Or: return fmt::format("({} || {})", a[0], a[1]);
        // A bool REDUCE's step (any, all): false < true, as on the integers.
        case AluOp::Max: return fmt::format("({} || {})", a[0], a[1]);
        case AluOp::Min: return fmt::format("({} && {})", a[0], a[1]);
        case AluOp::Xor:
        case AluOp::CmpNe: return fmt::format("({} != {})", a[0], a[1]);
        case AluOp::CmpEq: return fmt::format("({} == {})", a[0], a[1]);
        case AluOp::CmpLt: return fmt::format("(!{} && {})", a[0], a[1]);
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
        case AluOp::Add:
        case AluOp::Sub:
        case AluOp::Mul:
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod:
        case AluOp::Shl:
        case AluOp::Shr:
        case AluOp::Where:
          return unsupported(op, dtypes::Bool);  // not a bool op (the verifier refuses it)
      }
      break;
  }
  return unsupported(op, dtypes::Bool);
}

// Float math a device computes to within its precision bounds only, done in double
// (exact for + - * / sqrt of float32/float16 operands, then rounded once).
// RECIPROCAL and SQRT below float64 are computed in double and rounded once (exact, see
// SEMANTICS.md); the device's own are allowed 2.5 ULP. Without float64 the graph is
// skipped as unsupported (needs.float64), never run with the looser builtins.
bool GlslAlu::via_double(DType dt) const {
  return dt.scalar() != ScalarType::Float64;
}

std::string GlslAlu::float_op(Op op, DType dt, const std::string* a) {
  const std::string t = gtype(dt);
  const bool half = dt.scalar() == ScalarType::Float16;
  // float16 arithmetic in float32, rounded once (24 >= 2*11+2 bits: exact rounding).
  auto arith = [&](const char* o) {
    if (half) return fmt::format("float16_t(float({}) {} float({}))", a[0], o, a[1]);
    return fmt::format("({} {} {})", a[0], o, a[1]);
  };
  auto dmath = [&](const char* fn, const char* text) {
    helper("u_trunc", kTruncMath);
    helper(fn, text);
    needs_.float64 = needs_.int64 = true;  // the routines work on the bits too
    return fmt::format("{}({}(double({})))", t, fn, a[0]);
  };
  switch (op_kind(op)) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return unsupported(op, dt);  // not a float op (the verifier refuses it)
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Neg: return fmt::format("(-{})", a[0]);
        case AluOp::Reciprocal:
          if (via_double(dt)) {
            needs_.float64 = true;
            return fmt::format("{}(1.0lf / double({}))", t, a[0]);
          }
          return fmt::format("({}(1) / {})", t, a[0]);
        case AluOp::Sqrt:
          if (via_double(dt)) {
            needs_.float64 = true;
            return fmt::format("{}(sqrt(double({})))", t, a[0]);
          }
          return fmt::format("sqrt({})", a[0]);
        case AluOp::Trunc:
          if (dt.scalar() == ScalarType::Float64) return dmath("u_trunc", kTruncMath);
          return fmt::format("trunc({})", a[0]);
        case AluOp::Exp2:
          return dmath("u_exp2", kExp2Math);  // this backend's own double routine: needs float64
        case AluOp::Log2:
          return dmath("u_log2", kLog2Math);  // this backend's own double routine: needs float64
        case AluOp::Sin:
          return dmath("u_sin", kSinMath);  // this backend's own double routine: needs float64
        case AluOp::Add: return arith("+");
        case AluOp::Sub: return arith("-");
        case AluOp::Mul: return arith("*");
        case AluOp::CmpLt: return fmt::format("({} < {})", a[0], a[1]);
        case AluOp::CmpNe: return fmt::format("(!({} == {}))", a[0], a[1]);  // NaN: true
        case AluOp::CmpEq: return fmt::format("({} == {})", a[0], a[1]);
        case AluOp::Max:
        case AluOp::Min: {
          // NaN if either is NaN; equal operands (+0/-0) combine by bits: MAX ands the
          // sign bits (+0 wins), MIN ors them (-0 wins).
          const bool max = op == Op::Max;
          FloatBits fb = float_bits(dt);
          std::string name = fmt::format("u_{}_{}", max ? "max" : "min", t);
          const std::string nan = dt.bytes() == 2   ? "uint16_t(0x7e00u)"
                                  : dt.bytes() == 4 ? "0x7fc00000u"
                                                    : "0x7ff8000000000000ul";
          helper(name,
                 fmt::format("{t} {n}({t} a, {t} b) {{\n"
                             "  if (isnan(a) || isnan(b)) return {fb}({nan});\n"
                             "  if (a {gt} b) return a;\n"
                             "  if (a {lt} b) return b;\n"
                             "  return {fb}({u}({tb}(a) {bop} {tb}(b)));\n}}\n",
                             fmt::arg("t", t), fmt::arg("n", name), fmt::arg("fb", fb.from_bits),
                             fmt::arg("u", fb.uint_type), fmt::arg("tb", fb.to_bits),
                             fmt::arg("gt", max ? ">" : "<"), fmt::arg("lt", max ? "<" : ">"),
                             fmt::arg("bop", max ? "&" : "|"), fmt::arg("nan", nan)));
          return fmt::format("{}({}, {})", name, a[0], a[1]);
        }
        case AluOp::Cast:
        case AluOp::Bitcast:
        case AluOp::Quantize:
        case AluOp::Dequantize:
        case AluOp::Requantize:
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod:
        case AluOp::And:
        case AluOp::Or:
        case AluOp::Xor:
        case AluOp::Shl:
        case AluOp::Shr:
        case AluOp::Where: return unsupported(op, dt);  // not a float op (the verifier refuses it)
      }
      break;
  }
  return unsupported(op, dt);
}

std::string GlslAlu::lt(DType dt, const std::string& a, const std::string& b) {
  if (dt.bits() == 64) return fmt::format("u_lt_{}64({}, {})", is_unsigned(dt) ? "u" : "s", a, b);
  return fmt::format("({} < {})", a, b);
}
std::string GlslAlu::eq(DType dt, const std::string& a, const std::string& b) {
  if (dt.bits() == 64) return fmt::format("u_eq_{}64({}, {})", is_unsigned(dt) ? "u" : "s", a, b);
  return fmt::format("({} == {})", a, b);
}

std::string GlslAlu::int_op(Op op, DType dt, const std::string* a) {
  const bool uns = is_unsigned(dt);
  const std::string t = gtype(dt);
  switch (op_kind(op)) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule:
      return unsupported(op, dt);  // not an integer op (the verifier refuses it)
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Neg: return fmt::format("({}(0) - {})", t, a[0]);
        case AluOp::Add: return fmt::format("({} + {})", a[0], a[1]);
        case AluOp::Sub: return fmt::format("({} - {})", a[0], a[1]);
        case AluOp::Mul: return fmt::format("({} * {})", a[0], a[1]);
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod: {
          // The divisor is made safe (0 -> 1; signed -1 -> 1 with the result fixed up), so a
          // division computed ahead of need never faults; quotients truncate (OpSDiv), the
          // remainder is computed from the quotient (GLSL's % is not C's for negatives).
          const char* which = op == Op::Cdiv       ? "cdiv"
                              : op == Op::Cmod     ? "cmod"
                              : op == Op::FloorDiv ? "fdiv"
                                                   : "fmod";
          std::string name = fmt::format("u_{}_{}", which, t);
          std::string body;
          if (uns) {
            body = fmt::format(
                "  {t} d = {z} ? {t}(1) : b;\n  {t} q = a / d;\n  return {r};\n", fmt::arg("t", t),
                fmt::arg("z", eq(dt, "b", t + "(0)")),
                fmt::arg("r", op == Op::Cdiv || op == Op::FloorDiv ? "q" : "a - q * d"));
          } else {
            const char* result = op == Op::Cdiv       ? "m1 ? z - a : q"
                                 : op == Op::Cmod     ? "m1 ? z : r"
                                 : op == Op::FloorDiv ? "m1 ? z - a : (adj ? q - {t}(1) : q)"
                                                      : "m1 ? z : (adj ? r + d : r)";
            body = fmt::format(
                "  {t} z = {t}(0);\n  bool m1 = {m1};\n  {t} d = ({b0} || m1) ? {t}(1) : b;\n  "
                "{t} q "
                "= a / d;\n"
                "  {t} r = a - q * d;\n  bool adj = !{r0} && {neg};\n  return ",
                fmt::arg("t", t), fmt::arg("m1", eq(dt, "b", t + "(-1)")),
                fmt::arg("b0", eq(dt, "b", "z")), fmt::arg("r0", eq(dt, "r", "z")),
                fmt::arg("neg", lt(dt, "(r ^ d)", "z")));
            body += fmt::format(fmt::runtime(result), fmt::arg("t", t)) + ";\n";
          }
          helper(name, fmt::format("{} {}({} a, {} b) {{\n{}}}\n", t, name, t, t, body));
          return fmt::format("{}({}, {})", name, a[0], a[1]);
        }
        case AluOp::Max: return fmt::format("({0} ? {1} : {2})", lt(dt, a[1], a[0]), a[0], a[1]);
        case AluOp::Min: return fmt::format("({0} ? {1} : {2})", lt(dt, a[0], a[1]), a[0], a[1]);
        case AluOp::CmpLt: return lt(dt, a[0], a[1]);
        case AluOp::CmpNe: return "!" + eq(dt, a[0], a[1]);
        case AluOp::CmpEq: return eq(dt, a[0], a[1]);
        case AluOp::And: return fmt::format("({} & {})", a[0], a[1]);
        case AluOp::Or: return fmt::format("({} | {})", a[0], a[1]);
        case AluOp::Xor: return fmt::format("({} ^ {})", a[0], a[1]);
        case AluOp::Shl:
        case AluOp::Shr:
          // The amount is masked: equal in range (all a UB-free kernel needs), and never an
          // undefined shift when computed ahead of need.
          return fmt::format("({} {} ({} & {}({})))", a[0], op == Op::Shl ? "<<" : ">>", a[1], t,
                             dt.bits() - 1);
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
        case AluOp::Where:
          return unsupported(op, dt);  // not an integer op (the verifier refuses it)
      }
      break;
  }
  return unsupported(op, dt);
}

/// The significant bits of a float type: an integer wider than this may round.
int GlslAlu::significand_bits(DType f) {
  switch (f.scalar()) {
    case ScalarType::Float16: return 11;
    case ScalarType::Float32: return 24;
    case ScalarType::Float64: return 53;
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
    case ScalarType::Index: break;  // not a float: never rounds an integer
  }
  return 64;
}

std::string GlslAlu::cast(DType in, DType out, const std::string& x) {
  const std::string to = gtype(out);
  if (out.is_bool()) {
    if (in.is_float()) return fmt::format("(!({} == {}(0)))", x, gtype(in));  // NaN: true
    if (in.is_bool()) return x;
    return fmt::format("({} != {}(0))", x, gtype(in));
  }
  if (in.is_bool()) return fmt::format("({} ? {}(1) : {}(0))", x, to, to);
  if (in.is_float() && out.is_float()) {
    // float64 -> float16 directly: one rounding (SPIR-V OpFConvert).
    return fmt::format("{}({})", to, x);
  }
  if (!in.is_float() && out.is_float() && in.bits() > significand_bits(out)) {
    // An integer wider than the float's significand is rounded to it first (kRoundToBits:
    // lavapipe folds int -> float -> int back to the int, wrong where the float rounds);
    // the conversion of the rounded value is then exact. A signed integer through its
    // magnitude, as below: rounding ties to even is symmetric.
    needs_.float64 = needs_.int64 = true;
    helper("u_round_to_bits", kRoundToBits);
    const int p = significand_bits(out);
    if (std::string u = unsigned_twin(in); !u.empty())
      return fmt::format(
          "({0} < {1}(0) ? -{2}(u_round_to_bits(uint64_t({3}(-{0})), {4})) : "
          "{2}(u_round_to_bits(uint64_t({3}({0})), {4})))",
          x, gtype(in), to, u, p);
    return fmt::format("{}(u_round_to_bits(uint64_t({}), {}))", to, x, p);
  }
  if (std::string u = unsigned_twin(in); !u.empty() && out.is_float()) {
    // A signed integer converts through its magnitude as an unsigned integer: lavapipe
    // folds a signed round trip float -> int -> float into a truncation, which keeps
    // the sign of a zero (-0.0 -> 0 -> -0.0, where 0 converts to +0.0), and a BITCAST
    // then shows the sign as an integer bit; it does not fold the unsigned conversion.
    // The magnitude of INT_MIN is exact as unsigned, and rounding is symmetric, so the
    // result is the signed conversion's. Below 32 bits to float16 through double, as below.
    const std::string via =
        out.scalar() == ScalarType::Float16 && in.bits() > 16 && in.bits() <= 32 ? "double" : to;
    const std::string converted =
        fmt::format("({0} < {1}(0) ? -{2}({3}(-{0})) : {2}({3}({0})))", x, gtype(in), via, u);
    return via == to ? converted : fmt::format("{}({})", to, converted);
  }
  if (!in.is_float() && out.scalar() == ScalarType::Float16 && in.bits() > 16) {
    // Through double (exact for <= 32-bit integers) rounds once; 64-bit integers go
    // directly (one rounding).
    if (in.bits() <= 32) return fmt::format("float16_t(double({}))", x);
  }
  if (!in.is_float() && !out.is_float() && in.bits() < out.bits() &&
      is_unsigned(in) != is_unsigned(out)) {
    // Widening across signedness: extend by the source's signedness first.
    const int b = out.bits();
    std::string wide = is_unsigned(in) ? (b == 64   ? "uint64_t"
                                          : b == 32 ? "uint"
                                                    : "uint16_t")
                                       : (b == 64   ? "int64_t"
                                          : b == 32 ? "int"
                                                    : "int16_t");
    return fmt::format("{}({}({}))", to, wide, x);
  }
  return fmt::format("{}({})", to, x);
}

// ---- quantized conversions (ir/quant.h is the definition; SEMANTICS.md words it) ----
// A stored integer q is a register of its storage type; these widen it to int64 with
// the storage's signedness (DType::storage(), since a quantized kind is neither).
std::string GlslAlu::widen_stored(DType q, const std::string& x) {
  return cast(q.storage(), dtypes::Int64, x);
}
std::string GlslAlu::int64_literal(int64_t v) {
  return literal(dtypes::Int64, Value::of_int(v));
}
std::string GlslAlu::double_literal(double v) {
  return literal(dtypes::Float64, Value::of_float(v));  // its bits: reads back exactly
}

// QUANTIZE: x / s in double (one IEEE division), NaN -> z, rounded half away from zero
// by comparing the fraction (after u_trunc, not the builtin floor) with 0.5 (GLSL's round() may
// pick either way on ties), + z, saturated. The quotient is clamped to +-2^40 first, as in the
// definition, so +-inf and huge values convert to an integer without undefined behaviour.
std::string GlslAlu::quantize(DType out, const std::string& x) {
  needs_.float64 = needs_.int64 = true;
  helper("u_trunc", kTruncMath);
  helper("u_quantize",
         "int64_t u_quantize(double x, double s, int64_t z, int64_t lo, int64_t hi) {\n"
         "  if (isnan(x)) return z;\n"
         "  precise double t = x / s;\n"
         "  const double big = 1099511627776.0lf;  // 2^40\n"
         "  t = t < -big ? -big : (t > big ? big : t);\n"
         "  precise double a = abs(t);\n"
         "  precise double f = u_trunc(a);\n"
         "  precise double frac = a - f;  // exact\n"
         "  int64_t m = int64_t(f) + (frac >= 0.5lf ? int64_t(1) : int64_t(0));\n"
         "  int64_t y = (t < 0.0lf ? -m : m) + z;\n"
         "  return u_lt_s64(y, lo) ? lo : (u_lt_s64(hi, y) ? hi : y);\n}\n");
  const QuantParams& q = quant_params(out);
  const DType s = out.storage();
  return fmt::format("{}(u_quantize(double({}), {}, {}, {}, {}))", gtype(s), x,
                     double_literal(q.scale), int64_literal(q.zero_point),
                     int64_literal(s.int_min()), int64_literal(s.int_max()));
}

// DEQUANTIZE: the double product s * (q - z) (q - z is exact in int64 and in double),
// then rounded to the float type as CAST from float64 rounds (one OpFConvert).
std::string GlslAlu::dequantize(DType in, DType out, const std::string& x) {
  needs_.float64 = needs_.int64 = true;
  helper("u_dequantize",
         "double u_dequantize(int64_t c, double s) {\n"
         "  precise double r = s * double(c);\n"
         "  return r;\n}\n");
  const QuantParams& q = quant_params(in);
  std::string real = fmt::format("u_dequantize({} - {}, {})", widen_stored(in, x),
                                 int64_literal(q.zero_point), double_literal(q.scale));
  return cast(dtypes::Float64, out, real);
}

// REQUANTIZE: the requantizer is decided here from the two scales; on the device
// p = (q - z_in) * m0 in int64 (|p| < 2^62), |p| shifted right by requantizer().shift()
// after adding half (ties away from zero), the sign put back, + z_out, saturated.
// Where the definition is unsupported (requantize_unsupported) the kernel is refused.
std::string GlslAlu::requantize(DType in, DType out, const std::string& x) {
  if (auto why = requantize_unsupported(in, out)) {
    if (!error_) error_ = Error{*why};
    return "0";
  }
  needs_.int64 = true;
  const Requantizer r = *requantizer(quant_params(in).scale, quant_params(out).scale);
  helper("u_requantize",
         "int64_t u_requantize(int64_t x, int64_t m0, int shift, int64_t bias, int64_t z,\n"
         "                     int64_t lo, int64_t hi) {\n"
         "  int64_t p = x * m0;\n"
         "  bool neg = u_lt_s64(p, int64_t(0));\n"
         "  int64_t m = ((neg ? -p : p) + bias) >> shift;\n"
         "  int64_t y = (neg ? -m : m) + z;\n"
         "  return u_lt_s64(y, lo) ? lo : (u_lt_s64(hi, y) ? hi : y);\n}\n");
  const int shift = r.shift();
  const DType s = out.storage();
  return fmt::format("{}(u_requantize({} - {}, {}, {}, {}, {}, {}, {}))", gtype(s),
                     widen_stored(in, x), int64_literal(quant_params(in).zero_point),
                     int64_literal(r.m0), shift,
                     int64_literal(shift == 0 ? 0 : int64_t{1} << (shift - 1)),
                     int64_literal(quant_params(out).zero_point), int64_literal(s.int_min()),
                     int64_literal(s.int_max()));
}

std::string GlslAlu::bitcast(DType in, DType out, const std::string& x) {
  if (in.is_float() && out.is_float()) return x;
  if (in.is_float()) {
    FloatBits fb = float_bits(in);
    return fmt::format("{}({}({}))", gtype(out), fb.to_bits, x);
  }
  if (out.is_float()) {
    FloatBits fb = float_bits(out);
    return fmt::format("{}({}({}))", fb.from_bits, fb.uint_type, x);
  }
  return fmt::format("{}({})", gtype(out), x);
}

}  // namespace uopfuzz::backends::vulkan
