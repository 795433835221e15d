// uopfuzz bench: original vs rewritten timings of each case, written as a results file.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "bench/run_context.h"
#include "bench/runner.h"
#include "bench/suite_runner.h"
#include "cli/command.h"
#include "cli/shared_flags.h"
#include "simplifier/bugs.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::cli {
namespace {

struct BenchFlags {
  std::vector<std::string> backends{"cpu"};
  std::string cases;
  int generate = 0;
  uint64_t seed = 1;
  int reps = 15;
  std::string out;
  bool fail_on_regression = false;
  std::string suite;  ///< "real": the real-size suite (bench/suite/cases.def) instead of cases
  std::string size = "small";
  std::vector<std::string> suite_cases;
  std::vector<std::string> bugs;
  bool tinygrad_lowering = false;
};

/// The cases to time (printing why there are none), and the label the results file gives them.
std::optional<std::vector<bench::BenchCase>> bench_cases(const BenchFlags& f, std::string& label) {
  if (f.generate > 0) {
    label = fmt::format("generated: {} graphs, seed {}", f.generate, f.seed);
    return bench::generated_cases(f.generate, f.seed);
  }
  label = f.cases.empty() ? "corpus/examples" : f.cases;
  auto loaded = bench::cases_from(label);
  if (!loaded) {
    fmt::print(stderr, "error: {}\n", loaded.error().message);
    return std::nullopt;
  }
  if (loaded->empty()) {
    fmt::print(stderr, "error: {}: no .uop files\n", label);
    return std::nullopt;
  }
  return std::move(*loaded);
}

/// Writes `j` to `out` atomically (through `out`.tmp); false (and says why) when it cannot.
bool write_results(const nlohmann::ordered_json& j, const std::string& out) {
  const std::string tmp = out + ".tmp";
  {
    std::ofstream file(tmp);
    file << j.dump(2) << "\n";
    if (!file) {
      fmt::print(stderr, "error: cannot write {}\n", tmp);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, out, ec);
  if (ec) {
    fmt::print(stderr, "error: cannot write {}: {}\n", out, ec.message());
    return false;
  }
  return true;
}

std::string percent(double fraction) {
  return fraction > 0 ? fmt::format("{:.0f}%", 100 * fraction) : "-";
}

/// `bench --suite real`: the real-size suite over a preset's sizes, under each backend's roofline.
int run_suite_bench(const BenchFlags& f) {
  auto preset = bench::suite::parse_preset(f.size);
  if (f.suite != "real" || !preset) {
    fmt::print(stderr, "error: --suite takes real, --size small, full or tiny\n");
    return kExitBadInput;
  }
  if (!f.cases.empty() || f.generate > 0) {
    fmt::print(stderr, "error: give --suite or --cases/--generate, not both\n");
    return kExitBadInput;
  }
  for (const auto& name : f.suite_cases)
    if (!bench::suite::find_case(name)) {
      fmt::print(stderr, "error: --suite-cases: no case '{}' in bench/suite/cases.def\n", name);
      return kExitBadInput;
    }
  bench::SuiteOptions so;
  so.preset = *preset;
  so.backends = f.backends;
  so.only = f.suite_cases;
  so.reps = f.reps;
  for (const auto& name : f.bugs) {
    auto bug = simplifier::parse_bug(name);
    if (!bug) {
      fmt::print(stderr,
                 "error: unknown planted bug '{}' (uopfuzz simplify --list-bugs lists them)\n",
                 name);
      return kExitBadInput;
    }
    so.simplify.bugs.enable(*bug);
  }
  if (f.tinygrad_lowering) {
    sut::ExternalOptions eo;
    // One request schedules and runs a whole real-size program on tinygrad's CPU device:
    // seconds at the full preset, not the per-graph budget of a campaign.
    eo.timeout_s = 600;
    auto tinygrad = sut::make_simplifier("tinygrad", eo);
    if (!tinygrad) {
      fmt::print(stderr, "error: --tinygrad-lowering: {}\n", tinygrad.error().message);
      return kExitBadInput;
    }
    so.lowering_beside = *tinygrad;
  }
  so.on_progress = [](std::string_view line) { fmt::print(stderr, "{}\n", line); };
  bench::SuiteResults r = bench::run_suite(so);
  for (const auto& roof : r.rooflines)
    if (roof.measured())
      fmt::print("{}: {}: copy {:.2f} GB/s, multiply-add {:.2f} GOP/s (balance {:.2f} op/B)\n",
                 roof.backend, roof.device, roof.gbps(), roof.gops(), roof.balance());
  fmt::print("{:<20} {:<7} {:>9} {:>7} {:>9} {:>9} {:>8} {:>8} {:>8}  {}\n", "case", "backend",
             "size", "bound", "GB/s", "GOP/s", "roof o", "roof r", "speedup", "");
  int confirmed = 0;
  for (const auto& p : r.points) {
    confirmed += p.confirmed;
    fmt::print("{:<20} {:<7} {:>9} {:>7} {:>9.2f} {:>9.2f} {:>8} {:>8} {:>7.2f}x  {}\n",
               p.case_name, p.backend, p.size,
               p.original.roof.fraction <= 0   ? "-"
               : p.original.roof.compute_bound ? "compute"
                                               : "memory",
               p.rewritten.roof.gbps, p.rewritten.roof.gops, percent(p.original.roof.fraction),
               percent(p.rewritten.roof.fraction), p.speedup,
               p.confirmed         ? "CONFIRMED REGRESSION"
               : p.regressed       ? "regressed once, not confirmed"
               : p.rewrite_changed ? ""
                                   : "unchanged");
  }
  for (const auto& p : r.points)
    if (const auto& o = p.beside)
      fmt::print(
          "lowering: {} n={} on {}: ours {:.3g} us ({} kernels, {} buffers), {}'s {:.3g} us ({} "
          "kernels, {} buffers): ours/{} {:.2f}x\n",
          p.case_name, p.size, p.backend, o->ours_ns / 1e3, o->ours.kernels, o->ours.intermediates,
          o->simplifier, o->theirs_ns / 1e3, o->theirs.kernels, o->theirs.intermediates,
          o->simplifier, o->ratio);
  for (const auto& g : r.regressions)
    fmt::print("regression: {} on {}: confirmed at n={}, smallest size showing it n={} ({:.2f}x)\n",
               g.case_name, g.backend, g.found_at, g.smallest, g.ratio);
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
  if (!write_results(bench::suite_results_json(r, *preset, f.reps), f.out)) return kExitBadInput;
  fmt::print(
      "bench: suite real ({}) x {} backend(s): {} measured, {} notes; {} confirmed latency "
      "regression(s) -> {}\n",
      f.size, f.backends.size(), r.points.size(), r.notes.size(), confirmed, f.out);
  return confirmed && f.fail_on_regression ? kExitFinding : kExitOk;
}

int run_bench(const BenchFlags& f) {
  if (!valid_backends(f.backends)) return kExitBadInput;
  if (f.reps < 9 || f.generate < 0) {
    fmt::print(stderr,
               "error: --reps must be at least 9 (the detector's minimum), --generate not "
               "negative\n");
    return kExitBadInput;
  }
  if (!f.cases.empty() && f.generate > 0) {
    fmt::print(stderr, "error: give --cases or --generate, not both\n");
    return kExitBadInput;
  }
  if (!f.suite.empty()) {
    if (!std::ofstream(f.out + ".tmp")) {
      fmt::print(stderr, "error: cannot write {}\n", f.out);
      return kExitBadInput;
    }
    for (const auto& d : bench::describe_devices(f.backends))
      if (!d.error.empty()) {
        fmt::print(stderr, "error: {}{}\n",
                   d.error.rfind(d.backend + ":", 0) == 0 ? "" : d.backend + ": ", d.error);
        return kExitBadInput;
      }
    return run_suite_bench(f);
  }
  if (f.tinygrad_lowering) {
    fmt::print(stderr, "error: --tinygrad-lowering is for --suite real's tensor programs\n");
    return kExitBadInput;
  }
  std::string label;
  auto cases = bench_cases(f, label);
  if (!cases) return kExitBadInput;
  // Fail before the work, not after it, when the results cannot be written.
  const std::string tmp = f.out + ".tmp";
  if (!std::ofstream(tmp)) {
    fmt::print(stderr, "error: cannot write {}\n", f.out);
    return kExitBadInput;
  }
  // A backend whose device cannot be opened is an error before the work, not a file of skips.
  for (const auto& d : bench::describe_devices(f.backends))
    if (!d.error.empty()) {
      fmt::print(stderr, "error: {}{}\n",
                 d.error.rfind(d.backend + ":", 0) == 0 ? "" : d.backend + ": ", d.error);
      return kExitBadInput;
    }
  bench::BenchOptions bo;
  bo.backends = f.backends;
  bo.reps = f.reps;
  bo.on_progress = [](std::string_view line) { fmt::print(stderr, "{}\n", line); };
  bench::BenchResults r = bench::run_bench(*cases, bo);
  for (const auto& d : r.devices)
    fmt::print("{}: {} ({})\n", d.backend, d.device.device, d.device.driver);
  fmt::print("{:<28} {:<7} {:>12} {:>12} {:>8} {:>9}  {}\n", "case", "backend", "original",
             "rewritten", "speedup", "p", "");
  int confirmed = 0;
  std::vector<double> speedups;
  for (const auto& c : r.comparisons) {
    confirmed += c.confirmed;
    if (c.rewrite_changed) speedups.push_back(c.speedup);
    fmt::print("{:<28} {:<7} {:>9.3f} us {:>9.3f} us {:>7.2f}x {:>9.2g}  {}\n", c.case_name,
               c.backend, c.original_ns / 1e3, c.rewritten_ns / 1e3, c.speedup, c.p_value,
               c.confirmed         ? "CONFIRMED REGRESSION"
               : c.regressed       ? "regressed once, not confirmed"
               : c.rewrite_changed ? ""
                                   : "unchanged");
  }
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
  auto j = bench::results_json(r, label, f.reps);
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "error: cannot write {}\n", tmp);
      return kExitBadInput;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, f.out, ec);
  if (ec) {
    fmt::print(stderr, "error: cannot write {}: {}\n", f.out, ec.message());
    return kExitBadInput;
  }
  std::sort(speedups.begin(), speedups.end());
  fmt::print(
      "bench: {} cases x {} backend(s): {} measured, {} skipped; median speedup of changed "
      "kernels {:.2f}x; {} confirmed latency regression(s) -> {}\n",
      cases->size(), f.backends.size(), r.comparisons.size(), r.notes.size(),
      speedups.empty() ? 1.0 : speedups[speedups.size() / 2], confirmed, f.out);
  return confirmed && f.fail_on_regression ? kExitFinding : kExitOk;
}

}  // namespace

Action add_bench(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<BenchFlags>();
  cmd.add_option("--backends", f->backends,
                 "backends to time on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--cases", f->cases,
                 "a directory (searched for *.uop) or one .uop file (default: corpus/examples)");
  cmd.add_option("--generate", f->generate, "time N generated kernels instead of --cases");
  cmd.add_option("--seed", f->seed, "first graph seed of --generate (graph seeds S, S+1, ...)")
      ->capture_default_str();
  cmd.add_option("--reps", f->reps, "timed samples of each kernel (at least 9)")
      ->capture_default_str();
  cmd.add_option("--out", f->out, "the results file (JSON, docs/results-format.md)")->required();
  cmd.add_flag("--fail-on-regression", f->fail_on_regression,
               "exit 1 when a latency regression is confirmed");
  cmd.add_option(
      "--suite", f->suite,
      "time the real-size benchmark suite instead of --cases: real (bench/suite/cases.def; "
      "roofline fractions and the rewrite's effect across sizes)");
  cmd.add_option("--size", f->size,
                 "the suite's preset: small (CI, seconds), full (nightly, 10^6 to 10^8 "
                 "elements) or tiny (tests)")
      ->capture_default_str();
  cmd.add_option("--suite-cases", f->suite_cases, "only these suite cases (by name)")
      ->delimiter(',');
  cmd.add_option("--inject-bug", f->bugs,
                 "with --suite: switch on a planted simplifier bug in the rewrite (repeatable; "
                 "see simplify --list-bugs)");
  cmd.add_flag("--tinygrad-lowering", f->tinygrad_lowering,
               "with --suite: also run tinygrad's lowering of each tensor-program case (its "
               "kernels as .uop, via the tinygrad adapter and $TINYGRAD_PATH) on the same "
               "backend, checked against ours and timed beside it");
  add_device_flag(cmd, invocation.device);
  return [f] { return run_bench(*f); };
}

}  // namespace uopfuzz::cli
