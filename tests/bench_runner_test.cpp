// `uopfuzz bench`'s runner: what it measures, what it skips and why, and that its results
// file has the shape docs/results-format.md promises (Google Benchmark's keys included).

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bench/runner.h"
#include "tests/support/bug_examples.h"

namespace uopfuzz {
namespace {

bench::BenchCase example(const std::string& name) {
  return {name, std::string(UOPFUZZ_SOURCE_DIR) + "/corpus/examples/" + name + ".uop",
          test_support::read_example(name)};
}

TEST(BenchRunner, MeasuresBothVariantsAndSkipsUndefinedCasesWithTheReason) {
  bench::BenchOptions o;
  o.backends = {"cpu"};
  o.reps = 9;
  o.compile_reps = 2;
  auto r = bench::run_bench(
      {example("gated_two_guards"), example("invariant_ub"), example("mod_negative")}, o);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].backend, "cpu");
  EXPECT_EQ(r.devices[0].device.device_type, "cpu");
  ASSERT_EQ(r.comparisons.size(), 2u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("invariant_ub"), std::string::npos);
  EXPECT_NE(r.notes[0].find("undefined behaviour"), std::string::npos);
  // gated_two_guards is rewritten; mod_negative is left as it is.
  EXPECT_TRUE(r.comparisons[0].rewrite_changed);
  EXPECT_FALSE(r.comparisons[1].rewrite_changed);
  EXPECT_FALSE(r.comparisons[1].regressed);
  for (const auto& c : r.comparisons) {
    EXPECT_GT(c.original_ns, 0);
    EXPECT_GT(c.rewritten_ns, 0);
    EXPECT_NEAR(c.speedup, c.original_ns / c.rewritten_ns, 1e-9);
    EXPECT_NE(c.corpus_case.find(c.case_name + ".uop"), std::string::npos);
  }
  std::set<std::string> names;
  for (const auto& m : r.measurements) {
    names.insert(m.measure + "/" + m.case_name + "/" + m.variant);
    EXPECT_EQ(m.samples_ns.size(), m.measure == "run" ? 9u : 2u);
  }
  EXPECT_EQ(names.size(), 8u);  // {run, compile} x 2 cases x {original, rewritten}
}

TEST(BenchRunner, ResultsFileIsGoogleBenchmarkShapedWithTheContextThatNamesTheRun) {
  bench::BenchOptions o;
  o.backends = {"cpu"};
  o.reps = 9;
  o.compile_reps = 1;
  auto r = bench::run_bench({example("window_sum")}, o);
  auto j = bench::results_json(r, "corpus/examples", 9);
  const auto& ctx = j.at("context");
  for (const char* key :
       {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
        "caches", "load_avg", "library_build_type", "commit", "machine", "devices"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  EXPECT_EQ(ctx.at("cases"), "corpus/examples");
  EXPECT_EQ(ctx.at("reps"), 9);
  EXPECT_FALSE(ctx.at("commit").get<std::string>().empty());
  ASSERT_EQ(ctx.at("devices").size(), 1u);
  EXPECT_EQ(ctx.at("devices")[0].at("backend"), "cpu");
  ASSERT_EQ(j.at("benchmarks").size(), 4u);
  for (const auto& b : j.at("benchmarks")) {
    for (const char* key :
         {"name", "run_name", "run_type", "iterations", "real_time", "cpu_time", "time_unit"})
      EXPECT_TRUE(b.contains(key)) << key;
    EXPECT_EQ(b.at("time_unit"), "ns");
    EXPECT_EQ(b.at("iterations"), b.at("samples").size());
    const auto samples = b.at("samples").get<std::vector<double>>();
    EXPECT_GE(b.at("real_time").get<double>(), b.at("min").get<double>());
    EXPECT_LE(b.at("real_time").get<double>(), b.at("max").get<double>());
    EXPECT_EQ(b.at("name").get<std::string>().rfind(
                  b.at("measure").get<std::string>() + "/cpu/window_sum/", 0),
              0u);
  }
  ASSERT_EQ(j.at("comparisons").size(), 1u);
  EXPECT_EQ(j.at("comparisons")[0].at("case"), "window_sum");
}

TEST(BenchRunner, GeneratedCasesAreAFunctionOfTheSeed) {
  auto a = bench::generated_cases(3, 5), b = bench::generated_cases(3, 5),
       c = bench::generated_cases(3, 6);
  ASSERT_EQ(a.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(a[i].text, b[i].text);
  EXPECT_EQ(a[0].name, "gen-5");
  EXPECT_EQ(a[1].text, c[0].text);  // graph seeds 5, 6, 7 and 6, 7, 8
}

TEST(BenchRunner, MissingCasesAreAnError) {
  auto r = bench::cases_from("/nonexistent/cases");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace uopfuzz
