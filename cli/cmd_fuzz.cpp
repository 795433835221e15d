// uopfuzz fuzz: a campaign of generated kernels and tensor programs, findings minimized into
// the corpus.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/registry.h"
#include "backends/vulkan/device_info.h"
#include "bench/run_context.h"
#include "cli/command.h"
#include "cli/compare_flags.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "fuzz/campaign.h"
#include "fuzz/finding_triage.h"
#include "fuzz/tensor_graph.h"
#include "gen/declines.h"
#include "gen/forms.h"
#include "gen/generator.h"
#include "gen/tensor_gen.h"
#include "report/results.h"
#include "simplifier/unfireable.h"

namespace uopfuzz::cli {
namespace {

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
  /// Every graph on each (--backends); empty: the default campaign, the oracle on every
  /// graph and the compiled backends on the graphs they pick in their share of the time.
  std::vector<std::string> backends;
  double backend_share = 0.5;
  std::optional<double> backend_rate;
  SimplifyFlags simplify;
  LatencyFlags latency;
  uint64_t latency_every = 50;
  double mutate_share = 0.25;
  size_t mutate_corpus = 256;
  double large_share = gen::GenPolicy{}.p_large;
  std::string level = "mixed";
  std::vector<std::string> lowering_bugs;
  LoweringOptionFlags lowering;
  std::vector<std::string> compare;
  std::string shard;            ///< "K/N", "env", or "" (the whole campaign)
  std::string cpu_opt = "mix";  ///< O0..O3, or mix (drawn per graph)
  bool check_bounds = true;     ///< the bounds-soundness check (check/bounds_check.h)
  std::string emit;             ///< write a reproducer for this system beside each finding
  std::string root_causes;      ///< the root-causes file ("" : fuzz::pick_root_causes_path)
};

/// Per-level counts and rates (kernels: their graphs and seconds; tensor programs: theirs),
/// for the progress line, the summary and --json.
nlohmann::ordered_json level_json(const fuzz::CampaignProgress& t) {
  const uint64_t kernels = t.graphs - t.tensor_programs;
  return {
      {"kernel",
       {{"graphs", kernels},
        {"graphs_per_second", fuzz::graphs_per_second(kernels, t.small_seconds + t.large_seconds)},
        {"median_nodes", t.nodes.median()}}},
      {"tensor",
       {{"programs", t.tensor_programs},
        {"unsupported", t.tensor_unsupported},
        {"programs_per_second", fuzz::graphs_per_second(t.tensor_programs, t.tensor_seconds)},
        {"median_nodes", t.tensor_nodes.median()}}}};
}

/// The graphs each executor checked and where the worker time went: the oracle every graph
/// (its seconds are the rest: generating, simplifying, interpreting), each compiled backend
/// its own, with the cpu's compile medians by level.
nlohmann::ordered_json executors_json(const fuzz::CampaignProgress& t) {
  const double worker = fuzz::worker_seconds(t);
  double backends = 0;
  for (const auto& [name, e] : t.executors) backends += e.seconds;
  auto one = [&](uint64_t graphs, double seconds) {
    return nlohmann::ordered_json{
        {"graphs", graphs},
        {"graphs_per_second", graphs / std::max(t.seconds, 1e-9)},
        {"seconds", seconds},
        {"time_share", worker > 0 ? seconds / worker : 0.0},
        {"graphs_per_second_of_its_time", fuzz::graphs_per_second(graphs, seconds)}};
  };
  nlohmann::ordered_json j;
  j["oracle"] = one(t.graphs, std::max(worker - backends, 0.0));
  for (const auto& [name, e] : t.executors) {
    j[name] = one(e.graphs, e.seconds);
    for (const auto& [key, h] : t.compile_us) {
      if (!key.starts_with(name + "/")) continue;
      uint64_t n = 0;
      for (const auto& [us, c] : h.counts) n += c;
      const std::string level = key.substr(name.size() + 1);
      j[name]["compiles"][level] = n;
      j[name]["compile_median_ms"][level] = double(h.median()) / 1000;
    }
  }
  return j;
}

/// One line: each executor's graphs, rate and share of the worker time.
std::string executors_line(const fuzz::CampaignProgress& t) {
  std::string line;
  const nlohmann::ordered_json all = executors_json(t);
  for (const auto& [name, e] : all.items())
    line += fmt::format("{}{} {} ({:.0f}/s, {:.0f}% of the time)", line.empty() ? "" : ", ", name,
                        e["graphs"].get<uint64_t>(), e["graphs_per_second"].get<double>(),
                        100 * e["time_share"].get<double>());
  return line;
}

uint64_t unsupported_count(const fuzz::CampaignProgress& t) {
  uint64_t n = 0;
  for (const auto& [reason, k] : t.unsupported) n += k;
  return n;
}

/// One class of declines (sut::decline_class): how many, and its most frequent reason.
struct DeclineClass {
  uint64_t count = 0, example_count = 0;
  std::string example;
};

/// The campaign's declines by class, largest first (ties by name).
std::vector<std::pair<std::string, DeclineClass>> declines_by_class(
    const fuzz::CampaignProgress& t) {
  std::map<std::string, DeclineClass> by;
  for (const auto& [reason, n] : t.unsupported) {
    DeclineClass& c = by[sut::decline_class(reason)];
    c.count += n;
    if (n > c.example_count) c.example_count = n, c.example = reason;
  }
  std::vector<std::pair<std::string, DeclineClass>> sorted(by.begin(), by.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  return sorted;
}

double share_of(uint64_t n, uint64_t graphs) {
  return graphs ? double(n) / double(graphs) : 0.0;
}

/// The simplifier under test, for the summary and --json: who, which version, what it
/// declined (by class and by reason), the shapes the campaign did not generate because it
/// always declines them, and where the time went (its process, the protocol, the rest).
nlohmann::ordered_json simplifier_json(const fuzz::CampaignProgress& t,
                                       const std::vector<gen::AvoidedShape>& avoided,
                                       const std::vector<std::string>& forms,
                                       const gen::GenPolicy& policy) {
  const double worker = t.small_seconds + t.large_seconds + t.tensor_seconds;
  nlohmann::ordered_json by_class = nlohmann::ordered_json::object();
  for (const auto& [cls, c] : declines_by_class(t))
    by_class[cls] = {
        {"count", c.count}, {"share", share_of(c.count, t.graphs)}, {"example", c.example}};
  nlohmann::ordered_json not_generated = nlohmann::ordered_json::array();
  for (const auto& a : avoided) not_generated.push_back({{"shape", a.shape}, {"knobs", a.knobs}});
  const uint64_t declined = unsupported_count(t);
  return {{"name", t.simplifier},
          {"version", t.simplifier_version},
          {"graphs_per_second", fuzz::graphs_per_second(t.graphs, worker)},
          {"unsupported", declined},
          {"declined",
           {{"total", declined}, {"share", share_of(declined, t.graphs)}, {"by_class", by_class}}},
          {"not_generated", not_generated},
          {"forms",
           {{"offered", forms},
            {"p_external_forms", forms.empty() ? 0.0 : policy.p_external_forms},
            {"p_each_form", policy.p_each_form}}},
          {"unsupported_by_reason", t.unsupported},
          {"child_seconds", t.child_seconds},
          {"protocol_seconds", t.protocol_seconds},
          {"child_share", worker > 0 ? t.child_seconds / worker : 0.0},
          {"protocol_seconds_per_graph", t.graphs ? t.protocol_seconds / double(t.graphs) : 0.0}};
}

/// The coverage a campaign aims at: every rule that can fire fires this often.
constexpr uint64_t kRuleHitTarget = 100;

/// The campaign as the results format (docs/results-format.md) summarizes it.
report::FuzzSummary summary(const FuzzFlags& f, const fuzz::CampaignResult& r, bool latency,
                            const std::vector<std::string>& sampled,
                            const std::vector<fuzz::FindingTriage>& triage) {
  const auto& t = r.totals;
  report::FuzzSummary s;
  s.seed = f.seed;
  s.seconds = t.seconds;
  s.graphs = int64_t(t.graphs);
  s.graphs_per_second = t.graphs / std::max(t.seconds, 1e-9);
  s.jobs = t.jobs;
  s.backends = f.backends.empty() ? std::vector<std::string>{"oracle"} : f.backends;
  for (const std::string& b : sampled) s.backends.push_back(b);
  s.latency = latency;
  s.workers_lost = int64_t(t.workers_lost);
  s.latency_timed = int64_t(t.latency_timed);
  s.median_nodes = int64_t(t.median_nodes);
  s.median_iterations = int64_t(t.median_iterations);
  s.median_steps = int64_t(t.median_steps);
  s.small_graphs = int64_t(t.small_graphs);
  s.large_graphs = int64_t(t.large_graphs);
  s.small_graphs_per_second = fuzz::graphs_per_second(t.small_graphs, t.small_seconds);
  s.large_graphs_per_second = fuzz::graphs_per_second(t.large_graphs, t.large_seconds);
  s.findings = int64_t(t.findings);
  for (const auto& [sig, n] : t.by_signature) s.by_signature.emplace_back(sig, int64_t(n));
  for (const auto& [rule, n] : t.rule_hits) s.rule_hits.emplace_back(rule, int64_t(n));
  for (const auto& [row, n] : t.near_misses) s.near_misses.emplace_back(row, int64_t(n));
  s.mutate_share = f.mutate_share;
  s.graphs_mutated = int64_t(t.mutated);
  s.rule_hit_target = int64_t(kRuleHitTarget);
  for (const auto& [rule, n] : fuzz::rules_below(t, kRuleHitTarget))
    s.rules_below_target.emplace_back(rule, int64_t(n));
  // The built-in rules' coverage; an external simplifier's rules are those it hit.
  if (t.simplifier == "builtin") {
    for (const auto& [rule, why] : simplifier::unfireable_rules())
      s.unfireable_rules.emplace_back(rule, why);
    for (const auto& [rule, why] : simplifier::recording_rules())
      s.unfireable_rules.emplace_back(rule, "records, never rewrites: " + why);
  }
  for (const auto& [rule, gates] : t.gate_counts) {
    auto& row = s.gate_counts.emplace_back(rule, std::vector<std::pair<int64_t, int64_t>>{});
    for (const auto& g : gates) row.second.emplace_back(int64_t(g.accepted), int64_t(g.declined));
  }
  const simplifier::GateGaps gaps = simplifier::gate_gaps(t.gate_counts);
  s.gates_never_declined = gaps.never_declined;
  s.gates_never_accepted = gaps.never_accepted;
  for (size_t i = 0; i < r.new_findings.size(); ++i) {
    const auto& nf = r.new_findings[i];
    report::FuzzFinding one;
    if (i < triage.size()) {
      one.root_cause = triage[i].root_cause;
      one.reproducer = triage[i].reproducer;
    }
    one.signature = nf.signature.text();
    one.kind = check::finding_kind_name(nf.signature.kind);
    one.backend = nf.signature.backend;
    one.graph_index = int64_t(nf.graph_index);
    one.graph_seed = nf.graph_seed;
    one.seconds = nf.seconds;
    one.nodes_found = int64_t(nf.nodes_found);
    one.nodes_reduced = int64_t(nf.nodes_reduced);
    one.path = nf.path;
    one.write_error = nf.write_error;
    one.details = nf.details;
    if (nf.tensor) one.level = "tensor";
    if (nf.latency)
      one.latency =
          report::LatencyStats{nf.latency->ratio, nf.latency->p_value, nf.latency->rerun_ratio,
                               nf.latency->rerun_p_value, nf.latency->confirmed};
    s.new_findings.push_back(std::move(one));
  }
  return s;
}

int run_fuzz(const FuzzFlags& f, const std::string& command_line) {
  auto opts = simplify_options(f.simplify);
  if (!opts) return kExitBadInput;
  if (f.seconds <= 0 || f.check_seeds < 1 || f.jobs < 1 || f.graph_timeout <= 0) {
    fmt::print(stderr,
               "error: --time and --timeout must be positive, --seeds and --jobs at least 1\n");
    return kExitBadInput;
  }
  if (f.no_isolation && f.jobs > 1) {
    fmt::print(stderr, "error: --jobs needs isolation (drop --no-isolation)\n");
    return kExitBadInput;
  }
  const std::vector<std::string> checked =
      f.backends.empty() ? std::vector<std::string>{"oracle"} : f.backends;
  if (!valid_backends(checked)) return kExitBadInput;
  if (!(f.backend_share >= 0 && f.backend_share < 1) ||
      (f.backend_rate && !(*f.backend_rate > 0 && *f.backend_rate <= 1))) {
    fmt::print(stderr, "error: --backend-share must be in [0, 1), --backend-rate in (0, 1]\n");
    return kExitBadInput;
  }
  // The default campaign's compiled backends: the cpu always, Vulkan when a device opens.
  fuzz::ExecutorSchedule schedule;
  if (f.backends.empty() && f.backend_share > 0 && f.compare.empty()) {
    for (const std::string& b : backends::backend_names()) {
      if (b == "oracle") continue;
      if (std::string why = device_problem(b); !why.empty()) {
        fmt::print("fuzz: {} checks no graphs: {}\n", b, why);
        continue;
      }
      schedule.backends.push_back(b);
    }
    schedule.time_share = f.backend_share;
    schedule.fixed_rate = f.backend_rate;
  }
  auto latency = latency_options(f.latency);
  if (!latency) return kExitBadInput;
  // Now, before any thread or Vulkan instance exists: a campaign runs each Vulkan kernel
  // a few times, so compiling it fast matters more than running it fast.
  if (!*latency || (*latency)->backend != "vulkan") backends::vulkan::prefer_fast_shader_compiles();
  if (!(f.mutate_share >= 0 && f.mutate_share <= 1)) {
    fmt::print(stderr, "error: --mutate-share must be in [0, 1]\n");
    return kExitBadInput;
  }
  if (f.latency_every < 1) {
    fmt::print(stderr, "error: --latency-every must be at least 1\n");
    return kExitBadInput;
  }
  fuzz::Shard shard;
  if (!f.shard.empty()) {
    auto s =
        f.shard == "env" ? fuzz::shard_from_environment(std::getenv) : fuzz::parse_shard(f.shard);
    if (!s) {
      fmt::print(stderr, "error: --shard: {}\n", s.error().message);
      return kExitBadInput;
    }
    if (!f.compare.empty()) {
      fmt::print(stderr, "error: --shard does not apply to --compare\n");
      return kExitBadInput;
    }
    shard = *s;
  }
  std::optional<backends::OptLevel> opt_level;
  if (f.cpu_opt != "mix") {
    opt_level = backends::parse_opt_level(f.cpu_opt);
    if (!opt_level) {
      fmt::print(stderr, "error: --cpu-opt must be O0, O1, O2, O3 or mix, not '{}'\n", f.cpu_opt);
      return kExitBadInput;
    }
  }
  auto level = fuzz::parse_level(f.level);
  if (!level) {
    fmt::print(stderr, "error: --level must be kernel, tensor or mixed\n");
    return kExitBadInput;
  }
  auto lowering = lowering_bugs(f.lowering_bugs);
  if (!lowering) return kExitBadInput;
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  auto under_test = simplifier_under_test(f.simplify.simplifier, *opts);
  if (!under_test) return kExitBadInput;
  fuzz::CampaignOptions co;
  co.check.simplifier = *under_test;
  co.level = *level;
  co.lower.bugs = *lowering;
  co.lower = lower_options(co.lower, f.lowering);
  // An option given is every program's; one not given is drawn per program.
  co.vary_lowering.pcontig = !f.lowering.pcontig;
  co.vary_lowering.split_reduce_threshold = !f.lowering.split_reduce_threshold;
  co.seconds = f.seconds;
  co.seed = f.seed;
  co.max_graphs = f.max_graphs;
  co.shard = shard;
  co.check.simplify = *opts;
  co.check.seeds = f.check_seeds;
  co.check.check_bounds = f.check_bounds;
  co.check.max_steps = gen::GenPolicy{}.large_check_max_steps;  // large graphs run 10^6 iterations
  co.check.backends = checked;
  co.schedule = schedule;
  co.opt_level = opt_level;
  co.check.latency = *latency;
  co.latency_every = f.latency_every;
  // Findings of the faithful simplifier are real bugs: they go to the repository's
  // corpus. With a planted bug they are expected, and kept only where asked.
  // An external simplifier's go below it, in their own folder (fuzz::findings_dir); with
  // its planted bugs on they are expected too.
  const bool planted =
      opts->bugs.any() || !lowering->empty() || !f.simplify.simplifier.adapter_bugs.empty();
  co.corpus_dir = f.corpus.value_or(planted ? "" : "corpus/findings");
  co.found_by = command_line;
  co.isolate = !f.no_isolation;
  co.jobs = f.jobs;
  // A hang of an external simplifier is its own finding (timeout/external/NAME): the worker's
  // watchdog waits for the simplifier's timeout first.
  co.graph_timeout_s = *under_test ? std::max(f.graph_timeout, f.simplify.simplifier.timeout_s + 5)
                                   : f.graph_timeout;
  co.mutation.share = f.mutate_share;
  co.mutation.corpus_size = f.mutate_corpus;
  const bool tty = ::isatty(STDOUT_FILENO);
  double last_line = -10;
  co.on_progress = [&](const fuzz::CampaignProgress& p) {
    std::string sigs;
    for (const auto& [s, n] : p.by_signature) sigs += fmt::format(" {}x{}", s, n);
    std::string line = fmt::format(
        "[{:6.1f}s] {} graphs ({:.0f}/s; small {} at {:.0f}/s, large {} at {:.1f}/s, tensor {} at "
        "{:.0f}/s per job), {} rules hit, findings: {}{}",
        p.seconds, p.graphs, p.graphs / std::max(p.seconds, 1e-9), p.small_graphs,
        fuzz::graphs_per_second(p.small_graphs, p.small_seconds), p.large_graphs,
        fuzz::graphs_per_second(p.large_graphs, p.large_seconds), p.tensor_programs,
        fuzz::graphs_per_second(p.tensor_programs, p.tensor_seconds), p.rule_hits.size(),
        p.findings, sigs);
    if (!p.executors.empty()) line += "; " + executors_line(p);
    if (p.simplifier != "builtin")
      line = fmt::format("{}: {}, {} unsupported", p.simplifier, line, unsupported_count(p));
    if (tty) {
      fmt::print("\r{:<160}", line.substr(0, 160));
      std::fflush(stdout);
    } else if (p.seconds - last_line >= 5) {
      last_line = p.seconds;
      fmt::print("{}\n", line);
    }
  };
  gen::GenPolicy policy;
  policy.p_large = f.large_share;
  // What the simplifier always declines at its stage is not generated (its hello's
  // `declines:`); a comparison keeps every shape, for the other side's sake.
  std::vector<gen::AvoidedShape> avoided;
  if (*under_test && f.compare.empty()) {
    avoided = gen::avoid_declined_shapes(policy, (*under_test)->capabilities().declines);
    if (!avoided.empty()) {
      std::vector<std::string> words;
      for (const auto& a : avoided) words.push_back(a.shape);
      fmt::print("fuzz: not generating {} ({} declines them at its stage{}; knobs set to 0: {})\n",
                 fmt::join(words, ", "), f.simplify.simplifier.spec,
                 (*under_test)->stage().empty() ? "" : " " + (*under_test)->stage(), [&] {
                   std::string knobs;
                   for (const auto& a : avoided) knobs += (knobs.empty() ? "" : "; ") + a.knobs;
                   return knobs;
                 }());
    }
  }
  co.mutation.policy = policy;  // mutants keep to it too (the range-end mutator)
  // The spellings of gated accesses the simplifier builds in its own IR (its hello's
  // `forms:`): a share of kernels with one asks for some of them.
  std::vector<std::string> forms;
  if (*under_test && f.compare.empty()) forms = (*under_test)->capabilities().forms;
  gen::prepare_for_forms(policy, forms);
  if (!forms.empty())
    fmt::print(
        "fuzz: asking {} to spell gated accesses its own ways ({}) in {:.0f}% of the "
        "kernels that have one\n",
        f.simplify.simplifier.spec, fmt::join(forms, ", "), 100 * policy.p_external_forms);
  fuzz::GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    ir::Kernel k = gen::generate(ctx, policy, gs).kernel;
    gen::draw_forms(k, forms, policy, gs);
    return k;
  };
  co.tensor_source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate_tensor_program(ctx, policy, gs).program;
  };
  if (!f.compare.empty())
    return run_fuzz_compare(
        f.compare, external_options(f.simplify.simplifier), co.check, f.seed, f.seconds,
        f.max_graphs, source, f.json_path,
        co.level == fuzz::Level::Tensor ? co.tensor_source : fuzz::GraphSource{});
  fuzz::Shrinker shrink = f.no_reduce ? fuzz::Shrinker() : fuzz::reducer_shrinker(10);
  fuzz::CampaignResult r = fuzz::run_campaign(co, source, shrink);
  if (tty) fmt::print("\n");

  const auto& t = r.totals;
  fmt::print(
      "fuzz: {} graphs in {:.1f}s ({:.0f}/s, {} job(s); median graph {} nodes, {} loop "
      "iterations, {} oracle steps), seed {}, {} rules hit, {} findings, {} new signature(s){}\n",
      t.graphs, t.seconds, t.graphs / std::max(t.seconds, 1e-9), t.jobs, t.median_nodes,
      t.median_iterations, t.median_steps, f.seed, t.rule_hits.size(), t.findings,
      r.new_findings.size(),
      t.workers_lost ? fmt::format(", {} worker(s) lost to crashes or hangs", t.workers_lost) : "");
  if (shard.count > 1)
    fmt::print("  shard {}: graph indices i with i mod {} = {}\n", shard.text(), shard.count,
               shard.index);
  if (!t.executors.empty()) {
    fmt::print("  executors: {}\n", executors_line(t));
    const nlohmann::ordered_json all = executors_json(t);
    for (const auto& [name, e] : all.items())
      if (e.contains("compile_median_ms")) {
        std::string levels;
        for (const auto& [level, ms] : e["compile_median_ms"].items())
          levels += fmt::format(" {} {:.2f} ms x{}", level, ms.get<double>(),
                                e["compiles"][level].get<uint64_t>());
        fmt::print("  {} compiles (original and rewrite together), median by level:{}\n", name,
                   levels);
      }
    if (!schedule.backends.empty())
      fmt::print("  {} share {:.0f}% of the time{}\n", fmt::join(schedule.backends, " and "),
                 100 * schedule.time_share,
                 schedule.fixed_rate ? fmt::format(" (fixed rate {:g})", *schedule.fixed_rate)
                                     : std::string(" (target)"));
  }
  if (t.tensor_programs > 0)
    fmt::print(
        "  tensor programs: {} at {:.0f}/s per job (median {} nodes), {} not yet supported by the "
        "pipeline\n",
        t.tensor_programs, fuzz::graphs_per_second(t.tensor_programs, t.tensor_seconds),
        t.tensor_nodes.median(), t.tensor_unsupported);
  if (t.simplifier != "builtin") {
    const auto sj = simplifier_json(t, avoided, forms, policy);
    std::string hits, reasons;
    for (const auto& [rule, n] : t.rule_hits) hits += fmt::format(" {}x{}", rule, n);
    // By class (the reasons themselves vary with dtypes and ops: --json has each).
    for (const auto& [cls, c] : declines_by_class(t)) {
      const std::string prefix = "[" + cls + "] ";
      const std::string_view e = c.example;
      reasons += fmt::format("\n    {} x [{}] {:.1f}%, e.g. {}", c.count, cls,
                             100 * share_of(c.count, t.graphs),
                             e.starts_with(prefix) ? e.substr(prefix.size()) : e);
    }
    fmt::print(
        "  simplifier {} ({}): {:.1f} graphs/s per job, {:.0f}% of the time in its process, "
        "protocol {:.0f} us per graph; {} graph(s) unsupported ({:.1f}%){}\n  rules it hit:{}\n",
        t.simplifier, t.simplifier_version.empty() ? "version unknown" : t.simplifier_version,
        sj["graphs_per_second"].get<double>(), 100 * sj["child_share"].get<double>(),
        1e6 * sj["protocol_seconds_per_graph"].get<double>(), unsupported_count(t),
        100 * share_of(unsupported_count(t), t.graphs), reasons, hits.empty() ? " none" : hits);
  }
  if (f.mutate_share > 0)
    fmt::print("  mutation: {} of the graphs were mutants ({} mutations rejected), {} generated\n",
               t.mutated, t.mutants_rejected, t.graphs - t.mutated);
  if (const auto below = fuzz::rules_below(t, kRuleHitTarget); !below.empty()) {
    std::string names;
    for (const auto& [rule, n] : below) names += fmt::format(" {}x{}", rule, n);
    fmt::print("  rules under {} hits:{}\n", kRuleHitTarget, names);
  }
  fmt::print(
      "  by size: {} small graphs at {:.0f}/s, {} large at {:.1f}/s (per job; large: {} or more "
      "loop iterations)\n",
      t.small_graphs, fuzz::graphs_per_second(t.small_graphs, t.small_seconds), t.large_graphs,
      fuzz::graphs_per_second(t.large_graphs, t.large_seconds), fuzz::kLargeIterations);
  if (latency->has_value())
    fmt::print(
        "  latency: {} graph(s) timed on {} (one in {} sampled; unchanged rewrites are not "
        "timed)\n",
        t.latency_timed, (*latency)->backend, f.latency_every);
  // Gate verdicts are the built-in rules' own; an external simplifier reports none.
  const simplifier::GateGaps gaps = simplifier::gate_gaps(t.gate_counts);
  if (!t.gate_counts.empty())
    fmt::print("  gates: {} in all; never declining {}: {}\n  gates never accepting {}: {}\n",
               gaps.gates, gaps.never_declined.size(), fmt::join(gaps.never_declined, " "),
               gaps.never_accepted.size(), fmt::join(gaps.never_accepted, " "));
  // An external simplifier's findings are named by their root cause: only those that no
  // known cause explains are new.
  std::vector<fuzz::FindingTriage> triage;
  if (*under_test) {
    const std::string path = fuzz::pick_root_causes_path(
        f.root_causes, fuzz::findings_dir(co.corpus_dir, t.simplifier), t.simplifier);
    auto causes = fuzz::read_root_causes(path);
    if (!causes)
      fmt::print(stderr, "{}:{}: error: {} (findings are reported without root causes)\n", path,
                 causes.error().loc.line, causes.error().message);
    fuzz::TriageOptions to;
    to.emit = f.emit;
    to.external = external_options(f.simplify.simplifier);
    to.check = co.check;
    triage = fuzz::triage_findings(r.new_findings, causes ? *causes : fuzz::RootCauses{}, to);
    std::map<std::string, int> by_cause;
    int unexplained = 0;
    for (const auto& one : triage)
      one.root_cause.empty() ? ++unexplained : ++by_cause[one.root_cause];
    std::string known;
    for (const auto& [id, n] : by_cause) known += fmt::format(" {}x{}", id, n);
    fmt::print("  root causes ({}): {} signature(s) of known causes{}; {} new\n",
               causes && !causes->path.empty() ? causes->path : "no root-causes file",
               r.new_findings.size() - unexplained, known, unexplained);
  }
  for (size_t i = 0; i < r.new_findings.size(); ++i) {
    const auto& nf = r.new_findings[i];
    // A tensor program's lowering options are its graph seed's (fuzz::lowering_for).
    std::string lowered_at;
    if (fuzz::is_tensor_graph(co.level, co.seed, nf.graph_index)) {
      const schedule::LowerOptions lo = fuzz::lowering_for(co, nf.graph_seed);
      lowered_at = fmt::format(" at pcontig {}, split-reduce-threshold {}", lo.pcontig,
                               lo.split_reduce_threshold);
    }
    const fuzz::FindingTriage none;
    const fuzz::FindingTriage& tr = i < triage.size() ? triage[i] : none;
    fmt::print(
        "  {} {}: graph {} (seed {:#x}){} after {:.2f}s, {} -> {} nodes{}\n    {}\n",
        tr.root_cause.empty() ? "NEW" : "KNOWN " + tr.root_cause, nf.signature.text(),
        nf.graph_index, nf.graph_seed, lowered_at, nf.seconds, nf.nodes_found, nf.nodes_reduced,
        nf.path.empty() ? (nf.write_error.empty() ? "" : " (NOT written: " + nf.write_error + ")")
                        : ", written to " + nf.path,
        nf.details);
    if (!tr.reproducer.empty()) fmt::print("    reproducer: {}\n", tr.reproducer);
    if (!tr.reproducer_error.empty()) fmt::print("    no reproducer: {}\n", tr.reproducer_error);
  }
  if (!f.json_path.empty()) {
    // The devices of every backend measured: the checked ones and the timed one.
    std::vector<std::string> measured = checked;
    for (const std::string& b : schedule.backends) measured.push_back(b);
    if (latency->has_value() &&
        std::find(measured.begin(), measured.end(), (*latency)->backend) == measured.end())
      measured.push_back((*latency)->backend);
    const std::string context =
        bench::context_json("uopfuzz fuzz", bench::describe_devices(measured)).dump();
    std::ofstream out(f.json_path);
    // The per-level figures ride along in the summary as one more object.
    auto doc = nlohmann::ordered_json::parse(report::fuzz_summary_json(
        summary(f, r, latency->has_value(), schedule.backends, triage), context));
    doc["level"] = f.level;
    doc["shard"] = {{"index", shard.index}, {"count", shard.count}};
    doc["levels"] = level_json(t);
    doc["simplifier"] = simplifier_json(t, avoided, forms, policy);
    doc["executors"] = executors_json(t);
    doc["cpu_opt"] = f.cpu_opt;
    out << doc.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "error: cannot write {}\n", f.json_path);
      return kExitBadInput;
    }
  }
  return r.new_findings.empty() ? kExitOk : kExitFinding;
}

}  // namespace

Action add_fuzz(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<FuzzFlags>();
  cmd.add_option("--time", f->seconds, "seconds to run")->capture_default_str();
  cmd.add_option("--seed", f->seed,
                 "campaign seed: the same seed tries the same graphs on any machine")
      ->capture_default_str();
  cmd.add_option("--max-graphs", f->max_graphs, "stop after this many graphs (0: until --time)")
      ->capture_default_str();
  cmd.add_option("--seeds", f->check_seeds, "input seeds each graph is checked on")
      ->capture_default_str();
  cmd.add_option("--corpus", f->corpus,
                 "directory for new findings (default: corpus/findings; none with --inject-bug)");
  cmd.add_option("--json", f->json_path, "write a JSON summary to this file");
  cmd.add_flag("--no-reduce", f->no_reduce, "keep findings as found (no minimization)");
  cmd.add_option("--large-share", f->large_share,
                 "share of graphs with real sizes (loops of 10^4..10^6 iterations)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--level", f->level,
                 "what graph i is: kernel, tensor (a tensor program, lowered to kernels), or mixed "
                 "(one graph in four a tensor program, drawn from the graph's seed)")
      ->check(CLI::IsMember({"kernel", "tensor", "mixed"}))
      ->capture_default_str();
  add_lowering_bug_flag(cmd, f->lowering_bugs);
  add_lowering_option_flags(cmd, f->lowering, nullptr);
  add_compare_flag(cmd, f->compare);
  cmd.add_option("--shard", f->shard,
                 "K/N: check only the graph indices i with i mod N = K, so that N machines split "
                 "one campaign (same --seed) with no coordination; env: take K/N from "
                 "UOPFUZZ_SHARD, a Slurm array task (SLURM_ARRAY_TASK_ID/_MIN/_COUNT) or a "
                 "Kubernetes Indexed Job (JOB_COMPLETION_INDEX with UOPFUZZ_SHARD_COUNT)");
  cmd.add_option(
         "--jobs,-j", f->jobs,
         "worker processes (graph i goes to worker i mod N; with --shard K/S, (i div S) mod N)")
      ->capture_default_str();
  cmd.add_option("--timeout", f->graph_timeout,
                 "seconds one graph may take before it counts as a hang (with an external "
                 "simplifier, at least --simplifier-timeout + 5)")
      ->capture_default_str();
  cmd.add_option("--cpu-opt", f->cpu_opt,
                 "the level the cpu backend compiles at: O0, O1, O2, O3, or mix (drawn per graph "
                 "from its seed: O0 50%, O1 15%, O2 25%, O3 10%; a finding records its level as "
                 "@cpu-opt and replays there)")
      ->capture_default_str();
  cmd.add_option("--backends", f->backends,
                 "backends every graph is checked on (available: " + backend_list() +
                     "); default: the oracle on every graph and each compiled backend whose "
                     "device opens on the graphs it picks, in --backend-share of the time")
      ->delimiter(',');
  cmd.add_option("--backend-share", f->backend_share,
                 "without --backends: the share of the time the compiled backends get together "
                 "(each picks graphs by a draw from the graph's seed, likelier for a rewrite that "
                 "changed something or hit a rare rule, at a rate that follows the time; 0: the "
                 "oracle alone)")
      ->capture_default_str();
  cmd.add_option("--backend-rate", f->backend_rate,
                 "without --backends: a fixed rate for that draw instead of following the time "
                 "share (the graphs each backend checks are then a function of their index)");
  cmd.add_flag("--no-isolation", f->no_isolation,
               "check in this process (for a debugger): a crash or hang then ends the campaign");
  add_simplify_flags(cmd, f->simplify);
  add_latency_flags(cmd, f->latency);
  cmd.add_option("--latency-every", f->latency_every,
                 "with --latency: time one graph in N (graph i when i mod N = 0)")
      ->capture_default_str();
  cmd.add_option("--mutate-share", f->mutate_share,
                 "share of graphs that are mutants of the graphs that first fired a rule or a "
                 "pair of rules (rule-coverage-guided mutation; 0: generated graphs only)")
      ->capture_default_str();
  cmd.add_option("--mutate-corpus", f->mutate_corpus,
                 "graphs each worker keeps to mutate (the least-fired rules' first)")
      ->capture_default_str();
  cmd.add_flag("--check-bounds,!--no-check-bounds", f->check_bounds,
               "hold the bounds the simplifier believes of each node (tinygrad's vmin/vmax, the "
               "built-in ir/analysis) against the oracle's values: a value outside them is an "
               "unsound-bounds finding, and names the wrong fact behind a wrong rewrite (on by "
               "default)");
  cmd.add_option("--emit", f->emit,
                 "with --simplifier tinygrad: write a standalone reproducer (a script that needs "
                 "only tinygrad, exits 1 while the bug is there) beside each kept finding")
      ->check(CLI::IsMember({"tinygrad"}));
  cmd.add_option("--root-causes", f->root_causes,
                 "with an external simplifier: the root-causes file that names each finding's "
                 "cause (default: root-causes.md in the findings folder, else the repository's "
                 "corpus/findings/<simplifier>/root-causes.md); findings none explains are NEW");
  add_device_flag(cmd, invocation.device);
  const Invocation& inv = invocation;
  return [f, &inv] { return run_fuzz(*f, inv.command_line); };
}

}  // namespace uopfuzz::cli
