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
  // Without optimization the range split never runs; that result is not a fixed point of
  // the optimizing pipeline, which splits it on the second pass.
  ir::Context ctx;
  ir::Kernel k = load(ctx, kExamples / "range_mod_split.uop");
  simplifier::SimplifyOptions unoptimized;
  unoptimized.optimize = false;
  simplifier::SimplifyResult first = simplifier::simplify(ctx, k.root, unoptimized);
  ASSERT_TRUE(first.converged);
  auto why = not_idempotent(ctx, first, simplifier::SimplifyOptions{});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("split_range"), std::string::npos) << *why;
  // Under its own options the same result is one.
  EXPECT_FALSE(not_idempotent(ctx, first, unoptimized).has_value()) << *why;
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
