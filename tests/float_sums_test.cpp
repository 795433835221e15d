// Reassociated float sums (SEMANTICS.md, "Reassociated float sums"): which sums a backend
// may add in any order, the bound two orders must stay within, and the CPU backend's
// vectorized sums against the oracle's in-order ones.

#include "backends/float_sums.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>

#include "backends/registry.h"
#include "check/differential.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"

namespace uopfuzz {
namespace {

using namespace ir;

// out[0] = sum of in[0..n) in `dtype`, then `tail` (more lines, numbered from %10).
std::string sum_kernel(int64_t n, const char* dtype = "float32",
                       const std::string& tail = "%10 = SINK %9 : void\n") {
  return fmt::format(R"(%0 = PARAM slot=0 size=1 out : {1}
%1 = CONST 0 : index
%2 = INDEX %0 %1 : {1}
%3 = PARAM slot=1 size={0} in : {1}
%4 = CONST {0} : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = INDEX %3 %5 : {1}
%7 = LOAD %6 : {1}
%8 = REDUCE %7 %5 op=ADD : {1}
%9 = STORE %2 %8 : void
)",
                     n, dtype) +
         tail;
}

backends::ReassociableSums sums_of(Context& x, const std::string& text) {
  auto k = parse_kernel(x, text);
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message);
  return k.ok() ? backends::reassociable_sums(k->kernel.root) : backends::ReassociableSums{};
}

TEST(ReassociableSums, AFloatSumStoredAsItIs) {
  Context x;
  EXPECT_EQ(sums_of(x, sum_kernel(16)).slots, std::set<int>{0});
  EXPECT_EQ(sums_of(x, sum_kernel(16, "float64")).slots, std::set<int>{0});
}

TEST(ReassociableSums, NotIntegerSumsOrOtherReductions) {
  Context x;
  EXPECT_TRUE(sums_of(x, sum_kernel(16, "int32")).empty());
  std::string max = sum_kernel(16);
  max.replace(max.find("op=ADD"), 6, "op=MAX");
  EXPECT_TRUE(sums_of(x, max).empty());
}

TEST(ReassociableSums, NotASumUsedAsAnythingButAStoredValue) {
  Context x;
  // out[0] = sum + 1: the sum's rounding would reach the output through the ADD.
  std::string text = sum_kernel(16);
  text.replace(text.find("%9 = STORE %2 %8"), 16,
               "%20 = CONST 1 : float32\n%21 = ADD %8 %20 : float32\n%9 = STORE %2 %21");
  EXPECT_TRUE(sums_of(x, text).empty());
}

TEST(ReassociableSums, NotABufferThatAlsoHoldsOtherValues) {
  Context x;
  // out[0] = sum, out2[0] = sum and out2[1] = 2: out2 is struck out, and with it the sum
  // (stored there), and then out (its only value is no longer reassociable).
  const std::string tail = R"(%10 = PARAM slot=2 size=2 out : float32
%11 = INDEX %10 %1 : float32
%12 = STORE %11 %8 : void
%13 = CONST 1 : index
%14 = INDEX %10 %13 : float32
%15 = CONST 2 : float32
%16 = STORE %14 %15 : void
%17 = SINK %9 %12 %16 : void
)";
  EXPECT_TRUE(sums_of(x, sum_kernel(16, "float32", tail)).empty());
  // Without the constant, both buffers hold only the sum.
  const std::string both = R"(%10 = PARAM slot=2 size=2 out : float32
%11 = INDEX %10 %1 : float32
%12 = STORE %11 %8 : void
%17 = SINK %9 %12 : void
)";
  EXPECT_EQ(sums_of(x, sum_kernel(16, "float32", both)).slots, (std::set<int>{0, 2}));
}

// The bound is 2 * gamma_{n-1} * sum |x_i| (u = 2^-24), slightly widened.
TEST(SumBounds, TwiceGammaTimesTheMagnitudeSum) {
  Context x;
  auto k = parse_kernel(x, sum_kernel(4));
  ASSERT_TRUE(k.ok());
  oracle::Inputs in;
  in.buffers[1] = Buffer(dtypes::Float32, 4);
  const double v[] = {1.5, -2.25, 3, -0.5};
  for (size_t i = 0; i < 4; ++i) in.buffers[1].set(i, Value::of_float(v[i]));
  auto b = backends::sum_bounds(x, k->kernel.root, in);
  ASSERT_TRUE(b.ok()) << b.error().message;
  const double u = std::ldexp(1.0, -24), gamma = 3 * u / (1 - 3 * u);
  EXPECT_NEAR(b->at(0).at(0), 2 * gamma * 7.25, 2 * gamma * 7.25 * 1e-5);
  EXPECT_GE(b->at(0).at(0), 2 * gamma * 7.25);
  // Magnitudes beyond the largest float32: partial sums may overflow, no bound.
  in.buffers[1].set(0, Value::of_float(FLT_MAX));
  in.buffers[1].set(1, Value::of_float(FLT_MAX));
  b = backends::sum_bounds(x, k->kernel.root, in);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(std::isinf(b->at(0).at(0)));
}

TEST(SumBounds, NoneWithoutAReassociableSum) {
  Context x;
  auto k = parse_kernel(x, sum_kernel(4, "int32"));
  ASSERT_TRUE(k.ok());
  auto b = backends::sum_bounds(x, k->kernel.root, oracle::make_inputs(k->kernel.root, 1));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->empty());
}

// A sum whose order matters: 2^25, then 4094 ones, then -2^25. In order every 1 is lost
// against 2^25 (its ULP is 4) and the sum is 0; the CPU backend's vectorized loop keeps
// partial sums per lane, most of which keep their ones.
TEST(CpuBackend, VectorizedSumsDifferInBitsButStayWithinTheBound) {
  Context x;
  const int64_t n = 4096;
  auto k = parse_kernel(x, sum_kernel(n));
  ASSERT_TRUE(k.ok());
  oracle::Inputs in;
  in.buffers[1] = Buffer(dtypes::Float32, n);
  for (int64_t i = 0; i < n; ++i) in.buffers[1].set(static_cast<size_t>(i), Value::of_float(1.0));
  in.buffers[1].set(0, Value::of_float(std::ldexp(1.0, 25)));
  in.buffers[1].set(n - 1, Value::of_float(-std::ldexp(1.0, 25)));
  auto want = oracle::run(k->kernel.root, in);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(want->outputs.at(0).get(0).f, 0.0);
  auto compiled = backends::find_backend("cpu")->compile(k->kernel.root);
  ASSERT_TRUE(compiled.ok());
  auto got = compiled.value()->run(in);
  ASSERT_TRUE(got.ok());
  const Buffer& g = got->outputs.at(0);
  EXPECT_GT(g.get(0).f, 0.0) << "the sum was not reassociated (did its loop vectorize?)";
  EXPECT_TRUE(
      check::first_difference(want->outputs.at(0), &g).has_value());  // bit for bit it differs

  auto bounds = backends::sum_bounds(x, k->kernel.root, in);
  ASSERT_TRUE(bounds.ok());
  check::Tolerance tol;
  tol.sum_bounds = &bounds->at(0);
  EXPECT_FALSE(check::first_difference(want->outputs.at(0), &g, tol).has_value());
  // A wrong sum beyond the bound is still a difference, and NaN matches only NaN.
  Buffer wrong(dtypes::Float32, 1);
  wrong.set(0, Value::of_float(2 * bounds->at(0).at(0) + 1));
  EXPECT_TRUE(check::first_difference(want->outputs.at(0), &wrong, tol).has_value());
  wrong.set(0, Value::of_float(NAN));
  EXPECT_TRUE(check::first_difference(want->outputs.at(0), &wrong, tol).has_value());
}

// The differential check applies the bound: sum over r < 4096 of float(r) * 0.1 is
// 838655.9375 in order and 838656 on the CPU backend's lanes, and checks clean.
TEST(CpuBackend, CheckComparesReassociatedSumsWithinTheirBound) {
  Context x;
  auto k = parse_kernel(x, R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = CONST 4096 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CAST %4 : float32
%6 = CONST 0.1 : float32
%7 = MUL %5 %6 : float32
%8 = REDUCE %7 %4 op=ADD : float32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)");
  ASSERT_TRUE(k.ok());
  auto want = oracle::run(k->kernel.root, {});
  auto got = backends::find_backend("cpu")->compile(k->kernel.root).value()->run({});
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_TRUE(check::first_difference(want->outputs.at(0), &got->outputs.at(0)).has_value())
      << "the same bits: the check below would not need the bound";
  check::CheckOptions o;
  o.backends = {"oracle", "cpu"};
  auto r = check::check_kernel(x, k->kernel, o);
  EXPECT_EQ(r.kind, check::FindingKind::None) << r.details;
  EXPECT_GT(r.seeds_run, 0);
}

}  // namespace
}  // namespace uopfuzz
