#include "backends/cpu/emit_alu.h"

#include <fmt/format.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>

#include "backends/cpu/lower.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"

namespace uopfuzz::backends::cpu {

using namespace ir;

bool is_unsigned(DType dt) {
  return dt.kind() == DTypeKind::Unsigned || dt.is_bool();
}

llvm::Type* AluEmitter::repr(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Void: return b_.getVoidTy();
    case ScalarType::Bool: return b_.getInt1Ty();
    case ScalarType::Float16: return b_.getDoubleTy();
    case ScalarType::Float32: return b_.getFloatTy();
    case ScalarType::Float64: return b_.getDoubleTy();
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64:
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
    case ScalarType::Index: return b_.getIntNTy(static_cast<unsigned>(dt.bits()));
  }
  return b_.getVoidTy();
}

llvm::Type* AluEmitter::storage(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return b_.getInt8Ty();
    case ScalarType::Float16: return b_.getInt16Ty();
    case ScalarType::Void:
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64:
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
    case ScalarType::Float32:
    case ScalarType::Float64:
    case ScalarType::Index: return repr(dt);
  }
  return repr(dt);
}

llvm::Constant* AluEmitter::constant(DType dt, Value v) {
  if (dt.is_float()) return llvm::ConstantFP::get(repr(dt), v.f);
  return llvm::ConstantInt::get(repr(dt), v.u, /*isSigned=*/false);
}

llvm::FunctionCallee AluEmitter::helper(const char* name, llvm::Type* ret, llvm::Type* arg) {
  auto callee = m_.getOrInsertFunction(name, llvm::FunctionType::get(ret, {arg}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
    f->setWillReturn();
  }
  return callee;
}
llvm::Value* AluEmitter::half_round(llvm::Value* d) {
  return b_.CreateCall(helper(kHalfRound, b_.getDoubleTy(), b_.getDoubleTy()), {d});
}

llvm::Value* AluEmitter::f64(llvm::Value* v) {
  return v->getType()->isDoubleTy() ? v : b_.CreateFPExt(v, b_.getDoubleTy());
}
// A double result rounded to float dtype `dt` (float16: the oracle's rounding).
llvm::Value* AluEmitter::round_to(DType dt, llvm::Value* d) {
  switch (dt.scalar()) {
    case ScalarType::Float16: return half_round(d);
    case ScalarType::Float32: return b_.CreateFPTrunc(d, b_.getFloatTy());
    case ScalarType::Float64: return d;
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
    case ScalarType::Index: return unsupported(Op::Cast, dt);  // not a float dtype
  }
  return d;
}
// An op this lowering has no code for: the first such is the lowering's error, and a
// placeholder value keeps the emitter going until it returns.
llvm::Value* AluEmitter::unsupported(Op op, DType dt) {
  if (!error_)
    error_ = Error{
        fmt::format("unsupported: the CPU backend cannot lower {} of {}", op_name(op), dt.name())};
  return llvm::UndefValue::get(dt.is_void() ? b_.getInt64Ty() : repr(dt));
}

llvm::Value* AluEmitter::intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
  return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id, {x->getType()}), {x});
}

llvm::Value* AluEmitter::alu(Op op, DType in, DType out, llvm::Value* const* a) {
  switch (op_kind(op)) {
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: break;
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Where: return b_.CreateSelect(a[0], a[1], a[2]);
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
          return int_op(op, in, a);
      }
      break;
  }
  return unsupported(op, in);
}

llvm::Value* AluEmitter::float_op(Op op, DType dt, llvm::Value* const* a) {
  const bool half = dt.scalar() == ScalarType::Float16;
  auto rounded = [&](llvm::Value* v) { return half ? half_round(v) : v; };
  switch (op_kind(op)) {
    // Not float ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return unsupported(op, dt);
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Neg: return b_.CreateFNeg(a[0]);
        case AluOp::Reciprocal:
          return rounded(b_.CreateFDiv(llvm::ConstantFP::get(a[0]->getType(), 1.0), a[0]));
        case AluOp::Sqrt: return rounded(intrinsic(llvm::Intrinsic::sqrt, a[0]));
        case AluOp::Trunc: return intrinsic(llvm::Intrinsic::trunc, a[0]);
        // The oracle computes these in double with libm and rounds once: so do we.
        case AluOp::Exp2: return round_to(dt, intrinsic(llvm::Intrinsic::exp2, f64(a[0])));
        case AluOp::Log2: return round_to(dt, intrinsic(llvm::Intrinsic::log2, f64(a[0])));
        case AluOp::Sin: return round_to(dt, intrinsic(llvm::Intrinsic::sin, f64(a[0])));
        case AluOp::Add: return rounded(b_.CreateFAdd(a[0], a[1]));
        case AluOp::Sub: return rounded(b_.CreateFSub(a[0], a[1]));
        case AluOp::Mul: return rounded(b_.CreateFMul(a[0], a[1]));
        case AluOp::CmpLt: return b_.CreateFCmpOLT(a[0], a[1]);
        case AluOp::CmpNe: return b_.CreateFCmpUNE(a[0], a[1]);
        case AluOp::CmpEq: return b_.CreateFCmpOEQ(a[0], a[1]);
        case AluOp::Max:
        case AluOp::Min: {
          // NaN if either is NaN; equal operands (+0/-0) combine by bits: MAX ands the
          // sign bits (+0 wins), MIN ors them (-0 wins); equal nonzero values are identical.
          llvm::Type* t = a[0]->getType();
          llvm::Type* it = b_.getIntNTy(t->getPrimitiveSizeInBits().getFixedSize());
          llvm::Value* ab = b_.CreateBitCast(a[0], it);
          llvm::Value* bb = b_.CreateBitCast(a[1], it);
          llvm::Value* eq =
              b_.CreateBitCast(op == Op::Max ? b_.CreateAnd(ab, bb) : b_.CreateOr(ab, bb), t);
          llvm::Value* a_wins =
              op == Op::Max ? b_.CreateFCmpOGT(a[0], a[1]) : b_.CreateFCmpOLT(a[0], a[1]);
          llvm::Value* b_wins =
              op == Op::Max ? b_.CreateFCmpOLT(a[0], a[1]) : b_.CreateFCmpOGT(a[0], a[1]);
          llvm::Value* r = b_.CreateSelect(a_wins, a[0], b_.CreateSelect(b_wins, a[1], eq));
          llvm::Value* nan = b_.CreateFCmpUNO(a[0], a[1]);
          return b_.CreateSelect(nan, llvm::ConstantFP::getNaN(t), r);
        }
        // Not float ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
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
        case AluOp::Where: return unsupported(op, dt);
      }
      break;
  }
  return unsupported(op, dt);
}

llvm::Value* AluEmitter::int_op(Op op, DType dt, llvm::Value* const* a) {
  const bool uns = is_unsigned(dt);
  llvm::Type* t = a[0]->getType();
  const unsigned bits = t->getIntegerBitWidth();
  switch (op_kind(op)) {
    // Not integer ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
    case OpKind::Leaf:
    case OpKind::Structural:
    case OpKind::Tensor:
    case OpKind::Schedule: return unsupported(op, dt);
    case OpKind::Alu:
      switch (alu_op(op)) {
        case AluOp::Neg: return b_.CreateSub(llvm::ConstantInt::get(t, 0), a[0]);
        case AluOp::Add: return b_.CreateAdd(a[0], a[1]);
        case AluOp::Sub: return b_.CreateSub(a[0], a[1]);
        case AluOp::Mul: return b_.CreateMul(a[0], a[1]);
        case AluOp::Cdiv:
        case AluOp::Cmod:
        case AluOp::FloorDiv:
        case AluOp::FloorMod: {
          const bool div = op == Op::Cdiv || op == Op::FloorDiv;
          llvm::Value* zero = llvm::ConstantInt::get(t, 0);
          llvm::Value* one = llvm::ConstantInt::get(t, 1);
          // The divisor is made safe (0 -> 1; signed -1 -> 1 with the result fixed up), so a
          // division computed ahead of need never traps. Where it is needed, the oracle has
          // shown the divisor is not 0.
          if (uns) {
            llvm::Value* d = b_.CreateSelect(b_.CreateICmpEQ(a[1], zero), one, a[1]);
            return div ? b_.CreateUDiv(a[0], d) : b_.CreateURem(a[0], d);
          }
          llvm::Value* minus1 = llvm::ConstantInt::getSigned(t, -1);
          llvm::Value* is_m1 = b_.CreateICmpEQ(a[1], minus1);
          llvm::Value* d =
              b_.CreateSelect(b_.CreateOr(b_.CreateICmpEQ(a[1], zero), is_m1), one, a[1]);
          llvm::Value* q = b_.CreateSDiv(a[0], d);
          llvm::Value* r = b_.CreateSRem(a[0], d);
          // x / -1 = -x (wrapping: INT_MIN / -1 = INT_MIN), remainder 0, floor or not.
          if (op == Op::Cdiv) return b_.CreateSelect(is_m1, b_.CreateSub(zero, a[0]), q);
          if (op == Op::Cmod) return b_.CreateSelect(is_m1, zero, r);
          // Floor: adjust when the remainder is nonzero and its sign differs from the divisor's.
          llvm::Value* adjust =
              b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, d), zero));
          if (op == Op::FloorDiv)
            return b_.CreateSelect(is_m1, b_.CreateSub(zero, a[0]),
                                   b_.CreateSub(q, b_.CreateZExt(adjust, t)));
          return b_.CreateSelect(is_m1, zero, b_.CreateSelect(adjust, b_.CreateAdd(r, d), r));
        }
        case AluOp::Max:
          return b_.CreateSelect(uns ? b_.CreateICmpUGT(a[0], a[1]) : b_.CreateICmpSGT(a[0], a[1]),
                                 a[0], a[1]);
        case AluOp::Min:
          return b_.CreateSelect(uns ? b_.CreateICmpULT(a[0], a[1]) : b_.CreateICmpSLT(a[0], a[1]),
                                 a[0], a[1]);
        case AluOp::CmpLt: return uns ? b_.CreateICmpULT(a[0], a[1]) : b_.CreateICmpSLT(a[0], a[1]);
        case AluOp::CmpNe: return b_.CreateICmpNE(a[0], a[1]);
        case AluOp::CmpEq: return b_.CreateICmpEQ(a[0], a[1]);
        case AluOp::And: return b_.CreateAnd(a[0], a[1]);
        case AluOp::Or: return b_.CreateOr(a[0], a[1]);
        case AluOp::Xor: return b_.CreateXor(a[0], a[1]);
        case AluOp::Shl:
        case AluOp::Shr: {
          // The amount is masked: equal in range (the only case a UB-free kernel needs),
          // and never LLVM poison when computed ahead of need.
          llvm::Value* amt = b_.CreateAnd(a[1], llvm::ConstantInt::get(t, bits - 1));
          if (op == Op::Shl) return b_.CreateShl(a[0], amt);
          return uns ? b_.CreateLShr(a[0], amt) : b_.CreateAShr(a[0], amt);
        }
        // Not integer ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
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
        case AluOp::Where: return unsupported(op, dt);
      }
      break;
  }
  return unsupported(op, dt);
}

llvm::Value* AluEmitter::cast(DType in, DType out, llvm::Value* x) {
  llvm::Type* to = repr(out);
  if (out.is_bool()) {
    if (in.is_float())
      return b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));  // NaN: true
    return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  }
  if (in.is_float()) {
    if (out.is_float()) {
      if (out.scalar() == ScalarType::Float16)
        return in.scalar() == ScalarType::Float16 ? x : half_round(f64(x));
      if (x->getType() == to) return x;
      return x->getType()->isDoubleTy() ? b_.CreateFPTrunc(x, to) : b_.CreateFPExt(x, to);
    }
    // Saturating: never poison; in range (all a UB-free kernel needs) it truncates.
    auto id = is_unsigned(out) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id, {to, x->getType()}), {x});
  }
  const bool src_unsigned = is_unsigned(in);
  if (out.is_float()) {
    llvm::Type* via = out.scalar() == ScalarType::Float32 ? b_.getFloatTy() : b_.getDoubleTy();
    llvm::Value* f = src_unsigned ? b_.CreateUIToFP(x, via) : b_.CreateSIToFP(x, via);
    return out.scalar() == ScalarType::Float16 ? half_round(f) : f;
  }
  const unsigned from_bits = x->getType()->getIntegerBitWidth(), to_bits = to->getIntegerBitWidth();
  if (to_bits < from_bits) return b_.CreateTrunc(x, to);
  if (to_bits == from_bits) return x;
  return src_unsigned ? b_.CreateZExt(x, to) : b_.CreateSExt(x, to);
}

// ---- quantized conversions (ir/quant.h, written as LLVM IR) ----------------------
// A quantized value is its stored integer in the storage type's register (qint8: i8).
// Everything here is exact integer arithmetic in i64 or one IEEE double operation, with
// no fast-math flag, so every optimization level computes ir/quant.h's bits.

// The stored integer of quantized `dt` as an i64 (zero-extended for uint8 storage: the
// kind of a quantized type is not Unsigned, its storage's is).
llvm::Value* AluEmitter::stored_i64(DType dt, llvm::Value* q) {
  return is_unsigned(dt.storage()) ? b_.CreateZExt(q, b_.getInt64Ty())
                                   : b_.CreateSExt(q, b_.getInt64Ty());
}
// An i64 clamped to the storage range of quantized `dt` (saturation, never a wrap) and
// narrowed to its register.
llvm::Value* AluEmitter::saturate(DType dt, llvm::Value* v) {
  llvm::Value* lo = b_.getInt64(dt.int_min());
  llvm::Value* hi = b_.getInt64(dt.int_max());
  v = b_.CreateSelect(b_.CreateICmpSLT(v, lo), lo, v);
  v = b_.CreateSelect(b_.CreateICmpSGT(v, hi), hi, v);
  return b_.CreateTrunc(v, repr(dt));
}
// The first refusal is the lowering's error (the verifier refuses these pairs first; this
// keeps a graph that skipped it from getting a guessed value).
llvm::Value* AluEmitter::refuse(std::string why, DType dt) {
  if (!error_) error_ = Error{std::move(why)};
  return llvm::UndefValue::get(repr(dt));
}

// QUANTIZE: NaN -> z; else clamp(round_half_away(x / s) + z). The quotient is one double
// division of the exactly widened operand, clamped to +-2^40 (inside which every result
// saturates the same, and which keeps +-inf convertible); a NaN quotient becomes 0, so
// it comes out as z through the same + z and clamp.
llvm::Value* AluEmitter::quantize(DType out, llvm::Value* x) {
  const QuantParams& p = quant_params(out);
  llvm::Type* f64t = b_.getDoubleTy();
  llvm::Value* t = b_.CreateFDiv(f64(x), llvm::ConstantFP::get(f64t, p.scale));
  llvm::Value* lo = llvm::ConstantFP::get(f64t, -0x1p40);
  llvm::Value* hi = llvm::ConstantFP::get(f64t, 0x1p40);
  t = b_.CreateSelect(b_.CreateFCmpOLT(t, lo), lo, t);
  t = b_.CreateSelect(b_.CreateFCmpOGT(t, hi), hi, t);
  t = b_.CreateSelect(b_.CreateFCmpUNO(t, t), llvm::ConstantFP::get(f64t, 0.0), t);
  // llvm.round is round-half-away-from-zero, exact (C's round()).
  llvm::Value* q = b_.CreateFPToSI(intrinsic(llvm::Intrinsic::round, t), b_.getInt64Ty());
  return saturate(out, b_.CreateAdd(q, b_.getInt64(p.zero_point)));
}

// DEQUANTIZE: the double product s * (q - z) (q - z exact in i64 and in double), rounded
// to the float type as CAST from float64 rounds.
llvm::Value* AluEmitter::dequantize(DType in, DType out, llvm::Value* q) {
  const QuantParams& p = quant_params(in);
  llvm::Value* x = b_.CreateSub(stored_i64(in, q), b_.getInt64(p.zero_point));
  llvm::Value* real = b_.CreateFMul(b_.CreateSIToFP(x, b_.getDoubleTy()),
                                    llvm::ConstantFP::get(b_.getDoubleTy(), p.scale));
  return round_to(out, real);
}

// REQUANTIZE: the requantizer is decided here, at compile time; the code is
// y = round_half_away((q - z_in) * m0 / 2^shift), then clamp(y + z_out). |q - z_in| < 2^32
// and m0 < 2^31, so the product and the rounding bias fit i64.
llvm::Value* AluEmitter::requantize(DType in, DType out, llvm::Value* q) {
  if (auto why = requantize_unsupported(in, out)) return refuse(*why, out);
  std::string why;
  auto r = requantizer(quant_params(in).scale, quant_params(out).scale, &why);
  if (!r) return refuse(why, out);
  llvm::Value* x = b_.CreateSub(stored_i64(in, q), b_.getInt64(quant_params(in).zero_point));
  llvm::Value* p = b_.CreateMul(x, b_.getInt64(r->m0));
  llvm::Value* y = p;
  if (const int n = r->shift(); n > 0) {
    llvm::Value* negative = b_.CreateICmpSLT(p, b_.getInt64(0));
    llvm::Value* magnitude = b_.CreateSelect(negative, b_.CreateNeg(p), p);
    magnitude =
        b_.CreateLShr(b_.CreateAdd(magnitude, b_.getInt64(int64_t{1} << (n - 1))), b_.getInt64(n));
    y = b_.CreateSelect(negative, b_.CreateNeg(magnitude), magnitude);
  }
  return saturate(out, b_.CreateAdd(y, b_.getInt64(quant_params(out).zero_point)));
}

llvm::Value* AluEmitter::bitcast(DType in, DType out, llvm::Value* x) {
  const bool hin = in.scalar() == ScalarType::Float16, hout = out.scalar() == ScalarType::Float16;
  if (hin && hout) return x;
  if (hin) return b_.CreateCall(helper(kHalfBits, b_.getInt16Ty(), b_.getDoubleTy()), {x});
  if (hout) return b_.CreateCall(helper(kHalfValue, b_.getDoubleTy(), b_.getInt16Ty()), {x});
  llvm::Type* to = repr(out);
  return x->getType() == to ? x : b_.CreateBitCast(x, to);
}

}  // namespace uopfuzz::backends::cpu
