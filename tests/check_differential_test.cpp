// The differential check's verdict when a run does not finish within the oracle's step
// limit: the original's seed is skipped, the rewrite's is a finding.
#include <gtest/gtest.h>

#include "check/differential.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"
#include "tests/support/bug_examples.h"

namespace uopfuzz::check {
namespace {

struct Steps {
  uint64_t original = 0, rewrite = 0;
};

// The oracle steps of the original and of its rewrite on the check's first input seed.
Steps steps_on_first_seed(ir::Context& ctx, const ir::Kernel& k, const CheckOptions& o) {
  const oracle::Inputs in = oracle::make_inputs(k.root, o.base_seed, o.vars);
  const ir::UOp rewritten = simplifier::simplify(ctx, k.root, o.simplify).root;
  auto a = oracle::run(k.root, in);
  auto b = oracle::run(rewritten, in);
  EXPECT_TRUE(a.ok() && b.ok());
  return {a.ok() ? a->steps : 0, b.ok() ? b->steps : 0};
}

// The planted merge-more-divmod makes the rewrite of this example run longer than the
// original (more divisions per iteration): a step limit between the two stops only the rewrite.
class StepLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = ir::parse_kernel(ctx_, test_support::read_example("adjacent_ranges"));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    kernel_ = parsed->kernel;
    options_.seeds = 1;
    options_.simplify.bugs.enable(simplifier::Bug::MergeMoreDivmod);
    steps_ = steps_on_first_seed(ctx_, kernel_, options_);
    ASSERT_GT(steps_.rewrite, steps_.original)
        << "the planted merge no longer makes this rewrite longer";
  }

  ir::Context ctx_;
  ir::Kernel kernel_;
  CheckOptions options_;
  Steps steps_;
};

TEST_F(StepLimit, ARewriteStoppedWhereTheOriginalFinishedIsAFinding) {
  options_.max_steps = (steps_.original + steps_.rewrite) / 2;
  const CheckResult r = check_kernel(ctx_, kernel_, options_);
  EXPECT_EQ(r.kind, FindingKind::RewriteStepLimit) << r.details;
  EXPECT_EQ(finding_kind_name(r.kind), "rewrite-step-limit");
  EXPECT_NE(r.details.find("step limit"), std::string::npos) << r.details;
}

TEST_F(StepLimit, WithRoomForBothRunsTheCheckIsClean) {
  options_.max_steps = steps_.rewrite + 1;
  const CheckResult r = check_kernel(ctx_, kernel_, options_);
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  EXPECT_EQ(r.seeds_run, 1);
}

TEST_F(StepLimit, AnOriginalStoppedByTheLimitIsASkippedSeed) {
  options_.max_steps = steps_.original / 2;
  const CheckResult r = check_kernel(ctx_, kernel_, options_);
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  EXPECT_EQ(r.seeds_skipped, 1);
  EXPECT_EQ(r.seeds_run, 0);
}

}  // namespace
}  // namespace uopfuzz::check
