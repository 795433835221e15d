// Quantized types: the dtype table, the text spelling, the verifier's rules and the one
// definition of QUANTIZE / DEQUANTIZE / REQUANTIZE (ir/quant.h), on the seed's numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"

namespace uopfuzz::ir {
namespace {

DType q(ScalarType storage, double scale, int64_t zero_point) {
  return DType::quantized(storage, scale, zero_point);
}

int64_t requant(DType from, DType to, int64_t x) {
  Value in = Value::of_int(x), out;
  EXPECT_EQ(eval_alu(Op::Requantize, from, to, &in, out), EvalError::None)
      << from.name() << " -> " << to.name();
  return out.i;
}

TEST(QuantTypes, EqualOnlyWhenStorageScaleAndZeroPointAreEqual) {
  const DType a = q(ScalarType::Int8, 0.03, 0);
  EXPECT_EQ(a, q(ScalarType::Int8, 0.03, 0));
  EXPECT_NE(a, q(ScalarType::Int8, 0.03, 1));
  EXPECT_NE(a, q(ScalarType::Int8, 0.030000000000000002, 0));
  EXPECT_NE(a, q(ScalarType::UInt8, 0.03, 0));
  EXPECT_NE(a, DType(dtypes::Int8));
  EXPECT_TRUE(a.is_quantized());
  EXPECT_FALSE(a.is_int());
  EXPECT_EQ(a.kind(), DTypeKind::Quantized);
  EXPECT_EQ(a.storage(), dtypes::Int8);
  EXPECT_EQ(a.bytes(), 1);
  EXPECT_EQ(a.int_min(), -128);
  EXPECT_EQ(q(ScalarType::UInt8, 0.5, 3).int_max(), 255);
}

TEST(QuantTypes, NamesReadBack) {
  for (DType dt : {q(ScalarType::Int8, 0.03, 0), q(ScalarType::UInt8, 0.08, 3),
                   q(ScalarType::Int16, 1e-05, -7), q(ScalarType::Int32, 2.5, 0)}) {
    auto back = DType::parse(dt.name());
    ASSERT_TRUE(back) << dt.name();
    EXPECT_EQ(*back, dt) << dt.name();
  }
  EXPECT_EQ(q(ScalarType::Int8, 0.03, 0).name(), "qint8<0.03,0>");
  EXPECT_EQ(q(ScalarType::UInt8, 0.08, 3).name(), "quint8<0.08,3>");
  EXPECT_EQ(*DType::parse("qint8<3e-2,0>"), q(ScalarType::Int8, 0.03, 0));
  for (const char* bad : {"qint8<0.03>", "qint8<0.03,x>", "qfoo<1,0>", "qint8<,0>", "qint8"})
    EXPECT_FALSE(DType::parse(bad)) << bad;
}

TEST(QuantTypes, InvalidParametersAreNamed) {
  EXPECT_FALSE(quant_type_error(q(ScalarType::Int8, 0.03, -128)));
  EXPECT_FALSE(quant_type_error(q(ScalarType::UInt8, 0.03, 255)));
  for (DType bad :
       {q(ScalarType::Int8, 0, 0), q(ScalarType::Int8, -1, 0), q(ScalarType::Int8, NAN, 0),
        q(ScalarType::Int8, INFINITY, 0), q(ScalarType::Int8, 1, 128), q(ScalarType::UInt8, 1, -1),
        q(ScalarType::Int64, 1, 0), q(ScalarType::Float32, 1, 0)}) {
    auto why = quant_type_error(bad);
    ASSERT_TRUE(why) << bad.name();
    EXPECT_NE(why->find(std::string(bad.name())), std::string::npos) << *why;
  }
}

TEST(QuantSemantics, SeedScaleChange) {
  // s 0.03 -> 0.12: [4, 8, 20, -12] -> [1, 2, 5, -3].
  const DType in = q(ScalarType::Int8, 0.03, 0), out = q(ScalarType::Int8, 0.12, 0);
  const int64_t xs[] = {4, 8, 20, -12}, want[] = {1, 2, 5, -3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(requant(in, out, xs[i]), want[i]) << xs[i];
}

TEST(QuantSemantics, SeedZeroPoints) {
  // s_in 0.04 z_in 7 -> s_out 0.08 z_out 3: 11 (real 0.16) -> 5; z_in -> z_out (real 0).
  const DType in = q(ScalarType::Int8, 0.04, 7), out = q(ScalarType::Int8, 0.08, 3);
  EXPECT_EQ(requant(in, out, 11), 5);
  EXPECT_EQ(requant(in, out, 7), 3);
}

TEST(QuantSemantics, OneRoundingTiesAwayFromZero) {
  const DType in = q(ScalarType::Int8, 0.25, 0), out = q(ScalarType::Int8, 1.0, 0);
  EXPECT_EQ(requant(in, out, 1), 0);  // 0.25 (gemmlowp's double rounding gives 1)
  EXPECT_EQ(requant(in, out, 2), 1);  // 0.5
  EXPECT_EQ(requant(in, out, -2), -1);
  EXPECT_EQ(requant(in, out, 3), 1);  // 0.75
  EXPECT_EQ(requant(in, out, 6), 2);  // 1.5
  EXPECT_EQ(requant(in, out, -6), -2);
  EXPECT_EQ(requant(in, out, 10), 3);  // 2.5: away from zero, not to even
}

TEST(QuantSemantics, SaturatesAtBothEnds) {
  const DType in = q(ScalarType::Int8, 1.0, 0), out = q(ScalarType::Int8, 0.5, 0);
  EXPECT_EQ(requant(in, out, 100), 127);
  EXPECT_EQ(requant(in, out, -100), -128);
  const DType u = q(ScalarType::UInt8, 0.5, 10);
  EXPECT_EQ(requant(in, u, -100), 0);
  EXPECT_EQ(requant(in, u, 127), 255);
}

TEST(QuantSemantics, EqualTypesAreTheIdentity) {
  for (DType dt : {q(ScalarType::Int8, 0.03, -5), q(ScalarType::UInt8, 0.7, 200),
                   q(ScalarType::Int16, 3e-3, 1000)})
    for (int64_t v = dt.int_min(); v <= dt.int_max(); v += (dt.bytes() == 1 ? 1 : 97))
      ASSERT_EQ(requant(dt, dt, v), v) << dt.name();
}

TEST(QuantSemantics, UnsupportedPairsSayWhy) {
  // qint32 with a zero point: q - z overflows int32.
  auto why = requantize_unsupported(q(ScalarType::Int32, 1, 5), q(ScalarType::Int8, 1, 0));
  ASSERT_TRUE(why);
  EXPECT_EQ(why->rfind("unsupported: ", 0), 0u) << *why;
  EXPECT_FALSE(requantize_unsupported(q(ScalarType::Int32, 1, 0), q(ScalarType::Int8, 1, 0)));
  // A ratio of 2^40 shifts past int32; one below 2^-31 shifts right more than 31.
  EXPECT_TRUE(requantize_unsupported(q(ScalarType::Int8, 0x1p40, 0), q(ScalarType::Int8, 1, 0)));
  EXPECT_TRUE(requantize_unsupported(q(ScalarType::Int8, 1, 0), q(ScalarType::Int8, 0x1p40, 0)));
  // A sum of many int8 terms fits until it does not.
  EXPECT_FALSE(
      requantize_unsupported(q(ScalarType::Int8, 1, 0), q(ScalarType::Int8, 1, 0), 1 << 20));
  EXPECT_TRUE(
      requantize_unsupported(q(ScalarType::Int8, 1, 0), q(ScalarType::Int8, 1, 0), 1 << 25));
}

TEST(QuantSemantics, QuantizeAndDequantize) {
  const DType dt = q(ScalarType::Int8, 0.5, 3);
  auto quant = [&](double x) {
    Value in = Value::of_float(x), out;
    EXPECT_EQ(eval_alu(Op::Quantize, dtypes::Float64, dt, &in, out), EvalError::None);
    return out.i;
  };
  EXPECT_EQ(quant(1.25), 6);  // round(2.5) + 3
  EXPECT_EQ(quant(-1.25), 0);
  EXPECT_EQ(quant(100.0), 127);
  EXPECT_EQ(quant(-INFINITY), -128);
  EXPECT_EQ(quant(NAN), 3);
  EXPECT_EQ(quant(0.0), 3);
  Value stored = Value::of_int(11), real;
  EXPECT_EQ(eval_alu(Op::Dequantize, q(ScalarType::Int8, 0.04, 7), dtypes::Float64, &stored, real),
            EvalError::None);
  EXPECT_EQ(real.f, 0.04 * 4);
  stored = Value::of_int(7);
  EXPECT_EQ(eval_alu(Op::Dequantize, q(ScalarType::Int8, 0.04, 7), dtypes::Float32, &stored, real),
            EvalError::None);
  EXPECT_EQ(real.f, 0.0);
  EXPECT_FALSE(std::signbit(real.f));
}

TEST(QuantText, KernelRoundTripsAndVerifies) {
  const char* text =
      "@input 0 [4, 8, 20, -12]\n"
      "%0 = PARAM slot=0 size=4 in : qint8<0.03,0>\n"
      "%1 = PARAM slot=1 size=4 out : qint8<0.12,0>\n"
      "%2 = CONST 4 : index\n"
      "%3 = RANGE %2 axis=0 LOOP : index\n"
      "%4 = INDEX %0 %3 : qint8<0.03,0>\n"
      "%5 = LOAD %4 : qint8<0.03,0>\n"
      "%6 = REQUANTIZE %5 : qint8<0.12,0>\n"
      "%7 = INDEX %1 %3 : qint8<0.12,0>\n"
      "%8 = STORE %7 %6 : void\n"
      "%9 = END %8 %3 : void\n"
      "%10 = SINK %9 : void\n";
  Context ctx;
  auto parsed = parse_kernel(ctx, text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Kernel& k = parsed.value().kernel;
  EXPECT_TRUE(verify(k.root).empty());
  ASSERT_EQ(k.header.inputs.size(), 1u);
  EXPECT_EQ(k.header.inputs[0].values[3].i, -12);
  Context ctx2;
  auto again = parse_kernel(ctx2, print_kernel(k));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(print_kernel(again.value().kernel), print_kernel(k));
}

TEST(QuantText, VerifierRefusesArithmeticAndBadConversions) {
  Context ctx;
  const DType a = q(ScalarType::Int8, 0.03, 0), b = q(ScalarType::Int8, 0.12, 0);
  UOp x = ctx.make(Op::Param, a, {}, ParamArg{0, 4, false});
  UOp out = ctx.make(Op::Param, b, {}, ParamArg{1, 4, true});
  UOp r = ctx.make(Op::Range, dtypes::Index, {ctx.const_int(dtypes::Index, 4)}, RangeArg{{0}});
  UOp ld = ctx.make(Op::Load, a, {ctx.make(Op::Index, a, {x, r})});
  auto errors_for = [&](UOp value) {
    UOp st = ctx.make(Op::Store, dtypes::Void, {ctx.make(Op::Index, b, {out, r}), value});
    return verify(ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, r})}));
  };
  EXPECT_TRUE(errors_for(ctx.make(Op::Requantize, b, {ld})).empty());
  EXPECT_FALSE(errors_for(ctx.make(Op::Add, b, {ld, ld})).empty());   // no arithmetic
  EXPECT_FALSE(errors_for(ctx.make(Op::Cast, b, {ld})).empty());      // say which conversion
  EXPECT_FALSE(errors_for(ctx.make(Op::Quantize, b, {ld})).empty());  // QUANTIZE takes a float
  // An invalid type is named wherever it appears.
  const DType bad = q(ScalarType::Int8, -0.5, 0);
  UOp bad_out = ctx.make(Op::Param, bad, {}, ParamArg{2, 4, true});
  UOp st = ctx.make(Op::Store, dtypes::Void,
                    {ctx.make(Op::Index, bad, {bad_out, r}), ctx.make(Op::Requantize, bad, {ld})});
  auto errors =
      verify(ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, r})}));
  ASSERT_FALSE(errors.empty());
  bool named = false;
  for (const auto& e : errors)
    named |= e.message.find("scale must be a positive") != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace uopfuzz::ir
