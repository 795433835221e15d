#include "bench/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "backends/kernel_cache.h"
#include "backends/registry.h"
#include "gen/generator.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::optional<std::string> read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<double> to_ns(const std::vector<double>& seconds) {
  std::vector<double> ns;
  for (double s : seconds) ns.push_back(s * 1e9);
  return ns;
}

}  // namespace

Result<std::unique_ptr<PreparedCase>> prepare_case(const BenchCase& c) {
  auto p = std::make_unique<PreparedCase>();
  auto parsed = ir::parse_kernel(p->ctx, c.text);
  if (!parsed)
    return Error{fmt::format("does not parse (line {}: {})", parsed.error().loc.line,
                             parsed.error().message)};
  const ir::Kernel& k = parsed->kernel;
  if (auto errors = ir::verify(k.root); !errors.empty())
    return Error{"does not verify: " + errors[0].message};
  p->original = k.root;
  std::map<std::string, int64_t> vars(k.header.vars.begin(), k.header.vars.end());
  p->inputs = oracle::make_inputs(k, k.header.seed.value_or(0), vars);
  auto simplified = simplifier::simplify(p->ctx, k.root);
  if (!simplified.converged || !ir::verify(simplified.root).empty())
    return Error{
        "the simplifier's rewrite does not converge or verify (a finding for `uopfuzz check`)"};
  p->rewritten = simplified.root;
  for (auto [graph, what] :
       {std::pair{p->original, "original"}, std::pair{p->rewritten, "rewrite"}}) {
    auto run = oracle::run(graph, p->inputs);
    if (!run)
      return Error{fmt::format("the {} cannot run on the oracle: {}", what, run.error().message)};
    if (run->status != oracle::RunStatus::Ok)
      return Error{
          fmt::format("the {} is not free of undefined behaviour on its inputs (backends run only "
                      "UB-free graphs)",
                      what)};
  }
  return p;
}

Result<std::vector<BenchCase>> cases_from(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::recursive_directory_iterator(path, ec))
      if (e.is_regular_file() && e.path().extension() == ".uop") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  } else {
    return Error{fmt::format("{}: no such file or directory", path)};
  }
  std::vector<BenchCase> cases;
  for (const auto& f : files) {
    auto text = read_text(f);
    if (!text) return Error{fmt::format("{}: cannot read the file", f.string())};
    cases.push_back({f.stem().string(), f.string(), std::move(*text)});
  }
  return cases;
}

std::vector<BenchCase> generated_cases(int count, uint64_t seed) {
  std::vector<BenchCase> cases;
  gen::GenPolicy policy;
  for (int i = 0; i < count; ++i) {
    const uint64_t gs = seed + static_cast<uint64_t>(i);
    ir::Context ctx;
    cases.push_back(
        {fmt::format("gen-{}", gs), "", ir::print_kernel(gen::generate(ctx, policy, gs).kernel)});
  }
  return cases;
}

BenchResults run_bench(const std::vector<BenchCase>& cases, const BenchOptions& options) {
  BenchResults res;
  res.devices = describe_devices(options.backends);
  check::LatencyOptions lo = options.latency;
  lo.samples = std::max(options.reps, 9);
  const size_t total = cases.size() * options.backends.size();
  size_t done = 0;
  for (const BenchCase& c : cases) {
    auto prepared = prepare_case(c);
    if (!prepared) {
      res.notes.push_back(fmt::format("{}: skipped: {}", c.name, prepared.error().message));
      done += options.backends.size();
      if (options.on_progress) options.on_progress(res.notes.back());
      continue;
    }
    PreparedCase& p = **prepared;
    const bool changed = p.rewritten != p.original;
    for (size_t b = 0; b < options.backends.size(); ++b) {
      ++done;
      const std::string& name = options.backends[b];
      const std::string& device = res.devices[b].device.device;
      backends::Backend* backend = backends::find_backend(name);
      auto note = [&](const std::string& why) {
        res.notes.push_back(fmt::format("{} on {}: skipped: {}", c.name, name, why));
        if (options.on_progress)
          options.on_progress(fmt::format("[{}/{}] {}", done, total, res.notes.back()));
      };
      if (!backend) {
        note("no such backend");
        continue;
      }
      // Cold compiles: the cache is cleared before each, so each one builds.
      std::shared_ptr<backends::Kernel> kernels[2];
      std::string failure;
      for (int v = 0; v < 2 && failure.empty(); ++v) {
        Measurement m{"compile", name, device, c.name, v == 0 ? "original" : "rewritten",
                      "host",    {}};
        for (int r = 0; r < std::max(options.compile_reps, 1); ++r) {
          if (backend->kernel_cache()) backend->kernel_cache()->clear();
          const auto t0 = Clock::now();
          auto k = backend->compile(v == 0 ? p.original : p.rewritten);
          const double s = std::chrono::duration<double>(Clock::now() - t0).count();
          if (!k) {
            failure = k.error().message;
            break;
          }
          kernels[v] = k.value();
          m.samples_ns.push_back(s * 1e9);
        }
        if (failure.empty()) res.measurements.push_back(std::move(m));
      }
      if (!failure.empty()) {
        note(failure);
        continue;
      }
      auto verdict = check::detect_regression(*kernels[0], *kernels[1], p.inputs, lo);
      if (!verdict) {
        note("timing failed: " + verdict.error().message);
        continue;
      }
      const check::LatencyRound& round = verdict->first;
      const std::string clock = round.device_clock ? "device" : "host";
      res.measurements.push_back(
          {"run", name, device, c.name, "original", clock, to_ns(round.original)});
      res.measurements.push_back(
          {"run", name, device, c.name, "rewritten", clock, to_ns(round.rewritten)});
      Comparison cmp;
      cmp.backend = name;
      cmp.device = device;
      cmp.case_name = c.name;
      cmp.corpus_case = c.path;
      cmp.original_ns = check::median(round.original) * 1e9;
      cmp.rewritten_ns = check::median(round.rewritten) * 1e9;
      cmp.speedup = cmp.rewritten_ns > 0 ? cmp.original_ns / cmp.rewritten_ns : 1;
      cmp.p_value = round.test.p_greater;
      cmp.rewrite_changed = changed;
      // An unchanged graph is timed against itself: whatever the samples say, it cannot regress.
      cmp.regressed = changed && round.regressed;
      cmp.confirmed = changed && verdict->confirmed;
      res.comparisons.push_back(cmp);
      if (options.on_progress)
        options.on_progress(fmt::format(
            "[{}/{}] {} on {}: {:.3g} us -> {:.3g} us ({:.2f}x{}){}", done, total, c.name, name,
            cmp.original_ns / 1e3, cmp.rewritten_ns / 1e3, cmp.speedup,
            changed ? "" : ", unchanged", cmp.confirmed ? "  CONFIRMED REGRESSION" : ""));
    }
  }
  return res;
}

nlohmann::ordered_json results_json(const BenchResults& results, const std::string& cases_label,
                                    int reps) {
  using json = nlohmann::ordered_json;
  json out;
  out["context"] = context_json("uopfuzz bench", results.devices, cases_label, reps);
  json benchmarks = json::array();
  for (const Measurement& m : results.measurements) {
    const std::string name =
        fmt::format("{}/{}/{}/{}", m.measure, m.backend, m.case_name, m.variant);
    std::vector<double> sorted = m.samples_ns;
    std::sort(sorted.begin(), sorted.end());
    const double med = check::median(m.samples_ns);
    benchmarks.push_back({{"name", name},
                          {"run_name", name},
                          {"run_type", "iteration"},
                          {"repetitions", 1},
                          {"repetition_index", 0},
                          {"threads", 1},
                          {"iterations", m.samples_ns.size()},
                          {"real_time", med},
                          {"cpu_time", med},
                          {"time_unit", "ns"},
                          {"measure", m.measure},
                          {"backend", m.backend},
                          {"device", m.device},
                          {"case", m.case_name},
                          {"variant", m.variant},
                          {"clock", m.clock},
                          {"samples", m.samples_ns},
                          {"min", sorted.empty() ? 0 : sorted.front()},
                          {"max", sorted.empty() ? 0 : sorted.back()}});
  }
  out["benchmarks"] = benchmarks;
  json comparisons = json::array();
  for (const Comparison& c : results.comparisons)
    comparisons.push_back({{"backend", c.backend},
                           {"device", c.device},
                           {"case", c.case_name},
                           {"original_ns", c.original_ns},
                           {"rewritten_ns", c.rewritten_ns},
                           {"speedup", c.speedup},
                           {"p_value", c.p_value},
                           {"regressed", c.regressed},
                           {"confirmed", c.confirmed},
                           {"rewrite_changed", c.rewrite_changed},
                           {"corpus_case", c.corpus_case}});
  out["comparisons"] = comparisons;
  out["notes"] = results.notes;
  return out;
}

}  // namespace uopfuzz::bench
