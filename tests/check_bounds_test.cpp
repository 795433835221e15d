// The bounds-soundness check (check/bounds_check.h) and what it stands on: the oracle's
// observed values, and the built-in simplifier's claims (ir/analysis), which must hold on
// every example.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "check/bounds_check.h"
#include "check/differential.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/interpreter.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::check {
namespace {

ir::Kernel parse(ir::Context& ctx, const std::string& text) {
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed->kernel;
}

/// sum over r < 4 of (r + x), x a uint8 VAR, stored; %5 the ADD, %6 the REDUCE.
constexpr const char* kReduce =
    "%0 = PARAM slot=0 size=1 out : uint8\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : uint8\n"
    "%3 = CONST 4 : index\n%4 = RANGE %3 axis=0 REDUCE : index\n%5 = CAST %4 : uint8\n"
    "%6 = VAR name=x min=250 max=255 : uint8\n%7 = ADD %5 %6 : uint8\n"
    "%8 = REDUCE %7 %4 op=ADD : uint8\n%9 = STORE %2 %8 : void\n%10 = SINK %9 : void\n";

TEST(CheckBounds, TheOracleObservesEveryIntegerValueAndReducesOnlyWhole) {
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kReduce);
  ir::Inputs in;
  in.vars["x"] = 254;
  oracle::RunOptions ro;
  ro.observe_values = true;
  auto run = oracle::run(k.root, in, ro);
  ASSERT_TRUE(run.ok());
  std::map<ir::Op, std::pair<__int128, __int128>> seen;
  for (const ir::ObservedRange& o : run->observed) seen[o.node.op()] = {o.lo, o.hi};
  // 254 + r wraps at 256: the values are 254, 255, 0, 1.
  EXPECT_TRUE(seen[ir::Op::Add] == std::make_pair(__int128{0}, __int128{255}));
  EXPECT_TRUE(seen[ir::Op::Cast] == std::make_pair(__int128{0}, __int128{3}));
  // (254 + 255 + 0 + 1) mod 256: the REDUCE's value, never a partial sum.
  EXPECT_TRUE(seen[ir::Op::Reduce] == std::make_pair(__int128{254}, __int128{254}));
  // And the gcd of each node's values, what a divisibility claim is held against.
  std::map<ir::Op, unsigned __int128> gcd;
  for (const ir::ObservedRange& o : run->observed) gcd[o.node.op()] = o.gcd;
  EXPECT_TRUE(gcd[ir::Op::Reduce] == 254);  // one value: itself
  EXPECT_TRUE(gcd[ir::Op::Cast] == 1);      // 0, 1, 2, 3
  ro.observe_values = false;
  EXPECT_TRUE(oracle::run(k.root, in, ro)->observed.empty());
}

TEST(CheckBounds, AnUnsignedClaimThatIgnoresWrappingIsWrong) {
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kReduce);
  ir::Inputs in;
  in.vars["x"] = 254;
  oracle::RunOptions ro;
  ro.observe_values = true;
  auto run = oracle::run(k.root, in, ro);
  ASSERT_TRUE(run.ok());
  std::vector<sut::ClaimedBounds> claims;
  ir::UOp add;
  for (ir::UOp u : ir::toposort(k.root))
    if (u.op() == ir::Op::Add) add = u;
  // What a simplifier that adds intervals without wrapping would claim: [250, 258].
  claims.push_back({add, 250, 258});
  auto v = find_unsound_bounds(k.root, claims, run->observed);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->node, add);
  EXPECT_TRUE(v->value == 0);
  EXPECT_EQ(v->text, "unsound-bounds: ADD of ?, ? claimed [250, 258], value 0");
  // The dtype's range is a sound claim.
  claims[0] = {add, 0, 255};
  EXPECT_FALSE(find_unsound_bounds(k.root, claims, run->observed));
}

/// x*4 + 8 stored at x // 12 (x a VAR in [0, 40] that is a multiple of 4): %4 the ADD.
constexpr const char* kMultiples =
    "%0 = PARAM slot=0 size=4 out : int32\n%1 = VAR name=x min=0 max=40 multiple_of=4 : index\n"
    "%2 = CONST 4 : index\n%3 = MUL %1 %2 : index\n%4 = CONST 8 : index\n"
    "%5 = ADD %3 %4 : index\n%6 = CONST 12 : index\n%7 = FLOORDIV %1 %6 : index\n"
    "%8 = INDEX %0 %7 : int32\n%9 = CAST %5 : int32\n%10 = STORE %8 %9 : void\n"
    "%11 = SINK %10 : void\n";

ir::UOp first_of(ir::UOp root, ir::Op op) {
  for (ir::UOp u : ir::toposort(root))
    if (u.op() == op) return u;
  return {};
}

TEST(CheckBounds, ADivisibilityClaimTheValuesBreakIsWrong) {
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kMultiples);
  ir::Inputs in;
  in.vars["x"] = 20;
  oracle::RunOptions ro;
  ro.observe_values = true;
  auto run = oracle::run(k.root, in, ro);
  ASSERT_TRUE(run.ok());
  const ir::UOp add = first_of(k.root, ir::Op::Add);  // 20*4 + 8 = 88 = 8 * 11
  std::vector<sut::ClaimedBounds> claims{{add, 0, 168, 8}};
  EXPECT_FALSE(find_unsound_bounds(k.root, claims, run->observed));
  claims[0].multiple_of = 16;  // 88 is not a multiple of 16, though it lies in the interval
  auto v = find_unsound_bounds(k.root, claims, run->observed);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->node, add);
  EXPECT_EQ(v->text,
            "unsound-bounds: ADD of ?, ? claimed [0, 168] multiple of 16, values in [88, 88] with "
            "gcd 88");
}

TEST(CheckBounds, TheBuiltinClaimsWhatItsAnalysisProvesOfTheAskedDivisors) {
  // The rules ask `divides` about a graph's CONST divisors and its VARs' multiple_of: 12
  // and 4 here. x*4 + 8 is proven a multiple of 4 (not of 12); x // 12 of neither.
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kMultiples);
  std::map<ir::Op, int64_t> claimed;
  for (const sut::ClaimedBounds& c : sut::builtin_bounds(k.root))
    claimed[c.node.op()] = c.multiple_of;
  EXPECT_EQ(claimed[ir::Op::Add], 4);
  EXPECT_EQ(claimed[ir::Op::Var], 4);
  EXPECT_EQ(claimed[ir::Op::FloorDiv], 1);
  // Held against the oracle on every value of x the VAR allows: sound.
  oracle::RunOptions ro;
  ro.observe_values = true;
  const auto claims = sut::builtin_bounds(k.root);
  for (int64_t x = 0; x <= 40; x += 4) {
    ir::Inputs in;
    in.vars["x"] = x;
    auto run = oracle::run(k.root, in, ro);
    ASSERT_TRUE(run.ok());
    auto v = find_unsound_bounds(k.root, claims, run->observed);
    EXPECT_FALSE(v) << "x = " << x << ": " << v->text;
  }
}

TEST(CheckBounds, TheBuiltinAnalysisHoldsOnEveryExample) {
  // ir/analysis is what the built-in rules trust: every value the oracle computes on every
  // example kernel lies in its bounds, on several input seeds.
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(UOPFUZZ_SOURCE_DIR "/corpus/examples")) {
    if (e.path().extension() != ".uop") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string file = e.path().filename().string();
    ir::Context ctx;
    auto parsed_kernel = ir::parse_kernel(ctx, text.str());
    ASSERT_TRUE(parsed_kernel.ok()) << file;
    const ir::Kernel* parsed = &parsed_kernel->kernel;
    if (ir::is_tensor_program(parsed->root)) continue;
    const auto claims = sut::builtin_bounds(parsed->root);
    oracle::RunOptions ro;
    ro.observe_values = true;
    for (uint64_t seed = 0; seed < 3; ++seed) {
      auto run = oracle::run(parsed->root, ir::make_inputs(*parsed, seed), ro);
      if (!run || run->status != ir::RunStatus::Ok) continue;
      auto v = find_unsound_bounds(parsed->root, claims, run->observed);
      EXPECT_FALSE(v) << file << " seed " << seed << ": " << v->text;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
}

}  // namespace
}  // namespace uopfuzz::check
