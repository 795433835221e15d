// The program check and the campaign on the tensor-stage rules: the check reports the
// lowering's rule hits; a wrong lowering is blamed on the planted bug that alone explains it,
// else on the tensor rule whose switching off alone makes it right; a lowering that leaves
// an output unwritten is a VerifierFailure finding that a campaign keeps and whose
// minimized case the faithful lowering passes at the options it records.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "check/program_check.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus_header.h"
#include "fuzz/tensor_graph.h"
#include "ir/parser.h"
#include "schedule/lower.h"

namespace uopfuzz::check {
namespace {

// Row sums of x: [2,4] broadcast back and added to x: the sum's buffer has a size-1 axis,
// which dead-axis removal drops.
constexpr const char* kRowSumPlusX = R"(
%x = PARAM slot=0 in : int32[2,4]
%s = REDUCE_AXIS %x op=ADD axes=[1] : int32[2,1]
%e = EXPAND %s : int32[2,4]
%a = ADD %e %x : int32[2,4]
%o = REALIZE %a : void
)";

// The sum of x: [4] as an output of shape [1]: its one axis is all dead; deleting the
// BUFFERIZE leaves the output written by no kernel.
constexpr const char* kScalarOutput = R"(
%x = PARAM slot=0 in : int32[4]
%s = REDUCE_AXIS %x op=ADD axes=[0] : int32[1]
%o = REALIZE %s : void
)";

ProgramCheckOptions with_bug(schedule::LoweringBug bug) {
  ProgramCheckOptions po;
  po.check.seeds = 2;
  po.lower.bugs.insert(bug);
  return po;
}

TEST(ProgramCheckLowering, ReportsTheTensorRuleHits) {
  ir::Context ctx;
  const ir::Kernel k = ir::parse_kernel(ctx, kRowSumPlusX)->kernel;
  ProgramCheckResult r = check_program(ctx, k, {});
  ASSERT_FALSE(r.unsupported) << *r.unsupported;
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
  EXPECT_GE(r.lowering_hits["dead_axis"], 1u);
  // Switched off, it does not fire.
  ProgramCheckOptions off;
  off.lower.disabled.insert("dead_axis");
  EXPECT_EQ(check_program(ctx, k, off).lowering_hits.count("dead_axis"), 0u);
}

TEST(ProgramCheckLowering, AWrongRuleIsTheCulpritWithoutAPlantedBugToBlame) {
  ir::Context ctx;
  const ir::Kernel k = ir::parse_kernel(ctx, kRowSumPlusX)->kernel;
  const ProgramCheckOptions po = with_bug(schedule::LoweringBug::DeadAxisDropsUsed);
  ProgramCheckResult r = check_program(ctx, k, po);
  ASSERT_EQ(r.kind, FindingKind::Mismatch) << r.details;
  // The planted bug explains it first; without that loop (the rule bisection alone), the
  // culprit is the first rule, in tensor_rule_names() order, that fired and whose switching
  // off alone makes the program check clean.
  EXPECT_EQ(sign_program_finding(ctx, k, po, r).culprit, "dead-axis-drops-used");
  Signature sig;
  const std::string culprit = tensor_rule_culprit(ctx, k, po, r.backend, sig);
  ASSERT_NE(culprit, "");
  EXPECT_GE(sig.checks_run, 1);
  auto clean_without = [&](const std::string& rule) {
    ProgramCheckOptions without = po;
    without.lower.disabled.insert(rule);
    ProgramCheckResult w = check_program(ctx, k, without);
    return !w.unsupported && w.kind == FindingKind::None;
  };
  EXPECT_TRUE(clean_without(culprit));
  for (const std::string& rule : schedule::tensor_rule_names()) {
    if (rule == culprit) break;
    if (r.lowering_hits.count(rule)) {
      EXPECT_FALSE(clean_without(rule)) << rule;
    }
  }
  // With the culprit already off there is another (or none) to blame, never itself.
  ProgramCheckOptions off = po;
  off.lower.disabled.insert(culprit);
  Signature other;
  EXPECT_NE(tensor_rule_culprit(ctx, k, off, r.backend, other), culprit);
}

TEST(ProgramCheckLowering, AnUnwrittenOutputIsAVerifierFailureFinding) {
  ir::Context ctx;
  const ir::Kernel k = ir::parse_kernel(ctx, kScalarOutput)->kernel;
  EXPECT_EQ(check_program(ctx, k, {}).kind, FindingKind::None);
  const ProgramCheckOptions po = with_bug(schedule::LoweringBug::DeadAxisDeletesScalar);
  ProgramCheckResult r = check_program(ctx, k, po);
  ASSERT_FALSE(r.unsupported) << *r.unsupported;
  EXPECT_EQ(r.kind, FindingKind::VerifierFailure);
  EXPECT_NE(r.details.find("does not verify"), std::string::npos) << r.details;
  EXPECT_EQ(sign_program_finding(ctx, k, po, r).culprit, "dead-axis-deletes-scalar");
}

// The lowering takes what the tensor oracle takes (SEMANTICS.md, "REDUCE_AXIS"): a
// quantized MUL neither takes (the verifier already refuses it) is declined as
// unsupported; the ADD beside it both take, so a lowering that declined it would be a
// finding (check_program: "declines a program the tensor oracle runs").
TEST(ProgramCheckLowering, WhatNeitherTheOracleNorTheLoweringTakesIsDeclined) {
  auto program = [](const char* op) {
    return fmt::format(
        "%x = CONST 3 : qint8<0.5,0>[4]\n"
        "%s = REDUCE_AXIS %x op={} axes=[0] : qint8<0.5,0>[1]\n"
        "%o = REALIZE %s : void\n",
        op);
  };
  ir::Context ctx;
  auto mul = ir::parse_kernel(ctx, program("MUL"));
  ASSERT_TRUE(mul.ok()) << mul.error().message;
  ProgramCheckResult r = check_program(ctx, mul->kernel, {});
  ASSERT_TRUE(r.unsupported);
  EXPECT_NE(r.unsupported->find("REDUCE_AXIS MUL"), std::string::npos) << *r.unsupported;
  EXPECT_EQ(r.kind, FindingKind::None);
  auto add = ir::parse_kernel(ctx, program("ADD"));
  ASSERT_TRUE(add.ok()) << add.error().message;
  r = check_program(ctx, add->kernel, {});
  EXPECT_FALSE(r.unsupported) << *r.unsupported;
  EXPECT_EQ(r.kind, FindingKind::None) << r.details;
}

TEST(ProgramCheckLowering, ACampaignKeepsTheVerifierFailureAndItsCaseReplaysClean) {
  fuzz::CampaignOptions o;
  o.seconds = 60;
  o.max_graphs = 3;
  o.seed = 5;
  o.level = fuzz::Level::Tensor;
  o.check.seeds = 2;
  o.lower.bugs.insert(schedule::LoweringBug::DeadAxisDeletesScalar);
  o.tensor_source = [](ir::Context& ctx, uint64_t) {
    return ir::parse_kernel(ctx, kScalarOutput)->kernel;
  };
  fuzz::CampaignResult r = fuzz::run_campaign(
      o, [](ir::Context& ctx, uint64_t) { return ir::parse_kernel(ctx, kScalarOutput)->kernel; },
      fuzz::reducer_shrinker(10));
  ASSERT_EQ(r.new_findings.size(), 1u);
  const fuzz::NewFinding& f = r.new_findings.front();
  EXPECT_EQ(f.signature.kind, FindingKind::VerifierFailure) << f.details;
  EXPECT_EQ(f.signature.culprit, "dead-axis-deletes-scalar") << f.details;
  // Its corpus entry, read as replay reads it: the faithful lowering at the recorded
  // options passes it.
  ir::Context ctx;
  auto entry = ir::parse_kernel(ctx, f.corpus_text);
  ASSERT_TRUE(entry.ok()) << f.corpus_text;
  auto recorded = fuzz::read_corpus_header(entry->kernel.header, f.corpus_text);
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  ASSERT_TRUE(recorded->pcontig && recorded->split_reduce_threshold) << f.corpus_text;
  const schedule::LowerOptions drawn = fuzz::lowering_for(o, f.graph_seed);
  EXPECT_EQ(*recorded->pcontig, drawn.pcontig);
  EXPECT_EQ(*recorded->split_reduce_threshold, drawn.split_reduce_threshold);
  ProgramCheckOptions po;
  po.check = fuzz::replay_check_options(*recorded, entry->kernel.header);
  po.lower = fuzz::with_recorded_lowering({}, *recorded);
  ProgramCheckResult replay = check_program(ctx, entry->kernel, po);
  EXPECT_FALSE(replay.unsupported);
  EXPECT_EQ(replay.kind, FindingKind::None) << replay.details;
  // With the bug back on, the case still shows it.
  po.lower.bugs.insert(schedule::LoweringBug::DeadAxisDeletesScalar);
  EXPECT_EQ(check_program(ctx, entry->kernel, po).kind, FindingKind::VerifierFailure);
}

}  // namespace
}  // namespace uopfuzz::check
