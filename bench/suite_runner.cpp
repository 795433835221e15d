#include "bench/suite_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <variant>

#include "backends/registry.h"
#include "check/program_latency.h"
#include "ir/parser.h"
#include "ir/program.h"
#include "ir/run_io.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"

namespace uopfuzz::bench {

namespace {

/// A case at one size, compiled on one backend: the original and the rewrite.
struct Built {
  ir::Context ctx;
  ir::UOp root;            ///< the parsed text (a kernel's SINK or a tensor program's REALIZE)
  ir::UOp rewritten_root;  ///< kernels: the simplifier's rewrite
  ir::Inputs inputs;
  std::shared_ptr<backends::Kernel> original, rewritten;
  bool changed = false;
  size_t kernels_original = 1, kernels_rewritten = 1;
  ir::Program program_rewritten;                ///< Programs: ours, lowered and simplified
  std::map<int, ir::Buffer> outputs_rewritten;  ///< the rewrite's outputs (check_outputs)
};

/// Why the case cannot be built; `refused` when it is the backend's stated limit.
struct BuildError {
  std::string message;
  bool refused = false;
};

/// The same compiled kernel under a second address: a backend's cache hands back one Kernel
/// for a graph the simplifier left as it was, and the detector tells its two sides apart by
/// address, so an unchanged case is timed against itself through this.
class SameKernel final : public backends::Kernel {
 public:
  explicit SameKernel(std::shared_ptr<backends::Kernel> k) : k_(std::move(k)) {}
  Result<ir::RunOutput> run(const ir::Inputs& inputs,
                            const backends::RunOptions& options) override {
    return k_->run(inputs, options);
  }
  Result<std::vector<double>> time(const ir::Inputs& inputs, int reps,
                                   const backends::RunOptions& options) override {
    return k_->time(inputs, reps, options);
  }
  std::vector<double> device_times() const override { return k_->device_times(); }

 private:
  std::shared_ptr<backends::Kernel> k_;
};

std::shared_ptr<backends::Kernel> as_shared(std::unique_ptr<check::CompiledProgram> p) {
  return std::shared_ptr<backends::Kernel>(std::move(p));
}

std::variant<std::unique_ptr<Built>, BuildError> build(const suite::SuiteCase& c,
                                                       backends::Backend& backend, int64_t n,
                                                       const simplifier::SimplifyOptions& so) {
  auto b = std::make_unique<Built>();
  auto parsed = ir::parse_kernel(b->ctx, c.text(n));
  if (!parsed) return BuildError{"the case's text does not parse: " + parsed.error().message};
  b->root = parsed->kernel.root;
  if (auto errors = ir::verify(b->root); !errors.empty())
    return BuildError{"the case does not verify: " + errors[0].message};
  b->inputs = ir::make_inputs(parsed->kernel, 1);
  auto compile_error = [](const Error& e) {
    return BuildError{e.message, backends::is_unsupported(e)};
  };
  switch (c.form) {
    case suite::Form::Kernel: {
      auto s = simplifier::simplify(b->ctx, b->root, so);
      if (!s.converged || !ir::verify(s.root).empty())
        return BuildError{"the simplifier's rewrite does not converge or verify"};
      b->rewritten_root = s.root;
      b->changed = s.root != b->root;
      auto both = backend.compile_all(std::vector<ir::UOp>{b->root, s.root});
      if (!both[0]) return compile_error(both[0].error());
      if (!both[1]) return compile_error(both[1].error());
      b->original = *both[0];
      b->rewritten = *both[1];
      if (b->rewritten == b->original) b->rewritten = std::make_shared<SameKernel>(b->original);
      break;
    }
    case suite::Form::Program: {
      auto lowered = schedule::lower(b->ctx, b->root);
      if (!lowered) return BuildError{lowered.error().message, true};
      b->program_rewritten = schedule::simplify_program(b->ctx, *lowered, so).program;
      const ir::Program& simplified = b->program_rewritten;
      b->changed = ir::print_program(simplified) != ir::print_program(*lowered);
      auto original = check::CompiledProgram::compile(backend, *lowered);
      if (!original) return compile_error(original.error());
      auto rewritten = check::CompiledProgram::compile(backend, simplified);
      if (!rewritten) return compile_error(rewritten.error());
      b->kernels_original = (*original)->kernels();
      b->kernels_rewritten = (*rewritten)->kernels();
      b->original = as_shared(std::move(*original));
      b->rewritten = as_shared(std::move(*rewritten));
      break;
    }
  }
  return b;
}

std::string disagreement(const std::map<int, ir::Buffer>& a, const std::map<int, ir::Buffer>& b) {
  return output_disagreement(a, b, kOutputTolerance);
}

/// The checks of the file comment; "" when they pass.
std::string check_outputs(const suite::SuiteCase& c, Built& b, bool with_oracle) {
  auto ran_original = b.original->run(b.inputs);
  if (!ran_original) return "the original fails to run: " + ran_original.error().message;
  auto ran_rewritten = b.rewritten->run(b.inputs);
  if (!ran_rewritten) return "the rewrite fails to run: " + ran_rewritten.error().message;
  if (auto d = disagreement(ran_original->outputs, ran_rewritten->outputs); !d.empty())
    return "the rewrite's outputs disagree with the original's: " + d;
  b.outputs_rewritten = ran_rewritten->outputs;
  if (!with_oracle) return "";
  std::vector<Result<ir::RunOutput>> oracle_runs;
  switch (c.form) {
    case suite::Form::Kernel:
      oracle_runs.push_back(oracle::run(b.root, b.inputs));
      oracle_runs.push_back(oracle::run(b.rewritten_root, b.inputs));
      break;
    case suite::Form::Program:
      oracle_runs.push_back(oracle::eval_tensor_program(b.root, b.inputs));
      break;
  }
  for (auto& o : oracle_runs) {
    if (!o) return "the oracle cannot run it: " + o.error().message;
    if (o->status != ir::RunStatus::Ok)
      return "the oracle finds it not free of undefined behaviour (backends run only UB-free "
             "graphs)";
    if (auto d = disagreement(o->outputs, ran_original->outputs); !d.empty())
      return "the backend disagrees with the oracle: " + d;
  }
  return "";
}

SizeProbe probe_of(const check::LatencyVerdict& v, int64_t n) {
  return {n, v.confirmed, v.first.ratio, ""};
}

}  // namespace

int64_t smallest_size_showing(int64_t above, int64_t at, int64_t quantum,
                              const std::function<Result<SizeProbe>(int64_t)>& shows,
                              int max_probes, std::vector<SizeProbe>& probes) {
  quantum = std::max<int64_t>(quantum, 1);
  int64_t lo = std::max<int64_t>(above, 0) / quantum;  // known (or taken) not to show
  int64_t hi = at / quantum;                           // known to show
  for (int i = 0; i < max_probes && hi - lo > 1; ++i) {
    const int64_t mid = lo + (hi - lo) / 2;
    auto p = shows(mid * quantum);
    SizeProbe probe = p ? *p : SizeProbe{mid * quantum, false, 0, p.error().message};
    probes.push_back(probe);
    (probe.confirmed ? hi : lo) = mid;
  }
  return hi * quantum;
}

SuiteResults run_suite(const SuiteOptions& options) {
  SuiteResults res;
  res.devices = describe_devices(options.backends);
  check::LatencyOptions lo = options.latency;
  lo.samples = std::max(options.reps, 9);
  auto say = [&](const std::string& line) {
    if (options.on_progress) options.on_progress(line);
  };
  for (size_t bi = 0; bi < options.backends.size(); ++bi) {
    const std::string& name = options.backends[bi];
    const std::string& device = res.devices[bi].device.device;
    backends::Backend* backend = backends::find_backend(name);
    if (!backend) {
      res.notes.push_back(fmt::format("{}: no such backend", name));
      continue;
    }
    lo.backend = name;
    Roofline roof = measure_roofline(*backend, device, lo.samples);
    if (roof.measured())
      say(fmt::format("{}: roofline: copy {:.2f} GB/s, multiply-add {:.2f} GOP/s", name,
                      roof.gbps(), roof.gops()));
    else
      res.notes.push_back(fmt::format("{}: roofline not measured: {}", name, roof.error));
    res.rooflines.push_back(roof);
    for (const suite::SuiteCase& c : suite::cases()) {
      if (!options.only.empty() &&
          std::find(options.only.begin(), options.only.end(), c.name) == options.only.end())
        continue;
      const std::vector<int64_t> sizes = c.sizes(options.preset);
      // Times the case at n; the verdict, or why it was not timed.
      auto measure = [&](int64_t n, bool with_oracle,
                         SuitePoint* point) -> Result<check::LatencyVerdict> {
        auto built = build(c, *backend, n, options.simplify);
        if (auto* e = std::get_if<BuildError>(&built))
          return Error{(e->refused ? "refused: " : "failed: ") + e->message};
        Built& b = *std::get<std::unique_ptr<Built>>(built);
        if (auto wrong = check_outputs(c, b, with_oracle); !wrong.empty())
          return Error{"wrong result, not timed: " + wrong};
        auto verdict = check::detect_regression(*b.original, *b.rewritten, b.inputs, lo);
        if (!verdict) return Error{"timing failed: " + verdict.error().message};
        if (!b.changed) verdict->confirmed = false;  // a graph timed against itself
        if (point) {
          const check::LatencyRound& r = verdict->first;
          point->case_name = std::string(c.name);
          point->form = c.form == suite::Form::Kernel ? "kernel" : "program";
          point->backend = name;
          point->device = device;
          point->size = n;
          point->bytes = c.bytes(n);
          point->ops = c.ops(n);
          point->original.ns = check::median(r.original) * 1e9;
          point->rewritten.ns = check::median(r.rewritten) * 1e9;
          point->original.roof = place(roof, point->bytes, point->ops, point->original.ns);
          point->rewritten.roof = place(roof, point->bytes, point->ops, point->rewritten.ns);
          point->speedup = point->rewritten.ns > 0 ? point->original.ns / point->rewritten.ns : 1;
          point->p_value = r.test.p_greater;
          point->rewrite_changed = b.changed;
          point->regressed = b.changed && r.regressed;
          point->confirmed = verdict->confirmed;
          point->kernels_original = b.kernels_original;
          point->kernels_rewritten = b.kernels_rewritten;
          point->oracle_checked = with_oracle;
          point->device_clock = r.device_clock;
          if (options.lowering_beside && c.form == suite::Form::Program) {
            const OurLowering ours{&b.program_rewritten, b.rewritten.get(), &b.outputs_rewritten};
            auto beside = lowering_beside(*options.lowering_beside, b.ctx, b.root, b.inputs,
                                          *backend, ours, kOutputTolerance, lo);
            if (beside)
              point->beside = *beside;
            else
              res.notes.push_back(fmt::format("{} n={} on {}: {}'s lowering: {}", c.name, n, name,
                                              options.lowering_beside->name(),
                                              beside.error().message));
          }
        }
        return verdict;
      };
      std::optional<size_t> first_confirmed;
      int64_t below = 0;  // the largest swept size below the first confirmed one
      for (size_t si = 0; si < sizes.size(); ++si) {
        const int64_t n = sizes[si];
        SuitePoint point;
        auto v = measure(n, si == 0, &point);
        if (!v) {
          res.notes.push_back(fmt::format("{} n={} on {}: {}", c.name, n, name, v.error().message));
          say(res.notes.back());
          continue;
        }
        res.points.push_back(point);
        say(fmt::format(
            "{} n={} on {}: {:.3g} us -> {:.3g} us ({:.2f}x); {:.0f}% -> {:.0f}% of "
            "the roofline{}",
            c.name, n, name, point.original.ns / 1e3, point.rewritten.ns / 1e3, point.speedup,
            100 * point.original.roof.fraction, 100 * point.rewritten.roof.fraction,
            point.confirmed ? "  CONFIRMED REGRESSION" : ""));
        if (const auto& o = point.beside)
          say(
              fmt::format("{} n={} on {}: ours {:.3g} us ({} kernels, {} buffers) vs {}'s lowering "
                          "{:.3g} us ({} kernels, {} buffers): {:.2f}x",
                          c.name, n, name, o->ours_ns / 1e3, o->ours.kernels, o->ours.intermediates,
                          o->simplifier, o->theirs_ns / 1e3, o->theirs.kernels,
                          o->theirs.intermediates, o->ratio));
        if (point.confirmed && !first_confirmed) first_confirmed = si;
        if (!first_confirmed) below = n;
      }
      if (!first_confirmed) continue;
      SizeRegression reg;
      reg.case_name = std::string(c.name);
      reg.backend = name;
      reg.device = device;
      reg.found_at = sizes[*first_confirmed];
      for (const SuitePoint& p : res.points)
        if (p.case_name == c.name && p.backend == name && p.size == reg.found_at)
          reg.ratio = p.speedup > 0 ? 1 / p.speedup : 0;
      auto shows = [&](int64_t n) -> Result<SizeProbe> {
        auto v = measure(n, false, nullptr);
        if (!v) return Error{v.error().message};
        return probe_of(*v, n);
      };
      reg.smallest = smallest_size_showing(below, reg.found_at, c.quantum, shows,
                                           options.max_search_probes, reg.probes);
      for (const SizeProbe& p : reg.probes)
        if (p.size == reg.smallest) reg.ratio = p.ratio;
      say(
          fmt::format("{} on {}: confirmed regression at n={}, smallest size showing it n={} "
                      "({:.2f}x the original's time)",
                      c.name, name, reg.found_at, reg.smallest, reg.ratio));
      res.regressions.push_back(reg);
    }
  }
  return res;
}

nlohmann::ordered_json suite_results_json(const SuiteResults& results, suite::Preset preset,
                                          int reps) {
  using json = nlohmann::ordered_json;
  BenchResults as_bench;
  as_bench.devices = results.devices;
  as_bench.notes = results.notes;
  for (const SuitePoint& p : results.points) {
    const std::string label = fmt::format("{}/n={}", p.case_name, p.size);
    Comparison cmp;
    cmp.backend = p.backend;
    cmp.device = p.device;
    cmp.case_name = label;
    cmp.original_ns = p.original.ns;
    cmp.rewritten_ns = p.rewritten.ns;
    cmp.speedup = p.speedup;
    cmp.p_value = p.p_value;
    cmp.regressed = p.regressed;
    cmp.confirmed = p.confirmed;
    cmp.rewrite_changed = p.rewrite_changed;
    as_bench.comparisons.push_back(cmp);
  }
  const std::string label = fmt::format("suite: real, {}", suite::preset_name(preset));
  json out = results_json(as_bench, label, reps);
  out.erase("benchmarks");
  // The Google Benchmark rows: the medians (the samples are the detector's, not kept).
  json benchmarks = json::array();
  for (const SuitePoint& p : results.points)
    for (const auto& [variant, fig] :
         {std::pair{"original", &p.original}, std::pair{"rewritten", &p.rewritten}}) {
      const std::string name =
          fmt::format("run/{}/{}/n={}/{}", p.backend, p.case_name, p.size, variant);
      benchmarks.push_back({{"name", name},
                            {"run_name", name},
                            {"run_type", "iteration"},
                            {"repetitions", 1},
                            {"repetition_index", 0},
                            {"threads", 1},
                            {"iterations", reps},
                            {"real_time", fig->ns},
                            {"cpu_time", fig->ns},
                            {"time_unit", "ns"},
                            {"measure", "run"},
                            {"backend", p.backend},
                            {"device", p.device},
                            {"case", fmt::format("{}/n={}", p.case_name, p.size)},
                            {"variant", variant},
                            {"clock", p.device_clock ? "device" : "host"},
                            {"bytes_per_second", fig->roof.gbps * 1e9},
                            {"items_per_second", fig->roof.gops * 1e9}});
    }
  json notes = out["notes"];
  out.erase("notes");
  json comparisons = out["comparisons"];
  out.erase("comparisons");
  out["benchmarks"] = benchmarks;
  out["comparisons"] = comparisons;
  out["suite"] = {{"name", "real"}, {"preset", suite::preset_name(preset)}};
  json roofs = json::array();
  for (const Roofline& r : results.rooflines) {
    json row = {{"backend", r.backend},
                {"device", r.device},
                {"copy_elements", r.copy_elements},
                {"copy_bytes", r.copy_bytes},
                {"copy_ns", r.copy_ns},
                {"fma_elements", r.fma_elements},
                {"fma_ops", r.fma_ops},
                {"fma_ns", r.fma_ns},
                {"clock", r.device_clock ? "device" : "host"}};
    if (r.measured()) {
      row["gbps"] = r.gbps();
      row["gops"] = r.gops();
      row["balance_ops_per_byte"] = r.balance();
    } else {
      row["error"] = r.error;
    }
    roofs.push_back(row);
  }
  out["roofline"] = roofs;
  json points = json::array();
  for (const SuitePoint& p : results.points) {
    auto figures = [&](const VariantFigures& f) {
      json v = {{"ns", f.ns}, {"gbps", f.roof.gbps}, {"gops", f.roof.gops}};
      v["fraction"] = f.roof.fraction > 0 ? json(f.roof.fraction) : json(nullptr);
      return v;
    };
    const bool placed = p.original.roof.fraction > 0;
    points.push_back(
        {{"case", p.case_name},
         {"form", p.form},
         {"backend", p.backend},
         {"device", p.device},
         {"size", p.size},
         {"bytes", p.bytes},
         {"ops", p.ops},
         {"intensity",
          p.bytes > 0 ? static_cast<double>(p.ops) / static_cast<double>(p.bytes) : 0.0},
         {"bound", !placed                         ? "unknown"
                   : p.original.roof.compute_bound ? "compute"
                                                   : "memory"},
         {"original", figures(p.original)},
         {"rewritten", figures(p.rewritten)},
         {"speedup", p.speedup},
         {"p_value", p.p_value},
         {"regressed", p.regressed},
         {"confirmed", p.confirmed},
         {"rewrite_changed", p.rewrite_changed},
         {"kernels_original", p.kernels_original},
         {"kernels_rewritten", p.kernels_rewritten},
         {"oracle_checked", p.oracle_checked}});
    if (const auto& o = p.beside)
      points.back()["other_lowering"] = {{"simplifier", o->simplifier},
                                         {"scheduled_for", o->scheduled_for},
                                         {"ours_ns", o->ours_ns},
                                         {"theirs_ns", o->theirs_ns},
                                         {"ratio", o->ratio},
                                         {"kernels_ours", o->ours.kernels},
                                         {"kernels_theirs", o->theirs.kernels},
                                         {"intermediates_ours", o->ours.intermediates},
                                         {"intermediates_theirs", o->theirs.intermediates},
                                         {"clock", o->device_clock ? "device" : "host"}};
  }
  out["suite_points"] = points;
  json regs = json::array();
  for (const SizeRegression& r : results.regressions) {
    json probes = json::array();
    for (const SizeProbe& p : r.probes) {
      json row = {{"size", p.size}, {"confirmed", p.confirmed}, {"ratio", p.ratio}};
      if (!p.error.empty()) row["error"] = p.error;
      probes.push_back(row);
    }
    regs.push_back({{"case", r.case_name},
                    {"backend", r.backend},
                    {"device", r.device},
                    {"found_at", r.found_at},
                    {"smallest", r.smallest},
                    {"ratio", r.ratio},
                    {"probes", probes}});
  }
  out["size_regressions"] = regs;
  out["notes"] = notes;
  return out;
}

}  // namespace uopfuzz::bench
