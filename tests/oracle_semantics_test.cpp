// Table-driven tests of ir::eval_alu against SEMANTICS.md. Every expected value below
// was derived by hand from the contract (two's complement, truncating/floor division,
// IEEE round-to-nearest-even), never copied from the implementation's output.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"
#include "ir/scalar_eval.h"
#include "ir/uop.h"
#include "ir/value.h"
#include "ir/verify.h"
#include "value_shorthands.h"

namespace uopfuzz::ir {
namespace {

using namespace semantics_test;

// ---------------------------------------------------------------------------------
// The table. `in` is the operands' dtype (WHERE: the branches'; CAST/BITCAST: the
// source's) and `out` the result's, exactly as eval_alu takes them.

struct Row {
  Op op;
  DType in, out;
  std::vector<Value> args;
  EvalError err;  // None: `want` is the result
  Value want;
  int line;
};

DType natural_out(Op op, DType in) {
  return op_in(op, Comparison) ? dtypes::Bool : in;
}

Row same(Op op, DType in, Value want, std::vector<Value> args, int line) {
  return Row{op, in, natural_out(op, in), std::move(args), EvalError::None, want, line};
}
Row same_ub(Op op, DType in, EvalError err, std::vector<Value> args, int line) {
  return Row{op, in, natural_out(op, in), std::move(args), err, Value{}, line};
}
Row conv(Op op, DType in, DType out, Value want, Value arg, int line) {
  return Row{op, in, out, {arg}, EvalError::None, want, line};
}
Row conv_ub(Op op, DType in, DType out, EvalError err, Value arg, int line) {
  return Row{op, in, out, {arg}, err, Value{}, line};
}

DType qt(ScalarType storage, double scale, int64_t zero_point) {
  return DType::quantized(storage, scale, zero_point);
}

// E: defined result; X: undefined behaviour; C/CX: CAST or BITCAST with an explicit target;
// Q: a conversion with a quantized side (Int8 etc. name the storage type inside qt()).
#define E(op, dt, want, ...) same(Op::op, dtypes::dt, want, {__VA_ARGS__}, __LINE__)
#define X(op, dt, err, ...) same_ub(Op::op, dtypes::dt, EvalError::err, {__VA_ARGS__}, __LINE__)
#define C(op, in, out, want, arg) conv(Op::op, dtypes::in, dtypes::out, want, arg, __LINE__)
#define Q(op, in, out, want, arg) conv(Op::op, in, out, want, arg, __LINE__)
#define CX(op, in, out, err, arg) \
  conv_ub(Op::op, dtypes::in, dtypes::out, EvalError::err, arg, __LINE__)

// clang-format off: one row per line reads as a table.
const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      // ---- NEG: integers are 0 - x (wrapping); index overflow is UB; floats flip the sign.
      E(Neg, Int8, I(-5), I(5)),
      E(Neg, Int8, I(I8MIN), I(I8MIN)),  // -(-128) wraps
      E(Neg, Int16, I(I16MIN), I(I16MIN)),
      E(Neg, Int16, I(7), I(-7)),
      E(Neg, Int32, I(I32MIN), I(I32MIN)),
      E(Neg, Int32, I(-I32MAX), I(I32MAX)),
      E(Neg, Int64, I(I64MIN), I(I64MIN)),  // wraps: not UB for sized ints
      E(Neg, UInt8, U(255), U(1)),
      E(Neg, UInt8, U(0), U(0)),
      E(Neg, UInt16, U(U16MAX), U(1)),
      E(Neg, UInt32, U(U32MAX), U(1)),
      E(Neg, UInt64, U(U64MAX), U(1)),
      E(Neg, UInt64, U(uint64_t{1} << 63), U(uint64_t{1} << 63)),
      E(Neg, Index, I(-3), I(3)),
      E(Neg, Index, I(I64MIN + 1), I(I64MAX)),
      X(Neg, Index, IndexOverflow, I(I64MIN)),
      E(Neg, Float16, F(-1.5), F(1.5)),
      E(Neg, Float16, F(-0.0), F(0.0)),
      E(Neg, Float32, F(0.0), F(-0.0)),
      E(Neg, Float32, F(-kInf), F(kInf)),
      E(Neg, Float64, F(2.5), F(-2.5)),
      E(Neg, Float64, kNaN, kNaN),

      // ---- CAST (see also CastAllPairsSmallValues for every source/target pair).
      // to bool: x != 0; NaN is true; -0 is false.
      C(Cast, Bool, Bool, B(true), B(true)),
      C(Cast, Int8, Bool, B(true), I(I8MIN)),
      C(Cast, Int16, Bool, B(false), I(0)),
      C(Cast, Int32, Bool, B(true), I(5)),
      C(Cast, Int64, Bool, B(true), I(I64MIN)),
      C(Cast, UInt8, Bool, B(true), U(255)),
      C(Cast, UInt16, Bool, B(false), U(0)),
      C(Cast, UInt32, Bool, B(true), U(uint64_t{1} << 31)),
      C(Cast, UInt64, Bool, B(true), U(uint64_t{1} << 63)),
      C(Cast, Index, Bool, B(true), I(-1)),
      C(Cast, Float16, Bool, B(true), kNaN),
      C(Cast, Float32, Bool, B(false), F(-0.0)),
      C(Cast, Float32, Bool, B(true), kNaN),
      C(Cast, Float32, Bool, B(true), F(p2(-149))),  // the smallest subnormal is not 0
      C(Cast, Float64, Bool, B(true), F(0.5)),
      C(Cast, Float64, Bool, B(true), F(-kInf)),
      // bool to numbers: 0/1.
      C(Cast, Bool, Int8, I(1), B(true)),
      C(Cast, Bool, UInt64, U(1), B(true)),
      C(Cast, Bool, Index, I(0), B(false)),
      C(Cast, Bool, Float16, F(1.0), B(true)),
      C(Cast, Bool, Float32, F(0.0), B(false)),
      // int -> int: modulo 2^bits of the target.
      C(Cast, Int32, Int8, I(44), I(300)),
      C(Cast, Int32, Int8, I(-128), I(128)),
      C(Cast, Int16, UInt16, U(65535), I(-1)),
      C(Cast, Int32, UInt32, U(U32MAX), I(-1)),
      C(Cast, Int8, UInt64, U(U64MAX), I(-1)),  // sign-extend, then wrap
      C(Cast, Int8, Int64, I(-1), I(-1)),
      C(Cast, UInt8, Int8, I(-1), U(255)),
      C(Cast, UInt16, Int16, I(-1), U(65535)),
      C(Cast, UInt16, UInt8, U(0x34), U(0x1234)),
      C(Cast, UInt32, Int64, I(4294967295LL), U(U32MAX)),  // zero-extend
      C(Cast, UInt32, Int32, I(I32MIN), U(uint64_t{1} << 31)),
      C(Cast, UInt64, Int64, I(-1), U(U64MAX)),
      C(Cast, UInt64, UInt32, U(U32MAX), U(U64MAX)),
      C(Cast, Int64, Int16, I(-32768), I(0x18000)),
      C(Cast, Int64, Index, I(-1), I(-1)),
      C(Cast, UInt64, Index, I(I64MAX), U(uint64_t(I64MAX))),
      CX(Cast, UInt64, Index, IndexOverflow, U(uint64_t{1} << 63)),
      CX(Cast, UInt64, Index, IndexOverflow, U(U64MAX)),
      C(Cast, Index, UInt64, U(U64MAX), I(-1)),
      C(Cast, Index, Int32, I(0), I(int64_t{1} << 40)),
      C(Cast, Index, UInt8, U(44), I(300)),
      C(Cast, Index, Int64, I(I64MIN), I(I64MIN)),
      C(Cast, Index, Index, I(12), I(12)),
      // int -> float: round to nearest, ties to even (no double rounding).
      C(Cast, Int32, Float16, F(2048.0), I(2049)),  // tie: 2048 has the even mantissa
      C(Cast, Int32, Float16, F(2052.0), I(2051)),  // tie: 2052 is even
      C(Cast, Int32, Float16, F(65504.0), I(65519)),
      C(Cast, Int32, Float16, F(kInf), I(65520)),  // halfway to 2^16: ties to "even" inf
      C(Cast, Int32, Float16, F(-kInf), I(-65520)),
      C(Cast, UInt64, Float16, F(kInf), U(U64MAX)),
      C(Cast, Int8, Float16, F(-128.0), I(-128)),
      C(Cast, Int32, Float32, F(16777216.0), I(16777217)),  // 2^24 + 1: tie to even
      C(Cast, Int32, Float32, F(16777220.0), I(16777219)),
      C(Cast, Int64, Float32, F(p2(63)), I(I64MAX)),
      C(Cast, Int64, Float32, F(-p2(63)), I(I64MIN)),
      // 2^60 + 2^36 + 1 is just above the float32 midpoint 2^60 + 2^36: it rounds up.
      // Rounding to double first would land exactly on the midpoint and round to 2^60.
      C(Cast, Int64, Float32, F(p2(60) + p2(37)), I((int64_t{1} << 60) + (int64_t{1} << 36) + 1)),
      C(Cast, UInt64, Float32, F(p2(64)), U(U64MAX)),
      C(Cast, UInt32, Float32, F(p2(32)), U(U32MAX)),
      C(Cast, UInt64, Float64, F(p2(64)), U(U64MAX)),
      C(Cast, Int64, Float64, F(p2(53)), I((int64_t{1} << 53) + 1)),  // tie to even
      C(Cast, Index, Float64, F(-3.0), I(-3)),
      C(Cast, UInt16, Float32, F(65535.0), U(65535)),
      // float -> int: truncate toward zero; NaN or out of range is UB.
      C(Cast, Float32, Int8, I(127), F(static_cast<float>(127.9))),
      CX(Cast, Float32, Int8, CastOutOfRange, F(128.0)),
      C(Cast, Float32, Int8, I(-128), F(static_cast<float>(-128.9))),
      CX(Cast, Float32, Int8, CastOutOfRange, F(-129.0)),
      CX(Cast, Float32, UInt8, CastOutOfRange, F(-1.0)),
      C(Cast, Float32, UInt8, U(0), F(-0.5)),  // truncates to -0: in range
      C(Cast, Float32, UInt8, U(255), F(255.75)),
      CX(Cast, Float32, UInt8, CastOutOfRange, F(256.0)),
      C(Cast, Float16, Int16, I(-32768), F(-32768.0)),
      CX(Cast, Float16, Int16, CastOutOfRange, F(32768.0)),
      C(Cast, Float16, UInt16, U(65504), F(65504.0)),
      CX(Cast, Float16, Int8, CastOutOfRange, F(kInf)),
      C(Cast, Float16, Int8, I(0), F(-0.0)),
      C(Cast, Float16, Index, I(-2), F(-2.5)),
      C(Cast, Float16, UInt64, U(3), F(3.75)),
      C(Cast, Float16, Int32, I(-1), F(-1.75)),
      C(Cast, Float16, Int64, I(65504), F(65504.0)),
      C(Cast, Float16, UInt32, U(1), F(1.0)),
      C(Cast, Float16, UInt8, U(255), F(255.0)),
      CX(Cast, Float16, UInt8, CastOutOfRange, F(256.0)),
      CX(Cast, Float32, Int32, CastOutOfRange, kNaN),
      CX(Cast, Float32, Int32, CastOutOfRange, F(-kInf)),
      C(Cast, Float32, Int32, I(I32MIN), F(-p2(31))),
      CX(Cast, Float32, Int32, CastOutOfRange, F(p2(31))),
      C(Cast, Float32, UInt32, U(4294967040ull), F(4294967040.0)),  // largest float < 2^32
      CX(Cast, Float32, UInt32, CastOutOfRange, F(p2(32))),
      C(Cast, Float32, Int16, I(-3), F(-3.5)),
      C(Cast, Float32, UInt16, U(7), F(7.5)),
      C(Cast, Float32, UInt64, U(uint64_t{1} << 63), F(p2(63))),
      C(Cast, Float32, Int64, I(I64MIN), F(-p2(63))),
      C(Cast, Float32, Index, I(100), F(100.5)),
      CX(Cast, Float64, Int64, CastOutOfRange, F(1e20)),
      CX(Cast, Float64, Int64, CastOutOfRange, F(p2(63))),
      C(Cast, Float64, Int64, I(I64MIN), F(-p2(63))),
      CX(Cast, Float64, Int64, CastOutOfRange, F(-p2(63) - 2048.0)),  // next double below -2^63
      C(Cast, Float64, UInt64, U(18446744073709549568ull), F(p2(64) - 2048.0)),
      CX(Cast, Float64, UInt64, CastOutOfRange, F(p2(64))),
      CX(Cast, Float64, Index, CastOutOfRange, F(1e20)),
      C(Cast, Float64, Index, I(-1), F(-1.5)),
      CX(Cast, Float64, Index, CastOutOfRange, kNaN),
      C(Cast, Float64, Int8, I(-7), F(-7.99)),
      C(Cast, Float64, Int16, I(32767), F(32767.999)),
      C(Cast, Float64, Int32, I(I32MAX), F(2147483647.5)),
      C(Cast, Float64, UInt8, U(0), F(-0.999)),
      C(Cast, Float64, UInt16, U(65535), F(65535.5)),
      CX(Cast, Float64, UInt16, CastOutOfRange, F(65536.0)),
      C(Cast, Float64, UInt32, U(U32MAX), F(4294967295.9)),
      // float -> float: round to nearest even, overflow to inf.
      C(Cast, Float64, Float32, F(13421773.0 / 134217728.0), F(0.1)),
      C(Cast, Float64, Float32, F(kInf), F(p2(128))),
      C(Cast, Float64, Float32, F(p2(-149)), F(p2(-149))),  // subnormal kept
      C(Cast, Float64, Float32, F(0.0), F(p2(-151))),       // below half the smallest: 0
      C(Cast, Float32, Float16, F(kInf), F(65520.0)),
      C(Cast, Float32, Float16, F(65504.0), F(65519.0)),
      C(Cast, Float32, Float16, F(0.333251953125), F(11184811.0 / 33554432.0)),
      C(Cast, Float64, Float16, F(0.0), F(1e-8)),
      C(Cast, Float64, Float16, F(0.0), F(p2(-25))),  // tie: to even (0)
      C(Cast, Float64, Float16, F(-0.0), F(-p2(-25))),
      C(Cast, Float64, Float16, F(p2(-24)), F(p2(-25) + p2(-40))),  // above the tie
      C(Cast, Float64, Float16, F(p2(-23)), F(3 * p2(-25))),        // tie: 2 units is even
      // 1 + 2^-11 + 2^-30 is above the float16 midpoint; via float32 it would be a tie -> 1.
      C(Cast, Float64, Float16, F(1.0 + p2(-10)), F(1.0 + p2(-11) + p2(-30))),
      C(Cast, Float16, Float32, F(0.333251953125), F(0.333251953125)),
      C(Cast, Float16, Float64, F(p2(-24)), F(p2(-24))),
      C(Cast, Float16, Float64, kNaN, kNaN),
      C(Cast, Float16, Float16, F(-0.0), F(-0.0)),
      C(Cast, Float32, Float64, F(p2(-149)), F(p2(-149))),
      C(Cast, Float32, Float32, kNaN, kNaN),
      C(Cast, Float64, Float64, F(-0.0), F(-0.0)),

      // ---- BITCAST: every pair of equal-size non-bool non-index dtypes.
      // 1 byte
      C(Bitcast, Int8, Int8, I(-5), I(-5)),
      C(Bitcast, Int8, UInt8, U(255), I(-1)),
      C(Bitcast, UInt8, Int8, I(-128), U(128)),
      C(Bitcast, UInt8, UInt8, U(200), U(200)),
      // 2 bytes
      C(Bitcast, Int16, Int16, I(-300), I(-300)),
      C(Bitcast, Int16, UInt16, U(65535), I(-1)),
      C(Bitcast, Int16, Float16, kNaN, I(-1)),  // 0xffff is a (negative) NaN: canonical
      C(Bitcast, Int16, Float16, F(-2.0), I(-16384)),
      C(Bitcast, UInt16, Int16, I(I16MIN), U(0x8000)),
      C(Bitcast, UInt16, UInt16, U(7), U(7)),
      C(Bitcast, UInt16, Float16, F(1.0), U(0x3c00)),
      C(Bitcast, UInt16, Float16, F(65504.0), U(0x7bff)),
      C(Bitcast, UInt16, Float16, F(kInf), U(0x7c00)),
      C(Bitcast, UInt16, Float16, F(p2(-24)), U(0x0001)),
      C(Bitcast, UInt16, Float16, F(-0.0), U(0x8000)),
      C(Bitcast, UInt16, Float16, kNaN, U(0x7c01)),  // signalling pattern -> canonical NaN
      C(Bitcast, UInt16, Float16, kNaN, U(0xfe00)),  // negative NaN -> canonical NaN
      C(Bitcast, Float16, UInt16, U(0x3c00), F(1.0)),
      C(Bitcast, Float16, UInt16, U(0x8000), F(-0.0)),
      C(Bitcast, Float16, Int16, I(-16384), F(-2.0)),  // 0xc000
      C(Bitcast, Float16, Float16, F(0.5), F(0.5)),
      CX(Bitcast, Float16, UInt16, NanBitcast, kNaN),
      CX(Bitcast, Float16, Int16, NanBitcast, kNaN),
      // 4 bytes
      C(Bitcast, Float32, Int32, I(0x3f800000), F(1.0)),
      C(Bitcast, Int32, Float32, F(1.0), I(0x3f800000)),
      C(Bitcast, Float32, Int32, I(-1073741824), F(-2.0)),  // 0xc0000000
      C(Bitcast, Float32, UInt32, U(0x80000000u), F(-0.0)),
      C(Bitcast, UInt32, Float32, F(kInf), U(0x7f800000u)),
      C(Bitcast, UInt32, Float32, F(p2(-149)), U(1)),
      C(Bitcast, UInt32, Float32, kNaN, U(0x7fc00001u)),
      C(Bitcast, Int32, Float32, kNaN, I(-1)),
      C(Bitcast, Int32, Int32, I(I32MIN), I(I32MIN)),
      C(Bitcast, Int32, UInt32, U(U32MAX), I(-1)),
      C(Bitcast, UInt32, Int32, I(I32MIN), U(0x80000000u)),
      C(Bitcast, UInt32, UInt32, U(123), U(123)),
      C(Bitcast, Float32, Float32, kNaN, kNaN),  // float to float: not UB
      CX(Bitcast, Float32, Int32, NanBitcast, kNaN),
      CX(Bitcast, Float32, UInt32, NanBitcast, kNaN),
      // 8 bytes
      C(Bitcast, Float64, Int64, I(0x3ff0000000000000LL), F(1.0)),
      C(Bitcast, Float64, UInt64, U(0x8000000000000000ull), F(-0.0)),
      C(Bitcast, Float64, Float64, F(-1.25), F(-1.25)),
      C(Bitcast, Int64, Float64, F(1.0), I(0x3ff0000000000000LL)),
      C(Bitcast, Int64, Float64, kNaN, I(-1)),
      C(Bitcast, Int64, Int64, I(I64MIN), I(I64MIN)),
      C(Bitcast, Int64, UInt64, U(U64MAX), I(-1)),
      C(Bitcast, UInt64, Float64, F(-0.0), U(0x8000000000000000ull)),
      C(Bitcast, UInt64, Int64, I(I64MIN), U(0x8000000000000000ull)),
      C(Bitcast, UInt64, UInt64, U(U64MAX), U(U64MAX)),
      CX(Bitcast, Float64, Int64, NanBitcast, kNaN),
      CX(Bitcast, Float64, UInt64, NanBitcast, kNaN),

      // ---- RECIPROCAL
      E(Reciprocal, Float16, F(0.333251953125), F(3.0)),  // 1365 * 2^-12
      E(Reciprocal, Float16, F(p2(-16)), F(65504.0)),     // a subnormal: 256 * 2^-24
      E(Reciprocal, Float16, F(kInf), F(0.0)),
      E(Reciprocal, Float16, F(-kInf), F(-0.0)),
      E(Reciprocal, Float32, F(11184811.0 / 33554432.0), F(3.0)),
      E(Reciprocal, Float32, F(0.25), F(4.0)),
      E(Reciprocal, Float32, F(-0.0), F(-kInf)),
      E(Reciprocal, Float32, kNaN, kNaN),
      E(Reciprocal, Float64, F(0.5), F(2.0)),
      E(Reciprocal, Float64, F(kInf), F(0.0)),
      E(Reciprocal, Float64, F(-kInf), F(-0.0)),

      // ---- SQRT
      E(Sqrt, Float16, F(1.4140625), F(2.0)),
      E(Sqrt, Float16, F(-0.0), F(-0.0)),
      E(Sqrt, Float16, kNaN, F(-1.0)),
      E(Sqrt, Float32, F(1.41421353816986083984375), F(2.0)),
      E(Sqrt, Float32, F(2.0), F(4.0)),
      E(Sqrt, Float32, kNaN, F(-p2(-149))),
      E(Sqrt, Float32, F(kInf), F(kInf)),
      E(Sqrt, Float64, F(3.0), F(9.0)),
      E(Sqrt, Float64, kNaN, F(-kInf)),

      // ---- EXP2
      E(Exp2, Float16, F(1024.0), F(10.0)),
      E(Exp2, Float16, F(kInf), F(16.0)),      // 65536 overflows float16
      E(Exp2, Float16, F(p2(-24)), F(-24.0)),  // the smallest subnormal
      E(Exp2, Float16, F(0.0), F(-25.0)),      // half of it: ties to even (0)
      E(Exp2, Float32, F(0.5), F(-1.0)),
      E(Exp2, Float32, F(kInf), F(128.0)),
      E(Exp2, Float32, F(p2(-149)), F(-149.0)),
      E(Exp2, Float32, F(0.0), F(-kInf)),
      E(Exp2, Float64, F(1.0), F(0.0)),
      E(Exp2, Float64, F(1.0), F(-0.0)),
      E(Exp2, Float64, kNaN, kNaN),

      // ---- LOG2
      E(Log2, Float16, F(-kInf), F(0.0)),
      E(Log2, Float16, F(-24.0), F(p2(-24))),
      E(Log2, Float16, kNaN, F(-1.0)),
      E(Log2, Float32, F(3.0), F(8.0)),
      E(Log2, Float32, F(-kInf), F(-0.0)),
      E(Log2, Float32, F(0.0), F(1.0)),
      E(Log2, Float32, F(kInf), F(kInf)),
      E(Log2, Float64, F(-2.0), F(0.25)),
      E(Log2, Float64, kNaN, F(-0.5)),
      E(Log2, Float64, kNaN, F(-kInf)),

      // ---- SIN
      E(Sin, Float16, F(0.84130859375), F(1.0)),  // sin(1) = 0.84147..: 1723/2048 in float16
      E(Sin, Float16, F(-0.0), F(-0.0)),
      E(Sin, Float32, F(0.0), F(0.0)),
      E(Sin, Float32, kNaN, F(kInf)),
      E(Sin, Float64, kNaN, F(-kInf)),
      E(Sin, Float64, kNaN, kNaN),
      E(Sin, Float64, F(-0.0), F(-0.0)),

      // ---- TRUNC
      E(Trunc, Float16, F(2.0), F(2.75)),
      E(Trunc, Float16, F(-2.0), F(-2.75)),
      E(Trunc, Float16, F(-0.0), F(-0.5)),
      E(Trunc, Float32, F(-0.0), F(-0.5)),
      E(Trunc, Float32, F(16777216.0), F(16777216.0)),
      E(Trunc, Float32, F(kInf), F(kInf)),
      E(Trunc, Float64, F(3.0), F(3.999)),
      E(Trunc, Float64, kNaN, kNaN),

      // ---- ADD: sized ints wrap; index overflow is UB; floats round once.
      E(Add, Int8, I(127), I(100), I(27)),
      E(Add, Int8, I(-128), I(127), I(1)),
      E(Add, Int8, I(127), I(-128), I(-1)),
      E(Add, Int16, I(-32768), I(32767), I(1)),
      E(Add, Int16, I(1234), I(1000), I(234)),
      E(Add, Int32, I(I32MIN), I(I32MAX), I(1)),
      E(Add, Int32, I(-2), I(-5), I(3)),
      E(Add, Int64, I(I64MIN), I(I64MAX), I(1)),  // wraps: only index overflow is UB
      E(Add, UInt8, U(0), U(255), U(1)),
      E(Add, UInt8, U(44), U(200), U(100)),
      E(Add, UInt16, U(1), U(65535), U(2)),
      E(Add, UInt32, U(0), U(U32MAX), U(1)),
      E(Add, UInt64, U(0), U(U64MAX), U(1)),
      E(Add, UInt64, U(uint64_t{1} << 63), U(uint64_t{1} << 62), U(uint64_t{1} << 62)),
      E(Add, Index, I(5), I(2), I(3)),
      E(Add, Index, I(-1), I(I64MAX), I(I64MIN)),
      X(Add, Index, IndexOverflow, I(I64MAX), I(1)),
      X(Add, Index, IndexOverflow, I(I64MIN), I(-1)),
      E(Add, Float16, F(1.0), F(1.0), F(p2(-11))),               // tie: 1 is even
      E(Add, Float16, F(1.0 + p2(-9)), F(1.0), F(3 * p2(-11))),  // tie: up to even
      E(Add, Float16, F(kInf), F(65504.0), F(16.0)),             // 65520 overflows
      E(Add, Float16, F(65504.0), F(65504.0), F(15.0)),
      E(Add, Float16, F(p2(-14)), F(1023 * p2(-24)), F(p2(-24))),  // subnormal + subnormal = normal
      E(Add, Float32, F(1.0), F(1.0), F(p2(-24))),
      E(Add, Float32, F(1.0 + p2(-22)), F(1.0), F(3 * p2(-24))),
      E(Add, Float32, F(kInf), F(std::numeric_limits<float>::max()),
        F(std::numeric_limits<float>::max())),
      E(Add, Float32, F(0.0), F(-0.0), F(0.0)),
      E(Add, Float32, F(-0.0), F(-0.0), F(-0.0)),
      E(Add, Float64, F(0.30000000000000004), F(0.1), F(0.2)),
      E(Add, Float64, kNaN, F(kInf), F(-kInf)),
      E(Add, Float64, kNaN, kNaN, F(1.0)),

      // ---- SUB
      E(Sub, Int8, I(127), I(-128), I(1)),
      E(Sub, Int16, I(32767), I(-32768), I(1)),
      E(Sub, Int32, I(-2), I(5), I(7)),
      E(Sub, Int32, I(I32MAX), I(I32MIN), I(1)),
      E(Sub, Int64, I(I64MAX), I(I64MIN), I(1)),
      E(Sub, UInt8, U(255), U(0), U(1)),
      E(Sub, UInt16, U(65534), U(3), U(5)),
      E(Sub, UInt32, U(U32MAX), U(0), U(1)),
      E(Sub, UInt64, U(U64MAX), U(0), U(1)),
      E(Sub, Index, I(-2), I(3), I(5)),
      X(Sub, Index, IndexOverflow, I(I64MIN), I(1)),
      X(Sub, Index, IndexOverflow, I(0), I(I64MIN)),
      X(Sub, Index, IndexOverflow, I(I64MAX), I(-1)),
      E(Sub, Index, I(I64MIN), I(-1), I(I64MAX)),
      E(Sub, Float16, F(1.0), F(1.0), F(p2(-12))),  // tie between 1 - 2^-11 and 1: 1 is even
      E(Sub, Float32, F(0.25), F(0.5), F(0.25)),
      E(Sub, Float32, kNaN, F(kInf), F(kInf)),
      E(Sub, Float64, F(0.0), F(1.0), F(1.0)),  // x - x is +0
      E(Sub, Float64, F(-0.0), F(-0.0), F(0.0)),

      // ---- MUL
      E(Mul, Int8, I(0), I(16), I(16)),
      E(Mul, Int8, I(-31), I(15), I(15)),  // 225 - 256
      E(Mul, Int8, I(-128), I(-128), I(-1)),
      E(Mul, Int16, I(24464), I(300), I(300)),  // 90000 - 65536
      E(Mul, Int32, I(0), I(65536), I(65536)),
      E(Mul, Int32, I(-2147479015LL), I(46341), I(46341)),  // 2147488281 - 2^32
      E(Mul, Int64, I(I64MIN), I(I64MIN), I(-1)),
      E(Mul, Int64, I(0), I(int64_t{1} << 32), I(int64_t{1} << 32)),
      E(Mul, UInt8, U(0), U(16), U(16)),
      E(Mul, UInt8, U(144), U(200), U(2)),
      E(Mul, UInt16, U(24464), U(300), U(300)),
      E(Mul, UInt32, U(65536), U(65536), U(65537)),
      E(Mul, UInt64, U(0), U(uint64_t{1} << 63), U(2)),
      E(Mul, UInt64, U(1), U(U64MAX), U(U64MAX)),
      E(Mul, Index, I(-12), I(3), I(-4)),
      E(Mul, Index, I(I64MIN), I(-(int64_t{1} << 62)), I(2)),
      X(Mul, Index, IndexOverflow, I(int64_t{1} << 62), I(2)),
      X(Mul, Index, IndexOverflow, I(I64MIN), I(-1)),
      X(Mul, Index, IndexOverflow, I(int64_t{1} << 32), I(int64_t{1} << 32)),
      E(Mul, Float16, F(kInf), F(256.0), F(256.0)),
      E(Mul, Float16, F(1.0 + p2(-9)), F(1.0 + p2(-10)), F(1.0 + p2(-10))),  // 1 + 2^-9 + 2^-20
      E(Mul, Float16, F(1.5), F(3.0), F(0.5)),
      E(Mul, Float32, F(kInf), F(p2(100)), F(p2(100))),
      E(Mul, Float32, F(-0.0), F(-0.0), F(5.0)),
      E(Mul, Float32, kNaN, F(0.0), F(kInf)),
      E(Mul, Float32, F(p2(-149)), F(p2(-75)), F(p2(-74))),
      E(Mul, Float64, F(kInf), F(p2(1000)), F(p2(100))),
      E(Mul, Float64, F(-1.5), F(3.0), F(-0.5)),

      // ---- CDIV: truncates; divisor 0 is UB; sized MIN / -1 wraps; index MIN / -1 is UB.
      E(Cdiv, Int8, I(3), I(7), I(2)),
      E(Cdiv, Int8, I(-3), I(-7), I(2)),
      E(Cdiv, Int8, I(-3), I(7), I(-2)),
      E(Cdiv, Int8, I(3), I(-7), I(-2)),
      E(Cdiv, Int8, I(I8MIN), I(I8MIN), I(-1)),
      X(Cdiv, Int8, DivisionByZero, I(1), I(0)),
      E(Cdiv, Int16, I(I16MIN), I(I16MIN), I(-1)),
      E(Cdiv, Int16, I(14), I(100), I(7)),
      E(Cdiv, Int32, I(I32MIN), I(I32MIN), I(-1)),
      E(Cdiv, Int32, I(-3), I(-7), I(2)),
      X(Cdiv, Int32, DivisionByZero, I(0), I(0)),
      E(Cdiv, Int64, I(I64MIN), I(I64MIN), I(-1)),
      E(Cdiv, Int64, I(-1), I(I64MIN), I(I64MAX)),
      X(Cdiv, Int64, DivisionByZero, I(I64MIN), I(0)),
      E(Cdiv, UInt8, U(28), U(200), U(7)),
      E(Cdiv, UInt8, U(15), U(255), U(16)),
      X(Cdiv, UInt8, DivisionByZero, U(255), U(0)),
      E(Cdiv, UInt16, U(255), U(65535), U(256)),
      E(Cdiv, UInt32, U(2147483647), U(U32MAX), U(2)),  // not a signed -1 / 2
      E(Cdiv, UInt64, U(6148914691236517205ull), U(U64MAX), U(3)),
      E(Cdiv, UInt64, U(0), U(1), U(U64MAX)),
      X(Cdiv, UInt64, DivisionByZero, U(1), U(0)),
      E(Cdiv, Index, I(-3), I(-7), I(2)),
      E(Cdiv, Index, I(I64MAX), I(I64MAX), I(1)),
      X(Cdiv, Index, IndexOverflow, I(I64MIN), I(-1)),
      X(Cdiv, Index, DivisionByZero, I(5), I(0)),

      // ---- CMOD: the dividend's sign.
      E(Cmod, Int8, I(-1), I(-7), I(2)),
      E(Cmod, Int8, I(1), I(7), I(-2)),
      E(Cmod, Int8, I(-1), I(-7), I(-2)),
      E(Cmod, Int8, I(0), I(I8MIN), I(-1)),
      X(Cmod, Int8, DivisionByZero, I(-7), I(0)),
      E(Cmod, Int16, I(0), I(I16MIN), I(-1)),
      E(Cmod, Int16, I(2), I(100), I(7)),
      E(Cmod, Int32, I(0), I(I32MIN), I(-1)),
      E(Cmod, Int32, I(-1), I(-7), I(3)),
      E(Cmod, Int64, I(0), I(I64MIN), I(-1)),
      E(Cmod, Int64, I(-1), I(-7), I(-2)),
      X(Cmod, Int64, DivisionByZero, I(1), I(0)),
      E(Cmod, UInt8, U(4), U(200), U(7)),
      E(Cmod, UInt16, U(255), U(65535), U(256)),
      E(Cmod, UInt32, U(5), U(U32MAX), U(10)),
      E(Cmod, UInt64, U(5), U(U64MAX), U(10)),
      X(Cmod, UInt32, DivisionByZero, U(3), U(0)),
      E(Cmod, Index, I(-1), I(-7), I(2)),
      E(Cmod, Index, I(0), I(I64MIN), I(-1)),  // representable: not an overflow
      X(Cmod, Index, DivisionByZero, I(-7), I(0)),

      // ---- FLOORDIV: rounds toward -inf.
      E(FloorDiv, Int8, I(-4), I(-7), I(2)),
      E(FloorDiv, Int8, I(-4), I(7), I(-2)),
      E(FloorDiv, Int8, I(3), I(-7), I(-2)),
      E(FloorDiv, Int8, I(3), I(7), I(2)),
      E(FloorDiv, Int8, I(I8MIN), I(I8MIN), I(-1)),
      X(FloorDiv, Int8, DivisionByZero, I(7), I(0)),
      E(FloorDiv, Int16, I(-1), I(-1), I(3)),
      E(FloorDiv, Int16, I(I16MIN), I(I16MIN), I(-1)),
      E(FloorDiv, Int32, I(I32MIN), I(I32MIN), I(-1)),
      E(FloorDiv, Int32, I(-2), I(6), I(-3)),  // exact: no adjustment
      E(FloorDiv, Int64, I(I64MIN), I(I64MIN), I(-1)),
      E(FloorDiv, Int64, I(-2), I(-6), I(4)),
      E(FloorDiv, UInt8, U(28), U(200), U(7)),
      E(FloorDiv, UInt16, U(32767), U(65535), U(2)),
      E(FloorDiv, UInt32, U(1431655763), U(4294967290ull), U(3)),
      E(FloorDiv, UInt64, U(uint64_t(I64MAX)), U(U64MAX), U(2)),
      X(FloorDiv, UInt64, DivisionByZero, U(2), U(0)),
      E(FloorDiv, Index, I(-4), I(-7), I(2)),
      E(FloorDiv, Index, I(-1), I(-1), I(I64MAX)),
      X(FloorDiv, Index, IndexOverflow, I(I64MIN), I(-1)),
      X(FloorDiv, Index, DivisionByZero, I(-7), I(0)),

      // ---- FLOORMOD: the divisor's sign.
      E(FloorMod, Int8, I(1), I(-7), I(2)),
      E(FloorMod, Int8, I(-1), I(7), I(-2)),
      E(FloorMod, Int8, I(-1), I(-7), I(-2)),
      E(FloorMod, Int8, I(1), I(7), I(2)),
      E(FloorMod, Int8, I(0), I(I8MIN), I(-1)),
      X(FloorMod, Int8, DivisionByZero, I(7), I(0)),
      E(FloorMod, Int16, I(2), I(-1), I(3)),
      E(FloorMod, Int16, I(0), I(I16MIN), I(-1)),
      E(FloorMod, Int32, I(0), I(I32MIN), I(-1)),
      E(FloorMod, Int32, I(2), I(-6), I(4)),
      E(FloorMod, Int64, I(0), I(I64MIN), I(-1)),
      E(FloorMod, Int64, I(-2), I(7), I(-3)),
      E(FloorMod, Int64, I(I64MAX - 2), I(-2), I(I64MAX)),  // -2 - MAX * floor(-2 / MAX) = MAX - 2
      E(FloorMod, UInt8, U(4), U(200), U(7)),
      E(FloorMod, UInt16, U(1), U(65535), U(7)),
      E(FloorMod, UInt32, U(1), U(4294967290ull), U(3)),
      E(FloorMod, UInt64, U(1), U(U64MAX), U(7)),  // 2^64 - 1 = 1 mod 7 (signed -1 would give 6)
      X(FloorMod, UInt16, DivisionByZero, U(2), U(0)),
      E(FloorMod, Index, I(1), I(-7), I(2)),
      E(FloorMod, Index, I(-1), I(7), I(-2)),
      E(FloorMod, Index, I(0), I(I64MIN), I(-1)),
      X(FloorMod, Index, DivisionByZero, I(1), I(0)),

      // ---- MAX / MIN: unsigned compare as unsigned; float NaN wins, +0 > -0.
      E(Max, Int8, I(1), I(-1), I(1)),
      E(Max, Int16, I(I16MAX), I(I16MIN), I(I16MAX)),
      E(Max, Int32, I(-3), I(-3), I(-7)),
      E(Max, Int64, I(I64MAX), I(I64MAX), I(I64MIN)),
      E(Max, UInt8, U(200), U(200), U(1)),  // 200 is not -56
      E(Max, UInt16, U(65535), U(0), U(65535)),
      E(Max, UInt32, U(U32MAX), U(U32MAX), U(1)),
      E(Max, UInt64, U(U64MAX), U(1), U(U64MAX)),
      E(Max, Index, I(I64MAX), I(I64MIN), I(I64MAX)),
      E(Max, Float16, F(0.0), F(-0.0), F(0.0)),
      E(Max, Float16, F(0.0), F(0.0), F(-0.0)),
      E(Max, Float16, kNaN, kNaN, F(1.0)),
      E(Max, Float32, kNaN, F(1.0), kNaN),
      E(Max, Float32, F(3.0), F(-kInf), F(3.0)),
      E(Max, Float32, F(0.0), F(-0.0), F(0.0)),
      E(Max, Float64, F(kInf), F(kInf), F(1e300)),
      E(Max, Float64, kNaN, F(kInf), kNaN),
      E(Max, Float64, F(0.0), F(0.0), F(-0.0)),
      E(Min, Int8, I(I8MIN), I(I8MIN), I(I8MAX)),
      E(Min, Int16, I(-1), I(0), I(-1)),
      E(Min, Int32, I(I32MIN), I(I32MAX), I(I32MIN)),
      E(Min, Int64, I(-5), I(-5), I(5)),
      E(Min, UInt8, U(1), U(200), U(1)),
      E(Min, UInt16, U(0), U(65535), U(0)),
      E(Min, UInt32, U(1), U(U32MAX), U(1)),
      E(Min, UInt64, U(1), U(U64MAX), U(1)),
      E(Min, Index, I(I64MIN), I(I64MAX), I(I64MIN)),
      E(Min, Float16, F(-0.0), F(-0.0), F(0.0)),
      E(Min, Float16, F(-0.0), F(0.0), F(-0.0)),
      E(Min, Float32, F(-2.5), F(1.5), F(-2.5)),
      E(Min, Float32, kNaN, kNaN, kNaN),
      E(Min, Float32, kNaN, F(-kInf), kNaN),
      E(Min, Float64, F(-0.0), F(0.0), F(-0.0)),
      E(Min, Float64, kNaN, kNaN, F(-kInf)),

      // ---- CMPLT
      E(CmpLt, Bool, B(true), B(false), B(true)),
      E(CmpLt, Bool, B(false), B(true), B(false)),
      E(CmpLt, Int8, B(true), I(-1), I(0)),
      E(CmpLt, Int16, B(false), I(5), I(5)),
      E(CmpLt, Int32, B(true), I(I32MIN), I(I32MAX)),
      E(CmpLt, Int64, B(false), I(0), I(-1)),
      E(CmpLt, UInt8, B(false), U(255), U(0)),  // unsigned: 255 is not -1
      E(CmpLt, UInt16, B(true), U(1), U(65535)),
      E(CmpLt, UInt32, B(false), U(U32MAX), U(1)),
      E(CmpLt, UInt64, B(false), U(U64MAX), U(1)),
      E(CmpLt, UInt64, B(true), U(0), U(uint64_t{1} << 63)),
      E(CmpLt, Index, B(true), I(I64MIN), I(I64MAX)),
      E(CmpLt, Float16, B(false), kNaN, F(1.0)),
      E(CmpLt, Float16, B(true), F(-1.0), F(-0.5)),
      E(CmpLt, Float32, B(false), F(1.0), kNaN),
      E(CmpLt, Float32, B(false), F(-0.0), F(0.0)),
      E(CmpLt, Float64, B(true), F(-kInf), F(kInf)),
      E(CmpLt, Float64, B(false), kNaN, kNaN),

      // ---- CMPNE / CMPEQ
      E(CmpNe, Bool, B(true), B(true), B(false)),
      E(CmpNe, Int8, B(false), I(-3), I(-3)),
      E(CmpNe, Int16, B(true), I(1), I(2)),
      E(CmpNe, Int32, B(true), I(-1), I(1)),
      E(CmpNe, Int64, B(false), I(I64MIN), I(I64MIN)),
      E(CmpNe, UInt8, B(true), U(255), U(254)),
      E(CmpNe, UInt16, B(false), U(9), U(9)),
      E(CmpNe, UInt32, B(true), U(U32MAX), U(0)),
      E(CmpNe, UInt64, B(false), U(U64MAX), U(U64MAX)),
      E(CmpNe, Index, B(true), I(0), I(1)),
      E(CmpNe, Float16, B(true), kNaN, kNaN),
      E(CmpNe, Float32, B(false), F(-0.0), F(0.0)),
      E(CmpNe, Float32, B(true), F(1.0), kNaN),
      E(CmpNe, Float64, B(false), F(2.5), F(2.5)),
      E(CmpEq, Bool, B(true), B(false), B(false)),
      E(CmpEq, Int8, B(true), I(-3), I(-3)),
      E(CmpEq, Int16, B(false), I(1), I(2)),
      E(CmpEq, Int32, B(false), I(-1), I(1)),
      E(CmpEq, Int64, B(true), I(I64MAX), I(I64MAX)),
      E(CmpEq, UInt8, B(false), U(255), U(254)),
      E(CmpEq, UInt16, B(true), U(9), U(9)),
      E(CmpEq, UInt32, B(false), U(U32MAX), U(0)),
      E(CmpEq, UInt64, B(true), U(U64MAX), U(U64MAX)),
      E(CmpEq, Index, B(false), I(0), I(1)),
      E(CmpEq, Float16, B(false), kNaN, kNaN),
      E(CmpEq, Float32, B(true), F(-0.0), F(0.0)),
      E(CmpEq, Float32, B(false), kNaN, F(1.0)),
      E(CmpEq, Float64, B(true), F(-kInf), F(-kInf)),

      // ---- AND / OR / XOR (bool: logical)
      E(And, Bool, B(false), B(true), B(false)),
      E(And, Bool, B(true), B(true), B(true)),
      E(And, Int8, I(15), I(-1), I(15)),
      E(And, Int16, I(-32768), I(-1), I(-32768)),
      E(And, Int32, I(0x0f0f0f00), I(0x0f0f0f0f), I(-256)),
      E(And, Int64, I(I64MIN), I(I64MIN), I(-1)),
      E(And, UInt8, U(0x80), U(0xf0), U(0x8f)),
      E(And, UInt16, U(0x00ff), U(0x0fff), U(0xf0ff)),
      E(And, UInt32, U(0x80000000u), U(U32MAX), U(0x80000000u)),
      E(And, UInt64, U(1), U(U64MAX), U(1)),
      E(And, Index, I(7), I(-1), I(7)),
      E(Or, Bool, B(true), B(false), B(true)),
      E(Or, Bool, B(false), B(false), B(false)),
      E(Or, Int8, I(-127), I(-128), I(1)),
      E(Or, Int16, I(-1), I(0x7fff), I(-32768)),
      E(Or, Int32, I(I32MIN | 1), I(I32MIN), I(1)),
      E(Or, Int64, I(-1), I(I64MAX), I(I64MIN)),
      E(Or, UInt8, U(255), U(0xf0), U(0x0f)),
      E(Or, UInt16, U(0x8001), U(0x8000), U(1)),
      E(Or, UInt32, U(U32MAX), U(0xffff0000u), U(0xffff)),
      E(Or, UInt64, U(U64MAX), U(uint64_t{1} << 63), U(uint64_t(I64MAX))),
      E(Or, Index, I(-1), I(-2), I(1)),
      E(Xor, Bool, B(false), B(true), B(true)),
      E(Xor, Bool, B(true), B(false), B(true)),
      E(Xor, Int8, I(-2), I(-1), I(1)),
      E(Xor, Int16, I(0x7fff), I(-1), I(I16MIN)),
      E(Xor, Int32, I(-1), I(I32MIN), I(I32MAX)),
      E(Xor, Int64, I(0), I(I64MIN), I(I64MIN)),
      E(Xor, UInt8, U(0x0f), U(0xf0), U(0xff)),
      E(Xor, UInt16, U(0xffff), U(0xff00), U(0x00ff)),
      E(Xor, UInt32, U(0xfffffffe), U(U32MAX), U(1)),
      E(Xor, UInt64, U(U64MAX), U(0), U(U64MAX)),
      E(Xor, Index, I(-8), I(7), I(-1)),

      // ---- SHL: amount in [0, bits); sized ints wrap; index is * 2^b with overflow UB.
      E(Shl, Int8, I(3), I(3), I(0)),
      E(Shl, Int8, I(I8MIN), I(1), I(7)),
      E(Shl, Int8, I(-128), I(64), I(1)),
      E(Shl, Int8, I(0), I(0x40), I(2)),  // 256 wraps to 0
      X(Shl, Int8, ShiftOutOfRange, I(1), I(8)),
      X(Shl, Int8, ShiftOutOfRange, I(1), I(-1)),
      E(Shl, Int16, I(I16MIN), I(1), I(15)),
      X(Shl, Int16, ShiftOutOfRange, I(1), I(16)),
      E(Shl, Int32, I(I32MIN), I(1), I(31)),
      E(Shl, Int32, I(-2), I(I32MAX), I(1)),
      X(Shl, Int32, ShiftOutOfRange, I(1), I(32)),
      X(Shl, Int32, ShiftOutOfRange, I(1), I(-32)),
      E(Shl, Int64, I(I64MIN), I(1), I(63)),
      E(Shl, Int64, I(I64MIN), I(3), I(63)),  // bit 1 is shifted out, bit 0 lands on the sign
      X(Shl, Int64, ShiftOutOfRange, I(1), I(64)),
      E(Shl, UInt8, U(128), U(1), U(7)),
      E(Shl, UInt8, U(254), U(255), U(1)),
      X(Shl, UInt8, ShiftOutOfRange, U(1), U(8)),
      X(Shl, UInt8, ShiftOutOfRange, U(1), U(255)),
      E(Shl, UInt16, U(0x8000), U(1), U(15)),
      X(Shl, UInt16, ShiftOutOfRange, U(1), U(16)),
      E(Shl, UInt32, U(0x80000000u), U(1), U(31)),
      X(Shl, UInt32, ShiftOutOfRange, U(1), U(32)),
      E(Shl, UInt64, U(uint64_t{1} << 63), U(1), U(63)),
      E(Shl, UInt64, U(U64MAX - 1), U(U64MAX), U(1)),
      X(Shl, UInt64, ShiftOutOfRange, U(1), U(64)),
      X(Shl, UInt64, ShiftOutOfRange, U(1), U(U64MAX)),
      E(Shl, Index, I(5), I(5), I(0)),
      E(Shl, Index, I(int64_t{1} << 62), I(1), I(62)),
      E(Shl, Index, I(I64MIN), I(-1), I(63)),  // -2^63 is representable
      E(Shl, Index, I(-12), I(-3), I(2)),
      X(Shl, Index, IndexOverflow, I(1), I(63)),
      X(Shl, Index, IndexOverflow, I(3), I(62)),
      X(Shl, Index, IndexOverflow, I(int64_t{1} << 62), I(1)),
      X(Shl, Index, ShiftOutOfRange, I(1), I(64)),
      X(Shl, Index, ShiftOutOfRange, I(1), I(-1)),

      // ---- SHR: arithmetic for signed and index, logical for unsigned.
      E(Shr, Int8, I(-1), I(I8MIN), I(7)),
      E(Shr, Int8, I(-1), I(-1), I(7)),
      E(Shr, Int8, I(-4), I(-8), I(1)),
      E(Shr, Int8, I(63), I(127), I(1)),
      E(Shr, Int8, I(-5), I(-5), I(0)),
      X(Shr, Int8, ShiftOutOfRange, I(-1), I(8)),
      X(Shr, Int8, ShiftOutOfRange, I(-1), I(-1)),
      E(Shr, Int16, I(-1), I(I16MIN), I(15)),
      X(Shr, Int16, ShiftOutOfRange, I(1), I(16)),
      E(Shr, Int32, I(-1), I(I32MIN), I(31)),
      X(Shr, Int32, ShiftOutOfRange, I(1), I(32)),
      E(Shr, Int64, I(-1), I(I64MIN), I(63)),
      E(Shr, Int64, I(0), I(I64MAX), I(63)),
      X(Shr, Int64, ShiftOutOfRange, I(1), I(64)),
      E(Shr, UInt8, U(1), U(255), U(7)),  // logical
      E(Shr, UInt8, U(127), U(255), U(1)),
      X(Shr, UInt8, ShiftOutOfRange, U(1), U(8)),
      E(Shr, UInt16, U(1), U(65535), U(15)),
      X(Shr, UInt16, ShiftOutOfRange, U(1), U(16)),
      E(Shr, UInt32, U(1), U(0x80000000u), U(31)),
      X(Shr, UInt32, ShiftOutOfRange, U(1), U(32)),
      E(Shr, UInt64, U(1), U(U64MAX), U(63)),
      X(Shr, UInt64, ShiftOutOfRange, U(1), U(64)),
      E(Shr, Index, I(-4), I(-8), I(1)),
      E(Shr, Index, I(-1), I(I64MIN), I(63)),
      E(Shr, Index, I(1), I(I64MAX), I(62)),
      X(Shr, Index, ShiftOutOfRange, I(1), I(64)),
      X(Shr, Index, ShiftOutOfRange, I(1), I(-1)),

      // ---- WHERE: a select over every value dtype.
      E(Where, Bool, B(false), B(true), B(false), B(true)),
      E(Where, Int8, I(-2), B(false), I(1), I(-2)),
      E(Where, Int16, I(I16MIN), B(true), I(I16MIN), I(0)),
      E(Where, Int32, I(7), B(true), I(7), I(8)),
      E(Where, Int64, I(I64MAX), B(false), I(0), I(I64MAX)),
      E(Where, UInt8, U(255), B(true), U(255), U(0)),
      E(Where, UInt16, U(2), B(false), U(1), U(2)),
      E(Where, UInt32, U(U32MAX), B(true), U(U32MAX), U(1)),
      E(Where, UInt64, U(0), B(false), U(U64MAX), U(0)),
      E(Where, Index, I(-1), B(true), I(-1), I(1)),
      E(Where, Float16, F(-0.0), B(false), F(0.0), F(-0.0)),
      E(Where, Float32, kNaN, B(true), kNaN, F(1.0)),
      E(Where, Float64, F(2.5), B(false), kNaN, F(2.5)),

      // ---- Quantized conversions (SEMANTICS.md "Quantized types", worked by hand there).
      // REQUANTIZE: the seed's two examples, a tie each way, saturation at both ends.
      Q(Requantize, qt(ScalarType::Int8, 0.03, 0), qt(ScalarType::Int8, 0.12, 0), I(5), I(20)),
      Q(Requantize, qt(ScalarType::Int8, 0.03, 0), qt(ScalarType::Int8, 0.12, 0), I(-3), I(-12)),
      Q(Requantize, qt(ScalarType::Int8, 0.04, 7), qt(ScalarType::Int8, 0.08, 3), I(5), I(11)),
      Q(Requantize, qt(ScalarType::Int8, 0.04, 7), qt(ScalarType::Int8, 0.08, 3), I(3),
        I(7)),  // real 0 -> z_out
      Q(Requantize, qt(ScalarType::Int8, 0.25, 0), qt(ScalarType::UInt8, 1.0, 0), I(1),
        I(2)),  // 0.5 -> 1
      Q(Requantize, qt(ScalarType::Int8, 0.25, 0), qt(ScalarType::Int8, 1.0, 0), I(-1),
        I(-2)),  // -0.5 -> -1
      Q(Requantize, qt(ScalarType::Int8, 0.25, 0), qt(ScalarType::Int8, 1.0, 0), I(0),
        I(1)),  // one rounding: 0.25 -> 0
      Q(Requantize, qt(ScalarType::Int8, 1.0, 0), qt(ScalarType::Int8, 0.5, 0), I(127), I(100)),
      Q(Requantize, qt(ScalarType::Int8, 1.0, 0), qt(ScalarType::Int16, 0.5, 0), I(200), I(100)),
      Q(Requantize, qt(ScalarType::Int16, 1.0, 0), qt(ScalarType::Int8, 0.5, 0), I(-128), I(-100)),
      Q(Requantize, qt(ScalarType::Int32, 2.0, 0), qt(ScalarType::UInt8, 1.0, 10), U(0), I(-6)),
      Q(Requantize, qt(ScalarType::UInt8, 0.5, 128), qt(ScalarType::Int32, 0.5, 0), I(-128), U(0)),
      // QUANTIZE: NaN -> z; ties away from zero; saturation; from every float type.
      Q(Quantize, dtypes::Float64, qt(ScalarType::Int8, 0.5, 3), I(6), F(1.25)),
      Q(Quantize, dtypes::Float32, qt(ScalarType::Int8, 0.5, 3), I(0), F(-1.25)),
      Q(Quantize, dtypes::Float16, qt(ScalarType::Int8, 0.5, 3), I(3), kNaN),
      Q(Quantize, dtypes::Float64, qt(ScalarType::UInt8, 0.5, 3), U(255), F(kInf)),
      Q(Quantize, dtypes::Float32, qt(ScalarType::Int16, 0.5, 0), I(-32768), F(-kInf)),
      Q(Quantize, dtypes::Float64, qt(ScalarType::Int32, 0.25, 0), I(-10), F(-2.5)),
      // DEQUANTIZE: s * (q - z) in double, rounded to the result type; q = z is +0.0.
      Q(Dequantize, qt(ScalarType::Int8, 0.5, 3), dtypes::Float32, F(4.0), I(11)),
      Q(Dequantize, qt(ScalarType::Int8, 0.5, 3), dtypes::Float16, F(0.0), I(3)),
      Q(Dequantize, qt(ScalarType::UInt8, 0.25, 128), dtypes::Float64, F(-32.0), U(0)),
      Q(Dequantize, qt(ScalarType::Int16, 0.125, 0), dtypes::Float64, F(-4096.0), I(-32768)),
      Q(Dequantize, qt(ScalarType::Int32, 1.0, 0), dtypes::Float16, F(kInf),
        I(I32MAX)),  // overflows half
      // BITCAST between a quantized type and its storage integer: the stored bits.
      Q(Bitcast, qt(ScalarType::Int8, 0.5, 3), dtypes::UInt8, U(255), I(-1)),
      Q(Bitcast, dtypes::Int32, qt(ScalarType::Int32, 0.5, 0), I(-7), I(-7)),
      Q(Bitcast, qt(ScalarType::UInt8, 1.0, 0), dtypes::Int8, I(-128), U(128)),
      Q(Bitcast, qt(ScalarType::Int16, 1.0, 0), dtypes::Int16, I(-2), I(-2)),
  };
  return rows;
}
// clang-format on

#undef E
#undef X
#undef C
#undef CX

std::string describe_row(const Row& r) {
  std::string args;
  for (size_t i = 0; i < r.args.size(); ++i) {
    DType dt = (r.op == Op::Where && i == 0) ? dtypes::Bool : r.in;
    args += (i ? ", " : "") + format_value(dt, r.args[i]);
  }
  return fmt::format("line {}: {}({}) {} -> {}", r.line, op_name(r.op), args, r.in.name(),
                     r.out.name());
}

std::string show(DType dt, Value v) {
  return fmt::format("{} (bits {:#018x})", format_value(dt, v), v.u);
}

TEST(EvalAlu, Table) {
  for (const Row& r : table()) {
    Value args[3] = {};
    for (size_t i = 0; i < r.args.size(); ++i) args[i] = r.args[i];
    Value got = Value::of_uint(0xdeadbeefdeadbeefull);
    EvalError err = eval_alu(r.op, r.in, r.out, args, got);
    if (r.err != EvalError::None) {
      EXPECT_EQ(err, r.err) << describe_row(r) << ": expected " << eval_error_name(r.err)
                            << ", got " << eval_error_name(err);
      continue;
    }
    ASSERT_EQ(err, EvalError::None) << describe_row(r) << ": unexpected " << eval_error_name(err);
    EXPECT_TRUE(same_bits(got, r.want))
        << describe_row(r) << ": expected " << show(r.out, r.want) << ", got " << show(r.out, got);
  }
}

// Every row is a well-typed node (so the table never tests a combination the IR rejects).
std::vector<VerifyError> dtype_errors(Context& ctx, Op op, DType in, DType out) {
  std::vector<UOp> src;
  const int n = op_min_src(op);
  for (int i = 0; i < n; ++i) {
    DType dt = (op == Op::Where && i == 0) ? dtypes::Bool : in;
    // Distinct CONSTs per position (so interning cannot merge them with anything odd).
    src.push_back(dt.is_float() ? ctx.const_float(dt, 0.0) : ctx.const_int(dt, 0));
  }
  UOp u = ctx.make(op, out, src);
  std::vector<VerifyError> errs;
  for (auto& e : verify(u))
    if (e.node == u && e.rule == VerifyRule::DType) errs.push_back(e);
  return errs;
}

TEST(EvalAlu, TableRowsAreWellTyped) {
  Context ctx;
  for (const Row& r : table()) {
    auto errs = dtype_errors(ctx, r.op, r.in, r.out);
    EXPECT_TRUE(errs.empty()) << describe_row(r) << ": the verifier rejects it: "
                              << (errs.empty() ? "" : errs[0].message);
    EXPECT_EQ(static_cast<int>(r.args.size()), op_min_src(r.op)) << describe_row(r);
  }
}

// Every ALU op of the registry, and every operand dtype it accepts, has a row: adding an
// op (or widening one's dtypes) without a test fails here.
TEST(EvalAlu, TableCoversEveryAluOpAndDtype) {
  std::vector<Op> alu_ops;
#define OP(e, name, min_src, max_src, groups) \
  if (((groups)&Alu) != 0) alu_ops.push_back(Op::e);
#include "ir/ops.def"
#undef OP
  ASSERT_GE(alu_ops.size(), 27u);  // the 27 of today; the registry may only grow

  std::set<std::pair<Op, ScalarType>> have_in;
  std::set<std::pair<Op, ScalarType>> have_out;
  std::set<std::tuple<Op, ScalarType, ScalarType>> have_pair;
  for (const Row& r : table()) {
    have_in.insert({r.op, r.in.scalar()});
    have_out.insert({r.op, r.out.scalar()});
    have_pair.insert({r.op, r.in.scalar(), r.out.scalar()});
  }

  // The plain dtypes and one quantized type per storage integer (a quantized type is
  // covered by rows on any quantized type of its storage).
  std::vector<DType> types = all_dtypes();
  for (ScalarType s : {ScalarType::Int8, ScalarType::UInt8, ScalarType::Int16, ScalarType::Int32})
    types.push_back(DType::quantized(s, 0.5, 0));
  Context ctx;
  for (Op op : alu_ops) {
    int accepted = 0;
    for (DType in : types) {
      if (in.is_void()) continue;
      const bool conversion = op == Op::Cast || op == Op::Bitcast || op == Op::Quantize ||
                              op == Op::Dequantize || op == Op::Requantize;
      for (DType out : types) {
        if (out.is_void()) continue;
        if (!conversion && out != natural_out(op, in)) continue;
        if (!dtype_errors(ctx, op, in, out).empty()) continue;
        ++accepted;
        EXPECT_TRUE(have_in.count({op, in.scalar()}))
            << op_name(op) << " accepts " << in.name() << " but the table has no row for it";
        if (conversion) {
          EXPECT_TRUE(have_out.count({op, out.scalar()}))
              << op_name(op) << " yields " << out.name() << " but the table has no row for it";
        }
        if (op == Op::Bitcast) {
          EXPECT_TRUE(have_pair.count({op, in.scalar(), out.scalar()}))
              << "BITCAST " << in.name() << " -> " << out.name() << " has no row";
        }
      }
    }
    EXPECT_GT(accepted, 0) << op_name(op) << " accepts no dtype at all?";
  }
}

// CAST between every pair of dtypes on the values every dtype has: 0 -> 0 and 1 -> 1
// (false/true, 0.0/1.0), and -1 into each type's own rule.
TEST(EvalAlu, CastAllPairsSmallValues) {
  auto zero = [](DType dt) { return dt.is_float() ? F(0.0) : I(0); };
  auto one = [](DType dt) { return dt.is_float() ? F(1.0) : I(1); };
  int pairs = 0;
  for (DType in : all_dtypes()) {
    if (in.is_void()) continue;
    for (DType out : all_dtypes()) {
      if (out.is_void()) continue;
      ++pairs;
      Value r;
      Value a = zero(in);
      ASSERT_EQ(eval_alu(Op::Cast, in, out, &a, r), EvalError::None)
          << in.name() << "->" << out.name();
      EXPECT_TRUE(same_bits(r, zero(out))) << "0: " << in.name() << "->" << out.name();
      a = one(in);
      ASSERT_EQ(eval_alu(Op::Cast, in, out, &a, r), EvalError::None)
          << in.name() << "->" << out.name();
      EXPECT_TRUE(same_bits(r, one(out))) << "1: " << in.name() << "->" << out.name();
      // -1 from a signed or float source: every target's own reading of -1.
      if (in.is_bool() || in.kind() == DTypeKind::Unsigned) continue;
      a = in.is_float() ? F(-1.0) : I(-1);
      EvalError e = eval_alu(Op::Cast, in, out, &a, r);
      if (out.kind() == DTypeKind::Unsigned && in.is_float()) {
        EXPECT_EQ(e, EvalError::CastOutOfRange) << "-1.0: " << in.name() << "->" << out.name();
        continue;
      }
      ASSERT_EQ(e, EvalError::None) << "-1: " << in.name() << "->" << out.name();
      Value want = out.is_bool()    ? B(true)
                   : out.is_float() ? F(-1.0)
                   : out.kind() == DTypeKind::Unsigned
                       ? U(out.bits() == 64 ? U64MAX : (uint64_t{1} << out.bits()) - 1)
                       : I(-1);
      EXPECT_TRUE(same_bits(r, want))
          << "-1: " << in.name() << "->" << out.name() << " got " << show(out, r);
    }
  }
  EXPECT_EQ(pairs, 13 * 13);
}

}  // namespace
}  // namespace uopfuzz::ir
