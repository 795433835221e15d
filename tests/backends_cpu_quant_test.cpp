// The CPU backend's quantized code: QUANTIZE, DEQUANTIZE and REQUANTIZE compiled to LLVM
// IR, and quantized values in memory, WHERE, BITCAST and the kernel form of a quantized
// reduce. Every output is compared with the definition (ir/quant.h) directly and with the
// oracle as the differential check compares them; the seed's numbers are checked as
// SEMANTICS.md works them out. Loops of 64 or more iterations are vectorized and shorter
// ones stay scalar, so every conversion runs both ways.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "ir/parser.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "tests/backend_conformance.h"

namespace uopfuzz {
namespace {

using namespace ir;

using test_support::Case;

DType q(ScalarType storage, double scale, int64_t zero_point) {
  return DType::quantized(storage, scale, zero_point);
}

// Every stored value of an 8-bit storage type; for wider ones the extremes, the values
// around zero and the zero point, and a spread between (every `step`-th value).
std::vector<Value> stored_values(DType dt, int64_t step) {
  std::vector<Value> v;
  const int64_t lo = dt.int_min(), hi = dt.int_max();
  if (dt.bits() == 8) step = 1;
  for (int64_t x = lo; x <= hi - step; x += step) v.push_back(Value::of_int(x));
  const int64_t z = quant_params(dt).zero_point;
  for (int64_t x : {lo, lo + 1, hi - 1, hi, int64_t{-2}, int64_t{-1}, int64_t{0}, int64_t{1},
                    int64_t{2}, z - 1, z, z + 1})
    if (x >= lo && x <= hi) v.push_back(Value::of_int(x));
  return v;
}

// The cpu backend's outputs of `c` (slot 0) on `threads` threads.
Buffer run_cpu(Case& c, int threads = 1) {
  auto k = backends::find_backend("cpu")->compile(c.root);
  EXPECT_TRUE(k.ok()) << c.name << ": " << (k.ok() ? "" : k.error().message);
  if (!k.ok()) return {};
  backends::RunOptions ro;
  ro.threads = threads;
  auto got = k.value()->run(c.inputs, ro);
  EXPECT_TRUE(got.ok()) << c.name << ": " << (got.ok() ? "" : got.error().message);
  if (!got.ok()) return {};
  return got->outputs.at(0);
}

// Bits of a float result as a Value holds it (float16 and float32 are exact doubles).
uint64_t float_bits(double d) {
  return std::bit_cast<uint64_t>(d);
}

// Runs `op` (in -> out) over `values` on the cpu backend, in one loop (vectorized when
// long) and in loops of at most 63 iterations (scalar), and requires each result to be
// `expected(value)` bit for bit and to agree with the oracle.
template <class Expected>
void expect_conversion(Op op, DType in, DType out, const std::vector<Value>& values,
                       Expected expected, std::vector<int> threads = {1}) {
  std::vector<std::vector<Value>> chunks{values};
  for (size_t i = 0; i < values.size(); i += 63)
    chunks.emplace_back(
        values.begin() + static_cast<std::ptrdiff_t>(i),
        values.begin() + static_cast<std::ptrdiff_t>(std::min(i + 63, values.size())));
  if (values.size() <= 63) chunks.resize(1);
  for (const auto& chunk : chunks) {
    Case c;
    c.name =
        fmt::format("{} {} -> {} ({} values)", op_name(op), in.name(), out.name(), chunk.size());
    ASSERT_TRUE(test_support::build(c, op, {in}, out, {chunk})) << c.name;
    for (int t : threads) {
      const Buffer got = run_cpu(c, t);
      ASSERT_EQ(got.size(), chunk.size()) << c.name;
      for (size_t i = 0; i < chunk.size(); ++i) {
        const Value want = expected(chunk[i]);
        const Value g = got.get(i);
        if (out.is_float()) {
          ASSERT_EQ(float_bits(g.f), float_bits(want.f))
              << c.name << ": " << format_value(in, chunk[i]) << " gave " << g.f << ", want "
              << want.f;
        } else {
          ASSERT_EQ(g.i, want.i) << c.name << ": " << format_value(in, chunk[i]) << " on " << t
                                 << " threads";
        }
      }
    }
    test_support::Conformance conf{"cpu", threads, {}, {}};
    test_support::expect_agree(c, conf);
  }
}

// REQUANTIZE by the definition, with the requantizer computed here from the scales.
Value requantized(DType from, DType to, Value v) {
  auto r = requantizer(quant_params(from).scale, quant_params(to).scale);
  EXPECT_TRUE(r) << from.name() << " -> " << to.name();
  return Value::of_int(requantize_centered(v.i - quant_params(from).zero_point, *r, to));
}

TEST(CpuQuant, RequantizeEveryEightBitValueAsTheDefinition) {
  const ScalarType I8 = ScalarType::Int8, U8 = ScalarType::UInt8, I16 = ScalarType::Int16,
                   I32 = ScalarType::Int32;
  const std::pair<DType, DType> pairs[] = {
      {q(I8, 0.03, 0), q(I8, 0.12, 0)},       // ratio 1/4: ties at every odd multiple of 2
      {q(I8, 0.04, 7), q(I8, 0.08, 3)},       // both zero points; ties at odd x
      {q(I8, 0.03, 0), q(I8, 0.07, 2)},       // a ratio that is no power of two
      {q(I8, 0.12, 0), q(I8, 0.03, 0)},       // ratio 4: saturates at both ends
      {q(I8, 1.0, 0), q(I8, 0.5, 0)},         // ratio 2 (SEMANTICS: 100 -> 127, -100 -> -128)
      {q(U8, 0.08, 3), q(I8, 0.03, -5)},      // uint8 -> int8, ratio 8/3
      {q(I8, 0.05, -3), q(U8, 0.1, 128)},     // int8 -> uint8, ties at 1/2
      {q(U8, 0.5, 255), q(U8, 0.125, 0)},     // zero point at the top; all but 255 saturate low
      {q(U8, 1.0, 3), q(U8, 8.0, 100)},       // ratio 1/8: ties at 4 mod 8
      {q(I8, 0.1, 0), q(I8, 0.1, 0)},         // the same type: the identity
      {q(I8, 0.3, 5), q(I16, 0.001, -1000)},  // widening, ratio 300
      {q(U8, 0.02, 77), q(I32, 1e-6, 0)},     // to int32, ratio 20000
      {q(I8, 1.0, 0), q(I8, 1e9, 0)},         // a tiny ratio: everything rounds to 0
  };
  for (const auto& [from, to] : pairs)
    expect_conversion(Op::Requantize, from, to, stored_values(from, 1),
                      [from = from, to = to](Value v) { return requantized(from, to, v); });
}

TEST(CpuQuant, RequantizeWideStorageAsTheDefinition) {
  const ScalarType I8 = ScalarType::Int8, U8 = ScalarType::UInt8, I16 = ScalarType::Int16,
                   I32 = ScalarType::Int32;
  // Every int16 value (a loop split across threads), and a spread of int32 values with
  // the extremes: the product x * m0 reaches 2^62 there.
  const std::pair<DType, DType> pairs16[] = {
      {q(I16, 0.001, -7), q(I8, 0.1, 3)},
      {q(I16, 0.3, 100), q(I16, 0.7, -100)},
      {q(I16, 0.25, 0), q(U8, 64.0, 128)},
      {q(I16, 1.0, 0), q(I16, 0.25, 0)},
  };
  for (const auto& [from, to] : pairs16)
    expect_conversion(Op::Requantize, from, to, stored_values(from, 1),
                      [from = from, to = to](Value v) { return requantized(from, to, v); }, {1, 3});
  const std::pair<DType, DType> pairs32[] = {
      {q(I32, 1e-4, 0), q(I8, 0.05, -2)},
      {q(I32, 0.5, 0), q(I32, 0.25, 0)},     // ratio 2: saturates beyond +-2^30
      {q(I32, 1.0, 0), q(I32, 2.0, 0)},      // ratio 1/2: ties at every odd value
      {q(I32, 3.0, 0), q(I32, 7.0, 0)},      // no power of two
      {q(I32, 1.0, 0), q(I32, 0x1p-30, 0)},  // the largest ratio the definition holds (e = 31)
      {q(I32, 0x1p30, 0), q(I16, 1.0, 0)},
  };
  for (const auto& [from, to] : pairs32) {
    std::vector<Value> values = stored_values(from, 40'000'009);
    for (int64_t x : {int64_t{3}, int64_t{-3}, int64_t{5}, int64_t{-5}, int64_t{1} << 30,
                      -(int64_t{1} << 30), (int64_t{1} << 30) + 1, -(int64_t{1} << 30) - 1})
      values.push_back(Value::of_int(x));
    expect_conversion(Op::Requantize, from, to, values,
                      [from = from, to = to](Value v) { return requantized(from, to, v); });
  }
}

TEST(CpuQuant, RequantizeTiesRoundAwayFromZero) {
  // Hand-worked (SEMANTICS.md, "One rounding"): ratio 1/4 gives 1 -> 0, 2 -> 1, -2 -> -1,
  // 3 -> 1, 6 -> 2 (1.5), -6 -> -2; ratio 1/2 with zero points 7 -> 3: 11 -> 5, 10 -> 5
  // (1.5 + 3 rounds to 2 + 3), 4 -> 1 (-1.5 -> -2).
  const DType a = q(ScalarType::Int8, 0.03, 0), b = q(ScalarType::Int8, 0.12, 0);
  const DType c = q(ScalarType::Int8, 0.04, 7), d = q(ScalarType::Int8, 0.08, 3);
  struct Row {
    DType from, to;
    int64_t in, out;
  };
  const Row rows[] = {{a, b, 1, 0},   {a, b, 2, 1},  {a, b, -2, -1}, {a, b, 3, 1}, {a, b, 6, 2},
                      {a, b, -6, -2}, {c, d, 11, 5}, {c, d, 10, 5},  {c, d, 4, 1}, {c, d, 7, 3}};
  for (const Row& r : rows) {
    Case cs;
    cs.name = fmt::format("{} -> {}: {}", r.from.name(), r.to.name(), r.in);
    ASSERT_TRUE(test_support::build(cs, Op::Requantize, {r.from}, r.to, {{Value::of_int(r.in)}}));
    EXPECT_EQ(run_cpu(cs).get(0).i, r.out) << cs.name;
  }
}

// The doubles to quantize: exact ties of both signs for scale 0.5, 0.25 and 1, NaN, the
// infinities, the largest finite values, values just inside and beyond each end of every
// storage range, zeros, subnormals, and ordinary values.
std::vector<double> quantize_inputs() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.25,
                           -1.25,
                           0.75,
                           -0.75,
                           2.5,
                           -2.5,
                           0.5,
                           -0.5,
                           0.125,
                           -0.125,
                           63.5,
                           -64.5,
                           127.5,
                           -128.5,
                           255.5,
                           0.1,
                           -0.1,
                           0.3,
                           1.0 / 3,
                           100.0,
                           -100.0,
                           1e4,
                           -1e4,
                           32767.5,
                           -32768.5,
                           3e9,
                           -3e9,
                           1e12,
                           -1e12,
                           0x1p40,
                           -0x1p40,
                           0x1p41,
                           1e300,
                           -1e300,
                           std::numeric_limits<double>::max(),
                           -std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::denorm_min(),
                           -5e-324,
                           65504.0,
                           -65504.0,
                           std::numeric_limits<float>::max(),
                           0.6,
                           0.7};
  for (int k = -40; k <= 40; ++k) v.push_back(k + 0.5);
  v.push_back(std::numeric_limits<double>::infinity());
  v.push_back(-std::numeric_limits<double>::infinity());
  v.push_back(std::numeric_limits<double>::quiet_NaN());
  v.push_back(-std::numeric_limits<double>::quiet_NaN());
  return v;
}

TEST(CpuQuant, QuantizeAsTheDefinition) {
  const DType targets[] = {
      q(ScalarType::Int8, 0.5, 3),      // SEMANTICS: 1.25 -> 6, -1.25 -> 0, 100 -> 127
      q(ScalarType::Int8, 1.0, 0),      // k + 0.5 are ties
      q(ScalarType::UInt8, 0.25, 128),  // ties at odd multiples of 1/8
      q(ScalarType::UInt8, 0.1, 0),     // no power of two: x / s is one rounded division
      q(ScalarType::Int16, 0.03, -5),
      q(ScalarType::Int32, 1.0, 0),  // 3e9 and beyond saturate; +-2^40 clamp first
      q(ScalarType::Int32, 1e-3, 0),
  };
  for (DType from : {dtypes::Float16, dtypes::Float32, dtypes::Float64}) {
    std::vector<Value> values;
    for (double d : quantize_inputs()) values.push_back(round_float(from, d));
    for (DType to : targets)
      expect_conversion(Op::Quantize, from, to, values,
                        [&](Value v) { return Value::of_int(quantize_value(v.f, to)); });
  }
}

TEST(CpuQuant, QuantizeHandWorked) {
  // SEMANTICS.md, "QUANTIZE": qint8<0.5,3>: 1.25 -> round(2.5) + 3 = 6, -1.25 -> 0,
  // 100 -> 127; NaN -> z = 3; -inf -> -128; and -0.0 -> 3.
  const DType to = q(ScalarType::Int8, 0.5, 3);
  const double in[] = {1.25, -1.25, 100.0, std::nan(""), -INFINITY, INFINITY, -0.0};
  const int64_t want[] = {6, 0, 127, 3, -128, 127, 3};
  std::vector<Value> col;
  for (double d : in) col.push_back(Value::of_float(d));
  Case c;
  c.name = "QUANTIZE float64 -> qint8<0.5,3>";
  ASSERT_TRUE(test_support::build(c, Op::Quantize, {dtypes::Float64}, to, {col}));
  const Buffer got = run_cpu(c);
  for (size_t i = 0; i < std::size(in); ++i) EXPECT_EQ(got.get(i).i, want[i]) << in[i];
}

TEST(CpuQuant, DequantizeAsTheDefinition) {
  const DType sources[] = {
      q(ScalarType::Int8, 0.04, 7),    q(ScalarType::Int8, 0.03, 0),
      q(ScalarType::UInt8, 0.08, 3),   q(ScalarType::UInt8, 1e-5, 255),
      q(ScalarType::Int16, 0.001, -7), q(ScalarType::Int16, 3.0, 32767),
      q(ScalarType::Int32, 1e-3, 0),   q(ScalarType::Int32, 1e30, 0),  // beyond float range
  };
  for (DType from : sources)
    for (DType to : {dtypes::Float16, dtypes::Float32, dtypes::Float64})
      expect_conversion(Op::Dequantize, from, to, stored_values(from, 997),
                        [&](Value v) { return Value::of_float(dequantize_value(v.i, from, to)); });
}

TEST(CpuQuant, DequantizeOfTheZeroPointIsPositiveZero) {
  // SEMANTICS.md, "DEQUANTIZE": qint8<0.04,7>: 11 -> 0.16 (the double nearest 0.04 * 4),
  // 7 -> +0.0.
  const DType from = q(ScalarType::Int8, 0.04, 7);
  for (DType to : {dtypes::Float16, dtypes::Float32, dtypes::Float64}) {
    Case c;
    c.name = fmt::format("DEQUANTIZE {} -> {}", from.name(), to.name());
    ASSERT_TRUE(test_support::build(c, Op::Dequantize, {from}, to,
                                    {{Value::of_int(7), Value::of_int(11)}}));
    const Buffer got = run_cpu(c);
    EXPECT_EQ(float_bits(got.get(0).f), float_bits(0.0)) << c.name;
    EXPECT_EQ(got.get(1).f, round_float(to, 0.04 * 4).f) << c.name;
  }
}

Buffer buffer_of(DType dt, const std::vector<int64_t>& v) {
  Buffer b(dt, v.size());
  for (size_t i = 0; i < v.size(); ++i) b.set(i, Value::of_int(v[i]));
  return b;
}

std::vector<int64_t> stored(const Buffer& b) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).i);
  return v;
}

TEST(CpuQuant, SeedExamples) {
  // SEMANTICS.md, "Quantized types": [4, 8, 20, -12] -> [1, 2, 5, -3] from scale 0.03 to
  // 0.12, and 11 -> 5 from qint8<0.04,7> to qint8<0.08,3>.
  const std::string kernel = R"(%0 = PARAM slot=0 size=4 in : {0}
%1 = PARAM slot=1 size=4 out : {1}
%2 = CONST 4 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %0 %3 : {0}
%5 = LOAD %4 : {0}
%6 = REQUANTIZE %5 : {1}
%7 = INDEX %1 %3 : {1}
%8 = STORE %7 %6 : void
%9 = END %8 %3 : void
%10 = SINK %9 : void
)";
  const DType a = q(ScalarType::Int8, 0.03, 0), b = q(ScalarType::Int8, 0.12, 0);
  // run_text reads slot 0 of the outputs: here the output is slot 1.
  Context x;
  auto k = parse_kernel(x, fmt::format(fmt::runtime(kernel), a.name(), b.name()));
  ASSERT_TRUE(k.ok()) << k.error().message;
  auto c = backends::find_backend("cpu")->compile(k->kernel.root);
  ASSERT_TRUE(c.ok()) << c.error().message;
  oracle::Inputs in;
  in.buffers[0] = buffer_of(a, {4, 8, 20, -12});
  auto got = c.value()->run(in);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(stored(got->outputs.at(1)), (std::vector<int64_t>{1, 2, 5, -3}));

  const DType zc = q(ScalarType::Int8, 0.04, 7), zd = q(ScalarType::Int8, 0.08, 3);
  Context y;
  auto k2 = parse_kernel(y, fmt::format(fmt::runtime(kernel), zc.name(), zd.name()));
  ASSERT_TRUE(k2.ok()) << k2.error().message;
  auto c2 = backends::find_backend("cpu")->compile(k2->kernel.root);
  ASSERT_TRUE(c2.ok()) << c2.error().message;
  in.buffers[0] = buffer_of(zc, {11, 7, -128, 127});
  auto got2 = c2.value()->run(in);
  ASSERT_TRUE(got2.ok()) << got2.error().message;
  // 11 -> 5; the zero point 7 -> 3 (real 0); -128 -> round(-67.5) + 3 = -65;
  // 127 -> 60 + 3 = 63.
  EXPECT_EQ(stored(got2->outputs.at(1)), (std::vector<int64_t>{5, 3, -65, 63}));
}

TEST(CpuQuant, QuantizedValuesInMemoryWhereBitcastAndConst) {
  // out[i] = i < 2 ? a[i] : (a load of a[i + 1] gated by i + 1 < 4, else the constant
  // 200), all quint8<0.5,128>; out2[i] = BITCAST(a[i]) to uint8, plus 1 (wrapping). A
  // CONST of the quantized type holds the stored integer.
  const std::string text = R"(%0 = PARAM slot=0 size=4 out : quint8<0.5,128>
%1 = PARAM slot=1 size=4 in : quint8<0.5,128>
%2 = PARAM slot=2 size=4 out : uint8
%3 = CONST 4 : index
%4 = RANGE %3 axis=0 LOOP : index
%5 = INDEX %1 %4 : quint8<0.5,128>
%6 = LOAD %5 : quint8<0.5,128>
%7 = CONST 1 : index
%8 = ADD %4 %7 : index
%9 = CMPLT %8 %3 : bool
%10 = INVALID : index
%11 = WHERE %9 %8 %10 : index
%12 = INDEX %1 %11 : quint8<0.5,128>
%13 = CONST 200 : quint8<0.5,128>
%14 = LOAD %12 %13 : quint8<0.5,128>
%15 = CONST 2 : index
%16 = CMPLT %4 %15 : bool
%17 = WHERE %16 %6 %14 : quint8<0.5,128>
%18 = INDEX %0 %4 : quint8<0.5,128>
%19 = STORE %18 %17 : void
%20 = END %19 %4 : void
%21 = BITCAST %6 : uint8
%22 = CONST 1 : uint8
%23 = ADD %21 %22 : uint8
%24 = INDEX %2 %4 : uint8
%25 = STORE %24 %23 : void
%26 = END %25 %4 : void
%27 = SINK %20 %26 : void
)";
  const DType t = q(ScalarType::UInt8, 0.5, 128);
  Context x;
  auto k = parse_kernel(x, text);
  ASSERT_TRUE(k.ok()) << k.error().message;
  auto errors = verify(k->kernel.root);
  ASSERT_TRUE(errors.empty()) << errors[0].message;
  Case c;
  c.name = "quantized memory";
  c.root = k->kernel.root;
  c.inputs.buffers[1] = buffer_of(t, {0, 255, 128, 7});
  test_support::expect_agree(c, {"cpu", {1}, {}, {}});
  auto kc = backends::find_backend("cpu")->compile(c.root);
  ASSERT_TRUE(kc.ok()) << kc.error().message;
  auto got = kc.value()->run(c.inputs);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(stored(got->outputs.at(0)), (std::vector<int64_t>{0, 255, 7, 200}));
  EXPECT_EQ(stored(got->outputs.at(2)), (std::vector<int64_t>{1, 0, 129, 8}));
}

TEST(CpuQuant, KernelFormOfAQuantizedReduce) {
  // The form rangeify writes (SEMANTICS.md, "REDUCE_AXIS"): a sum of q - z_in in int32,
  // reinterpreted as qint32<s_in,0> and requantized to the output type. Rows of
  // quint8<0.5,10> summed into qint8<1.5,-4>: the row [10, 13, 16, 20] is x = [0, 3, 6, 10],
  // sum 19, 19 / 3 = 6.33 -> 6 - 4 = 2; [255, 255, 255, 255] is 4 * 245 = 980 / 3 = 326.7
  // -> saturates at 127; [0, 0, 0, 1] is -39 / 3 = -13 -> -17; [10, 10, 11, 12] is
  // 3 / 3 = 1 -> -3. The MAX row form takes the largest q - z_in: 10, 245, -9, 2 ->
  // 3.33 -> 3 - 4 = -1, 81.67 -> 82 - 4 = 78, -3 - 4 = -7, 0.67 -> 1 - 4 = -3.
  const std::string text = R"(%0 = PARAM slot=0 size=4 out : qint8<1.5,-4>
%1 = PARAM slot=1 size=16 in : quint8<0.5,10>
%2 = PARAM slot=2 size=4 out : qint8<1.5,-4>
%3 = CONST 4 : index
%4 = RANGE %3 axis=0 LOOP : index
%5 = RANGE %3 axis=1 REDUCE : index
%6 = MUL %4 %3 : index
%7 = ADD %6 %5 : index
%8 = INDEX %1 %7 : quint8<0.5,10>
%9 = LOAD %8 : quint8<0.5,10>
%10 = BITCAST %9 : uint8
%11 = CAST %10 : int32
%12 = CONST 10 : int32
%13 = SUB %11 %12 : int32
%14 = REDUCE %13 %5 op=ADD : int32
%15 = BITCAST %14 : qint32<0.5,0>
%16 = REQUANTIZE %15 : qint8<1.5,-4>
%17 = INDEX %0 %4 : qint8<1.5,-4>
%18 = STORE %17 %16 : void
%19 = END %18 %4 : void
%20 = RANGE %3 axis=2 REDUCE : index
%21 = ADD %6 %20 : index
%22 = INDEX %1 %21 : quint8<0.5,10>
%23 = LOAD %22 : quint8<0.5,10>
%24 = BITCAST %23 : uint8
%25 = CAST %24 : int32
%26 = SUB %25 %12 : int32
%27 = REDUCE %26 %20 op=MAX : int32
%28 = BITCAST %27 : qint32<0.5,0>
%29 = REQUANTIZE %28 : qint8<1.5,-4>
%30 = INDEX %2 %4 : qint8<1.5,-4>
%31 = STORE %30 %29 : void
%32 = END %31 %4 : void
%33 = SINK %19 %32 : void
)";
  Context x;
  auto k = parse_kernel(x, text);
  ASSERT_TRUE(k.ok()) << k.error().message;
  auto errors = verify(k->kernel.root);
  ASSERT_TRUE(errors.empty()) << errors[0].message;
  Case c;
  c.name = "quantized reduce";
  c.root = k->kernel.root;
  c.inputs.buffers[1] = buffer_of(q(ScalarType::UInt8, 0.5, 10),
                                  {10, 13, 16, 20, 255, 255, 255, 255, 0, 0, 0, 1, 10, 10, 11, 12});
  test_support::expect_agree(c, {"cpu", {1}, {}, {}});
  auto kc = backends::find_backend("cpu")->compile(c.root);
  ASSERT_TRUE(kc.ok()) << kc.error().message;
  auto got = kc.value()->run(c.inputs);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(stored(got->outputs.at(0)), (std::vector<int64_t>{2, 127, -17, -3}));
  EXPECT_EQ(stored(got->outputs.at(2)), (std::vector<int64_t>{-1, 78, -7, -3}));
}

TEST(CpuQuant, RefusesWhatTheDefinitionCannotHold) {
  // qint32 with a non-zero zero point: q - z can leave int32. The verifier refuses it; a
  // graph handed to the backend without verifying is refused too, never run on a guess.
  for (auto [from, to] : {std::pair{q(ScalarType::Int32, 1.0, 5), q(ScalarType::Int8, 1.0, 0)},
                          std::pair{q(ScalarType::Int8, 1.0, 0), q(ScalarType::Int8, 1e12, 0)}}) {
    Case c;
    c.name = fmt::format("REQUANTIZE {} -> {}", from.name(), to.name());
    EXPECT_FALSE(test_support::build(c, Op::Requantize, {from}, to, {{Value::of_int(1)}}))
        << c.name << " verified";
    auto k = backends::find_backend("cpu")->compile(c.root);
    ASSERT_FALSE(k.ok()) << c.name;
    EXPECT_EQ(k.error().message.rfind("unsupported:", 0), 0u) << k.error().message;
  }
}

}  // namespace
}  // namespace uopfuzz
