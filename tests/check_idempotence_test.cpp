// The fixed-point check: a converged rewrite that a second simplify changes is reported
// (with the rules that fired again), and the simplifier's own results on every example
// are fixed points.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "check/differential.h"
#include "check/idempotence.h"
#include "ir/parser.h"

namespace uopfuzz::check {
namespace {

ir::Kernel load(ir::Context& ctx, const std::filesystem::path& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  auto r = ir::parse_kernel(ctx, ss.str());
  EXPECT_TRUE(r.ok()) << path << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->kernel : ir::Kernel{};
}

const std::filesystem::path kExamples =
    std::filesystem::path(UOPFUZZ_SOURCE_DIR) / "corpus/examples";

TEST(Idempotence, AResultThatIsNotAFixedPointIsReported) {
  // out[0] = in[0] + 0: simplified with add_zero switched off, the ADD stays; that result
  // is not a fixed point of the simplifier with the rule on, which fires on the second run.
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx,
                                 "%0 = PARAM slot=0 size=1 out : int32\n"
                                 "%1 = CONST 0 : index\n"
                                 "%2 = INDEX %0 %1 : int32\n"
                                 "%3 = PARAM slot=1 size=1 in : int32\n"
                                 "%4 = INDEX %3 %1 : int32\n"
                                 "%5 = LOAD %4 : int32\n"
                                 "%6 = CONST 0 : int32\n"
                                 "%7 = ADD %5 %6 : int32\n"
                                 "%8 = STORE %2 %7 : void\n"
                                 "%9 = SINK %8 : void\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  simplifier::SimplifyOptions without;
  without.disabled = {"add_zero"};
  simplifier::SimplifyResult first = simplifier::simplify(ctx, parsed->kernel.root, without);
  ASSERT_TRUE(first.converged);
  auto why = not_idempotent(ctx, first, simplifier::SimplifyOptions{});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("add_zero (1)"), std::string::npos) << *why;
  // Under its own options the same result is one.
  EXPECT_FALSE(not_idempotent(ctx, first, without).has_value()) << *why;
}

// The optimization stages run once each (as tinygrad's): a range split twice on a second
// run (r % 4 split off first, then r % 2 of the inner range) is by design, not a finding.
TEST(Idempotence, TheOneShotStagesAreNotRunAgain) {
  ir::Context ctx;
  ir::Kernel k = load(ctx, kExamples / "range_mod_split.uop");
  simplifier::SimplifyOptions unoptimized;
  unoptimized.optimize = false;
  simplifier::SimplifyResult first = simplifier::simplify(ctx, k.root, unoptimized);
  ASSERT_TRUE(first.converged);
  // The optimizing pipeline would still split it...
  EXPECT_NE(simplifier::simplify(ctx, first.root).root, first.root);
  // ...but only the final stage is asked for a fixed point.
  EXPECT_FALSE(not_idempotent(ctx, first, simplifier::SimplifyOptions{}).has_value());
}

TEST(Idempotence, TheSimplifiersResultsOnTheExamplesAreFixedPoints) {
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(kExamples)) {
    if (e.path().extension() != ".uop") continue;
    ir::Context ctx;
    ir::Kernel k = load(ctx, e.path());
    simplifier::SimplifyResult first = simplifier::simplify(ctx, k.root);
    if (!first.converged) continue;
    auto why = not_idempotent(ctx, first, simplifier::SimplifyOptions{});
    EXPECT_FALSE(why.has_value()) << e.path() << ": " << why.value_or("");
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

TEST(Idempotence, TheKindHasItsName) {
  EXPECT_EQ(finding_kind_name(FindingKind::NotIdempotent), "not-idempotent");
}

}  // namespace
}  // namespace uopfuzz::check
