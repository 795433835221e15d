// Whole-pipeline checks (check/pipeline_check.h) against a fake simplifier that runs graphs
// (tests/fake_simplifier.cpp, `run` frames): each device's outputs against the tensor oracle,
// the stage a disagreement points at, a device that raises, declines, and the `run` request's
// frames as the client reads them.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "check/dedup.h"
#include "check/pipeline_check.h"
#include "check/program_check.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/program.h"
#include "schedule/lower.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::check {
namespace {

// arange(12).reshape(3,4).sum(1) as [3,4] input rows summed: x = [0..11] gives [6, 22, 38].
constexpr const char* kRowSums =
    "@input 0 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n"
    "%x = PARAM slot=0 in : int32[12]\n"
    "%m = RESHAPE %x : int32[3,4]\n"
    "%s = REDUCE_AXIS %m op=ADD axes=[1] : int32[3,1]\n"
    "%o = RESHAPE %s : int32[3]\n"
    "%r = REALIZE %o : void\n";

ir::Kernel parse(ir::Context& ctx, const char* text) {
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed->kernel;
}

std::string fake_spec(const std::string& args) {
  return std::string("external:exec ") + UOPFUZZ_FAKE_SIMPLIFIER +
         " --capabilities \"hits run\" --devices \"A B\" " + args;
}

ProgramCheckResult check_with(ir::Context& ctx, const ir::Kernel& program,
                              const std::string& args) {
  auto sut = sut::make_simplifier(fake_spec(args));
  EXPECT_TRUE(sut.ok()) << sut.error().message;
  ProgramCheckOptions options;
  options.check.simplifier = *sut;
  options.check.seeds = 1;
  return check_program(ctx, program, options);
}

// The built-in lowering of `program`, written to a file the fake hands back as its kernels.
std::string builtin_program_file(ir::Context& ctx, const ir::Kernel& program,
                                 const std::string& name) {
  auto lowered = schedule::lower(ctx, program.root, {});
  EXPECT_TRUE(lowered.ok());
  const std::string path = std::string(::testing::TempDir()) + name;
  std::ofstream(path) << ir::print_program(*lowered);
  return path;
}

TEST(PipelineCheck, DevicesThatAgreeWithTheTensorOracleAreClean) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  ProgramCheckResult r =
      check_with(ctx, program, "--run-outputs \"A=0 [6, 22, 38];B=0 [6, 22, 38]\"");
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  EXPECT_FALSE(r.unsupported) << *r.unsupported;
  EXPECT_EQ(r.seeds_run, 1);
  EXPECT_EQ(r.simplified.hits["fake_schedule_rule"], 1u);
  EXPECT_GT(r.child_seconds, 0);
}

TEST(PipelineCheck, OneDeviceWrongWhereAnotherAgreesIsThatDevicesFault) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  ProgramCheckResult r =
      check_with(ctx, program, "--run-outputs \"A=0 [6, 22, 38];B=0 [6, 23, 38]\"");
  ASSERT_EQ(r.kind, FindingKind::Mismatch) << r.details;
  EXPECT_EQ(r.backend,
            device_executor(fake_spec("--run-outputs \"A=0 [6, 22, 38];B=0 [6, 23, 38]\""), "B"));
  ASSERT_TRUE(r.mismatch);
  EXPECT_EQ(r.mismatch->index, 1u);
  EXPECT_EQ(r.mismatch->expected, "22");
  EXPECT_EQ(r.mismatch->got, "23");
  EXPECT_TRUE(r.culprit.ends_with("-device")) << r.culprit;
  // The signature takes the stage the check named.
  ProgramCheckOptions options;
  EXPECT_EQ(sign_program_finding(ctx, program, options, r).culprit, r.culprit);
}

TEST(PipelineCheck, EveryDeviceWrongWithoutItsKernelsIsThePipelinesFault) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  ProgramCheckResult r =
      check_with(ctx, program, "--run-outputs \"A=0 [6, 22, 0];B=0 [6, 22, 0]\"");
  ASSERT_EQ(r.kind, FindingKind::Mismatch) << r.details;
  EXPECT_TRUE(r.culprit.ends_with("-pipeline")) << r.culprit;
}

TEST(PipelineCheck, KernelsThatAgreeOnTheOracleMakeEveryDeviceWrongCodegensFault) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  const std::string file = builtin_program_file(ctx, program, "pipeline_right_kernels.txt");
  ProgramCheckResult r = check_with(
      ctx, program, "--run-outputs \"A=0 [6, 22, 0];B=0 [6, 22, 0]\" --run-program " + file);
  ASSERT_EQ(r.kind, FindingKind::Mismatch) << r.details;
  EXPECT_TRUE(r.culprit.ends_with("-codegen")) << r.culprit;
  EXPECT_EQ(r.kernels, 1u);
}

TEST(PipelineCheck, KernelsThatDisagreeOnTheOracleAreTheSchedulersFault) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  // Handed back: the kernels of another program (row maxima, not sums) over the same buffers.
  ir::Context other_ctx;
  std::string text = kRowSums;
  text.replace(text.find("op=ADD"), 6, "op=MAX");
  const ir::Kernel other = parse(other_ctx, text.c_str());
  const std::string file = builtin_program_file(other_ctx, other, "pipeline_wrong_kernels.txt");
  ProgramCheckResult r = check_with(
      ctx, program, "--run-outputs \"A=0 [3, 7, 11];B=0 [3, 7, 11]\" --run-program " + file);
  ASSERT_EQ(r.kind, FindingKind::Mismatch) << r.details;
  EXPECT_EQ(r.backend, "oracle");
  EXPECT_TRUE(r.culprit.ends_with("-schedule")) << r.culprit;
}

TEST(PipelineCheck, ADeviceThatRaisesIsACrashSignedWhereItRaised) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  ProgramCheckResult r =
      check_with(ctx, program, "--run-outputs \"A=0 [6, 22, 38]\" --run-error B");
  ASSERT_EQ(r.kind, FindingKind::Crash) << r.details;
  ASSERT_TRUE(r.simplifier_failure);
  EXPECT_EQ(r.simplifier_failure->where, "fake_device.py:7");
  EXPECT_EQ(r.culprit, failure_culprit(*r.simplifier_failure));
  EXPECT_TRUE(r.backend.ends_with("-B")) << r.backend;
}

TEST(PipelineCheck, OutputsThatDoNotFitTheProgramAreAProtocolError) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  ProgramCheckResult r = check_with(ctx, program, "--run-outputs \"A=0 [6, 22];B=0 [6, 22, 38]\"");
  EXPECT_EQ(r.kind, FindingKind::Protocol) << r.details;
}

TEST(PipelineCheck, ADeviceIsNotAskedForMoreWorkThanItsDeclaredLimit) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);  // 12 + 12 + 3 + 3 = 30 elements
  // B would be wrong, but the program is beyond its limit: only A runs it.
  ProgramCheckResult r = check_with(
      ctx, program, "--run-outputs \"A=0 [6, 22, 38];B=0 [0, 0, 0]\" --device-limits B=29");
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  EXPECT_EQ(r.seeds_run, 1);
  // Within it, B runs and is caught.
  r = check_with(ctx, program,
                 "--run-outputs \"A=0 [6, 22, 38];B=0 [0, 0, 0]\" --device-limits B=30");
  EXPECT_EQ(r.kind, FindingKind::Mismatch) << r.details;
  // Beyond every device's limit, the program is not checked: declined, not a finding.
  r = check_with(ctx, program, "--run-outputs \"A=0 [6, 22, 38]\" --device-limits \"A=1 B=1\"");
  EXPECT_EQ(r.kind, FindingKind::None);
  ASSERT_TRUE(r.unsupported);
  EXPECT_NE(r.unsupported->find("[device-limits]"), std::string::npos) << *r.unsupported;
}

TEST(PipelineCheck, ASimplifierWithoutRunsKeepsTheBuiltInLowering) {
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, kRowSums);
  auto sut = sut::make_simplifier(std::string("external:exec ") + UOPFUZZ_FAKE_SIMPLIFIER +
                                  " --mode echo");
  ASSERT_TRUE(sut.ok());
  CheckOptions options;
  options.simplifier = *sut;
  EXPECT_FALSE(runs_pipeline(options, program.root));
  ProgramCheckOptions po;
  po.check = options;
  po.check.seeds = 1;
  ProgramCheckResult r = check_program(ctx, program, po);
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  EXPECT_EQ(r.kernels, 1u);  // lowered by uopfuzz, each kernel echoed back
}

}  // namespace
}  // namespace uopfuzz::check
