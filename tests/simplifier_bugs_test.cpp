// Every planted bug that changes results is caught by the differential check on a
// corpus example it affects, while the faithful simplifier passes the same example.
// Latency-only bugs keep results right (the latency detector's business); crash bugs
// make the check die or hang, which is observed from a child process.
#include <gtest/gtest.h>

#include <string>

#include "check/differential.h"
#include "fuzz/isolate.h"
#include "ir/parser.h"
#include "tests/support/bug_examples.h"

namespace uopfuzz::simplifier {
namespace {

using test_support::bug_examples;

check::CheckResult run_check(const std::string& example, BugSet bugs) {
  std::string text = test_support::read_example(example);
  EXPECT_FALSE(text.empty()) << "missing example " << example;
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << example << ": " << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed.ok()) return {};
  check::CheckOptions o;
  o.simplify.bugs = bugs;
  o.seeds = 3;
  o.base_seed = parsed->kernel.header.seed.value_or(0);
  o.vars.insert(parsed->kernel.header.vars.begin(), parsed->kernel.header.vars.end());
  return check::check_kernel(ctx, parsed->kernel, o);
}

TEST(PlantedBugs, EveryBugHasAnExample) {
  for (const auto& b : all_bugs())
    EXPECT_TRUE(bug_examples().count(std::string(b.name)))
        << "planted bug " << b.name << " has no example";
}

TEST(PlantedBugs, ResultBugsAreFoundAndTheFaithfulSimplifierPasses) {
  for (const auto& b : all_bugs()) {
    auto it = bug_examples().find(std::string(b.name));
    if (it == bug_examples().end()) continue;
    SCOPED_TRACE(std::string(b.name) + " on " + it->second);
    auto faithful = run_check(it->second, BugSet());
    EXPECT_EQ(faithful.kind, check::FindingKind::None) << faithful.details;
    if (b.kind == BugKind::Crash) {  // in a child: with the bug the check dies or hangs
      fuzz::ChildOutcome out = fuzz::run_isolated(
          [&] {
            return std::string(
                check::finding_kind_name(run_check(it->second, BugSet().enable(b.bug)).kind));
          },
          1.0);
      EXPECT_NE(out.status, fuzz::ChildOutcome::Status::Returned)
          << b.name << " did not crash or hang: " << out.output;
      EXPECT_NE(out.rule, "") << "the breadcrumb names no rule";
      continue;
    }
    auto buggy = run_check(it->second, BugSet().enable(b.bug));
    if (b.kind == BugKind::Result) {
      EXPECT_NE(buggy.kind, check::FindingKind::None) << "the check misses " << b.name;
    } else {
      EXPECT_EQ(buggy.kind, check::FindingKind::None)
          << "a latency-only bug changed results: " << buggy.details;
      // ...but it must change the rewrite, or the example does not exercise it.
      EXPECT_NE(buggy.simplified.hits, faithful.simplified.hits)
          << b.name << " does not change the rewrite";
    }
  }
}

}  // namespace
}  // namespace uopfuzz::simplifier
