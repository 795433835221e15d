// Tests for the vulkan backend's QUANTIZE, DEQUANTIZE, REQUANTIZE and quantized memory,
// bit-exact with the definition (ir/quant.h through ir::eval_alu) and the oracle. Each
// conversion runs as a kernel over many stored values at once: every int8/uint8 (and
// int16) value, a spread of int32 values with both extremes, exact ties, NaN and +-inf.
// A machine without a Vulkan device skips these tests.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "backends/vulkan/vulkan_backend.h"
#include "ir/parser.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/uop.h"
#include "ir/value.h"
#include "oracle/interpreter.h"

namespace uopfuzz {
namespace {

using namespace ir;

DType q(ScalarType storage, double scale, int64_t zero_point) {
  return DType::quantized(storage, scale, zero_point);
}

class VulkanQuant : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = backends::find_backend("vulkan");
    ASSERT_NE(backend_, nullptr);
    auto device = backend_->device();
    if (!device.ok()) GTEST_SKIP() << "no Vulkan device opens: " << device.error().message;
  }
  // The validation layer is on in this binary (tests/backends_vulkan_test.cpp): the
  // quantized shaders must not draw a message either.
  void TearDown() override {
    if (!IsSkipped()) EXPECT_EQ(backends::vulkan::validation_messages(), 0u);
  }

  // out[i] = op(in[i]) for every value given, on the device; the compile error if refused.
  Result<std::vector<Value>> run_unary(Op op, DType in, DType out, const std::vector<Value>& xs) {
    Context ctx;
    const int64_t n = static_cast<int64_t>(xs.size());
    UOp src = ctx.make(Op::Param, in, {}, ParamArg{0, n, false});
    UOp dst = ctx.make(Op::Param, out, {}, ParamArg{1, n, true});
    UOp r = ctx.make(Op::Range, dtypes::Index, {ctx.const_int(dtypes::Index, n)}, RangeArg{{0}});
    UOp ld = ctx.make(Op::Load, in, {ctx.make(Op::Index, in, {src, r})});
    UOp st = ctx.make(Op::Store, dtypes::Void,
                      {ctx.make(Op::Index, out, {dst, r}), ctx.make(op, out, {ld})});
    UOp root = ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, r})});
    auto kernel = backend_->compile(root);
    if (!kernel.ok()) return kernel.error();
    ir::Inputs inputs;
    inputs.buffers[0] = Buffer(in, xs.size());
    for (size_t i = 0; i < xs.size(); ++i) inputs.buffers[0].set(i, xs[i]);
    auto ran = kernel.value()->run(inputs);
    if (!ran.ok()) return ran.error();
    std::vector<Value> ys;
    for (size_t i = 0; i < xs.size(); ++i) ys.push_back(ran->outputs.at(1).get(i));
    return ys;
  }

  // Runs op over xs on the device and compares every result bit for bit with eval_alu.
  void expect_matches_definition(Op op, DType in, DType out, const std::vector<Value>& xs) {
    SCOPED_TRACE(fmt::format("{} {} -> {}", op_name(op), in.name(), out.name()));
    auto ys = run_unary(op, in, out, xs);
    ASSERT_TRUE(ys.ok()) << ys.error().message;
    int mismatches = 0;
    for (size_t i = 0; i < xs.size() && mismatches < 5; ++i) {
      Value want;
      ASSERT_EQ(eval_alu(op, in, out, &xs[i], want), EvalError::None);
      const Value got = (*ys)[i];
      if (out.is_float() ? std::memcmp(&got.f, &want.f, sizeof(double)) != 0 : got.i != want.i) {
        ++mismatches;
        ADD_FAILURE() << "input "
                      << (in.is_float() ? fmt::format("{}", xs[i].f) : fmt::format("{}", xs[i].i))
                      << ": vulkan "
                      << (out.is_float() ? fmt::format("{}", got.f) : fmt::format("{}", got.i))
                      << ", definition "
                      << (out.is_float() ? fmt::format("{}", want.f) : fmt::format("{}", want.i));
      }
    }
  }

  backends::Backend* backend_ = nullptr;
};

// Every stored value of an 8- or 16-bit storage type; a spread of int32 values with both
// extremes, the values next to them and zero.
std::vector<Value> stored_values(DType dt) {
  std::vector<Value> v;
  const DType s = dt.storage();
  if (s.bits() <= 16) {
    for (int64_t x = s.int_min(); x <= s.int_max(); ++x) v.push_back(Value::of_int(x));
    return v;
  }
  for (int64_t x : {s.int_min(), s.int_min() + 1, s.int_min() + 2, int64_t{-1}, int64_t{0},
                    int64_t{1}, int64_t{2}, s.int_max() - 1, s.int_max()})
    v.push_back(Value::of_int(x));
  uint64_t state = 12345;  // a fixed LCG: the same spread on every run
  for (int i = 0; i < 4000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    // Mostly small magnitudes (where ties of the scale ratio land), some full-range.
    const int shift = static_cast<int>((state >> 59) % 32);
    v.push_back(Value::of_int(static_cast<int32_t>(static_cast<uint32_t>(state >> 20) >> shift)));
  }
  return v;
}

TEST_F(VulkanQuant, RequantizeEveryValueMatchesTheDefinition) {
  const std::vector<std::pair<DType, DType>> pairs = {
      {q(ScalarType::Int8, 0.03, 0), q(ScalarType::Int8, 0.12, 0)},       // the seed: 1/4, ties
      {q(ScalarType::Int8, 0.04, 7), q(ScalarType::Int8, 0.08, 3)},       // the seed: zero points
      {q(ScalarType::Int8, 0.5, -3), q(ScalarType::Int8, 0.125, 10)},     // 4: saturates both ends
      {q(ScalarType::UInt8, 0.08, 3), q(ScalarType::Int8, 0.03, -5)},     // above 1, not a power
      {q(ScalarType::UInt8, 0.1, 128), q(ScalarType::UInt8, 0.7, 0)},     // 1/7
      {q(ScalarType::Int8, 0.03, 0), q(ScalarType::UInt8, 0.03, 128)},    // 1: a shift of 30
      {q(ScalarType::Int8, 1.0, 0), q(ScalarType::Int8, 8.0, 0)},         // 1/8: ties of 4
      {q(ScalarType::Int8, 0.2, 5), q(ScalarType::Int16, 0.002, -300)},   // 100, into int16
      {q(ScalarType::Int16, 0.001, -300), q(ScalarType::Int8, 0.5, -2)},  // 1/500
      {q(ScalarType::Int16, 0.25, 100), q(ScalarType::Int16, 0.0625, -7)},  // 4, saturates
      {q(ScalarType::Int16, 3.0, 0), q(ScalarType::UInt8, 1024.0, 1)},      // 3/1024
      {q(ScalarType::Int32, 0.01, 0), q(ScalarType::Int8, 0.04, 1)},        // int32 extremes
      {q(ScalarType::Int32, 1e-6, 0), q(ScalarType::Int32, 3e-6, 5)},       // int32 -> int32
      {q(ScalarType::Int32, 1.0, 0), q(ScalarType::Int32, 0x1p-30, -9)},    // 2^30, saturates
      {q(ScalarType::Int32, 1.0, 0), q(ScalarType::Int16, 0x1p32, 0)},      // 2^-32: shift 62
  };
  for (const auto& [in, out] : pairs)
    expect_matches_definition(Op::Requantize, in, out, stored_values(in));
}

TEST_F(VulkanQuant, RequantizeTheSeedExamples) {
  // SEMANTICS.md, "REQUANTIZE", worked through by hand.
  auto ys = run_unary(Op::Requantize, q(ScalarType::Int8, 0.03, 0), q(ScalarType::Int8, 0.12, 0),
                      {Value::of_int(4), Value::of_int(8), Value::of_int(20), Value::of_int(-12),
                       Value::of_int(2), Value::of_int(-2), Value::of_int(1), Value::of_int(127)});
  ASSERT_TRUE(ys.ok()) << ys.error().message;
  // 2/4 and -2/4 are ties (away from zero), 1/4 rounds to 0, 127/4 = 31.75 -> 32.
  const int64_t want[] = {1, 2, 5, -3, 1, -1, 0, 32};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*ys)[i].i, want[i]) << i;
  ys = run_unary(Op::Requantize, q(ScalarType::Int8, 0.04, 7), q(ScalarType::Int8, 0.08, 3),
                 {Value::of_int(11), Value::of_int(7), Value::of_int(-128), Value::of_int(127)});
  ASSERT_TRUE(ys.ok()) << ys.error().message;
  EXPECT_EQ((*ys)[0].i, 5);    // real 0.16
  EXPECT_EQ((*ys)[1].i, 3);    // z_in is real 0: z_out
  EXPECT_EQ((*ys)[2].i, -65);  // (-135) / 2 = -67.5 -> -68, + 3
  EXPECT_EQ((*ys)[3].i, 63);   // 120 / 2 + 3
  // Saturation at both ends: 4x from qint8<0.5,-3> to qint8<0.125,10>.
  ys = run_unary(Op::Requantize, q(ScalarType::Int8, 0.5, -3), q(ScalarType::Int8, 0.125, 10),
                 {Value::of_int(-128), Value::of_int(127), Value::of_int(-3), Value::of_int(-37)});
  ASSERT_TRUE(ys.ok()) << ys.error().message;
  EXPECT_EQ((*ys)[0].i, -128);
  EXPECT_EQ((*ys)[1].i, 127);
  EXPECT_EQ((*ys)[2].i, 10);
  EXPECT_EQ((*ys)[3].i, -126);  // -34 * 4 + 10
}

TEST_F(VulkanQuant, RequantizeOutsideTheDefinitionIsRefused) {
  // qint32 with z != 0: q - z can leave int32. A ratio of 2^-40 has no Q31 form.
  for (const auto& [in, out] : std::vector<std::pair<DType, DType>>{
           {q(ScalarType::Int32, 0.1, 5), q(ScalarType::Int8, 0.1, 0)},
           {q(ScalarType::Int8, 1.0, 0), q(ScalarType::Int8, 0x1p40, 0)}}) {
    auto ys = run_unary(Op::Requantize, in, out, {Value::of_int(1)});
    ASSERT_FALSE(ys.ok()) << in.name() << " -> " << out.name();
    EXPECT_NE(ys.error().message.find("unsupported"), std::string::npos) << ys.error().message;
  }
}

// Floats of `dt` around multiples of half a step of `to`: exact ties (for scales that are
// powers of two), values on both sides of them, zeros, NaN, infinities and huge values.
std::vector<Value> float_inputs(DType dt, DType to) {
  const double s = quant_params(to).scale;
  std::vector<Value> v;
  for (int k = -700; k <= 700; ++k)
    for (double nudge : {0.0, 1e-7, -1e-7}) v.push_back(round_float(dt, (k * 0.5 + nudge) * s));
  for (double x :
       {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(),
        -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), 1e300, -1e300, 65504.0, -65504.0, 1e-300,
        std::numeric_limits<double>::denorm_min()})
    v.push_back(round_float(dt, x));
  return v;
}

TEST_F(VulkanQuant, QuantizeMatchesTheDefinition) {
  const std::vector<DType> targets = {
      q(ScalarType::Int8, 0.5, 3),      q(ScalarType::UInt8, 0.25, 128),
      q(ScalarType::Int8, 0.03, -7),    q(ScalarType::UInt8, 0.08, 3),
      q(ScalarType::Int16, 0.001, 40),  q(ScalarType::Int32, 0.0625, -2),
      q(ScalarType::Int32, 1e-7, 1000),
  };
  for (DType from : {dtypes::Float16, dtypes::Float32, dtypes::Float64})
    for (DType to : targets)
      expect_matches_definition(Op::Quantize, from, to, float_inputs(from, to));
}

TEST_F(VulkanQuant, QuantizeTiesNanInfinityAndSaturation) {
  // Hand-worked from SEMANTICS.md, "QUANTIZE": qint8<0.5,3>, so x / s is exact.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<double, int64_t>> cases = {
      {0.25, 4},   {-0.25, 2},    {0.75, 5},     {-0.75, 1}, {1.25, 6},    {-1.25, 0},
      {0.0, 3},    {-0.0, 3},     {nan, 3},      {inf, 127}, {-inf, -128}, {62.0, 127},
      {63.0, 127}, {-65.5, -128}, {-65.0, -127}, {0.2, 3},   {-0.2, 3},
  };
  for (DType from : {dtypes::Float16, dtypes::Float32, dtypes::Float64}) {
    std::vector<Value> xs;
    for (const auto& c : cases) xs.push_back(round_float(from, c.first));
    auto ys = run_unary(Op::Quantize, from, q(ScalarType::Int8, 0.5, 3), xs);
    ASSERT_TRUE(ys.ok()) << ys.error().message;
    for (size_t i = 0; i < cases.size(); ++i)
      EXPECT_EQ((*ys)[i].i, cases[i].second) << from.name() << " " << cases[i].first;
  }
}

TEST_F(VulkanQuant, DequantizeMatchesTheDefinition) {
  const std::vector<DType> sources = {
      q(ScalarType::Int8, 0.03, -5), q(ScalarType::UInt8, 0.08, 3), q(ScalarType::Int8, 1e-30, 0),
      q(ScalarType::Int16, 3.0, 17), q(ScalarType::Int16, 0.1, 0),  q(ScalarType::Int32, 0.01, 0),
      q(ScalarType::Int32, 1e30, 0),
  };
  for (DType from : sources)
    for (DType to : {dtypes::Float16, dtypes::Float32, dtypes::Float64})
      expect_matches_definition(Op::Dequantize, from, to, stored_values(from));
}

TEST_F(VulkanQuant, DequantizeZeroPointIsPositiveZero) {
  for (DType to : {dtypes::Float16, dtypes::Float32, dtypes::Float64}) {
    auto ys = run_unary(Op::Dequantize, q(ScalarType::UInt8, 0.08, 3), to,
                        {Value::of_int(3), Value::of_int(5), Value::of_int(0)});
    ASSERT_TRUE(ys.ok()) << ys.error().message;
    EXPECT_EQ((*ys)[0].f, 0.0) << to.name();
    EXPECT_FALSE(std::signbit((*ys)[0].f)) << to.name();
    EXPECT_EQ((*ys)[1].f, round_float(to, 0.08 * 2).f) << to.name();
    EXPECT_EQ((*ys)[2].f, round_float(to, 0.08 * -3).f) << to.name();
  }
}

// The kernel form of a quantized REDUCE_AXIS ADD (SEMANTICS.md, "REDUCE_AXIS"): the
// centered stored integers summed in int32, the sum reinterpreted as qint32<s_in,0> and
// requantized; also a gated load of a quantized buffer, WHERE of quantized values and a
// BITCAST to and from the storage integer.
const char* kQuantReduce =
    "%0 = PARAM slot=0 size=6 in : qint8<0.03,-3>\n"
    "%1 = PARAM slot=1 size=2 out : quint8<0.12,100>\n"
    "%2 = CONST 2 : index\n"
    "%3 = RANGE %2 axis=0 LOOP : index\n"
    "%4 = CONST 3 : index\n"
    "%5 = RANGE %4 axis=1 REDUCE : index\n"
    "%6 = MUL %3 %4 : index\n"
    "%7 = ADD %6 %5 : index\n"
    "%8 = INDEX %0 %7 : qint8<0.03,-3>\n"
    "%9 = LOAD %8 : qint8<0.03,-3>\n"
    "%10 = BITCAST %9 : int8\n"
    "%11 = CAST %10 : int32\n"
    "%12 = CONST -3 : int32\n"
    "%13 = SUB %11 %12 : int32\n"
    "%14 = REDUCE %13 %5 op=ADD : int32\n"
    "%15 = BITCAST %14 : qint32<0.03,0>\n"
    "%16 = REQUANTIZE %15 : quint8<0.12,100>\n"
    "%17 = INDEX %1 %3 : quint8<0.12,100>\n"
    "%18 = STORE %17 %16 : void\n"
    "%19 = END %18 %3 : void\n"
    "%20 = SINK %19 : void\n";

TEST_F(VulkanQuant, TheQuantizedReduceKernelFormRuns) {
  Context ctx;
  auto k = parse_kernel(ctx, kQuantReduce);
  ASSERT_TRUE(k.ok()) << k.error().message;
  auto kernel = backend_->compile(k->kernel.root);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  ir::Inputs in;
  in.buffers[0] = Buffer(q(ScalarType::Int8, 0.03, -3), 6);
  // Row 0: centered 4 + 8 + 20 = 32 -> 32 / 4 = 8, + 100. Row 1: centered -128+3 = -125
  // three times = -375 -> -93.75 -> -94, + 100 = 6.
  const int64_t stored[] = {1, 5, 17, -128, -128, -128};
  for (size_t i = 0; i < 6; ++i) in.buffers[0].set(i, Value::of_int(stored[i]));
  auto got = kernel.value()->run(in);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->outputs.at(1).get(0).i, 108);
  EXPECT_EQ(got->outputs.at(1).get(1).i, 6);
  // And with the oracle's own inputs, equal to the oracle.
  for (uint64_t seed : {1u, 2u, 3u}) {
    auto inputs = oracle::make_inputs(k->kernel.root, seed, {});
    auto ref = oracle::run(k->kernel.root, inputs);
    ASSERT_TRUE(ref.ok() && ref->status == oracle::RunStatus::Ok);
    auto dev = kernel.value()->run(inputs);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    for (size_t i = 0; i < 2; ++i)
      EXPECT_EQ(dev->outputs.at(1).get(i).i, ref->outputs.at(1).get(i).i) << seed << " " << i;
  }
}

const char* kQuantMemory =
    "%0 = PARAM slot=0 size=4 in : quint8<0.08,3>\n"
    "%1 = PARAM slot=1 size=6 out : quint8<0.08,3>\n"
    "%2 = CONST 6 : index\n"
    "%3 = RANGE %2 axis=0 LOOP : index\n"
    "%4 = CONST 4 : index\n"
    "%5 = CMPLT %3 %4 : bool\n"
    "%6 = INVALID : index\n"
    "%7 = WHERE %5 %3 %6 : index\n"
    "%8 = INDEX %0 %7 : quint8<0.08,3>\n"
    "%9 = CONST 200 : uint8\n"
    "%10 = BITCAST %9 : quint8<0.08,3>\n"
    "%11 = LOAD %8 %10 : quint8<0.08,3>\n"
    "%12 = CONST 2 : index\n"
    "%13 = CMPLT %3 %12 : bool\n"
    "%14 = CONST 7 : quint8<0.08,3>\n"
    "%15 = WHERE %13 %14 %11 : quint8<0.08,3>\n"
    "%16 = INDEX %1 %3 : quint8<0.08,3>\n"
    "%17 = STORE %16 %15 : void\n"
    "%18 = END %17 %3 : void\n"
    "%19 = SINK %18 : void\n";

TEST_F(VulkanQuant, QuantizedMemoryWhereAndBitcast) {
  Context ctx;
  auto k = parse_kernel(ctx, kQuantMemory);
  ASSERT_TRUE(k.ok()) << k.error().message;
  auto kernel = backend_->compile(k->kernel.root);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  ir::Inputs in;
  in.buffers[0] = Buffer(q(ScalarType::UInt8, 0.08, 3), 4);
  const int64_t stored[] = {250, 0, 255, 128};
  for (size_t i = 0; i < 4; ++i) in.buffers[0].set(i, Value::of_int(stored[i]));
  auto got = kernel.value()->run(in);
  ASSERT_TRUE(got.ok()) << got.error().message;
  // i < 2: the constant 7; 2..3: the loaded values; 4..5: the gated load's 200.
  const int64_t want[] = {7, 7, 255, 128, 200, 200};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(got->outputs.at(1).get(i).i, want[i]) << i;
}

}  // namespace
}  // namespace uopfuzz
