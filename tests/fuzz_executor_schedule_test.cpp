// The default campaign's executors: each compiled backend checks the graphs it picks (a draw
// from the graph's seed, weighted toward changed rewrites and rare rules) at a rate that
// follows its share of the time; graph i's cpu compile level is drawn from its seed.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>

#include "fuzz/campaign.h"
#include "fuzz/executor_schedule.h"
#include "gen/generator.h"

namespace uopfuzz::fuzz {
namespace {

TEST(ExecutorSchedule, DrawnOptLevelsFollowTheirShares) {
  constexpr int kDraws = 20000;
  std::array<int, backends::kOptLevelCount> seen{};
  for (uint64_t i = 0; i < kDraws; ++i)
    ++seen[static_cast<size_t>(drawn_opt_level(graph_seed(1, i)))];
  for (size_t l = 0; l < seen.size(); ++l)
    EXPECT_NEAR(double(seen[l]) / kDraws, kOptLevelShares[l], 0.015) << "O" << l;
  // O2, the level everything else compiles at, keeps at least a quarter.
  EXPECT_GE(kOptLevelShares[2], 0.25);
  // A fixed level is every graph's.
  CampaignOptions o;
  o.opt_level = backends::OptLevel::O3;
  EXPECT_EQ(opt_level_for(o, graph_seed(1, 7)), backends::OptLevel::O3);
  o.opt_level.reset();
  EXPECT_EQ(opt_level_for(o, graph_seed(1, 7)), drawn_opt_level(graph_seed(1, 7)));
}

// At a fixed rate the picks are a function of the graph alone: two workers agree, the
// share of picks is the rate times the weight, and the backends pick different graphs.
TEST(ExecutorSchedule, AFixedRatePicksByTheGraphAlone) {
  ExecutorSchedule s;
  s.backends = {"cpu", "vulkan"};
  s.fixed_rate = 0.1;
  BackendSampler a(s), b(s);
  b.observe(1.0, {{"cpu", 0.9}});  // a fixed rate ignores the time
  int plain = 0, weighted = 0, both = 0;
  constexpr int kGraphs = 20000;
  for (uint64_t i = 0; i < kGraphs; ++i) {
    const uint64_t gs = graph_seed(3, i);
    EXPECT_EQ(a.pick("cpu", gs, 1), b.pick("cpu", gs, 1));
    plain += a.pick("cpu", gs, 1);
    weighted += a.pick("cpu", gs, sample_weight(true, false));
    both += a.pick("cpu", gs, 1) && a.pick("vulkan", gs, 1);
  }
  EXPECT_NEAR(double(plain) / kGraphs, 0.1, 0.01);
  EXPECT_NEAR(double(weighted) / kGraphs, 0.1 * sample_weight(true, false), 0.015);
  EXPECT_NEAR(double(both) / kGraphs, 0.01, 0.004);  // independent draws
  EXPECT_FALSE(a.pick("nope", graph_seed(3, 0), 1e9));
  EXPECT_GT(sample_weight(false, true), sample_weight(false, false));
}

// Following the time: a backend that takes more than its share is given fewer graphs, one
// that takes less more, until the share is met.
TEST(ExecutorSchedule, TheRateFollowsTheTimeShare) {
  ExecutorSchedule s;
  s.backends = {"cpu"};
  s.time_share = 0.5;
  BackendSampler greedy(s), idle(s);
  const double start = greedy.rate("cpu");
  for (int i = 0; i < 200; ++i) {
    greedy.observe(1.0, {{"cpu", 0.9}});
    idle.observe(1.0, {});
  }
  EXPECT_LT(greedy.rate("cpu"), start);
  EXPECT_GT(idle.rate("cpu"), start);
  // A simulated worker: each picked graph costs the backend 10 units beside 1 of its own.
  BackendSampler sim(s);
  double spent = 0, total = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const bool picked = sim.pick("cpu", graph_seed(5, i), 1);
    const double on_cpu = picked ? 10.0 : 0.0;
    sim.observe(1.0 + on_cpu, {{"cpu", on_cpu}});
    if (i >= 10000) {
      spent += on_cpu;
      total += 1.0 + on_cpu;
    }
  }
  EXPECT_NEAR(spent / total, 0.5, 0.05);
}

// A campaign with the cpu as a sampled executor: it checks a share of the graphs, at the
// levels drawn per graph, and counts them; a fixed rate of 1 gives it every graph whose
// check reached the backends.
TEST(ExecutorSchedule, ACampaignCountsTheGraphsEachExecutorChecked) {
  gen::GenPolicy policy;
  GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate(ctx, policy, gs).kernel;
  };
  CampaignOptions o;
  o.max_graphs = 60;
  o.level = Level::Kernel;
  o.schedule.backends = {"cpu"};
  o.schedule.fixed_rate = 1.0;
  CampaignResult all = run_campaign(o, source);
  ASSERT_EQ(all.totals.executors.count("cpu"), 1u);
  const auto& cpu = all.totals.executors.at("cpu");
  EXPECT_GT(cpu.graphs, 40u);
  EXPECT_LE(cpu.graphs, all.totals.graphs);
  EXPECT_GT(cpu.seconds, 0);
  EXPECT_LT(cpu.seconds, worker_seconds(all.totals));
  std::set<std::string> levels;
  uint64_t compiles = 0;
  for (const auto& [key, h] : all.totals.compile_us) {
    levels.insert(key);
    for (const auto& [us, n] : h.counts) compiles += n;
  }
  EXPECT_GE(levels.size(), 3u);  // 60 graphs draw at least three of the four levels
  EXPECT_EQ(compiles, cpu.graphs);
  EXPECT_EQ(all.totals.findings, 0u);
  // A low rate gives it few.
  o.schedule.fixed_rate = 0.02;
  CampaignResult few = run_campaign(o, source);
  const uint64_t picked =
      few.totals.executors.count("cpu") ? few.totals.executors.at("cpu").graphs : 0;
  EXPECT_LT(picked, cpu.graphs / 3);
}

}  // namespace
}  // namespace uopfuzz::fuzz
