// The real-size suite (bench/suite/cases.def), the roofline arithmetic, and the size search
// that minimizes a regression confirmed across sizes.

#include <gtest/gtest.h>

#include <string>

#include "bench/roofline.h"
#include "bench/suite/suite.h"
#include "bench/suite_runner.h"
#include "ir/parser.h"
#include "ir/verify.h"

namespace uopfuzz {
namespace {

using bench::suite::Preset;

TEST(BenchSuite, EveryCaseParsesAndVerifiesAtEachPresetSize) {
  ASSERT_GE(bench::suite::cases().size(), 10u);
  for (const auto& c : bench::suite::cases()) {
    SCOPED_TRACE(std::string(c.name));
    EXPECT_EQ(bench::suite::find_case(c.name), &c);
    for (Preset p : {Preset::Tiny, Preset::Small, Preset::Full}) {
      const auto sizes = c.sizes(p);
      ASSERT_FALSE(sizes.empty());
      for (size_t i = 0; i < sizes.size(); ++i) {
        EXPECT_EQ(sizes[i] % c.quantum, 0) << sizes[i];
        if (i > 0) {
          EXPECT_LT(sizes[i - 1], sizes[i]);
        }
        EXPECT_GT(c.bytes(sizes[i]), 0);
      }
    }
    // Each preset size and one between two of them (what the size search asks for).
    for (int64_t n : {c.small.front(), c.small.back(), c.small.front() + c.quantum}) {
      ir::Context ctx;
      auto parsed = ir::parse_kernel(ctx, c.text(n));
      ASSERT_TRUE(parsed) << parsed.error().message;
      auto errors = ir::verify(parsed->kernel.root);
      EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0].message);
    }
  }
  // The full preset reaches real sizes: 10^6 elements or more, matmul 256 or more.
  for (const auto& c : bench::suite::cases())
    EXPECT_GE(c.full.back(), c.name == "matmul" ? 256 : 1'000'000) << c.name;
}

TEST(BenchSuite, TheYardstickKernelsParseAndCountTheirWork) {
  for (const std::string& text :
       {bench::suite::copy_kernel_text(1024), bench::suite::fma_kernel_text(1024)}) {
    ir::Context ctx;
    auto parsed = ir::parse_kernel(ctx, text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(ir::verify(parsed->kernel.root).empty());
  }
  // Each chain step is one multiply and one add; the chains start with an add and are summed.
  EXPECT_EQ(bench::suite::fma_ops(10),
            10 * (bench::suite::kFmaChains * (2 * bench::suite::kFmaSteps + 1) +
                  bench::suite::kFmaChains - 1));
}

TEST(BenchSuite, AFractionIsTheBoundThatAppliesOverTheTimeTaken) {
  bench::Roofline roof;
  roof.copy_bytes = 8'000'000;
  roof.copy_ns = 1'000'000;  // 8 GB/s
  roof.fma_ops = 64'000'000;
  roof.fma_ns = 1'000'000;  // 64 GOP/s: balance 8 op/B
  ASSERT_TRUE(roof.measured());
  EXPECT_DOUBLE_EQ(roof.balance(), 8);
  // 1 MB and 1 Mop: memory-bound, at best 125 us; taking 250 us is half the roofline.
  auto mem = bench::place(roof, 1'000'000, 1'000'000, 250'000);
  EXPECT_FALSE(mem.compute_bound);
  EXPECT_NEAR(mem.fraction, 0.5, 1e-12);
  EXPECT_NEAR(mem.gbps, 4, 1e-12);
  // 1 MB and 640 Mop: compute-bound, at best 10 ms; taking 40 ms is a quarter.
  auto cmp = bench::place(roof, 1'000'000, 640'000'000, 40'000'000);
  EXPECT_TRUE(cmp.compute_bound);
  EXPECT_NEAR(cmp.fraction, 0.25, 1e-12);
  EXPECT_NEAR(cmp.gops, 16, 1e-12);
  // No roofline: achieved rates, no fraction.
  auto none = bench::place(bench::Roofline{}, 1'000'000, 0, 1000);
  EXPECT_EQ(none.fraction, 0);
  EXPECT_NEAR(none.gbps, 1000, 1e-9);
}

/// A planted slowdown that shows from `threshold` elements up.
struct Planted {
  int64_t threshold;
  int calls = 0;
  Result<bench::SizeProbe> operator()(int64_t n) {
    ++calls;
    return bench::SizeProbe{n, n >= threshold, n >= threshold ? 1.5 : 1.0, ""};
  }
};

TEST(BenchSuite, TheSizeSearchFindsTheSmallestSizeAPlantedSlowdownShowsAt) {
  for (int64_t threshold : {1, 1024, 5000, 65536, 700'000, 1'048'576}) {
    SCOPED_TRACE(threshold);
    Planted planted{threshold};
    std::vector<bench::SizeProbe> probes;
    const int64_t found = bench::smallest_size_showing(
        0, 1 << 20, 1024, [&](int64_t n) { return planted(n); }, 20, probes);
    // The smallest multiple of 1024 at or above the threshold.
    const int64_t expected = (threshold + 1023) / 1024 * 1024;
    EXPECT_EQ(found, expected);
    EXPECT_EQ(static_cast<int>(probes.size()), planted.calls);
    EXPECT_LE(planted.calls, 10);  // bisection over 1024 multiples
    for (const auto& p : probes) EXPECT_EQ(p.confirmed, p.size >= threshold);
  }
  // Out of probes: the smallest size confirmed so far, never one that was not.
  Planted planted{5000};
  std::vector<bench::SizeProbe> probes;
  const int64_t found = bench::smallest_size_showing(
      0, 1 << 20, 1024, [&](int64_t n) { return planted(n); }, 2, probes);
  EXPECT_EQ(probes.size(), 2u);
  EXPECT_GE(found, 5000);
  // A probe that cannot be timed counts as not showing.
  std::vector<bench::SizeProbe> failing;
  EXPECT_EQ(bench::smallest_size_showing(
                4096, 8192, 1024, [](int64_t) -> Result<bench::SizeProbe> { return Error{"no"}; },
                8, failing),
            8192);
  ASSERT_FALSE(failing.empty());
  EXPECT_EQ(failing[0].error, "no");
}

// The planted latency bug (merge-more-divmod) merges the pitched sum's two reduce ranges
// although the address then needs a division and a modulo per element: a slowdown at
// every size, which the search must confirm down to a smaller size than the sweep's.
TEST(BenchSuite, APlantedRegressionIsConfirmedAndMinimizedToASmallerSize) {
  bench::SuiteOptions o;
  o.preset = Preset::Tiny;
  o.backends = {"cpu"};
  o.only = {"reduce_sum_pitched"};
  o.reps = 9;
  o.max_search_probes = 3;
  o.simplify.bugs.enable(simplifier::Bug::MergeMoreDivmod);
  auto r = bench::run_suite(o);
  ASSERT_EQ(r.rooflines.size(), 1u);
  EXPECT_TRUE(r.rooflines[0].measured()) << r.rooflines[0].error;
  ASSERT_FALSE(r.points.empty());
  ASSERT_EQ(r.regressions.size(), 1u);
  const auto& g = r.regressions[0];
  EXPECT_EQ(g.case_name, "reduce_sum_pitched");
  EXPECT_LE(g.smallest, g.found_at);
  EXPECT_EQ(g.smallest % 1024, 0);
  EXPECT_GT(g.ratio, o.latency.min_slowdown);
  // The smallest size reported is one the search (or the sweep) confirmed.
  bool confirmed_there = g.smallest == g.found_at;
  for (const auto& p : g.probes) confirmed_there |= p.size == g.smallest && p.confirmed;
  EXPECT_TRUE(confirmed_there);
  // Without the planted bug the faithful rewrite keeps the two ranges: no regression.
  o.simplify.bugs = {};
  auto clean = bench::run_suite(o);
  EXPECT_TRUE(clean.regressions.empty());
}

}  // namespace
}  // namespace uopfuzz
