// Split ReduceOp (schedule/split_reduce.h) through the whole lowering: the kernel count, the
// partial-result buffer the first stage writes (its size is outputs times the divisor, so it
// shows which divisor was chosen) and the outputs on the oracle. Expected values are worked
// out by hand from the definition in the comment beside each.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backends/float_sums.h"
#include "backends/program_runner.h"
#include "backends/registry.h"
#include "check/program_check.h"
#include "gen/tensor_gen.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "parse_root.h"
#include "schedule/lower.h"
#include "schedule/split_reduce.h"

namespace uopfuzz::schedule {
namespace {

using namespace ir;

class SplitReduce : public ::testing::Test {
 protected:
  Context ctx_;
  LowerReport report_;

  UOp parse(const std::string& text) { return uopfuzz::testing::parse_root(ctx_, text); }

  Program lower_ok(const std::string& text, const LowerOptions& o = {}) {
    auto p = lower(ctx_, parse(text), o, &report_);
    if (!p) {
      ADD_FAILURE() << p.error().message;
      return {};
    }
    for (const ProgramKernel& k : p->kernels) {
      auto errors = verify(k.root);
      EXPECT_TRUE(errors.empty()) << errors.front().message;
    }
    return *p;
  }

  static LowerOptions threshold(int64_t t, LoweringBugSet bugs = {}) {
    LowerOptions o;
    o.split_reduce_threshold = t;
    o.bugs = std::move(bugs);
    return o;
  }

  uint64_t splits() const {
    auto it = report_.hits.find(kSplitReduceRule);
    return it == report_.hits.end() ? 0 : it->second;
  }

  /// The sizes of the intermediate buffers, in the Program's order.
  static std::vector<int64_t> intermediates(const Program& p) {
    std::vector<int64_t> sizes;
    for (const ProgramBuffer& b : p.buffers)
      if (b.role == ProgramBuffer::Role::Intermediate) sizes.push_back(b.size);
    return sizes;
  }

  /// Output 0 of `p` on the oracle with input slot 0 filled by `fill(i)`, as doubles (every
  /// value these tests expect is exact in one).
  template <typename Fill>
  std::vector<double> run0(const Program& p, DType dt, int64_t n, Fill fill) {
    Inputs in;
    Buffer b(dt, static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) b.set(static_cast<size_t>(i), fill(i));
    in.buffers[0] = b;
    auto out = backends::run_program(*backends::find_backend("oracle"), p, in);
    std::vector<double> got;
    if (!out) {
      ADD_FAILURE() << out.error().message;
      return got;
    }
    EXPECT_EQ(out->status, RunStatus::Ok);
    const Buffer& o = out->outputs.at(0);
    for (size_t i = 0; i < o.size(); ++i)
      got.push_back(dt.is_float() ? o.get(i).f : static_cast<double>(o.get(i).i));
    return got;
  }
};

std::string reduce_program(const std::string& dtype, const std::string& in_shape,
                           const std::string& op, const std::string& axes,
                           const std::string& out_shape) {
  return "%x = PARAM slot=0 in : " + dtype + in_shape + "\n%s = REDUCE_AXIS %x op=" + op +
         " axes=" + axes + " : " + dtype + out_shape + "\n%r = REALIZE %s : void\n";
}

Value int32(int64_t v) {
  return wrap_int(dtypes::Int32, v);
}

// The seed's example: [65536] -> scalar splits into 256 partial sums of 256 elements each.
// x[i] = i % 7 - 3: 65536 = 7 * 9362 + 2, each full period sums to 0, the tail (i % 7 = 0,
// 1) adds -3 + -2 = -5.
TEST_F(SplitReduce, SumOf65536IntsIsTwoKernelsOf256) {
  Program p = lower_ok(reduce_program("int32", "[65536]", "ADD", "[0]", "[1]"));
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(intermediates(p), (std::vector<int64_t>{256}));
  EXPECT_EQ(splits(), 1u);
  auto got = run0(p, dtypes::Int32, 65536, [](int64_t i) { return int32(i % 7 - 3); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], -5);
}

// x[i] = (i % 4) * 0.25: 16384 periods of 0 + 0.25 + 0.5 + 0.75 = 1.5 make 24576, and every
// partial sum is a multiple of 0.25 below 2^24 * 0.25, so any order gives it exactly.
TEST_F(SplitReduce, SumOf65536FloatsIsTwoKernels) {
  Program p = lower_ok(reduce_program("float32", "[65536]", "ADD", "[0]", "[1]"));
  EXPECT_EQ(p.kernels.size(), 2u);
  auto got = run0(p, dtypes::Float32, 65536,
                  [](int64_t i) { return Value::of_float(static_cast<double>(i % 4) * 0.25); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], 24576.0);
}

// 65537 is prime: no divisor in [8, 256], so no split.
TEST_F(SplitReduce, PrimeLengthIsOneKernel) {
  Program p = lower_ok(reduce_program("int32", "[65537]", "ADD", "[0]", "[1]"));
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(splits(), 0u);
  auto got = run0(p, dtypes::Int32, 65537, [](int64_t i) { return int32(i % 2); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], 32768);  // the odd i below 65537
}

// 64 // 1 = 64: at threshold 64 it splits (d = 64, the largest divisor of 64 in [8, 256]);
// at 65 and at the default 32768 it does not.
TEST_F(SplitReduce, ThresholdIsRespected) {
  const std::string text = reduce_program("int32", "[64]", "ADD", "[0]", "[1]");
  Program low = lower_ok(text, threshold(64));
  EXPECT_EQ(low.kernels.size(), 2u);
  EXPECT_EQ(intermediates(low), (std::vector<int64_t>{64}));
  auto got = run0(low, dtypes::Int32, 64, [](int64_t i) { return int32(i); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], 2016);  // 63 * 64 / 2
  EXPECT_EQ(lower_ok(text, threshold(65)).kernels.size(), 1u);
  EXPECT_EQ(lower_ok(text).kernels.size(), 1u);
}

TEST_F(SplitReduce, DisabledRuleDoesNotSplit) {
  LowerOptions o;
  o.disabled.insert(kSplitReduceRule);
  Program p = lower_ok(reduce_program("int32", "[65536]", "ADD", "[0]", "[1]"), o);
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(splits(), 0u);
}

// The divisor: the largest d in [8, min(256, 2^22 // outputs)] that divides the dim.
TEST_F(SplitReduce, DivisorIsTheLargestInRange) {
  // 3 rows of 1000: 250 is the largest divisor of 1000 up to 256 -> 3 * 250 partials.
  Program p = lower_ok(reduce_program("int32", "[3,1000]", "ADD", "[1]", "[3,1]"), threshold(1000));
  EXPECT_EQ(intermediates(p), (std::vector<int64_t>{750}));
  auto got = run0(p, dtypes::Int32, 3000, [](int64_t i) { return int32(i / 1000 + 1); });
  EXPECT_EQ(got, (std::vector<double>{1000, 2000, 3000}));
  // 32768 outputs cap the divisor at 2^22 // 32768 = 128, below 256 which divides 256.
  Program capped =
      lower_ok(reduce_program("int32", "[32768,256]", "ADD", "[1]", "[32768,1]"), threshold(256));
  EXPECT_EQ(intermediates(capped), (std::vector<int64_t>{32768 * 128}));
  // 2^22 // 2^19 outputs = 8: the smallest divisor allowed; 2^22 // 2^20 = 4 allows none.
  Program smallest =
      lower_ok(reduce_program("int32", "[524288,16]", "ADD", "[1]", "[524288,1]"), threshold(16));
  EXPECT_EQ(intermediates(smallest), (std::vector<int64_t>{524288 * 8}));
  Program none =
      lower_ok(reduce_program("int32", "[1048576,16]", "ADD", "[1]", "[1048576,1]"), threshold(16));
  EXPECT_EQ(none.kernels.size(), 1u);
}

// The first reduced dim that has a divisor: dim 0 (7, prime) has none, dim 1 (96) has 96.
// With 24 first, 24 is chosen although 96 is larger.
TEST_F(SplitReduce, FirstReducedDimWithADivisorIsSplit) {
  Program p = lower_ok(reduce_program("int32", "[7,96]", "ADD", "[0,1]", "[1,1]"), threshold(64));
  EXPECT_EQ(intermediates(p), (std::vector<int64_t>{96}));
  auto got = run0(p, dtypes::Int32, 672, [](int64_t i) { return int32(i); });
  EXPECT_EQ(got, (std::vector<double>{225456}));  // 671 * 672 / 2
  Program q = lower_ok(reduce_program("int32", "[24,96]", "ADD", "[0,1]", "[1,1]"), threshold(64));
  EXPECT_EQ(intermediates(q), (std::vector<int64_t>{24}));
}

// y = EXPAND of [4,1] to [4,64], + 1: dim 1 is broadcast (the same value along it), so the
// sum over it is not split; SplitBroadcastDim splits it (d = 64), with the same result:
// 64 * (x + 1) per row.
constexpr const char* kBroadcastSum = R"(
%x = PARAM slot=0 in : int32[4,1]
%e = EXPAND %x : int32[4,64]
%one = CONST 1 : int32[4,64]
%y = ADD %e %one : int32[4,64]
%s = REDUCE_AXIS %y op=ADD axes=[1] : int32[4,1]
%r = REALIZE %s : void
)";

TEST_F(SplitReduce, BroadcastDimIsSkipped) {
  Program p = lower_ok(kBroadcastSum, threshold(64));
  EXPECT_EQ(p.kernels.size(), 1u);
  const std::vector<double> want{64, 128, 192, 256};
  EXPECT_EQ(run0(p, dtypes::Int32, 4, [](int64_t i) { return int32(i); }), want);
  Program bugged = lower_ok(kBroadcastSum, threshold(64, {LoweringBug::SplitBroadcastDim}));
  EXPECT_EQ(bugged.kernels.size(), 2u);
  EXPECT_EQ(intermediates(bugged), (std::vector<int64_t>{4 * 64}));
  EXPECT_EQ(run0(bugged, dtypes::Int32, 4, [](int64_t i) { return int32(i); }), want);
}

// Dim 0 (32) is an EXPAND through a PERMUTE and a RESHAPE that keeps it; dim 1 (48) is
// real: the faithful rule splits dim 1 (d = 48), the bug dim 0 (d = 32).
constexpr const char* kBroadcastThenReal = R"(
%x = PARAM slot=0 in : int32[48]
%a = RESHAPE %x : int32[48,1]
%b = EXPAND %a : int32[48,32]
%c = PERMUTE %b order=[1,0] : int32[32,48]
%d = RESHAPE %c : int32[32,48,1]
%s = REDUCE_AXIS %d op=ADD axes=[0,1] : int32[1,1,1]
%r = REALIZE %s : void
)";

TEST_F(SplitReduce, BroadcastIsFollowedThroughMovementOps) {
  Program p = lower_ok(kBroadcastThenReal, threshold(64));
  EXPECT_EQ(intermediates(p), (std::vector<int64_t>{48}));
  // 32 * (0 + ... + 47) = 32 * 1128.
  EXPECT_EQ(run0(p, dtypes::Int32, 48, [](int64_t i) { return int32(i); }),
            (std::vector<double>{36096}));
  Program bugged = lower_ok(kBroadcastThenReal, threshold(64, {LoweringBug::SplitBroadcastDim}));
  EXPECT_EQ(intermediates(bugged), (std::vector<int64_t>{32}));
}

// MAX, MIN and integer MUL are exact in any order: the split keeps them bit for bit.
TEST_F(SplitReduce, MaxMinMulAreExact) {
  auto fill = [](int64_t i) { return int32((i * 37) % 101 - 50); };
  // (i * 37) % 101 over i < 4096 takes every residue, so -50 and 50 both appear.
  Program mx = lower_ok(reduce_program("int32", "[4096]", "MAX", "[0]", "[1]"), threshold(4096));
  EXPECT_EQ(mx.kernels.size(), 2u);
  EXPECT_EQ(run0(mx, dtypes::Int32, 4096, fill), (std::vector<double>{50}));
  Program mn = lower_ok(reduce_program("int32", "[4096]", "MIN", "[0]", "[1]"), threshold(4096));
  EXPECT_EQ(mn.kernels.size(), 2u);
  EXPECT_EQ(run0(mn, dtypes::Int32, 4096, fill), (std::vector<double>{-50}));
  // 3^4096 wraps to 3^4096 mod 2^32 = 1989099521 (python3: pow(3, 4096, 2**32)), below 2^31.
  Program mul = lower_ok(reduce_program("int32", "[4096]", "MUL", "[0]", "[1]"), threshold(4096));
  EXPECT_EQ(mul.kernels.size(), 2u);
  EXPECT_EQ(run0(mul, dtypes::Int32, 4096, [](int64_t) { return int32(3); }),
            (std::vector<double>{1989099521}));
}

// Orders the program check cannot bound are kept: a float product, and a float sum that is
// not stored as it is (here doubled first).
TEST_F(SplitReduce, UnboundedFloatOrdersAreNotSplit) {
  Program mul = lower_ok(reduce_program("float32", "[4096]", "MUL", "[0]", "[1]"), threshold(4096));
  EXPECT_EQ(mul.kernels.size(), 1u);
  Program doubled = lower_ok(R"(
%x = PARAM slot=0 in : float32[4096]
%s = REDUCE_AXIS %x op=ADD axes=[0] : float32[1]
%t = ADD %s %s : float32[1]
%r = REALIZE %t : void
)",
                             threshold(4096));
  EXPECT_EQ(doubled.kernels.size(), 1u);
  Program stored = lower_ok(R"(
%x = PARAM slot=0 in : float32[4096]
%s = REDUCE_AXIS %x op=ADD axes=[0] : float32[1]
%t = RESHAPE %s : float32[]
%r = REALIZE %t : void
)",
                            threshold(4096));
  EXPECT_EQ(stored.kernels.size(), 2u);
}

// SplitNonDivisor takes d = 256 for 64 elements (64 % 256 leaves 64) and pads 192 zeros:
// the maximum of all-negative values becomes 0. The faithful split (d = 64) gives -1.
TEST_F(SplitReduce, NonDivisorBugChangesTheResult) {
  const std::string text = reduce_program("int32", "[64]", "MAX", "[0]", "[1]");
  auto fill = [](int64_t i) { return int32(-1 - i); };
  Program faithful = lower_ok(text, threshold(64));
  EXPECT_EQ(run0(faithful, dtypes::Int32, 64, fill), (std::vector<double>{-1}));
  Program bugged = lower_ok(text, threshold(64, {LoweringBug::SplitNonDivisor}));
  EXPECT_EQ(intermediates(bugged), (std::vector<int64_t>{256}));
  EXPECT_EQ(run0(bugged, dtypes::Int32, 64, fill), (std::vector<double>{0}));
}

// SplitBelowThreshold splits a 64-element sum at the default threshold; the sum is right.
TEST_F(SplitReduce, BelowThresholdBugSplitsSmallReduces) {
  const std::string text = reduce_program("int32", "[64]", "ADD", "[0]", "[1]");
  Program bugged = lower_ok(text, threshold(32768, {LoweringBug::SplitBelowThreshold}));
  EXPECT_EQ(bugged.kernels.size(), 2u);
  EXPECT_EQ(run0(bugged, dtypes::Int32, 64, [](int64_t i) { return int32(i); }),
            (std::vector<double>{2016}));
}

// A split float sum adds its terms in another order than the tensor oracle: the program
// check must compare it within the reassociated-sum bound of all its terms (the final
// kernel sums loads of partial sums), and find nothing. The inputs are multiples of 1/8,
// whose sums are exact in any order; times 0.1 they are not.
TEST_F(SplitReduce, SplitFloatSumIsComparedWithinTheBound) {
  for (int64_t n : {65536, 4096}) {
    const std::string shape = "[" + std::to_string(n) + "]";
    auto parsed = parse_kernel(
        ctx_, "%x = PARAM slot=0 in : float32" + shape + "\n%c = CONST 0.1 : float32" + shape +
                  "\n%w = MUL %x %c : float32" + shape + "\n%y = MUL %w %w : float32" + shape +
                  "\n%s = REDUCE_AXIS %y op=ADD axes=[0] : float32[1]"
                  "\n%r = REALIZE %s : void\n");
    ASSERT_TRUE(parsed) << parsed.error().message;
    check::ProgramCheckOptions o;
    o.lower.split_reduce_threshold = 64;
    o.check.seeds = 20;
    o.check.backends = {"oracle", "cpu"};
    check::ProgramCheckResult r = check::check_program(ctx_, parsed->kernel, o);
    EXPECT_FALSE(r.unsupported) << *r.unsupported;
    EXPECT_EQ(r.kernels, 2u);
    EXPECT_EQ(r.kind, check::FindingKind::None) << shape << ": " << r.details;
  }
}

// A second stage sums loads of partial sums: with the partials' terms carried (256 terms
// each, magnitudes 1, 2, 3, 4), it is one sum of 1024 terms of magnitude 10, not of the 4
// partials (magnitude |0.5| + |-1| + |2| + |0.25| = 3.75 without them).
constexpr const char* kSecondStage = R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size=4 in : float32
%4 = CONST 4 : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = INDEX %3 %5 : float32
%7 = LOAD %6 : float32
%8 = REDUCE %7 %5 op=ADD : float32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)";

TEST_F(SplitReduce, SecondStageCountsThePartialSumsTerms) {
  auto k = parse_kernel(ctx_, kSecondStage);
  ASSERT_TRUE(k) << k.error().message;
  Inputs in;
  in.buffers[1] = Buffer(dtypes::Float32, 4);
  const double partials[] = {0.5, -1, 2, 0.25};
  for (size_t i = 0; i < 4; ++i) in.buffers[1].set(i, Value::of_float(partials[i]));
  std::map<int, backends::SumTerms> carried;
  carried[1] = backends::SumTerms{{1, 2, 3, 4}, 256, dtypes::Float32};
  auto with = backends::sum_terms(ctx_, k->kernel.root, in, carried);
  ASSERT_TRUE(with) << with.error().message;
  EXPECT_EQ(with->at(0).terms, 1024);
  EXPECT_EQ(with->at(0).magnitudes, (std::vector<double>{10}));
  const double u = std::ldexp(1.0, -24);
  const double gamma = 1023 * u / (1 - 1023 * u);
  EXPECT_NEAR(backends::bounds_of(with->at(0)).at(0), 2 * gamma * 10, 2 * gamma * 10 * 1e-5);
  auto without = backends::sum_terms(ctx_, k->kernel.root, in);
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_EQ(without->at(0).terms, 4);
  EXPECT_EQ(without->at(0).magnitudes, (std::vector<double>{3.75}));
}

// The faithful split at a threshold small generated programs reach: the program check finds
// nothing (results exact, float sums within their bound) on oracle and cpu, and the rule
// does fire.
TEST_F(SplitReduce, GeneratedProgramsCheckCleanAtALowThreshold) {
  gen::GenPolicy policy;
  uint64_t split_programs = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    Context ctx;
    gen::TensorGenResult g = gen::generate_tensor_program(ctx, policy, seed);
    ASSERT_TRUE(g.program.root);
    check::ProgramCheckOptions o;
    o.lower.split_reduce_threshold = 4;
    o.check.seeds = 2;
    o.check.backends = {"oracle", "cpu"};
    for (const auto& [name, v] : g.program.header.vars) o.check.vars.emplace(name, v);
    check::ProgramCheckResult r = check::check_program(ctx, g.program, o);
    if (r.unsupported) continue;
    EXPECT_EQ(r.kind, check::FindingKind::None) << "seed " << seed << ": " << r.details << "\n"
                                                << print_kernel(g.program);
    LowerReport report;
    if (lower(ctx, g.program.root, o.lower, &report) && report.hits[kSplitReduceRule] > 0)
      ++split_programs;
  }
  EXPECT_GE(split_programs, 10u);
}

// split-non-divisor changes results a program check on generated programs shows (at the
// same low threshold).
TEST_F(SplitReduce, NonDivisorBugIsFoundOnGeneratedPrograms) {
  gen::GenPolicy policy;
  int found = 0;
  for (uint64_t seed = 1; seed <= 120 && found < 3; ++seed) {
    Context ctx;
    gen::TensorGenResult g = gen::generate_tensor_program(ctx, policy, seed);
    check::ProgramCheckOptions o;
    o.lower.split_reduce_threshold = 4;
    o.lower.bugs = {LoweringBug::SplitNonDivisor};
    o.check.seeds = 2;
    for (const auto& [name, v] : g.program.header.vars) o.check.vars.emplace(name, v);
    check::ProgramCheckResult r = check::check_program(ctx, g.program, o);
    found += r.kind == check::FindingKind::Mismatch;
  }
  EXPECT_GE(found, 3);
}

// The split examples state their kernel count (@kernels) at their threshold
// (@split-reduce-threshold, else the default); `uopfuzz run` checks their outputs.
TEST_F(SplitReduce, CorpusExamplesHaveTheirKernelCounts) {
  int examples = 0;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(UOPFUZZ_SOURCE_DIR) / "corpus/examples/tensor")) {
    if (e.path().filename().string().rfind("split_", 0) != 0) continue;
    SCOPED_TRACE(e.path().filename().string());
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parse_kernel(ctx_, text.str());
    ASSERT_TRUE(parsed) << parsed.error().message;
    LowerOptions o;
    std::optional<size_t> kernels;
    for (const auto& [key, value] : parsed->kernel.header.extra) {
      if (key == "split-reduce-threshold") o.split_reduce_threshold = std::stoll(value);
      if (key == "kernels") kernels = std::stoul(value);
    }
    ASSERT_TRUE(kernels);
    auto p = lower(ctx_, parsed->kernel.root, o);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(p->kernels.size(), *kernels);
    ++examples;
  }
  EXPECT_GE(examples, 5);
}

}  // namespace
}  // namespace uopfuzz::schedule
