// Tests of the REDUCE identities (ir::reduce_identity) and of float16 storage against
// SEMANTICS.md. Every expected value was derived by hand from the contract, never copied
// from the implementation's output.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ir/dtype.h"
#include "ir/ops.h"
#include "ir/scalar_eval.h"
#include "ir/value.h"
#include "value_shorthands.h"

namespace uopfuzz::ir {
namespace {

using namespace semantics_test;

// ---------------------------------------------------------------------------------
// REDUCE identities.

TEST(EvalReduceIdentity, EveryOpAndDtype) {
  struct Id {
    DType dt;
    Value add, mul, max, min;
  };
  const Id ids[] = {
      {dtypes::Int8, I(0), I(1), I(I8MIN), I(I8MAX)},
      {dtypes::Int16, I(0), I(1), I(I16MIN), I(I16MAX)},
      {dtypes::Int32, I(0), I(1), I(I32MIN), I(I32MAX)},
      {dtypes::Int64, I(0), I(1), I(I64MIN), I(I64MAX)},
      {dtypes::UInt8, U(0), U(1), U(0), U(U8MAX)},
      {dtypes::UInt16, U(0), U(1), U(0), U(U16MAX)},
      {dtypes::UInt32, U(0), U(1), U(0), U(U32MAX)},
      {dtypes::UInt64, U(0), U(1), U(0), U(U64MAX)},
      {dtypes::Index, I(0), I(1), I(I64MIN), I(I64MAX)},
      {dtypes::Float16, F(0.0), F(1.0), F(-kInf), F(kInf)},
      {dtypes::Float32, F(0.0), F(1.0), F(-kInf), F(kInf)},
      {dtypes::Float64, F(0.0), F(1.0), F(-kInf), F(kInf)},
  };
  std::set<ScalarType> covered;
  for (const Id& id : ids) {
    covered.insert(id.dt.scalar());
    EXPECT_TRUE(same_bits(reduce_identity(Op::Add, id.dt), id.add)) << id.dt.name();
    EXPECT_TRUE(same_bits(reduce_identity(Op::Mul, id.dt), id.mul)) << id.dt.name();
    EXPECT_TRUE(same_bits(reduce_identity(Op::Max, id.dt), id.max)) << id.dt.name();
    EXPECT_TRUE(same_bits(reduce_identity(Op::Min, id.dt), id.min)) << id.dt.name();
  }
  // Every dtype a REDUCE may have (all but void and bool) is listed above.
  for (DType dt : all_dtypes()) {
    if (dt.is_void() || dt.is_bool()) continue;
    EXPECT_TRUE(covered.count(dt.scalar())) << dt.name();
  }
}

// The identity really is neutral: identity op x == x for representative values.
TEST(EvalReduceIdentity, IsNeutral) {
  const std::pair<DType, std::vector<Value>> samples[] = {
      {dtypes::Int8, {I(I8MIN), I(-1), I(0), I(I8MAX)}},
      {dtypes::UInt16, {U(0), U(1), U(U16MAX)}},
      {dtypes::Int64, {I(I64MIN), I(I64MAX)}},
      {dtypes::UInt64, {U(0), U(U64MAX)}},
      {dtypes::Index, {I(I64MIN), I(-3), I(I64MAX)}},
      {dtypes::Float16, {F(-65504.0), F(0.5), F(65504.0), F(-kInf)}},
      {dtypes::Float32, {F(-1.5), F(kInf)}},
      {dtypes::Float64, {F(1e300), F(-1e-300)}},
  };
  for (const auto& [dt, values] : samples)
    for (Op op : {Op::Add, Op::Mul, Op::Max, Op::Min})
      for (Value x : values) {
        Value args[2] = {reduce_identity(op, dt), x};
        Value r;
        ASSERT_EQ(eval_alu(op, dt, dt, args, r), EvalError::None);
        EXPECT_TRUE(same_bits(r, x))
            << op_name(op) << " " << dt.name() << " " << format_value(dt, x);
      }
}

// ---------------------------------------------------------------------------------
// float16 storage.

bool is_half_nan(uint16_t b) {
  return ((b >> 10) & 0x1f) == 0x1f && (b & 0x3ff) != 0;
}

TEST(Half, RoundTripAllBitPatterns) {
  int nans = 0;
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const double v = half_value(bits);
    if (is_half_nan(bits)) {
      ++nans;
      EXPECT_TRUE(std::isnan(v)) << std::hex << b;
      EXPECT_TRUE(is_half_nan(half_bits(v))) << std::hex << b;
      continue;
    }
    ASSERT_EQ(half_bits(v), bits) << std::hex << b << " value " << v;
    EXPECT_EQ(round_to_half(v), v) << std::hex << b;  // float16 values are fixed points
  }
  EXPECT_EQ(nans, 2 * 1023);
}

TEST(Half, ValuesOfKnownPatterns) {
  EXPECT_EQ(half_value(0x3c00), 1.0);
  EXPECT_EQ(half_value(0xc000), -2.0);
  EXPECT_EQ(half_value(0x7bff), 65504.0);
  EXPECT_EQ(half_value(0x0400), p2(-14));         // smallest normal
  EXPECT_EQ(half_value(0x03ff), 1023 * p2(-24));  // largest subnormal
  EXPECT_EQ(half_value(0x0001), p2(-24));         // smallest subnormal
  EXPECT_EQ(half_value(0x3555), 0.333251953125);
  EXPECT_EQ(half_value(0x7c00), kInf);
  EXPECT_EQ(half_value(0xfc00), -kInf);
  EXPECT_TRUE(std::signbit(half_value(0x8000)) && half_value(0x8000) == 0.0);
  EXPECT_FALSE(std::signbit(half_value(0x0000)));
  // Positive finite patterns are strictly increasing in value.
  for (uint16_t b = 0; b < 0x7bff; ++b) ASSERT_LT(half_value(b), half_value(b + 1)) << b;
}

TEST(Half, RoundingTiesToEvenOverflowAndSubnormals) {
  struct Case {
    double in, want;
  };
  const Case cases[] = {
      {2049.0, 2048.0},                   // tie, even mantissa below
      {2051.0, 2052.0},                   // tie, even mantissa above
      {2049.5, 2050.0},                   // above the tie
      {1.0 + p2(-11), 1.0},               // tie at 1
      {1.0 + 3 * p2(-11), 1.0 + p2(-9)},  // tie up to even
      {65504.0, 65504.0},
      {65519.99, 65504.0},  // below the overflow midpoint
      {65520.0, kInf},      // the midpoint rounds to inf
      {-65520.0, -kInf},
      {1e10, kInf},
      {p2(-24), p2(-24)},  // smallest subnormal is exact
      {p2(-25), 0.0},      // tie between 0 and 2^-24: 0 is even
      {-p2(-25), -0.0},
      {p2(-25) * 1.0000001, p2(-24)},  // just above the tie
      {1.5 * p2(-24), p2(-23)},        // tie between 1 and 2 units: 2
      {2.5 * p2(-24), 2 * p2(-24)},    // tie between 2 and 3 units: 2
      {p2(-14) - p2(-25), p2(-14)},    // largest subnormal/normal tie: normal
      {1023.5 * p2(-24) - p2(-40), 1023 * p2(-24)},
      {1e-10, 0.0},
      {-1e-10, -0.0},
      {0.1, 0.0999755859375},  // 1638 * 2^-14
      {kInf, kInf},
  };
  for (const Case& c : cases) {
    double got = round_to_half(c.in);
    EXPECT_EQ(got, c.want) << c.in;
    EXPECT_EQ(std::signbit(got), std::signbit(c.want)) << c.in;
    EXPECT_TRUE(same_bits(round_float(dtypes::Float16, c.in), F(c.want))) << c.in;
  }
  EXPECT_TRUE(std::isnan(round_to_half(std::nan(""))));
}

// Every NaN is the one canonical NaN, whatever produced it.
TEST(Half, NanIsCanonical) {
  EXPECT_EQ(Value::of_float(std::nan("")).u, kCanonicalNanBits);
  EXPECT_EQ(round_float(dtypes::Float16, -std::nan("")).u, kCanonicalNanBits);
  EXPECT_EQ(round_float(dtypes::Float32, -std::nan("")).u, kCanonicalNanBits);
  EXPECT_EQ(round_float(dtypes::Float64, -std::nan("")).u, kCanonicalNanBits);
  for (uint16_t bits : {uint16_t{0x7c01}, uint16_t{0x7e00}, uint16_t{0xfe00}, uint16_t{0xffff}}) {
    Buffer b(dtypes::Float16, 1);
    std::memcpy(b.data(), &bits, 2);
    EXPECT_EQ(b.get(0).u, kCanonicalNanBits) << std::hex << bits;
  }
  uint32_t neg_nan32 = 0xffc00000u;
  Buffer b32(dtypes::Float32, 1);
  std::memcpy(b32.data(), &neg_nan32, 4);
  EXPECT_EQ(b32.get(0).u, kCanonicalNanBits);
}

}  // namespace
}  // namespace uopfuzz::ir
