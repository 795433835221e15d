// The latency detector on whole Programs (check/program_latency.h): a compiled Program runs
// like the program runner, identical Programs raise no regression, a Program that does the
// reduce's work many times over is found slower, and a planted latency lowering bug is a
// latency finding of the program check signed with its name. Part of the serially run
// latency binary: timings taken under the other tests' load would test the machine.

#include "check/program_latency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "check/dedup.h"
#include "check/program_check.h"
#include "ir/parser.h"
#include "ir/run_io.h"
#include "schedule/lower.h"

namespace uopfuzz::check {
namespace {

using namespace ir;

// Row sums broadcast back: the faithful lowering keeps the sums in a buffer (two kernels);
// inlining them would recompute a row's 128-element sum for each of its 128 elements.
constexpr const char* kRowSums = R"(@name row_sums_broadcast
%x = PARAM slot=0 in : float32[128,128]
%s = REDUCE_AXIS %x op=ADD axes=[1] : float32[128,1]
%e = EXPAND %s : float32[128,128]
%y = SUB %x %e : float32[128,128]
%r = REALIZE %y : void
)";

class ProgramLatency : public ::testing::Test {
 protected:
  Context ctx_;
  Kernel program_;
  Program lowered_;
  Inputs inputs_;

  void SetUp() override {
    auto k = parse_kernel(ctx_, kRowSums);
    ASSERT_TRUE(k.ok()) << k.error().message;
    program_ = k->kernel;
    auto p = schedule::lower(ctx_, program_.root);
    ASSERT_TRUE(p.ok()) << p.error().message;
    lowered_ = schedule::simplify_program(ctx_, *p).program;
    ASSERT_EQ(lowered_.kernels.size(), 2u);
    inputs_ = make_inputs(program_, 0, {});
  }
};

TEST_F(ProgramLatency, ACompiledProgramGivesTheProgramRunnersOutputs) {
  backends::Backend* cpu = backends::find_backend("cpu");
  ASSERT_NE(cpu, nullptr);
  auto compiled = CompiledProgram::compile(*cpu, lowered_);
  ASSERT_TRUE(compiled.ok()) << compiled.error().message;
  EXPECT_EQ((*compiled)->kernels(), 2u);
  auto mine = (*compiled)->run(inputs_);
  ASSERT_TRUE(mine.ok()) << mine.error().message;
  auto runner = backends::run_program(*cpu, lowered_, inputs_);
  ASSERT_TRUE(runner.ok()) << runner.error().message;
  ASSERT_EQ(mine->outputs.size(), 1u);
  const Buffer& got = mine->outputs.at(0);
  const Buffer& want = runner->outputs.at(0);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_FALSE(first_difference(want, &got).has_value());
  // Every element of a row minus the row's sum: row 0, element 0 by hand from the inputs.
  double row = 0;
  for (size_t j = 0; j < 128; ++j) row += inputs_.buffers.at(0).get(j).f;
  EXPECT_NEAR(got.get(0).f, inputs_.buffers.at(0).get(0).f - row, 1e-3 * (1 + std::abs(row)));
}

TEST_F(ProgramLatency, TimingSumsEveryKernelOfEveryRun) {
  backends::Backend* cpu = backends::find_backend("cpu");
  ASSERT_NE(cpu, nullptr);
  auto compiled = CompiledProgram::compile(*cpu, lowered_);
  ASSERT_TRUE(compiled.ok()) << compiled.error().message;
  auto t = (*compiled)->time(inputs_, 5);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 5u);
  for (double s : *t) EXPECT_GT(s, 0);
  EXPECT_TRUE((*compiled)->device_times().empty());  // the cpu has no device clock
}

TEST_F(ProgramLatency, IdenticalProgramsRaiseNoConfirmedRegression) {
  LatencyOptions lo;
  int confirmed = 0;
  for (int trial = 0; trial < 5; ++trial) {
    auto v = detect_program_regression(lowered_, lowered_, inputs_, lo);
    ASSERT_TRUE(v.ok()) << v.error().message;
    confirmed += v->confirmed;
  }
  EXPECT_EQ(confirmed, 0);
}

TEST_F(ProgramLatency, AProgramRepeatingItsReduceEightTimesIsFoundSlower) {
  // A hand-made slow alternative: the reduce kernel runs eight times before its consumer.
  Program slow = lowered_;
  slow.kernels.clear();
  for (int i = 0; i < 8; ++i) slow.kernels.push_back(lowered_.kernels[0]);
  slow.kernels.push_back(lowered_.kernels[1]);
  LatencyOptions lo;
  auto v = detect_program_regression(lowered_, slow, inputs_, lo);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_TRUE(v->confirmed) << v->summary();
  EXPECT_GE(v->first.ratio, 1.5) << v->summary();
  // And the other way round it is no regression at all.
  auto back = detect_program_regression(slow, lowered_, inputs_, lo);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->first.regressed) << back->summary();
}

TEST_F(ProgramLatency, AnUnknownBackendIsAnError) {
  LatencyOptions lo;
  lo.backend = "no-such-backend";
  EXPECT_FALSE(detect_program_regression(lowered_, lowered_, inputs_, lo).ok());
}

TEST_F(ProgramLatency, TheFaithfulLoweringOfRowSumsIsNoFinding) {
  ProgramCheckOptions po;
  po.check.latency = LatencyOptions{};
  ProgramCheckResult r = check_program(ctx_, program_, po);
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  ASSERT_TRUE(r.latency.has_value());
  EXPECT_FALSE(r.latency->regressed.has_value());
}

TEST_F(ProgramLatency, InliningTheRowSumsIsALatencyFindingSignedWithTheBug) {
  schedule::LowerOptions bugged;
  bugged.bugs.insert(schedule::LoweringBug::InlineReduceInScope);
  auto with_bug = schedule::lower(ctx_, program_.root, bugged);
  ASSERT_TRUE(with_bug.ok()) << with_bug.error().message;
  ASSERT_NE(print_program(*with_bug), print_program(*schedule::lower(ctx_, program_.root)))
      << "inline-reduce-in-scope no longer changes the row sums' lowering";
  ProgramCheckOptions po;
  po.lower = bugged;
  po.check.latency = LatencyOptions{};
  ProgramCheckResult r = check_program(ctx_, program_, po);
  ASSERT_EQ(r.kind, FindingKind::Latency) << r.details;
  Signature sig = sign_program_finding(ctx_, program_, po, r);
  EXPECT_EQ(sig.text(), "latency/inline-reduce-in-scope/cpu");
  ASSERT_NE(r.latency->finding(), nullptr);
  EXPECT_GE(r.latency->finding()->verdict.first.ratio, 1.5);
}

}  // namespace
}  // namespace uopfuzz::check
