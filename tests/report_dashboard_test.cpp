// Results files load (or are rejected with the offending key named); the dashboard built
// from the fixtures in tests/data/results has every section, one plot per device, the
// confirmed regressions with their links, and one history point per run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "report/dashboard.h"
#include "report/html.h"
#include "report/plot.h"
#include "report/results.h"
#include "report/stats.h"

namespace uopfuzz::report {
namespace {

const std::string kFixtures = std::string(UOPFUZZ_SOURCE_DIR) + "/tests/data/results";
const std::string kCpu = "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz (host CPU)";
const std::string kVulkan = "llvmpipe (LLVM 15.0.6, 256 bits)";

LoadedResults load_ok(const std::string& name) {
  auto r = load_results(kFixtures + "/" + name);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : LoadedResults{};
}

std::vector<LoadedResults> all_fixtures() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures))
    if (e.path().extension() == ".json") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<LoadedResults> runs;
  for (const auto& n : names) runs.push_back(load_ok(n));
  return runs;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size()))
    ++n;
  return n;
}

/// The text of the element that starts at the first occurrence of OPEN, up to CLOSE.
std::string slice(const std::string& html, const std::string& open, const std::string& close) {
  size_t a = html.find(open);
  if (a == std::string::npos) return "";
  size_t b = html.find(close, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b + close.size() - a);
}

std::string section(const std::string& html, const std::string& id) {
  return slice(html, "<section id=\"" + id + "\"", "</section>");
}

std::string svg_of(const std::string& html, const std::string& cls, const std::string& backend) {
  return slice(html, "class=\"plot " + cls + "\" data-backend=\"" + backend + "\"", "</svg>");
}

std::string render_fixtures(const std::vector<LoadedResults>& runs) {
  DashboardOptions o;
  o.output_path = "out/dashboard.html";
  o.generated_at = "2026-11-30 08:00 UTC";
  return render_dashboard(runs, o);
}

// --- loading ---------------------------------------------------------------------------

TEST(ReportResults, LoadsABenchResult) {
  LoadedResults r = load_ok("bench-2026-11-29.json");
  EXPECT_EQ(r.kind, ResultsKind::Bench);
  EXPECT_EQ(r.context.date, "2026-11-29T17:50:03+00:00");
  EXPECT_EQ(r.context.epoch_seconds, 1795974603);
  EXPECT_EQ(r.context.commit, "527eceefaa755bdbaf054bd034cd24261541e42f");
  EXPECT_EQ(r.context.reps, 7);
  ASSERT_EQ(r.context.devices.size(), 2u);
  EXPECT_EQ(r.context.devices[1].backend, "vulkan");
  EXPECT_EQ(r.context.devices[1].device, kVulkan);
  EXPECT_EQ(r.comparisons.size(), 16u);  // 8 cases x 2 devices
  size_t confirmed = 0;
  for (const auto& c : r.comparisons) confirmed += c.confirmed;
  EXPECT_EQ(confirmed, 1u);
  ASSERT_FALSE(r.benchmarks.empty());
  EXPECT_EQ(r.benchmarks[0].case_name, "adjacent_merge");
  EXPECT_EQ(r.benchmarks[0].samples_ns.size(), 7u);
}

TEST(ReportResults, LoadsAFuzzSummary) {
  LoadedResults r = load_ok("fuzz-2026-11-29.json");
  EXPECT_EQ(r.kind, ResultsKind::Fuzz);
  EXPECT_EQ(r.fuzz.graphs, 1021700);
  EXPECT_EQ(r.fuzz.backends, (std::vector<std::string>{"oracle", "vulkan"}));
  ASSERT_EQ(r.fuzz.new_findings.size(), 2u);
  const FuzzFinding& f = r.fuzz.new_findings[0];
  EXPECT_EQ(f.kind, "latency");
  EXPECT_EQ(f.path, "corpus/findings/8c9f7d0c3571ea1a.uop");
  ASSERT_TRUE(f.latency.has_value());
  EXPECT_DOUBLE_EQ(f.latency->ratio, 1.42);
  EXPECT_DOUBLE_EQ(*f.latency->confirm_p_value, 3.0e-5);
  EXPECT_FALSE(r.fuzz.new_findings[1].latency.has_value());
  ASSERT_EQ(r.fuzz.by_signature.size(), 2u);
  EXPECT_EQ(r.fuzz.by_signature[0].first, "latency/merge_adjacent/vulkan");  // file order
}

TEST(ReportResults, ConvertsTimeUnitsToNanoseconds) {
  auto r =
      parse_results(R"({"context": {"date": "2026-01-01T00:00:00Z", "commit": "x", "devices": []},
    "benchmarks": [{"backend": "cpu", "device": "d", "case": "c", "variant": "original",
                    "real_time": 1.5, "time_unit": "us", "samples": [1.5, 2], "min": 1, "max": 2}]})",
                    "t.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->benchmarks[0].real_time_ns, 1500);
  EXPECT_DOUBLE_EQ(*r->benchmarks[0].max_ns, 2000);
  EXPECT_DOUBLE_EQ(r->benchmarks[0].samples_ns[1], 2000);
  EXPECT_EQ(r->benchmarks[0].measure, "run");  // the default
}

TEST(ReportResults, RejectsWhatIsNotAResultsFile) {
  const std::string ctx =
      R"("context": {"date": "2026-01-01T00:00:00Z", "commit": "x", "devices": []})";
  struct Case {
    std::string text, why;
  };
  const std::vector<Case> cases = {
      {"not json", "invalid JSON at line 1, column 2"},
      {"[1, 2]", "top level: expected an object, got array"},
      {"{" + ctx + "}", "has neither \"benchmarks\""},
      {"{" + ctx + R"(, "benchmarks": [], "new_findings": []})", "has both"},
      {R"({"benchmarks": []})", "context: missing"},
      {R"({"context": {"date": 20261129, "commit": "x", "devices": []}, "benchmarks": []})",
       "context.date: expected a string, got number"},
      {R"({"context": {"date": "d", "commit": "x"}, "benchmarks": []})",
       "context.devices: missing"},
      {"{" + ctx + R"(, "benchmarks": {}})", "benchmarks: expected an array, got object"},
      {"{" + ctx +
           R"(, "benchmarks": [{"backend": "cpu", "device": "d", "case": "c", "variant": "v", "real_time": "1"}]})",
       "benchmarks[0].real_time: expected a number, got string"},
      {"{" + ctx +
           R"(, "benchmarks": [{"backend": "cpu", "device": "d", "case": "c", "variant": "v", "real_time": 1, "time_unit": "min"}]})",
       "benchmarks[0].time_unit: unknown time unit 'min'"},
      {"{" + ctx +
           R"(, "benchmarks": [], "comparisons": [{"backend": "cpu", "device": "d", "case": "c", "rewritten_ns": 1}]})",
       "comparisons[0].original_ns: missing"},
      {"{" + ctx +
           R"(, "benchmarks": [], "comparisons": [{"backend": "cpu", "device": "d", "case": "c", "original_ns": 1, "rewritten_ns": 1, "confirmed": "yes"}]})",
       "comparisons[0].confirmed: expected true or false, got string"},
      {"{" + ctx +
           R"(, "seconds": 1, "graphs": 2, "new_findings": [{"signature": "s", "kind": "latency", "backend": "cpu", "latency": {"p_value": 0.1}}]})",
       "new_findings[0].latency.ratio: missing"},
      {"{" + ctx +
           R"(, "seconds": 1, "graphs": -2, "graph_seed": 1, "new_findings": [], "seed": -1})",
       "seed: expected a non-negative integer, got number"},
  };
  for (const Case& c : cases) {
    auto r = parse_results(c.text, "t.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message.rfind("not a uopfuzz results file: ", 0), 0u) << r.error().message;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos)
        << r.error().message << "\n  wanted: " << c.why;
  }
}

TEST(ReportResults, AJsonSyntaxErrorHasItsLineAndColumn) {
  auto r = parse_results("{\n  \"context\": ,\n}", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().loc.line, 2);
  EXPECT_EQ(r.error().loc.col, 14);
  EXPECT_NE(r.error().message.find("line 2, column 14"), std::string::npos) << r.error().message;
}

TEST(ReportResults, LoadErrorsStartWithThePath) {
  auto missing = load_results(kFixtures + "/no-such-file.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind(kFixtures + "/no-such-file.json: cannot read", 0), 0u);

  auto dir = std::filesystem::temp_directory_path() / "uopfuzz_report_test";
  std::filesystem::create_directories(dir);
  std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"context": {"date": "d", "commit": "c", "devices": []}})";
  auto r = load_results(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(bad + ": not a uopfuzz results file: has neither", 0), 0u)
      << r.error().message;
  std::filesystem::remove_all(dir);
}

TEST(ReportResults, ParsesIso8601Dates) {
  EXPECT_EQ(parse_iso8601("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_iso8601("1970-01-01T00:00:00"), 0);
  EXPECT_EQ(parse_iso8601("2026-11-29T17:50:03+00:00"), 1795974603);
  EXPECT_EQ(parse_iso8601("2026-11-29T19:50:03.25+02:00"), 1795974603);
  EXPECT_EQ(parse_iso8601("2000-02-29T23:59:59-05:30"),
            951888599);  // a leap day, a negative offset
  EXPECT_EQ(parse_iso8601("2026-13-01T00:00:00Z"), std::nullopt);
  EXPECT_EQ(parse_iso8601("2026-11-29"), std::nullopt);
  EXPECT_EQ(parse_iso8601("2026-11-29T17:50:03+0000"), std::nullopt);
  EXPECT_EQ(parse_iso8601("yesterday"), std::nullopt);
}

TEST(ReportResults, ShortensCommits) {
  EXPECT_EQ(short_commit("527eceefaa755bdbaf054bd034cd24261541e42f"), "527ecee");
  EXPECT_EQ(short_commit("527eceefaa755bdbaf054bd034cd24261541e42f-dirty"), "527ecee-dirty");
  EXPECT_EQ(short_commit("unknown"), "unknown");
  EXPECT_EQ(short_commit(""), "");
}

TEST(ReportResults, OrdersRunsByDateNotByName) {
  auto runs = all_fixtures();
  auto ordered = by_date(runs);
  ASSERT_EQ(ordered.size(), 4u);
  for (size_t i = 1; i < ordered.size(); ++i)
    EXPECT_LT(*ordered[i - 1]->context.epoch_seconds, *ordered[i]->context.epoch_seconds);
  EXPECT_EQ(std::filesystem::path(ordered[1]->path).filename(), "fuzz-2026-11-24.json");
}

// --- html helpers ----------------------------------------------------------------------

TEST(ReportHtml, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("plain text"), "plain text");
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // escaped again, not taken as already escaped
  EXPECT_EQ(html_escape("µs ×"), "µs ×");        // UTF-8 passes through
  EXPECT_EQ(html_escape(""), "");
}

TEST(ReportHtml, UrlEscapesPaths) {
  EXPECT_EQ(url_escape_path("corpus/findings/0123abcd.uop"), "corpus/findings/0123abcd.uop");
  EXPECT_EQ(url_escape_path("a b/c#d?e%f\"g.uop"), "a%20b/c%23d%3Fe%25f%22g.uop");
  EXPECT_EQ(url_escape_path("é"), "%C3%A9");
}

TEST(ReportHtml, LinksAreRelativeToThePage) {
  EXPECT_EQ(link_to("corpus/x.uop", "dashboard.html"), "corpus/x.uop");
  EXPECT_EQ(link_to("corpus/x.uop", "out/dashboard.html"), "../corpus/x.uop");
  EXPECT_EQ(link_to("./corpus/../corpus/x.uop", "out/deeper/d.html"), "../../corpus/x.uop");
  EXPECT_EQ(link_to("/abs/case.uop", "out/d.html"), "/abs/case.uop");
  EXPECT_EQ(link_to("", "out/d.html"), "");
  auto cwd = std::filesystem::current_path();
  EXPECT_EQ(link_to("corpus/x y.uop", (cwd / "out" / "d.html").string()), "../corpus/x%20y.uop");
}

// --- statistics ------------------------------------------------------------------------

Comparison cmp(double original, double rewritten, bool changed = true) {
  Comparison c;
  c.original_ns = original;
  c.rewritten_ns = rewritten;
  c.rewrite_changed = changed;
  return c;
}

TEST(ReportStats, MediansAndQuartiles) {
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_DOUBLE_EQ(median({3}), 3);
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.25), 1.75);  // numpy's default (linear)
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 1), 4);
}

TEST(ReportStats, SpeedupIsOriginalOverRewritten) {
  EXPECT_DOUBLE_EQ(speedup_of(cmp(1234.5, 617.25)), 2.0);
  EXPECT_DOUBLE_EQ(speedup_of(cmp(500, 1000)), 0.5);
  Comparison zero = cmp(100, 0);
  zero.speedup = 7;
  EXPECT_DOUBLE_EQ(speedup_of(zero), 7);  // the file's own value when a median is unusable
  EXPECT_DOUBLE_EQ(speedup_of(cmp(0, 0)), 0);
}

TEST(ReportStats, ClassifiesAndSummarizesSpeedups) {
  const double tol = 0.02;
  EXPECT_EQ(classify_speedup(cmp(200, 100), tol), SpeedupClass::Faster);
  EXPECT_EQ(classify_speedup(cmp(100, 200), tol), SpeedupClass::Slower);
  EXPECT_EQ(classify_speedup(cmp(101, 100), tol), SpeedupClass::Unchanged);  // within 2%
  EXPECT_EQ(classify_speedup(cmp(300, 100, false), tol),
            SpeedupClass::Unchanged);  // graph not rewritten
  SpeedupSummary s = summarize_speedups(
      {cmp(200, 100), cmp(100, 200), cmp(101, 100), cmp(300, 100, false), cmp(0, 0)}, tol);
  EXPECT_EQ(s.count, 4u);  // the unusable one is left out
  EXPECT_EQ(s.faster, 1u);
  EXPECT_EQ(s.slower, 1u);
  EXPECT_EQ(s.unchanged, 2u);
  EXPECT_DOUBLE_EQ(s.median, (1.01 + 2.0) / 2);
  EXPECT_DOUBLE_EQ(s.min, 0.5);
  EXPECT_DOUBLE_EQ(s.max, 3.0);
}

TEST(ReportStats, LogScalesAndTicks) {
  plot::LogScale x{10, 1000, 0, 200};
  EXPECT_DOUBLE_EQ(x(10), 0);
  EXPECT_DOUBLE_EQ(x(100), 100);
  EXPECT_DOUBLE_EQ(x(1e6), 200);  // clamped
  EXPECT_EQ(plot::decade_range(820, 42000), (std::pair<double, double>{100, 100000}));
  EXPECT_EQ(plot::pow2_range(0.7, 8.1), (std::pair<double, double>{0.5, 16}));
  EXPECT_EQ(plot::pow2_range(1.1, 1.3), (std::pair<double, double>{0.5, 2}));  // 1x always has room
  EXPECT_EQ(plot::decade_ticks(100, 1000), (std::vector<double>{100, 200, 500, 1000}));
  EXPECT_EQ(plot::pow2_ticks(0.25, 4), (std::vector<double>{0.25, 0.5, 1, 2, 4}));
  EXPECT_EQ(plot::format_duration(850), "850 ns");
  EXPECT_EQ(plot::format_duration(12500), "12.5 µs");
  EXPECT_EQ(plot::format_duration(3.2e6), "3.2 ms");
  EXPECT_EQ(plot::format_pow2_tick(0.25), "1/4×");
  EXPECT_EQ(plot::format_speedup(1.4249), "1.42×");
  EXPECT_EQ(plot::format_p_value(2.1e-5), "2.1e-05");
  EXPECT_EQ(plot::format_p_value(std::nullopt), "—");
  EXPECT_EQ(plot::format_count(5283310), "5,283,310");
  EXPECT_EQ(plot::format_count(999), "999");
  EXPECT_EQ(plot::format_count(-1000), "-1,000");
  EXPECT_EQ(plot::format_count(INT64_MIN), "-9,223,372,036,854,775,808");
}

// --- the page --------------------------------------------------------------------------

TEST(ReportDashboard, HasEverySection) {
  std::string html = render_fixtures(all_fixtures());
  for (const char* id : {"runs", "latency", "speedup", "regressions", "history"})
    EXPECT_EQ(count(html, std::string("<section id=\"") + id + "\""), 1u) << id;
  EXPECT_NE(html.find("Generated 2026-11-30 08:00 UTC from 4 runs (2 bench, 2 fuzz"),
            std::string::npos);
  EXPECT_EQ(count(section(html, "runs"), "<tr><td>"), 4u);
}

TEST(ReportDashboard, IsSelfContained) {
  std::string html = render_fixtures(all_fixtures());
  // The only URL is the SVG namespace (an identifier, never fetched).
  EXPECT_EQ(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
}

TEST(ReportDashboard, RunsOverAnotherCaseSetGetPlotsOfTheirOwn) {
  auto runs = all_fixtures();
  LoadedResults generated = runs.front();  // a bench run: relabel it as generated kernels
  for (auto& r : runs)
    if (r.kind == ResultsKind::Bench) generated = r;
  generated.context.cases = "generated: 20 graphs, seed 1";
  runs.push_back(generated);
  auto devices = bench_devices(runs);
  ASSERT_EQ(devices.size(), 4u);  // cpu and vulkan, each over two case sets
  std::string html = render_fixtures(runs);
  EXPECT_EQ(count(html, "class=\"plot latency-plot\""), 4u);
  EXPECT_NE(html.find("data-cases=\"generated: 20 graphs, seed 1\""), std::string::npos);
  for (const DeviceKey& d : devices)
    EXPECT_EQ(runs_of_device(runs, d).size(), d.cases == "corpus/examples" ? 2u : 1u);
}

TEST(ReportDashboard, OnePlotPerDevice) {
  auto runs = all_fixtures();
  std::string html = render_fixtures(runs);
  auto devices = bench_devices(runs);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(count(html, "class=\"plot latency-plot\""), 2u);
  EXPECT_EQ(count(html, "class=\"plot speedup-plot\""), 2u);
  EXPECT_EQ(count(html, "class=\"plot history-plot\""), 2u);
  EXPECT_NE(
      html.find("latency-plot\" data-backend=\"cpu\" data-device=\"" + html_escape(kCpu) + "\""),
      std::string::npos);
  EXPECT_NE(html.find("latency-plot\" data-backend=\"vulkan\" data-device=\"" +
                      html_escape(kVulkan) + "\""),
            std::string::npos);
  // Every kernel is labelled in both latency plots.
  for (const char* backend : {"cpu", "vulkan"}) {
    std::string svg = svg_of(html, "latency-plot", backend);
    for (const char* c : {"adjacent_merge", "arange_sum", "window_sum", "var_end_sum"})
      EXPECT_NE(svg.find(std::string(">") + c + "</text>"), std::string::npos)
          << backend << " " << c;
  }
}

TEST(ReportDashboard, LatencyComesFromTheLatestRunAndRunTimeOnly) {
  std::string html = render_fixtures(all_fixtures());
  std::string cpu = svg_of(html, "latency-plot", "cpu");
  // The latest cpu run also holds compile times (milliseconds): they must not stretch the
  // run-time axis, which ends at 100 µs.
  EXPECT_NE(cpu.find(">100 µs</text>"), std::string::npos);
  EXPECT_EQ(cpu.find(" ms</text>"), std::string::npos);
  // window_sum on vulkan: 38 µs -> 54.3 µs in the latest run only.
  std::string vk = svg_of(html, "latency-plot", "vulkan");
  EXPECT_NE(vk.find("window_sum: rewritten 54.3 µs"), std::string::npos);
  EXPECT_NE(section(html, "latency").find("2026-11-29 17:50"), std::string::npos);
}

TEST(ReportDashboard, SpeedupSummaryInText) {
  std::string html = render_fixtures(all_fixtures());
  std::string sec = section(html, "speedup");
  // Latest vulkan run: 2.77, 4.84, 0.99, 0.70, 1.03, 1.04, 0.96, unchanged (var_end_sum).
  LoadedResults latest = load_ok("bench-2026-11-29.json");
  SpeedupSummary s =
      summarize_speedups(comparisons_of(latest, {"vulkan", kVulkan, "corpus/examples"}), 0.02);
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.faster, 4u);
  EXPECT_EQ(s.slower, 2u);
  EXPECT_EQ(s.unchanged, 2u);
  EXPECT_NE(sec.find("median <b>" + plot::format_speedup(s.median) + "</b>"), std::string::npos);
  std::string vk_card = slice(sec, html_escape("vulkan · " + kVulkan), "</svg>");
  EXPECT_NE(vk_card.find("4 faster"), std::string::npos);
  EXPECT_NE(vk_card.find("2 slower"), std::string::npos);
  EXPECT_NE(vk_card.find("2 unchanged"), std::string::npos);
  EXPECT_NE(vk_card.find("n = 8"), std::string::npos);
  // One dot per case, and the 1x reference line.
  std::string svg = svg_of(html, "speedup-plot", "vulkan");
  EXPECT_EQ(count(svg, "<circle "), 8u);
  EXPECT_EQ(count(svg, "class=\"one\""), 1u);
}

TEST(ReportDashboard, ListsConfirmedRegressionsWithLinks) {
  std::string html = render_fixtures(all_fixtures());
  std::string sec = section(html, "regressions");
  // The confirmed bench comparison (window_sum on vulkan) and the fuzz latency finding;
  // links relative to the page in out/.
  EXPECT_NE(sec.find("<a href=\"../corpus/examples/window_sum.uop\">"), std::string::npos) << sec;
  EXPECT_NE(sec.find("<a href=\"../corpus/findings/8c9f7d0c3571ea1a.uop\">"), std::string::npos)
      << sec;
  EXPECT_NE(sec.find("latency/merge_adjacent/vulkan"), std::string::npos);
  EXPECT_NE(sec.find("1.43×"), std::string::npos);  // 54.3 µs / 38 µs
  EXPECT_NE(sec.find("3.1e-05"), std::string::npos);
  EXPECT_NE(sec.find(">527ecee</code>"), std::string::npos);
  EXPECT_EQ(count(sec, "<tr><td>"), 2u);
  // Not a latency finding, not confirmed: neither is listed.
  EXPECT_EQ(sec.find("mismatch/split_range"), std::string::npos);
  EXPECT_EQ(sec.find("adjacent_merge"), std::string::npos);
  EXPECT_EQ(sec.find("class=\"none\""), std::string::npos);
}

TEST(ReportDashboard, NoRegressionsSaysNone) {
  std::string html =
      render_fixtures({load_ok("bench-2026-11-20.json"), load_ok("fuzz-2026-11-24.json")});
  EXPECT_NE(section(html, "regressions").find("<p class=\"none\">none</p>"), std::string::npos);
}

TEST(ReportDashboard, HistoryHasOnePointPerRun) {
  auto runs = all_fixtures();
  std::string html = render_fixtures(runs);
  for (const DeviceKey& d : bench_devices(runs)) {
    std::string svg = svg_of(html, "history-plot", d.backend);
    EXPECT_EQ(count(svg, "class=\"point\""), runs_of_device(runs, d).size()) << d.backend;
    EXPECT_EQ(count(svg, "class=\"point\""), 2u);
    // In date order, labelled by short commit.
    size_t older = svg.find(">0c83951</text>"), newer = svg.find(">527ecee</text>");
    ASSERT_NE(older, std::string::npos);
    ASSERT_NE(newer, std::string::npos);
    EXPECT_LT(older, newer);
  }
  // The fuzz campaigns' table: one row per summary.
  std::string fuzz = slice(section(html, "history"), "<table", "</table>");
  EXPECT_EQ(count(fuzz, "<tr><td"), 2u);
  EXPECT_NE(fuzz.find(">1,703<"), std::string::npos);  // graphs/s of the 2026-11-29 campaign
  EXPECT_NE(fuzz.find(">5,283,310<"), std::string::npos);
}

TEST(ReportDashboard, RendersWithoutBenchResults) {
  // Fuzz summaries alone: every section is there, with no plot and no made-up data.
  std::string html = render_fixtures({load_ok("fuzz-2026-11-29.json")});
  for (const char* id : {"runs", "latency", "speedup", "regressions", "history"})
    EXPECT_EQ(count(html, std::string("<section id=\"") + id + "\""), 1u) << id;
  EXPECT_EQ(count(html, "class=\"plot "), 0u);
  EXPECT_NE(section(html, "latency").find("no bench results"), std::string::npos);
  EXPECT_NE(section(html, "regressions").find("latency/merge_adjacent/vulkan"), std::string::npos);
  EXPECT_NE(html.find("1 device."), std::string::npos);  // the context's vulkan device
}

TEST(ReportDashboard, EscapesStringsFromTheFiles) {
  auto r = parse_results(R"({"context": {"date": "2026-01-01T00:00:00Z", "commit": "<b>c</b>",
      "host_name": "h&<script>alert(1)</script>",
      "devices": [{"backend": "cpu", "device": "\"><script>x()</script>"}]},
    "benchmarks": [],
    "comparisons": [{"backend": "cpu", "device": "\"><script>x()</script>", "case": "<img onerror=y>",
                     "original_ns": 100, "rewritten_ns": 200, "p_value": 0.001, "regressed": true,
                     "confirmed": true, "corpus_case": "a\"b<c>.uop"}]})",
                         "evil.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string html = render_fixtures({r.value()});
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<script>x()"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>c</b>"), std::string::npos);
  EXPECT_NE(html.find("h&amp;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("data-device=\"&quot;&gt;&lt;script&gt;x()&lt;/script&gt;\""),
            std::string::npos);
  EXPECT_NE(html.find("href=\"../a%22b%3Cc%3E.uop\""), std::string::npos);
  EXPECT_EQ(count(html, "<script>"), 1u);  // the page's own sorter
}

}  // namespace
}  // namespace uopfuzz::report

// --- the roofline view -------------------------------------------------------------------

namespace uopfuzz::report {
namespace {

/// A suite run's results file: one case at two sizes on cpu (fractions given), with the
/// roofline measured, and a second device whose roofline was not, where a tensor program
/// has tinygrad's lowering beside ours.
std::string suite_json(const std::string& date, double large_fraction) {
  return R"({"context": {"date": ")" + date +
         R"(", "commit": "abc1234def", "cases": "suite: real, small",
  "devices": [{"backend": "cpu", "device": "cpu0"}, {"backend": "vulkan", "device": "gpu0"}]},
 "benchmarks": [], "comparisons": [],
 "suite": {"name": "real", "preset": "small"},
 "roofline": [{"backend": "cpu", "device": "cpu0", "gbps": 10.0, "gops": 20.0, "balance_ops_per_byte": 2.0},
              {"backend": "vulkan", "device": "gpu0", "error": "copy: refused"}],
 "suite_points": [
  {"case": "stream_axpy", "backend": "cpu", "device": "cpu0", "size": 4096, "bytes": 49152, "ops": 8192,
   "bound": "memory", "original": {"ns": 9830.4, "gbps": 5, "gops": 0.83, "fraction": 0.5},
   "rewritten": {"ns": 4915.2, "gbps": 10, "gops": 1.67, "fraction": 1.0}, "speedup": 2.0},
  {"case": "stream_axpy", "backend": "cpu", "device": "cpu0", "size": 65536, "bytes": 786432, "ops": 131072,
   "bound": "memory", "original": {"ns": 100000, "gbps": 7.9, "gops": 1.3, "fraction": 0.25},
   "rewritten": {"ns": 100000, "gbps": 7.9, "gops": 1.3, "fraction": )" +
         std::to_string(large_fraction) + R"(}, "speedup": 1.0},
  {"case": "softmax_rows", "form": "program", "backend": "vulkan", "device": "gpu0", "size": 4096,
   "bytes": 32768, "ops": 24576, "bound": "unknown", "original": {"ns": 1000, "gbps": 32.8, "gops": 24.6},
   "rewritten": {"ns": 1000, "gbps": 32.8, "gops": 24.6}, "speedup": 1.0,
   "kernels_original": 3, "kernels_rewritten": 3,
   "other_lowering": {"simplifier": "tinygrad", "scheduled_for": "CPU", "ours_ns": 1000, "theirs_ns": 2000,
     "ratio": 0.5, "kernels_ours": 3, "kernels_theirs": 2, "intermediates_ours": 2,
     "intermediates_theirs": 1, "clock": "host"}}],
 "size_regressions": [{"case": "stream_axpy", "backend": "cpu", "device": "cpu0", "found_at": 65536,
   "smallest": 8192, "ratio": 1.3, "probes": []}]})";
}

LoadedResults parse_ok(const std::string& text, const std::string& path) {
  auto r = parse_results(text, path);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : LoadedResults{};
}

TEST(ReportRoofline, ReadsTheSuiteKeys) {
  LoadedResults r = parse_ok(suite_json("2026-12-01T00:00:00Z", 0.75), "s.json");
  EXPECT_EQ(r.suite_preset, "small");
  ASSERT_EQ(r.roofline.size(), 2u);
  EXPECT_EQ(r.roofline[0].gbps, 10.0);
  EXPECT_FALSE(r.roofline[1].gbps.has_value());
  EXPECT_EQ(r.roofline[1].error, "copy: refused");
  ASSERT_EQ(r.suite_points.size(), 3u);
  EXPECT_EQ(r.suite_points[1].rewritten.fraction, 0.75);
  EXPECT_FALSE(r.suite_points[2].original.fraction.has_value());
  EXPECT_EQ(r.suite_points[2].kernels_original, 3);
  EXPECT_FALSE(r.suite_points[0].other_lowering.has_value());
  ASSERT_TRUE(r.suite_points[2].other_lowering.has_value());
  const OtherLowering& other = *r.suite_points[2].other_lowering;
  EXPECT_EQ(other.simplifier, "tinygrad");
  EXPECT_EQ(other.theirs_ns, 2000.0);
  EXPECT_EQ(other.ratio, 0.5);
  EXPECT_EQ(other.kernels_theirs, 2);
  EXPECT_EQ(other.intermediates_ours, 2);
  EXPECT_EQ(other.intermediates_theirs, 1);
  ASSERT_EQ(r.size_regressions.size(), 1u);
  EXPECT_EQ(r.size_regressions[0].smallest, 8192);
  // A key of the wrong type is named.
  std::string bad = suite_json("2026-12-01T00:00:00Z", 0.75);
  bad.replace(bad.find("\"size\": 4096"), 12, "\"size\": \"4096\"");
  auto rejected = parse_results(bad, "b.json");
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("suite_points[0].size"), std::string::npos);
  std::string bad_other = suite_json("2026-12-01T00:00:00Z", 0.75);
  bad_other.replace(bad_other.find("\"kernels_theirs\": 2"), 19, "\"kernels_theirs\": \"2\"");
  auto rejected_other = parse_results(bad_other, "c.json");
  ASSERT_FALSE(rejected_other.ok());
  EXPECT_NE(rejected_other.error().message.find("suite_points[2].other_lowering.kernels_theirs"),
            std::string::npos);
}

TEST(ReportRoofline, PlotsEachCaseAtItsLargestSizePerDeviceAndTheTrend) {
  std::vector<LoadedResults> runs = {parse_ok(suite_json("2026-12-01T00:00:00Z", 0.5), "a.json"),
                                     parse_ok(suite_json("2026-12-02T00:00:00Z", 0.75), "b.json")};
  DashboardOptions o;
  o.generated_at = "2026-12-03 00:00 UTC";
  std::string html = render_dashboard(runs, o);
  std::string sec = section(html, "roofline");
  ASSERT_FALSE(sec.empty());
  EXPECT_EQ(count(sec, "class=\"plot roofline-plot\""), 2u);  // cpu0 and gpu0
  // The latest run's bars, at the largest size (65536): original 25%, rewritten 75%.
  std::string cpu = slice(sec, "class=\"plot roofline-plot\" data-backend=\"cpu\"", "</svg>");
  EXPECT_NE(cpu.find("class=\"orig\" data-fraction=\"0.2500\""), std::string::npos);
  EXPECT_NE(cpu.find("class=\"rew\" data-fraction=\"0.7500\""), std::string::npos);
  EXPECT_EQ(cpu.find("data-fraction=\"1.0000\""),
            std::string::npos);  // the 4096 point is not drawn
  EXPECT_NE(sec.find("copy 10 GB/s · multiply-add 20 GOP/s"), std::string::npos);
  EXPECT_NE(sec.find("roofline not measured"), std::string::npos);
  // One trend point per suite run; the table lists every point of the latest run.
  std::string trend = slice(sec, "class=\"plot roofline-history\" data-backend=\"cpu\"", "</svg>");
  EXPECT_EQ(count(trend, "<circle"), 2u);
  EXPECT_EQ(count(slice(sec, "id=\"roofline-points\"", "</table>"), "<tr><td>"), 3u);
  EXPECT_NE(sec.find("3 → 3"), std::string::npos);  // the program's kernel counts
  // The program's column beside tinygrad's lowering; the kernels' points have none.
  std::string points = slice(sec, "id=\"roofline-points\"", "</table>");
  EXPECT_NE(points.find("Ours vs tinygrad's lowering"), std::string::npos);
  EXPECT_EQ(count(points, "class=\"num other-lowering\""), 1u);
  EXPECT_NE(points.find("ours 1 µs (3 kernels, 2 buffers) vs tinygrad 2 µs (2 kernels, 1 "
                        "buffers): 0.50×"),
            std::string::npos);
  EXPECT_EQ(count(slice(sec, "id=\"size-regressions\"", "</table>"), "<tr><td>"), 2u);
  // Without suite runs the section says so.
  std::string plain = render_dashboard(all_fixtures(), o);
  EXPECT_NE(section(plain, "roofline").find("no suite results"), std::string::npos);
}

}  // namespace
}  // namespace uopfuzz::report
