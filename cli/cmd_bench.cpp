// uopfuzz bench: original vs rewritten timings of each case, written as a results file.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "bench/run_context.h"
#include "bench/runner.h"
#include "cli/bench_flags.h"
#include "cli/command.h"
#include "cli/shared_flags.h"

namespace uopfuzz::cli {

bool ready_to_bench(const BenchFlags& f) {
  if (!std::ofstream(f.out + ".tmp")) {
    fmt::print(stderr, "error: cannot write {}\n", f.out);
    return false;
  }
  // A backend whose device cannot be opened is an error before the work, not a file of skips.
  for (const auto& d : bench::describe_devices(f.backends))
    if (!d.error.empty()) {
      fmt::print(stderr, "error: {}{}\n",
                 d.error.rfind(d.backend + ":", 0) == 0 ? "" : d.backend + ": ", d.error);
      return false;
    }
  return true;
}

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

namespace {

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
  if (!f.suite.empty()) return ready_to_bench(f) ? run_suite_bench(f) : kExitBadInput;
  if (f.tinygrad_lowering) {
    fmt::print(stderr, "error: --tinygrad-lowering is for --suite real's tensor programs\n");
    return kExitBadInput;
  }
  std::string label;
  auto cases = bench_cases(f, label);
  if (!cases) return kExitBadInput;
  if (!ready_to_bench(f)) return kExitBadInput;
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
  if (!write_results(bench::results_json(r, label, f.reps), f.out)) return kExitBadInput;
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
