// Near-miss generation (gen/near_miss.h): for every registered row, the exact match its builder
// makes fires the rule the row names (so a row that stops reaching its rule fails here), and the
// near miss made from the same draws does not fire it, runs without undefined behaviour and is
// rewritten to a kernel that agrees with it; a fixed-seed campaign tallies a near miss of every
// row.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "check/differential.h"
#include "fuzz/campaign.h"
#include "gen/generator.h"
#include "gen/mutate.h"
#include "gen/near_miss.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

constexpr uint64_t kSeeds = 6;

uint64_t fires(Context& ctx, const Kernel& k, std::string_view rule) {
  const auto res = simplifier::simplify(ctx, k.root);
  const auto it = res.hits.find(std::string(rule));
  return it == res.hits.end() ? 0 : it->second;
}

TEST(NearMiss, RowsAreNamedOnce) {
  std::set<std::string> names;
  for (const NearMissRow& r : near_miss_rows()) {
    EXPECT_TRUE(names.insert(near_miss_name(r.id)).second) << near_miss_name(r.id);
    EXPECT_FALSE(r.breaks.empty()) << near_miss_name(r.id);
  }
  // Every row names a rule of the built-in simplifier.
  const auto rules = simplifier::all_rule_names();
  const std::set<std::string> known(rules.begin(), rules.end());
  for (const NearMissRow& r : near_miss_rows())
    EXPECT_TRUE(known.count(std::string(r.rule))) << near_miss_name(r.id);
}

TEST(NearMiss, ExactMatchFiresAndNearMissDoesNot) {
  for (const NearMissRow& row : near_miss_rows()) {
    const std::string name = near_miss_name(row.id);
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      Context ctx;
      SeedEntropy e_exact(seed), e_miss(seed);
      const Kernel exact = build_near_miss(ctx, row.id, e_exact, false);
      const Kernel miss = build_near_miss(ctx, row.id, e_miss, true);
      ASSERT_TRUE(verify(exact.root).empty()) << name << " seed " << seed;
      ASSERT_TRUE(verify(miss.root).empty()) << name << " seed " << seed << "\n"
                                             << print_kernel(miss);
      EXPECT_NE(print_kernel(exact), print_kernel(miss)) << name;
      EXPECT_GT(fires(ctx, exact, row.rule), 0u)
          << name << " seed " << seed << ": the exact match no longer reaches its rule\n"
          << print_kernel(exact);
      EXPECT_EQ(fires(ctx, miss, row.rule), 0u)
          << name << " seed " << seed << ": the rule fired on its near miss\n"
          << print_kernel(miss);
      // Defined by construction, and the faithful simplifier keeps its value.
      auto run = oracle::run(miss.root, oracle::make_inputs(miss.root, 0, {}));
      ASSERT_TRUE(run) << name;
      EXPECT_NE(run->status, oracle::RunStatus::Ub) << name << "\n" << print_kernel(miss);
      check::CheckOptions co;
      co.seeds = 2;
      const check::CheckResult r = check::check_kernel(ctx, miss, co);
      EXPECT_EQ(r.kind, check::FindingKind::None) << name << ": " << r.details;
    }
  }
}

// The near-miss mutator breaks exact matches already in a graph: applied to the exact matches of
// the rows whose rule matches a repeated operand, some of its mutants no longer fire the rule,
// and every mutant keeps its value under the faithful simplifier.
TEST(NearMiss, MutatorBreaksExactMatches) {
  const GenPolicy policy;
  const NearMiss repeated[] = {NearMiss::RecombineDividend, NearMiss::ScaledDividend,
                               NearMiss::SubSelf,           NearMiss::MaxSelf,
                               NearMiss::WhereSame,         NearMiss::CmpSelf,
                               NearMiss::ModModDivides,     NearMiss::MulDivDivides};
  int mutants = 0, declined = 0;
  for (NearMiss m : repeated) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      Context ctx;
      SeedEntropy e(seed);
      const Kernel exact = build_near_miss(ctx, m, e, false);
      ASSERT_GT(fires(ctx, exact, near_miss_row(m).rule), 0u);
      std::optional<Mutant> mutant;
      for (uint64_t t = 0; t < 8 && !mutant; ++t)  // a draw can pick a change verify rejects
        mutant = mutate_with(ctx, exact, nullptr, Mutator::NearMiss, seed * 7919 + t, policy);
      if (!mutant) continue;
      ++mutants;
      if (fires(ctx, mutant->kernel, near_miss_row(m).rule) == 0) ++declined;
      check::CheckOptions co;
      co.seeds = 2;
      const check::CheckResult r = check::check_kernel(ctx, mutant->kernel, co);
      EXPECT_EQ(r.kind, check::FindingKind::None) << mutant->what << ": " << r.details;
    }
  }
  EXPECT_GT(mutants, 16) << "the mutator finds a repeated operand in most exact matches";
  EXPECT_GT(declined, 4) << "of " << mutants << " mutants, " << declined << " left their rule";
}

TEST(NearMiss, DrawsAreDeterministic) {
  Context a, b;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    SeedEntropy ea(seed), eb(seed);
    EXPECT_EQ(print_kernel(draw_near_miss(a, ea)), print_kernel(draw_near_miss(b, eb)));
  }
}

TEST(NearMiss, ShareOneAlwaysAndZeroNeverDrawsANearMiss) {
  GenPolicy off;
  off.p_near_miss = 0;
  GenPolicy on;
  on.p_near_miss = 1;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Context ctx;
    const Kernel k = generate(ctx, on, seed).kernel;
    bool tagged = false;
    for (const auto& [key, v] : k.header.extra) tagged |= key == kNearMissKey;
    EXPECT_TRUE(tagged) << "p_near_miss = 1 draws a near miss every time";
    const Kernel plain = generate(ctx, off, seed).kernel;
    for (const auto& [key, v] : plain.header.extra) EXPECT_NE(key, kNearMissKey);
  }
}

// A seeded kernel's near-miss choice has its own stream: every kernel of a seed that is not a
// near miss is the kernel the seed gives with near misses off, so fixed-seed campaigns keep
// their graphs.
TEST(NearMiss, OtherKernelsOfASeedStayAsTheyWere) {
  GenPolicy off;
  off.p_near_miss = 0;
  const GenPolicy on;
  int near = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Context ctx;
    const Kernel k = generate(ctx, on, seed).kernel;
    bool tagged = false;
    for (const auto& [key, v] : k.header.extra) tagged |= key == kNearMissKey;
    near += tagged;
    if (!tagged) {
      EXPECT_EQ(print_kernel(k), print_kernel(generate(ctx, off, seed).kernel)) << seed;
    }
  }
  EXPECT_GT(near, 0);
  EXPECT_LT(near, 40) << "p_near_miss = 0.04 of 300 seeds";
}

// A fixed-seed campaign (a graph-count budget, so it is deterministic) draws a near miss of
// every registered row, tallies each by its name, and finds nothing. The default share
// (p_near_miss) draws about 130 near misses in 5,000 graphs, too few to reach each of 40
// uniformly drawn rows, so the campaign raises the share; every other knob is the default.
TEST(NearMiss, CampaignTalliesEveryRow) {
  fuzz::CampaignOptions o;
  o.seconds = 120;
  o.max_graphs = 5000;
  o.seed = 1;
  o.check.seeds = 1;
  ASSERT_GT(GenPolicy{}.p_near_miss, 0);
  GenPolicy policy;
  policy.p_near_miss = 0.25;
  const fuzz::GraphSource source = [&](Context& ctx, uint64_t gs) {
    return generate(ctx, policy, gs).kernel;
  };
  const fuzz::CampaignResult res = fuzz::run_campaign(o, source);
  EXPECT_EQ(res.totals.graphs, o.max_graphs) << "the budget is in graphs, not seconds";
  // The faithful simplifier passes every near miss (findings of other generated graphs are
  // the subject of the generator's own tests).
  for (const fuzz::NewFinding& f : res.new_findings) {
    Context ctx;
    for (const auto& [key, row] : generate(ctx, policy, f.graph_seed).kernel.header.extra)
      if (key == kNearMissKey)
        ADD_FAILURE() << row << ": " << f.signature.text() << ": " << f.details;
  }
  uint64_t total = 0;
  for (const NearMissRow& r : near_miss_rows()) {
    const auto it = res.totals.near_misses.find(near_miss_name(r.id));
    const uint64_t n = it == res.totals.near_misses.end() ? 0 : it->second;
    EXPECT_GT(n, 0u) << near_miss_name(r.id) << " was never drawn";
    total += n;
  }
  EXPECT_EQ(total, [&] {  // every tally is a registered row's
    uint64_t all = 0;
    for (const auto& [name, n] : res.totals.near_misses) all += n;
    return all;
  }());
}

}  // namespace
}  // namespace uopfuzz::gen
