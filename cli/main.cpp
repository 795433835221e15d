// The uopfuzz command line. Subcommands only parse flags, call the libraries and print.
// Exit status: 0 ok, 1 a finding (undefined behaviour, output mismatch, step limit),
// 2 bad input or usage.

#include <charconv>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unordered_map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "backends/registry.h"
#include "backends/vulkan/device_info.h"
#include "bench/run_context.h"
#include "bench/runner.h"
#include "check/differential.h"
#include "fuzz/campaign.h"
#include "fuzz/isolate.h"
#include "gen/generator.h"
#include "reduce/predicates.h"
#include "reduce/reducer.h"
#include "report/dashboard.h"
#include "report/results.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;
using namespace ir;

constexpr int kExitOk = 0;
constexpr int kExitFinding = 1;
constexpr int kExitBadInput = 2;

/// A parsed and verified .uop file, or a printed error.
struct LoadedKernel {
  std::unique_ptr<Context> ctx = std::make_unique<Context>();
  ParsedKernel parsed;
  std::unordered_map<UOp, size_t, UOpHash> names;  // printed name %k of each node
};

std::optional<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Loads FILE, reporting every problem as `file:line:col: error: ...` on stderr.
std::optional<LoadedKernel> load(const std::string& path) {
  auto text = read_file(path);
  if (!text) {
    fmt::print(stderr, "{}: error: cannot read the file (missing, unreadable or not a regular file)\n", path);
    return std::nullopt;
  }
  LoadedKernel k;
  auto parsed = parse_kernel(*k.ctx, *text);
  if (!parsed) {
    const Error& e = parsed.error();
    fmt::print(stderr, "{}:{}:{}: error: {}\n", path, e.loc.line, e.loc.col, e.message);
    return std::nullopt;
  }
  k.parsed = std::move(parsed.value());
  auto errors = verify(k.parsed.kernel.root);
  for (const auto& e : errors) {
    SourceLoc loc = k.parsed.where.count(e.node) ? k.parsed.where.at(e.node) : SourceLoc{};
    fmt::print(stderr, "{}:{}:{}: error: [{}] {}\n", path, loc.line, loc.col, verify_rule_name(e.rule), e.message);
  }
  if (!errors.empty()) return std::nullopt;
  for (UOp u : toposort(k.parsed.kernel.root)) k.names.emplace(u, k.names.size());
  return k;
}

json value_json(DType dt, Value v) {
  switch (dt.kind()) {
    case DTypeKind::Bool: return v.i != 0;
    case DTypeKind::Unsigned: return v.u;
    case DTypeKind::Float:
      if (std::isnan(v.f) || std::isinf(v.f)) return format_value(dt, v);  // JSON has no NaN/inf
      return v.f;
    default: return v.i;
  }
}

int cmd_parse(const std::string& path) {
  auto k = load(path);
  if (!k) return kExitBadInput;
  fmt::print("{}", print_kernel(k->parsed.kernel));
  return kExitOk;
}

struct RunFlags {
  std::string file;
  bool quiet = false;  // replay: no per-kernel report, only the verdict
  std::string backend = "oracle";
  std::optional<uint64_t> seed;
  std::vector<std::string> vars;
  bool json = false;
  uint64_t max_steps = 2'000'000'000;
  bool dump_ir = false;
  int threads = 1;
};

std::string backend_list() { return fmt::format("{}", fmt::join(backends::backend_names(), ", ")); }

// Every name must be in the registry (backends/backends.def).
bool valid_backends(const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (!backends::find_backend(n)) {
      fmt::print(stderr, "error: unknown backend '{}' (available: {})\n", n, backend_list());
      return false;
    }
  if (names.empty()) fmt::print(stderr, "error: --backends needs at least one backend\n");
  return !names.empty();
}

int cmd_run(const RunFlags& f) {
  if (!valid_backends({f.backend})) return kExitBadInput;
  if (f.threads < 1) {
    fmt::print(stderr, "error: --threads must be at least 1\n");
    return kExitBadInput;
  }
  auto k = load(f.file);
  if (!k) return kExitBadInput;
  const Kernel& kernel = k->parsed.kernel;
  const KernelHeader& h = kernel.header;

  std::map<std::string, int64_t> vars(h.vars.begin(), h.vars.end());
  for (const std::string& kv : f.vars) {
    size_t eq = kv.find('=');
    int64_t v = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      const char* b = kv.data() + eq + 1;
      auto [p, ec] = std::from_chars(b, kv.data() + kv.size(), v);
      ok = ec == std::errc() && p == kv.data() + kv.size();
    }
    if (!ok) {
      fmt::print(stderr, "error: --var expects NAME=INTEGER, got '{}'\n", kv);
      return kExitBadInput;
    }
    vars[kv.substr(0, eq)] = v;
  }
  const uint64_t seed = f.seed.value_or(h.seed.value_or(0));
  oracle::Inputs inputs = oracle::make_inputs(kernel.root, seed, vars);
  oracle::RunOptions opts;
  opts.max_steps = f.max_steps;
  // The oracle runs first on every backend: others only run graphs it found free of UB.
  auto out = oracle::run(kernel.root, inputs, opts);
  if (!out) {
    fmt::print(stderr, "{}: error: {}\n", f.file, out.error().message);
    return kExitBadInput;
  }
  std::string listing;
  check::OutputTolerance tolerance;  // the oracle's outputs are this document's, bit for bit
  if (f.backend != "oracle" && (out->status == oracle::RunStatus::Ok || f.dump_ir)) {
    backends::Backend* be = backends::find_backend(f.backend);
    backends::CompileOptions co;
    co.keep_listing = f.dump_ir;
    auto compiled = be->compile(kernel.root, co);
    if (!compiled) {
      fmt::print(stderr, "{}: error: {} cannot compile the kernel: {}\n", f.file, f.backend, compiled.error().message);
      return backends::is_unsupported(compiled.error()) ? kExitBadInput : kExitFinding;
    }
    listing = compiled.value()->listing();
    if (out->status == oracle::RunStatus::Ok) {
      backends::RunOptions bro;
      bro.threads = f.threads;
      auto got = compiled.value()->run(inputs, bro);
      if (!got) {
        fmt::print(stderr, "{}: error: {}\n", f.file, got.error().message);
        return kExitBadInput;
      }
      out->outputs = std::move(got->outputs);
      // The expectations hold as the check compares: within what the backend declares.
      auto t = check::output_tolerance(*k->ctx, *be, kernel.root, inputs);
      if (!t) {
        fmt::print(stderr, "{}: error: {}\n", f.file, t.error().message);
        return kExitFinding;
      }
      tolerance = std::move(*t);
    } else {
      fmt::print(stderr, "{}: note: not run on {}: the oracle found the kernel {}\n", f.file, f.backend,
                 out->status == oracle::RunStatus::Ub ? "has undefined behaviour" : "runs past the step limit");
    }
  }
  if (f.dump_ir && !listing.empty()) fmt::print("{}", listing);

  auto name_of = [&](UOp u) { return fmt::format("%{}", k->names.at(u)); };
  auto line_of = [&](UOp u) { return k->parsed.where.count(u) ? k->parsed.where.at(u).line : 0; };

  // Compare against the header's expectations.
  const bool ub = out->status == oracle::RunStatus::Ub;
  json mismatches = json::array();
  if (out->status == oracle::RunStatus::Ok)
    for (const ExpectedOutput& e : h.outputs) {
      const Buffer& got = out->outputs.at(e.slot);
      Buffer want(got.dtype(), e.values.size());
      for (size_t i = 0; i < e.values.size(); ++i) want.set(i, e.values[i]);
      const check::Tolerance tol = tolerance.at(e.slot);
      for (size_t i = 0; i < e.values.size(); ++i)
        if (!check::agrees_at(want, i, got.get(i), tol))
          mismatches.push_back({{"slot", e.slot}, {"index", i},
                                {"expected", format_value(got.dtype(), e.values[i])},
                                {"got", format_value(got.dtype(), got.get(i))}});
    }
  const bool outcome_ok = out->status != oracle::RunStatus::StepLimit &&
                          (ub == (h.expect == Expect::Ub)) && mismatches.empty();

  json j;
  j["file"] = f.file;
  j["name"] = h.name;
  j["backend"] = f.backend;
  j["seed"] = seed;
  j["vars"] = inputs.vars;
  j["status"] = out->status == oracle::RunStatus::Ok ? "ok" : ub ? "ub" : "step-limit";
  j["steps"] = out->steps;
  if (out->ub) {
    json it = json::array();
    for (auto [r, v] : out->ub->iteration) it.push_back({{"range", name_of(r)}, {"value", v}});
    j["ub"] = {{"node", name_of(out->ub->node)}, {"op", op_name(out->ub->node.op())},
               {"line", line_of(out->ub->node)}, {"what", out->ub->what}, {"iteration", it}};
  }
  json outputs = json::array();
  for (const auto& [slot, buf] : out->outputs) {
    json values = json::array();
    for (size_t i = 0; i < buf.size(); ++i) values.push_back(value_json(buf.dtype(), buf.get(i)));
    outputs.push_back({{"slot", slot}, {"dtype", buf.dtype().name()}, {"values", values}});
  }
  j["outputs"] = outputs;
  j["expected"] = {{"outcome", h.expect == Expect::Ub ? "ub" : "ok"},
                   {"outputs_checked", !h.outputs.empty()},
                   {"mismatches", mismatches},
                   {"pass", outcome_ok}};

  if (f.quiet) {
    // replay prints its own one-line verdicts
  } else if (f.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{} ({}, seed {}): {} after {} steps\n", h.name.empty() ? f.file : h.name, f.backend, seed,
               j["status"].get<std::string>(), out->steps);
    if (out->ub) {
      std::string where;
      for (auto [r, v] : out->ub->iteration) where += fmt::format(" {}={}", name_of(r), v);
      fmt::print("  undefined behaviour at {} ({}, line {}): {}{}\n", name_of(out->ub->node),
                 op_name(out->ub->node.op()), line_of(out->ub->node), out->ub->what,
                 where.empty() ? "" : " at" + where);
    }
    for (const auto& [slot, buf] : out->outputs) {
      std::string vals;
      const size_t shown = std::min<size_t>(buf.size(), 16);
      for (size_t i = 0; i < shown; ++i) vals += (i ? ", " : "") + format_value(buf.dtype(), buf.get(i));
      if (buf.size() > shown) vals += fmt::format(", ... ({} more)", buf.size() - shown);
      fmt::print("  out[{}] {} x {}: [{}]\n", slot, buf.size(), buf.dtype().name(), vals);
    }
    for (const auto& m : mismatches)
      fmt::print("  MISMATCH out[{}][{}]: expected {}, got {}\n", m["slot"].get<int>(), m["index"].get<size_t>(),
                 m["expected"].get<std::string>(), m["got"].get<std::string>());
    if (h.expect_given || !h.outputs.empty())
      fmt::print("  expectation ({}{}): {}\n", h.expect == Expect::Ub ? "ub" : "ok",
                 h.outputs.empty() ? "" : " with outputs", outcome_ok ? "met" : "NOT met");
  }
  return outcome_ok ? kExitOk : kExitFinding;
}

/// Flags shared by simplify and check: which simplifier runs.
struct SimplifyFlags {
  bool no_optimize = false;
  std::vector<std::string> bugs;
  std::vector<std::string> disabled;
};

void add_simplify_flags(CLI::App* cmd, SimplifyFlags& f) {
  cmd->add_flag("--no-optimize", f.no_optimize, "run only the stages that run without optimization");
  cmd->add_option("--inject-bug", f.bugs, "switch on a planted bug (repeatable; see simplify --list-bugs)");
  cmd->add_option("--disable-rule", f.disabled, "switch off a rule by name (repeatable; see simplify --list-rules)");
}

std::optional<simplifier::SimplifyOptions> simplify_options(const SimplifyFlags& f) {
  simplifier::SimplifyOptions o;
  o.optimize = !f.no_optimize;
  for (const auto& name : f.bugs) {
    auto bug = simplifier::parse_bug(name);
    if (!bug) {
      fmt::print(stderr, "error: unknown planted bug '{}' (uopfuzz simplify --list-bugs lists them)\n", name);
      return std::nullopt;
    }
    o.bugs.enable(*bug);
  }
  auto known = simplifier::all_rule_names();
  for (const auto& name : f.disabled) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      fmt::print(stderr, "error: unknown rule '{}' (uopfuzz simplify --list-rules lists them)\n", name);
      return std::nullopt;
    }
    o.disabled.insert(name);
  }
  return o;
}

/// Flags of the latency-regression detector (check/latency.h), shared by check and fuzz.
struct LatencyFlags {
  bool on = false;
  check::LatencyOptions options;
};

void add_latency_flags(CLI::App* cmd, LatencyFlags& f) {
  cmd->add_flag("--latency", f.on, "also time the rewrite against the original: a confirmed slowdown is a finding of kind latency");
  cmd->add_option("--latency-backend", f.options.backend, "backend the kernels are timed on")->capture_default_str();
  cmd->add_option("--latency-samples", f.options.samples, "timed samples of each kernel per round (at least 9)")
      ->capture_default_str();
  cmd->add_option("--latency-threshold", f.options.min_slowdown,
                  "smallest slowdown (rewritten / original median time) that counts")
      ->capture_default_str();
  cmd->add_option("--latency-alpha", f.options.alpha, "Mann-Whitney U one-sided p-value it must be below")
      ->capture_default_str();
}

/// The detector's options, or nullopt (and a printed error) when a flag is out of range.
std::optional<std::optional<check::LatencyOptions>> latency_options(const LatencyFlags& f) {
  if (!f.on) return std::optional<check::LatencyOptions>{};
  const auto& o = f.options;
  if (o.samples < 9 || o.min_slowdown < 1 || o.alpha <= 0 || o.alpha >= 1) {
    fmt::print(stderr, "error: --latency-samples must be at least 9, --latency-threshold at least 1, --latency-alpha in (0, 1)\n");
    return std::nullopt;
  }
  if (!backends::find_backend(o.backend) || o.backend == "oracle") {
    fmt::print(stderr, "error: --latency-backend must be a compiled backend (available: {})\n", backend_list());
    return std::nullopt;
  }
  // The device is opened in a child: a campaign parent must not hold a device (and its
  // driver's threads) when it forks workers.
  fuzz::ChildOutcome probe = fuzz::run_isolated(
      [&] {
        auto d = backends::find_backend(o.backend)->device();
        return d ? std::string("ok") : d.error().message;
      },
      60);
  if (probe.status != fuzz::ChildOutcome::Status::Returned || probe.output != "ok") {
    fmt::print(stderr, "error: --latency-backend {}: {}\n", o.backend,
               probe.status == fuzz::ChildOutcome::Status::Returned ? probe.output : "opening its device " + probe.describe());
    return std::nullopt;
  }
  return std::optional<check::LatencyOptions>{o};
}

json round_json(const check::LatencyRound& r) {
  return {{"ratio", r.ratio}, {"p_value", r.test.p_greater}, {"exact_p", r.test.exact}, {"regressed", r.regressed},
          {"runs_per_sample", r.runs_per_sample}, {"clock", r.device_clock ? "device" : "host"},
          {"original_seconds", r.original}, {"rewritten_seconds", r.rewritten}};
}

json latency_json(const check::LatencyVerdict& v) {
  json j = {{"confirmed", v.confirmed}, {"first", round_json(v.first)}};
  if (v.rerun) j["rerun"] = round_json(*v.rerun);
  return j;
}

int cmd_list_bugs() {
  for (const auto& b : simplifier::all_bugs())
    fmt::print("{:<28} {:<8} {}\n{:<38}noticed by: {}\n", b.name, simplifier::bug_kind_name(b.kind), b.what, "",
               b.noticed_by);
  return kExitOk;
}

int cmd_simplify(const std::string& file, const SimplifyFlags& f, bool stats) {
  auto opts = simplify_options(f);
  if (!opts) return kExitBadInput;
  auto k = load(file);
  if (!k) return kExitBadInput;
  Kernel out = k->parsed.kernel;
  auto r = simplifier::simplify(*k->ctx, out.root, *opts);
  out.root = r.root;
  auto errors = verify(out.root);
  if (errors.empty()) {
    fmt::print("{}", print_kernel(out));
  } else {
    fmt::print("{}", print_graph(out.root));  // a broken graph still prints; its header may not apply
  }
  if (stats) {
    for (const auto& s : r.stages) fmt::print("# stage {}: {} rewrites{}\n", s.name, s.rewrites, s.converged ? "" : " (NOT converged)");
    for (const auto& [name, n] : r.hits) fmt::print("# hit {} {}\n", name, n);
  }
  for (const auto& e : errors)
    fmt::print(stderr, "{}: error: the rewrite does not verify: [{}] {} at {}\n", file, verify_rule_name(e.rule), e.message, describe(e.node));
  if (!r.converged) fmt::print(stderr, "{}: error: the simplifier did not converge\n", file);
  return errors.empty() && r.converged ? kExitOk : kExitFinding;
}

int cmd_check(const std::string& file, const SimplifyFlags& f, int seeds, std::optional<uint64_t> seed, bool as_json,
              const std::vector<std::string>& backend_names, const LatencyFlags& lf) {
  auto opts = simplify_options(f);
  if (!opts) return kExitBadInput;
  auto latency = latency_options(lf);
  if (!latency) return kExitBadInput;
  if (!valid_backends(backend_names)) return kExitBadInput;
  if (seeds < 1) {
    fmt::print(stderr, "error: --seeds must be at least 1\n");
    return kExitBadInput;
  }
  auto k = load(file);
  if (!k) return kExitBadInput;
  const Kernel& kernel = k->parsed.kernel;
  check::CheckOptions co;
  co.simplify = *opts;
  co.seeds = seeds;
  co.base_seed = seed.value_or(kernel.header.seed.value_or(0));
  co.vars.insert(kernel.header.vars.begin(), kernel.header.vars.end());
  co.backends = backend_names;
  co.latency = *latency;
  auto r = check::check_kernel(*k->ctx, kernel, co);
  std::string rules;
  for (const auto& [name, n] : r.simplified.hits) rules += fmt::format("{}{} ({})", rules.empty() ? "" : ", ", name, n);
  if (as_json) {
    json j;
    j["file"] = file;
    j["finding"] = check::finding_kind_name(r.kind);
    j["backend"] = r.backend;
    j["notes"] = r.notes;
    j["details"] = r.details;
    j["seeds_run"] = r.seeds_run;
    j["seeds_skipped"] = r.seeds_skipped;
    j["rules"] = r.simplified.hits;
    if (r.mismatch)
      j["mismatch"] = {{"seed", r.mismatch->seed}, {"slot", r.mismatch->slot}, {"index", r.mismatch->index},
                       {"original", r.mismatch->expected}, {"rewrite", r.mismatch->got}};
    if (r.latency) j["latency"] = latency_json(*r.latency);
    fmt::print("{}\n", j.dump(2));
  } else if (r.kind == check::FindingKind::None) {
    fmt::print("{}: ok: rewrite agrees with the original on {} seed(s){} (rules: {}; backends: {})\n", file, r.seeds_run,
               r.seeds_skipped ? fmt::format(", {} skipped", r.seeds_skipped) : "", rules.empty() ? "none" : rules,
               fmt::join(backend_names, ", "));
  } else {
    fmt::print("{}: FINDING {}{}: {}\n  rules that fired: {}\n", file, check::finding_kind_name(r.kind),
               r.backend == "oracle" ? "" : " on " + r.backend, r.details, rules.empty() ? "none" : rules);
  }
  if (!as_json) {
    for (const auto& n : r.notes) fmt::print("  note: {}\n", n);
    if (r.latency && r.kind == check::FindingKind::None) fmt::print("  latency on {}: {}\n", lf.options.backend, r.latency->summary());
  }
  return r.kind == check::FindingKind::None ? kExitOk : kExitFinding;
}

/// A case whose header says `@check clean` (every corpus finding) must also pass the
/// differential check with the faithful simplifier: the bug it found stays fixed. A
/// latency finding (`@check-latency BACKEND`) is re-timed on that backend too: the
/// faithful simplifier's rewrite must show no confirmed regression.
int replay_check(const std::string& file) {
  auto k = load(file);
  if (!k) return kExitBadInput;
  const auto& extra = k->parsed.kernel.header.extra;
  auto value = [&](std::string_view key) -> std::optional<std::string> {
    for (const auto& [k, v] : extra)
      if (k == key) return v;
    return std::nullopt;
  };
  if (value("check") != "clean") return kExitOk;
  check::CheckOptions co;
  co.base_seed = k->parsed.kernel.header.seed.value_or(0);
  co.vars.insert(k->parsed.kernel.header.vars.begin(), k->parsed.kernel.header.vars.end());
  if (auto list = value("check-backends")) {
    co.backends.clear();
    for (size_t at = 0; at <= list->size();) {
      const size_t comma = std::min(list->find(',', at), list->size());
      co.backends.push_back(list->substr(at, comma - at));
      at = comma + 1;
    }
    if (!valid_backends(co.backends)) {
      fmt::print(stderr, "{}: error: @check-backends must list backends by name, comma-separated\n", file);
      return kExitBadInput;
    }
  }
  if (auto backend = value("check-latency")) {
    if (!backends::find_backend(*backend) || *backend == "oracle") {
      fmt::print(stderr, "{}: error: @check-latency names '{}', not a compiled backend ({})\n", file, *backend, backend_list());
      return kExitBadInput;
    }
    co.latency = check::LatencyOptions{};
    co.latency->backend = *backend;
  }
  auto r = check::check_kernel(*k->ctx, k->parsed.kernel, co);
  if (r.kind == check::FindingKind::None) return kExitOk;
  fmt::print(stderr, "{}: check: {}: {}\n", file, check::finding_kind_name(r.kind), r.details);
  return kExitFinding;
}

struct FuzzFlags {
  double seconds = 60;
  uint64_t seed = 1;
  uint64_t max_graphs = 0;
  int check_seeds = 2;
  std::optional<std::string> corpus;
  std::string json_path;
  bool no_reduce = false;
  int jobs = 1;
  double graph_timeout = 10;
  bool no_isolation = false;
  std::vector<std::string> backends{"oracle"};
  SimplifyFlags simp;
  LatencyFlags latency;
  uint64_t latency_every = 50;
};

int cmd_fuzz(const FuzzFlags& f, const std::string& command_line) {
  auto opts = simplify_options(f.simp);
  if (!opts) return kExitBadInput;
  if (f.seconds <= 0 || f.check_seeds < 1 || f.jobs < 1 || f.graph_timeout <= 0) {
    fmt::print(stderr, "error: --time and --timeout must be positive, --seeds and --jobs at least 1\n");
    return kExitBadInput;
  }
  if (f.no_isolation && f.jobs > 1) {
    fmt::print(stderr, "error: --jobs needs isolation (drop --no-isolation)\n");
    return kExitBadInput;
  }
  if (!valid_backends(f.backends)) return kExitBadInput;
  auto latency = latency_options(f.latency);
  if (!latency) return kExitBadInput;
  if (f.latency_every < 1) {
    fmt::print(stderr, "error: --latency-every must be at least 1\n");
    return kExitBadInput;
  }
  fuzz::CampaignOptions co;
  co.seconds = f.seconds;
  co.seed = f.seed;
  co.max_graphs = f.max_graphs;
  co.check.simplify = *opts;
  co.check.seeds = f.check_seeds;
  co.check.max_steps = 10'000'000;
  co.check.backends = f.backends;
  co.check.latency = *latency;
  co.latency_every = f.latency_every;
  // Findings of the faithful simplifier are real bugs: they go to the repository's
  // corpus. With a planted bug they are expected, and kept only where asked.
  co.corpus_dir = f.corpus.value_or(opts->bugs.any() ? "" : "corpus/findings");
  co.found_by = command_line;
  co.isolate = !f.no_isolation;
  co.jobs = f.jobs;
  co.graph_timeout_s = f.graph_timeout;
  const bool tty = ::isatty(STDOUT_FILENO);
  double last_line = -10;
  co.on_progress = [&](const fuzz::CampaignProgress& p) {
    std::string sigs;
    for (const auto& [s, n] : p.by_signature) sigs += fmt::format(" {}x{}", s, n);
    std::string line = fmt::format("[{:6.1f}s] {} graphs ({:.0f}/s), {} rules hit, findings: {}{}", p.seconds, p.graphs,
                                   p.graphs / std::max(p.seconds, 1e-9), p.rule_hits.size(), p.findings, sigs);
    if (tty) {
      fmt::print("\r{:<120}", line.substr(0, 120));
      std::fflush(stdout);
    } else if (p.seconds - last_line >= 5) {
      last_line = p.seconds;
      fmt::print("{}\n", line);
    }
  };
  gen::GenPolicy policy;
  fuzz::GraphSource source = [&](Context& ctx, uint64_t gs) { return gen::generate(ctx, policy, gs).kernel; };
  fuzz::Shrinker shrink = f.no_reduce ? fuzz::Shrinker() : fuzz::reducer_shrinker(10);
  fuzz::CampaignResult r = fuzz::run_campaign(co, source, shrink);
  if (tty) fmt::print("\n");

  const auto& t = r.totals;
  fmt::print("fuzz: {} graphs in {:.1f}s ({:.0f}/s, {} job(s); median graph {} nodes, {} loop iterations, {} oracle steps), "
             "seed {}, {} rules hit, {} findings, {} new signature(s){}\n",
             t.graphs, t.seconds, t.graphs / std::max(t.seconds, 1e-9), t.jobs, t.median_nodes, t.median_iterations,
             t.median_steps, f.seed, t.rule_hits.size(), t.findings, r.new_findings.size(),
             t.workers_lost ? fmt::format(", {} worker(s) lost to crashes or hangs", t.workers_lost) : "");
  if (latency->has_value())
    fmt::print("  latency: {} graph(s) timed on {} (one in {} sampled; unchanged rewrites are not timed)\n", t.latency_timed,
               (*latency)->backend, f.latency_every);
  for (const auto& nf : r.new_findings)
    fmt::print("  NEW {}: graph {} (seed {:#x}) after {:.2f}s, {} -> {} nodes{}\n    {}\n", nf.signature.text(), nf.graph_index,
               nf.graph_seed, nf.seconds, nf.nodes_found, nf.nodes_reduced,
               nf.path.empty() ? (nf.write_error.empty() ? "" : " (NOT written: " + nf.write_error + ")") : ", written to " + nf.path,
               nf.details);
  if (!f.json_path.empty()) {
    json j;
    std::vector<std::string> measured = f.backends;
    if (latency->has_value() && std::find(measured.begin(), measured.end(), (*latency)->backend) == measured.end())
      measured.push_back((*latency)->backend);
    j["context"] = bench::context_json("uopfuzz fuzz", bench::describe_devices(measured));
    j["seed"] = f.seed;
    j["seconds"] = t.seconds;
    j["graphs"] = t.graphs;
    j["graphs_per_second"] = t.graphs / std::max(t.seconds, 1e-9);
    j["jobs"] = t.jobs;
    j["backends"] = f.backends;
    j["latency"] = latency->has_value();
    j["workers_lost"] = t.workers_lost;
    j["latency_timed"] = t.latency_timed;
    j["median_nodes"] = t.median_nodes;
    j["median_iterations"] = t.median_iterations;
    j["median_steps"] = t.median_steps;
    j["findings"] = t.findings;
    j["by_signature"] = t.by_signature;
    j["rule_hits"] = t.rule_hits;
    json nfs = json::array();
    for (const auto& nf : r.new_findings) {
      json one = {{"signature", nf.signature.text()}, {"kind", check::finding_kind_name(nf.signature.kind)},
                  {"backend", nf.signature.backend}, {"graph_index", nf.graph_index}, {"graph_seed", nf.graph_seed},
                  {"seconds", nf.seconds}, {"nodes_found", nf.nodes_found}, {"nodes_reduced", nf.nodes_reduced},
                  {"path", nf.path}, {"write_error", nf.write_error}, {"details", nf.details}};
      if (nf.latency)
        one["latency"] = {{"ratio", nf.latency->ratio}, {"p_value", nf.latency->p_value},
                          {"confirm_ratio", nf.latency->rerun_ratio}, {"confirm_p_value", nf.latency->rerun_p_value},
                          {"confirmed", nf.latency->confirmed}};
      nfs.push_back(one);
    }
    j["new_findings"] = nfs;
    std::ofstream out(f.json_path);
    out << j.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "error: cannot write {}\n", f.json_path);
      return kExitBadInput;
    }
  }
  return r.new_findings.empty() ? kExitOk : kExitFinding;
}

// Every line of `text` indented by four spaces (a case printed under a table row).
std::string indent(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += "    " + line + "\n";
  return out;
}

/// For each planted bug, a campaign with it switched on: the harness must find every one.
/// A finding counts only if the faithful simplifier passes the same minimized case
/// (otherwise it is a real bug, not the planted one, and the campaign goes on). Latency
/// bugs are looked for by the latency detector on `latency_backend`, timing every graph.
int cmd_selftest(double seconds_per_bug, uint64_t seed, const std::string& json_path,
                 const std::vector<std::string>& backend_names, double graph_timeout, const std::string& latency_backend) {
  if (!valid_backends(backend_names)) return kExitBadInput;
  if (!backends::find_backend(latency_backend) || latency_backend == "oracle") {
    fmt::print(stderr, "error: --latency-backend must be a compiled backend (available: {})\n", backend_list());
    return kExitBadInput;
  }
  gen::GenPolicy policy;
  fuzz::GraphSource source = [&](Context& ctx, uint64_t gs) { return gen::generate(ctx, policy, gs).kernel; };
  fuzz::Shrinker shrink = fuzz::reducer_shrinker(10);
  fmt::print("{:<28} {:<7} {:>9} {:>8} {:>6}  {}\n", "bug", "found", "time (s)", "graphs", "nodes", "signature");
  json rows = json::array();
  int missed = 0;
  std::vector<double> times;
  for (const auto& b : simplifier::all_bugs()) {
    const bool latency = b.kind == simplifier::BugKind::Latency;
    fuzz::CampaignOptions co;
    co.seconds = seconds_per_bug;
    co.seed = seed;
    co.check.simplify.bugs.enable(b.bug);
    co.check.seeds = 2;
    co.check.max_steps = 10'000'000;
    co.check.backends = backend_names;
    if (latency) {
      co.check.latency = check::LatencyOptions{};
      co.check.latency->backend = latency_backend;
    }
    // Isolated, so that the bugs that crash or hang the simplifier are found too.
    co.isolate = true;
    // A check on the oracle takes milliseconds, so 2 s is a hang; compiled backends add two
    // compiles per check (tens of ms, far more on a loaded machine), so they get 10 s.
    const bool compiled = latency || std::any_of(backend_names.begin(), backend_names.end(),
                                                 [](const std::string& n) { return n != "oracle"; });
    co.graph_timeout_s = graph_timeout > 0 ? graph_timeout : compiled ? 10 : 2;
    co.triage_timeout_s = std::min(co.graph_timeout_s, compiled ? 5.0 : 0.5);
    // The planted bug, not a real one: the faithful simplifier passes the minimized case
    // (for a latency bug: shows no confirmed regression on it either).
    std::optional<fuzz::NewFinding> planted;
    co.stop_when = [&](const fuzz::NewFinding& f) {
      if (f.reduced_text.empty()) return false;
      fuzz::ChildOutcome faithful = fuzz::run_isolated(
          [&] {
            Context ctx;
            auto k = parse_kernel(ctx, f.reduced_text);
            if (!k.ok()) return std::string("unparsable");
            check::CheckOptions opts;
            opts.vars.insert(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
            opts.latency = co.check.latency;
            return std::string(check::finding_kind_name(check::check_kernel(ctx, k->kernel, opts).kind));
          },
          30);
      if (faithful.status != fuzz::ChildOutcome::Status::Returned || faithful.output != "none") return false;
      planted = f;
      return true;
    };
    fuzz::CampaignResult r = fuzz::run_campaign(co, source, shrink);
    const fuzz::NewFinding* f = planted ? &*planted : r.new_findings.empty() ? nullptr : &r.new_findings.front();
    if (planted) times.push_back(f->seconds);
    else ++missed;
    std::string sig = f ? f->signature.text() : "";
    if (f && f->latency)
      sig += fmt::format(" ({:.2f}x slower, p={:.2g}; rerun {:.2f}x, p={:.2g})", f->latency->ratio, f->latency->p_value,
                         f->latency->rerun_ratio, f->latency->rerun_p_value);
    if (f && !planted) sig += fmt::format(" [a real finding; {} in all]", r.new_findings.size());
    fmt::print("{:<28} {:<7} {:>9} {:>8} {:>6}  {}\n", b.name, planted ? "yes" : f ? "OTHER" : "NO",
               f ? fmt::format("{:.2f}", f->seconds) : "-", f ? f->graph_index + 1 : r.totals.graphs,
               f ? std::to_string(f->nodes_reduced) : "-", sig);
    json row = {{"bug", b.name}, {"kind", simplifier::bug_kind_name(b.kind)}, {"found", planted.has_value()},
                {"graphs", f ? f->graph_index + 1 : r.totals.graphs}};
    if (f) {
      row["seconds"] = f->seconds;
      row["nodes_found"] = f->nodes_found;
      row["nodes_reduced"] = f->nodes_reduced;
      row["signature"] = f->signature.text();
      row["case"] = f->reduced_text;
      if (f->latency)
        row["latency"] = {{"backend", f->signature.backend}, {"ratio", f->latency->ratio}, {"p_value", f->latency->p_value},
                          {"rerun_ratio", f->latency->rerun_ratio}, {"rerun_p_value", f->latency->rerun_p_value}};
    }
    rows.push_back(row);
    if (planted && latency) fmt::print("{}", indent(f->reduced_text));
  }
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  fmt::print("selftest: {} found, {} missed; median time to find {:.2f}s\n", times.size(), missed, median);
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << json{{"seed", seed}, {"seconds_per_bug", seconds_per_bug}, {"bugs", rows}, {"missed", missed},
                {"median_seconds", median}}.dump(2)
        << "\n";
  }
  return missed ? kExitFinding : kExitOk;
}


struct BenchFlags {
  std::vector<std::string> backends{"cpu"};
  std::string cases;
  int generate = 0;
  uint64_t seed = 1;
  int reps = 15;
  std::string out;
  bool fail_on_regression = false;
};

/// Times every case's original and rewrite on each backend; writes the results file.
int cmd_bench(const BenchFlags& f) {
  if (!valid_backends(f.backends)) return kExitBadInput;
  if (f.reps < 9 || f.generate < 0) {
    fmt::print(stderr, "error: --reps must be at least 9 (the detector's minimum), --generate not negative\n");
    return kExitBadInput;
  }
  if (!f.cases.empty() && f.generate > 0) {
    fmt::print(stderr, "error: give --cases or --generate, not both\n");
    return kExitBadInput;
  }
  std::vector<bench::BenchCase> cases;
  std::string label;
  if (f.generate > 0) {
    cases = bench::generated_cases(f.generate, f.seed);
    label = fmt::format("generated: {} graphs, seed {}", f.generate, f.seed);
  } else {
    label = f.cases.empty() ? "corpus/examples" : f.cases;
    auto loaded = bench::cases_from(label);
    if (!loaded) {
      fmt::print(stderr, "error: {}\n", loaded.error().message);
      return kExitBadInput;
    }
    cases = std::move(*loaded);
    if (cases.empty()) {
      fmt::print(stderr, "error: {}: no .uop files\n", label);
      return kExitBadInput;
    }
  }
  // Fail before the work, not after it, when the results cannot be written.
  const std::string tmp = f.out + ".tmp";
  if (!std::ofstream(tmp)) {
    fmt::print(stderr, "error: cannot write {}\n", f.out);
    return kExitBadInput;
  }
  // A backend whose device cannot be opened is an error before the work, not a file of skips.
  for (const auto& d : bench::describe_devices(f.backends))
    if (!d.error.empty()) {
      fmt::print(stderr, "error: {}{}\n", d.error.rfind(d.backend + ":", 0) == 0 ? "" : d.backend + ": ", d.error);
      return kExitBadInput;
    }
  bench::BenchOptions bo;
  bo.backends = f.backends;
  bo.reps = f.reps;
  bo.on_progress = [](std::string_view line) { fmt::print(stderr, "{}\n", line); };
  bench::BenchResults r = bench::run_bench(cases, bo);
  for (const auto& d : r.devices) fmt::print("{}: {} ({})\n", d.backend, d.device.device, d.device.driver);
  fmt::print("{:<28} {:<7} {:>12} {:>12} {:>8} {:>9}  {}\n", "case", "backend", "original", "rewritten", "speedup", "p", "");
  int confirmed = 0;
  std::vector<double> speedups;
  for (const auto& c : r.comparisons) {
    confirmed += c.confirmed;
    if (c.rewrite_changed) speedups.push_back(c.speedup);
    fmt::print("{:<28} {:<7} {:>9.3f} us {:>9.3f} us {:>7.2f}x {:>9.2g}  {}\n", c.case_name, c.backend, c.original_ns / 1e3,
               c.rewritten_ns / 1e3, c.speedup, c.p_value,
               c.confirmed ? "CONFIRMED REGRESSION" : c.regressed ? "regressed once, not confirmed" : c.rewrite_changed ? "" : "unchanged");
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
  fmt::print("bench: {} cases x {} backend(s): {} measured, {} skipped; median speedup of changed kernels {:.2f}x; "
             "{} confirmed latency regression(s) -> {}\n",
             cases.size(), f.backends.size(), r.comparisons.size(), r.notes.size(),
             speedups.empty() ? 1.0 : speedups[speedups.size() / 2], confirmed, f.out);
  return confirmed && f.fail_on_regression ? kExitFinding : kExitOk;
}

/// Runs every .uop file under the given files/directories against its header's
/// expectations; one line per case, then a summary. Exit 1 if any case fails.
int cmd_replay(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".uop") files.push_back(e.path().string());
    } else if (std::filesystem::exists(p, ec)) {
      files.push_back(p);
    } else {
      fmt::print(stderr, "error: no such file or directory: {}\n", p);
      return kExitBadInput;
    }
  }
  std::sort(files.begin(), files.end());
  int passed = 0, failed = 0;
  for (const std::string& file : files) {
    RunFlags rf;
    rf.file = file;
    rf.quiet = true;
    int rc = cmd_run(rf);
    if (rc == kExitOk) rc = replay_check(file);
    fmt::print("{} {}\n", rc == kExitOk ? "PASS" : rc == kExitFinding ? "FAIL" : "ERROR", file);
    (rc == kExitOk ? passed : failed)++;
  }
  fmt::print("replay: {} passed, {} failed\n", passed, failed);
  return failed ? kExitFinding : kExitOk;
}

/// Loads every results file (a directory: its *.json files, not recursively), then
/// writes the dashboard to OUTPUT. Any file that is not a results file is reported, each
/// on its own `FILE: error:` line, and nothing is written: exit 2.
int cmd_dashboard(const std::vector<std::string>& paths, const std::string& output) {
  std::vector<std::string> files;
  bool bad = false;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      files.push_back(p);  // load_results reports a missing file
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json") found.push_back(e.path().string());
    if (found.empty()) {
      fmt::print(stderr, "{}: error: no *.json files in the directory\n", p);
      bad = true;
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<report::LoadedResults> runs;
  for (const std::string& file : files) {
    auto r = report::load_results(file);
    if (!r) {
      // The library's message starts with the path; "error:" goes after it, as elsewhere.
      std::string why = r.error().message;
      if (why.starts_with(file + ": ")) why.erase(0, file.size() + 2);
      fmt::print(stderr, "{}: error: {}\n", file, why);
      bad = true;
      continue;
    }
    runs.push_back(std::move(r.value()));
  }
  if (bad) return kExitBadInput;
  report::DashboardOptions opts;
  opts.output_path = output;
  std::string html = report::render_dashboard(runs, opts);
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out << html;
  out.close();
  if (!out) {
    fmt::print(stderr, "{}: error: cannot write the dashboard\n", output);
    return kExitBadInput;
  }
  size_t bench = std::count_if(runs.begin(), runs.end(),
                               [](const auto& r) { return r.kind == report::ResultsKind::Bench; });
  fmt::print("dashboard: {} runs ({} bench, {} fuzz), {} devices -> {}\n", runs.size(), bench, runs.size() - bench,
             report::all_devices(runs).size(), output);
  return kExitOk;
}

int cmd_devices(bool as_json) {
  auto devs = backends::vulkan::list_devices();
  if (!devs) {
    fmt::print(stderr, "error: {}\n", devs.error().message);
    return kExitBadInput;
  }
  if (as_json) {
    json a = json::array();
    for (const auto& d : *devs)
      a.push_back({{"index", d.index}, {"name", d.name}, {"type", d.type}, {"driver", d.driver}, {"driver_info", d.driver_info},
                   {"api_version", d.api_version}, {"subgroup_size", d.subgroup_size}, {"timestamp_period_ns", d.timestamp_period},
                   {"timestamps", d.timestamps}, {"max_workgroup_invocations", d.max_workgroup_invocations},
                   {"max_workgroup_count_x", d.max_workgroup_count_x}, {"max_push_constants", d.max_push_constants},
                   {"max_storage_buffer_range", d.max_storage_buffer_range},
                   {"features", {{"int64", d.int64}, {"int16", d.int16}, {"int8", d.int8}, {"float64", d.float64}, {"float16", d.float16},
                                 {"storage8", d.storage8}, {"storage16", d.storage16}, {"denorm_preserve32", d.denorm_preserve32},
                                 {"denorm_preserve64", d.denorm_preserve64}}}});
    fmt::print("{}\n", a.dump(2));
    return kExitOk;
  }
  if (devs->empty()) fmt::print("no Vulkan devices\n");
  for (const auto& d : *devs) {
    fmt::print("[{}] {} ({}), driver {} {}, Vulkan {}\n", d.index, d.name, d.type, d.driver, d.driver_info, d.api_version);
    fmt::print("    subgroup size {}, max workgroup invocations {}, max workgroups x {}, push constants {} B, "
               "max storage buffer {} B, timestamps {} ({} ns/tick)\n",
               d.subgroup_size, d.max_workgroup_invocations, d.max_workgroup_count_x, d.max_push_constants,
               d.max_storage_buffer_range, d.timestamps ? "yes" : "no", d.timestamp_period);
    auto yn = [](bool b) { return b ? "yes" : "no"; };
    fmt::print("    int64 {}, int16 {}, int8 {}, float64 {}, float16 {}, 8-bit storage {}, 16-bit storage {}, "
               "denorm preserve f32 {} f64 {}\n",
               yn(d.int64), yn(d.int16), yn(d.int8), yn(d.float64), yn(d.float16), yn(d.storage8), yn(d.storage16),
               yn(d.denorm_preserve32), yn(d.denorm_preserve64));
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"uopfuzz: differential fuzzing and benchmarks for a UOp kernel-graph simplifier"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "uopfuzz 0.1.0");
  app.footer("Exit status: 0 ok, 1 finding, 2 bad input or usage.");

  std::string parse_file;
  auto* parse = app.add_subcommand("parse", "Parse and verify a .uop file; print its canonical form");
  parse->add_option("FILE", parse_file, "the .uop file")->required();

  RunFlags rf;
  auto* run = app.add_subcommand("run", "Run a .uop kernel and print its outputs; check the header's expectations");
  run->add_option("FILE", rf.file, "the .uop file")->required();
  run->add_option("--backend", rf.backend, "backend to run on (available: " + backend_list() + ")")->capture_default_str();
  run->add_flag("--dump-ir", rf.dump_ir, "print the backend's listing (cpu: LLVM IR as lowered and as optimized; vulkan: GLSL and SPIR-V)");
  run->add_option("--threads", rf.threads, "threads a compiled backend may use")->capture_default_str();
  run->add_option("--seed", rf.seed, "input-fill seed (default: the file's @seed, else 0)");
  run->add_option("--var", rf.vars, "VAR value NAME=V (repeatable; default: the file's @var, else seed-derived)");
  run->add_flag("--json", rf.json, "print the result as JSON (schema in README)");
  run->add_option("--max-steps", rf.max_steps, "stop after this many interpreter steps")->capture_default_str();

  std::string simp_file;
  SimplifyFlags simp_flags;
  bool simp_stats = false, list_bugs = false, list_rules = false;
  auto* simp = app.add_subcommand("simplify", "Simplify a .uop kernel and print the rewritten graph");
  simp->add_option("FILE", simp_file, "the .uop file");
  add_simplify_flags(simp, simp_flags);
  simp->add_flag("--stats", simp_stats, "append the stages' rewrite counts and the rule hit counts as # comments");
  simp->add_flag("--list-bugs", list_bugs, "list the planted bugs and exit");
  simp->add_flag("--list-rules", list_rules, "list the rule names and exit");

  std::string check_file;
  SimplifyFlags check_flags;
  int check_seeds = 3;
  std::optional<uint64_t> check_seed;
  bool check_json = false;
  auto* chk = app.add_subcommand("check", "Simplify a kernel and compare original and rewrite on the oracle (and --backends)");
  chk->add_option("FILE", check_file, "the .uop file")->required();
  add_simplify_flags(chk, check_flags);
  chk->add_option("--seeds", check_seeds, "number of input seeds to compare on")->capture_default_str();
  chk->add_option("--seed", check_seed, "first input seed (default: the file's @seed, else 0)");
  chk->add_flag("--json", check_json, "print the verdict as JSON");
  std::vector<std::string> check_backends{"oracle"};
  chk->add_option("--backends", check_backends, "backends both graphs run on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  LatencyFlags check_latency;
  add_latency_flags(chk, check_latency);

  FuzzFlags fz;
  auto* fuzzc = app.add_subcommand("fuzz", "Run a fuzz campaign: generate kernels, check each rewrite, keep minimized findings");
  fuzzc->add_option("--time", fz.seconds, "seconds to run")->capture_default_str();
  fuzzc->add_option("--seed", fz.seed, "campaign seed: the same seed tries the same graphs on any machine")->capture_default_str();
  fuzzc->add_option("--max-graphs", fz.max_graphs, "stop after this many graphs (0: until --time)")->capture_default_str();
  fuzzc->add_option("--seeds", fz.check_seeds, "input seeds each graph is checked on")->capture_default_str();
  fuzzc->add_option("--corpus", fz.corpus, "directory for new findings (default: corpus/findings; none with --inject-bug)");
  fuzzc->add_option("--json", fz.json_path, "write a JSON summary to this file");
  fuzzc->add_flag("--no-reduce", fz.no_reduce, "keep findings as found (no minimization)");
  fuzzc->add_option("--jobs,-j", fz.jobs, "worker processes (graph i goes to worker i mod N)")->capture_default_str();
  fuzzc->add_option("--timeout", fz.graph_timeout, "seconds one graph may take before it counts as a hang")
      ->capture_default_str();
  fuzzc->add_option("--backends", fz.backends, "backends each graph is checked on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  fuzzc->add_flag("--no-isolation", fz.no_isolation,
                  "check in this process (for a debugger): a crash or hang then ends the campaign");
  add_simplify_flags(fuzzc, fz.simp);
  add_latency_flags(fuzzc, fz.latency);
  fuzzc->add_option("--latency-every", fz.latency_every, "with --latency: time one graph in N (graph i when i mod N = 0)")
      ->capture_default_str();

  double st_seconds = 10;
  uint64_t st_seed = 1;
  std::string st_json;
  auto* selftest = app.add_subcommand("selftest", "Run a campaign per planted bug (latency bugs through the latency detector); fail if any is missed");
  selftest->add_option("--time-per-bug", st_seconds, "seconds each campaign may take")->capture_default_str();
  selftest->add_option("--seed", st_seed, "campaign seed")->capture_default_str();
  selftest->add_option("--json", st_json, "write the table as JSON to this file");
  std::vector<std::string> st_backends{"oracle"};
  selftest->add_option("--backends", st_backends, "backends each graph is checked on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  std::string st_latency_backend = "cpu";
  selftest->add_option("--latency-backend", st_latency_backend, "backend the latency detector times kernels on (latency bugs)")
      ->capture_default_str();
  double st_timeout = 0;
  selftest->add_option("--timeout", st_timeout,
                       "seconds one check may take before it counts as a hang (default: 2 on the oracle alone, 10 with a "
                       "compiled backend)");

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "List the Vulkan devices (name, type, driver, API version, limits, features)");
  devices->add_flag("--json", devices_json, "print the list as JSON");

  // --device picks the Vulkan backend's device (in this process and in forked workers).
  std::string device;
  for (CLI::App* sub : {run, chk, fuzzc, selftest})
    sub->add_option("--device", device, "Vulkan device: index or name substring (default: first GPU, else lavapipe; see `uopfuzz devices`)");

  BenchFlags bf;
  auto* benchc = app.add_subcommand(
      "bench", "Time compile and run of each case, original vs rewritten, per backend; write Google-Benchmark-compatible JSON");
  benchc->add_option("--backends", bf.backends, "backends to time on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  benchc->add_option("--cases", bf.cases, "a directory (searched for *.uop) or one .uop file (default: corpus/examples)");
  benchc->add_option("--generate", bf.generate, "time N generated kernels instead of --cases");
  benchc->add_option("--seed", bf.seed, "first graph seed of --generate (graph seeds S, S+1, ...)")->capture_default_str();
  benchc->add_option("--reps", bf.reps, "timed samples of each kernel (at least 9)")->capture_default_str();
  benchc->add_option("--out", bf.out, "the results file (JSON, docs/results-format.md)")->required();
  benchc->add_flag("--fail-on-regression", bf.fail_on_regression, "exit 1 when a latency regression is confirmed");
  benchc->add_option("--device", device, "Vulkan device: index or name substring (default: first GPU, else lavapipe; see `uopfuzz devices`)");

  std::vector<std::string> replay_paths;
  auto* replay = app.add_subcommand("replay", "Run every .uop case in the given files/directories against its expectations");
  replay->add_option("PATHS", replay_paths, "files or directories (searched recursively for *.uop)")->required();

  std::vector<std::string> dash_paths;
  std::string dash_output;
  auto* dash = app.add_subcommand("dashboard",
                                  "Render results files (uopfuzz bench, fuzz --json) as one self-contained HTML page");
  dash->add_option("FILES", dash_paths, "results files, or directories of them (their *.json files)")->required();
  dash->add_option("-o,--output", dash_output, "the HTML file to write")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  if (!device.empty()) backends::vulkan::set_device_choice(device);
  if (*devices) return cmd_devices(devices_json);
  if (*parse) return cmd_parse(parse_file);
  if (*run) return cmd_run(rf);
  if (*replay) return cmd_replay(replay_paths);
  if (*benchc) return cmd_bench(bf);
  if (*dash) return cmd_dashboard(dash_paths, dash_output);
  if (*selftest) return cmd_selftest(st_seconds, st_seed, st_json, st_backends, st_timeout, st_latency_backend);
  if (*fuzzc) {
    std::string cmdline = "uopfuzz";
    for (int i = 1; i < argc; ++i) cmdline += std::string(" ") + argv[i];
    return cmd_fuzz(fz, cmdline);
  }
  if (*simp) {
    if (list_bugs) return cmd_list_bugs();
    if (list_rules) {
      for (const auto& n : simplifier::all_rule_names()) fmt::print("{}\n", n);
      return kExitOk;
    }
    if (simp_file.empty()) {
      fmt::print(stderr, "error: simplify needs a FILE (or --list-bugs / --list-rules)\n");
      return kExitBadInput;
    }
    return cmd_simplify(simp_file, simp_flags, simp_stats);
  }
  if (*chk) return cmd_check(check_file, check_flags, check_seeds, check_seed, check_json, check_backends, check_latency);
  return kExitBadInput;
}

}  // namespace uopfuzz::cli

int main(int argc, char** argv) { return uopfuzz::cli::main(argc, argv); }
