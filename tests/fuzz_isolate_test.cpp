// Isolation: a crash or hang in the code under test becomes a finding, and an isolated
// campaign over several workers tries exactly the graphs a single process would.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/campaign.h"
#include "fuzz/corpus.h"
#include "fuzz/isolate.h"
#include "gen/generator.h"
#include "ir/parser.h"
#include "ir/rewrite.h"

namespace uopfuzz::fuzz {
namespace {

using ir::Op;
using Status = ChildOutcome::Status;

TEST(Isolate, ReturnsTheChildsResult) {
  ChildOutcome out =
      run_isolated([] { return std::string(100000, 'x'); }, 10);  // more than a pipe holds
  EXPECT_EQ(out.status, Status::Returned);
  EXPECT_EQ(out.output, std::string(100000, 'x'));
}

TEST(Isolate, ACrashIsAnOutcomeWithItsSignal) {
  ChildOutcome out = run_isolated([]() -> std::string { std::abort(); }, 10);
  EXPECT_EQ(out.status, Status::Crashed);
  EXPECT_EQ(out.signal, SIGABRT);
  EXPECT_EQ(out.rule, "");  // outside every rule
  EXPECT_EQ(out.describe(), "crashed (SIGABRT)");
}

TEST(Isolate, AHangIsStoppedAtTheTimeout) {
  ChildOutcome out = run_isolated(
      []() -> std::string {
        while (true) ::pause();
      },
      0.2);
  EXPECT_EQ(out.status, Status::TimedOut);
}

// A rule set whose one rule crashes or hangs on a CONST 7: the breadcrumb names it.
ChildOutcome rewrite_with_faulty_rule(bool hang) {
  return run_isolated(
      [hang]() -> std::string {
        ir::Context ctx;
        ir::UOp seven = ctx.const_int(ir::dtypes::Int32, 7);
        ir::RuleSet rules;
        rules.add("harmless", ir::Pat::op(Op::Add),
                  [](ir::RewriteCtx&, const ir::Bindings&) { return ir::UOp(); });
        rules.add("faulty_rule", ir::Pat::op(Op::Const).named("c"),
                  [hang](ir::RewriteCtx&, const ir::Bindings&) {
                    if (hang)
                      while (true) ::pause();
                    std::abort();
                    return ir::UOp();
                  });
        ir::graph_rewrite(ctx, seven, rules);
        return "survived";
      },
      0.3);
}

TEST(Isolate, TheBreadcrumbNamesTheRuleThatCrashed) {
  ChildOutcome out = rewrite_with_faulty_rule(false);
  EXPECT_EQ(out.status, Status::Crashed);
  EXPECT_EQ(out.rule, "faulty_rule");
  EXPECT_EQ(out.describe(), "crashed (SIGABRT) in faulty_rule");
}

TEST(Isolate, TheBreadcrumbNamesTheRuleThatHung) {
  ChildOutcome out = rewrite_with_faulty_rule(true);
  EXPECT_EQ(out.status, Status::TimedOut);
  EXPECT_EQ(out.rule, "faulty_rule");
}

TEST(Isolate, NoBreadcrumbOutsideRules) {
  EXPECT_EQ(ir::current_rule(), nullptr);
}

GraphSource generator() {
  return
      [](ir::Context& ctx, uint64_t gs) { return gen::generate(ctx, gen::GenPolicy{}, gs).kernel; };
}

CampaignOptions isolated(int jobs, uint64_t graphs) {
  CampaignOptions o;
  o.seconds = 120;
  o.max_graphs = graphs;
  o.seed = 5;
  o.isolate = true;
  o.jobs = jobs;
  o.check.seeds = 1;
  return o;
}

TEST(IsolatedCampaign, WorkersTryTheSameGraphsAsOneProcess) {
  CampaignOptions one = isolated(1, 300);
  one.isolate = false;
  CampaignResult a = run_campaign(one, generator());
  CampaignResult b = run_campaign(isolated(3, 300), generator());
  EXPECT_EQ(b.totals.graphs, 300u);
  EXPECT_EQ(b.totals.jobs, 3);
  EXPECT_EQ(b.totals.workers_lost, 0u);
  // The rule hits are a sum over the graphs: equal only if the same graphs were checked.
  EXPECT_EQ(a.totals.rule_hits, b.totals.rule_hits);
  EXPECT_EQ(a.totals.findings, 0u);
  EXPECT_EQ(b.totals.findings, 0u);
}

// A planted crash or hang neither ends the campaign nor is lost: it is signed by its
// rule, reduced in isolation and written; the faithful simplifier passes the case.
void expect_failure_found(simplifier::Bug bug, const std::string& signature) {
  auto dir =
      std::filesystem::temp_directory_path() / ("uopfuzz_isolate_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CampaignOptions o = isolated(2, 40);
  o.check.simplify.bugs.enable(bug);
  o.graph_timeout_s = 1;
  o.triage_timeout_s = 0.3;
  o.corpus_dir = dir.string();
  CampaignResult r = run_campaign(o, generator(), reducer_shrinker(10));
  EXPECT_EQ(r.totals.graphs, 40u) << "the campaign went on after the failures";
  EXPECT_GE(r.totals.workers_lost, 1u);
  ASSERT_EQ(r.new_findings.size(), 1u);
  const NewFinding& f = r.new_findings[0];
  EXPECT_EQ(f.signature.text(), signature);
  EXPECT_LE(f.nodes_reduced, 10u) << f.reduced_text;
  ASSERT_FALSE(f.path.empty()) << f.write_error << " " << f.details;
  std::ifstream in(f.path);
  std::stringstream ss;
  ss << in.rdbuf();
  ChildOutcome faithful = run_isolated(
      [&] {
        ir::Context ctx;
        auto k = ir::parse_kernel(ctx, ss.str());
        if (!k.ok()) return std::string("unparsable");
        check::CheckOptions co;
        co.vars.insert(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
        return std::string(check::finding_kind_name(check::check_kernel(ctx, k->kernel, co).kind));
      },
      10);
  EXPECT_EQ(faithful.status, Status::Returned);
  EXPECT_EQ(faithful.output, "none");
  std::filesystem::remove_all(dir);
}

TEST(IsolatedCampaign, ACrashingRuleBecomesAFinding) {
  expect_failure_found(simplifier::Bug::FoldReduceUncheckedEnd, "crash/fold_reduce/oracle");
}

TEST(IsolatedCampaign, AHangingRuleBecomesAFinding) {
  expect_failure_found(simplifier::Bug::FoldReduceEmptyLoop, "timeout/fold_reduce/oracle");
}

TEST(CorpusTemporaries, StaleOnesOfDeadWritersAreRemoved) {
  auto dir =
      std::filesystem::temp_directory_path() / ("uopfuzz_stale_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string live =
      ".abc.uop." + std::to_string(::getpid()) + ".tmp";  // this process: still writing
  const std::string dead = ".def.uop.999999999.tmp";      // no such process
  for (const std::string& n : {live, dead, std::string("keep.uop")})
    std::ofstream(dir / n) << "partial";
  EXPECT_EQ(remove_stale_temporaries(dir.string()), 1);
  EXPECT_TRUE(std::filesystem::exists(dir / live));
  EXPECT_FALSE(std::filesystem::exists(dir / dead));
  EXPECT_TRUE(std::filesystem::exists(dir / "keep.uop"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace uopfuzz::fuzz
