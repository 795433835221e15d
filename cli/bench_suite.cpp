// uopfuzz bench --suite real: the real-size suite (bench/suite/cases.def) timed over a preset's
// sizes on each backend, as fractions of the backend's measured roofline, written as a results
// file.

#include <fmt/format.h>

#include "bench/suite_runner.h"
#include "cli/bench_flags.h"
#include "cli/command.h"
#include "simplifier/bugs.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::cli {

namespace {

std::string percent(double fraction) {
  return fraction > 0 ? fmt::format("{:.0f}%", 100 * fraction) : "-";
}

}  // namespace

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

}  // namespace uopfuzz::cli
