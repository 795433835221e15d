#include "cli/fuzz_output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string_view>

#include "cli/compare_flags.h"
#include "fuzz/root_causes.h"
#include "fuzz/tensor_graph.h"
#include "report/campaign_json.h"
#include "simplifier/unfireable.h"

namespace uopfuzz::cli {

std::function<void(const fuzz::CampaignProgress&)> progress_printer(bool tty) {
  // Shared by every copy of the callback (the campaign options may be copied).
  auto last_line = std::make_shared<double>(-10);
  return [tty, last_line](const fuzz::CampaignProgress& p) {
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
    if (!p.executors.empty()) line += "; " + report::executors_line(p);
    if (p.simplifier != "builtin")
      line =
          fmt::format("{}: {}, {} unsupported", p.simplifier, line, report::unsupported_count(p));
    if (tty) {
      fmt::print("\r{:<160}", line.substr(0, 160));
      std::fflush(stdout);
    } else if (p.seconds - *last_line >= 5) {
      *last_line = p.seconds;
      fmt::print("{}\n", line);
    }
  };
}

void print_campaign_summary(const FuzzFlags& f, const fuzz::CampaignResult& r,
                            const fuzz::Shard& shard, const fuzz::ExecutorSchedule& schedule,
                            const fuzz::GenerationPlan& plan,
                            const std::optional<check::LatencyOptions>& latency) {
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
    fmt::print("  executors: {}\n", report::executors_line(t));
    const nlohmann::ordered_json all = report::executors_json(t);
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
    const auto sj = report::simplifier_json(t, plan.avoided, plan.forms, plan.policy);
    std::string hits, reasons;
    for (const auto& [rule, n] : t.rule_hits) hits += fmt::format(" {}x{}", rule, n);
    // By class (the reasons themselves vary with dtypes and ops: --json has each).
    for (const auto& [cls, c] : report::declines_by_class(t)) {
      const std::string prefix = "[" + cls + "] ";
      const std::string_view e = c.example;
      reasons += fmt::format("\n    {} x [{}] {:.1f}%, e.g. {}", c.count, cls,
                             100 * report::share_of(c.count, t.graphs),
                             e.starts_with(prefix) ? e.substr(prefix.size()) : e);
    }
    fmt::print(
        "  simplifier {} ({}): {:.1f} graphs/s per job, {:.0f}% of the time in its process, "
        "protocol {:.0f} us per graph; {} graph(s) unsupported ({:.1f}%){}\n  rules it hit:{}\n",
        t.simplifier, t.simplifier_version.empty() ? "version unknown" : t.simplifier_version,
        sj["graphs_per_second"].get<double>(), 100 * sj["child_share"].get<double>(),
        1e6 * sj["protocol_seconds_per_graph"].get<double>(), report::unsupported_count(t),
        100 * report::share_of(report::unsupported_count(t), t.graphs), reasons,
        hits.empty() ? " none" : hits);
  }
  if (f.mutate_share > 0)
    fmt::print("  mutation: {} of the graphs were mutants ({} mutations rejected), {} generated\n",
               t.mutated, t.mutants_rejected, t.graphs - t.mutated);
  if (const auto below = fuzz::rules_below(t, fuzz::kRuleHitTarget); !below.empty()) {
    std::string names;
    for (const auto& [rule, n] : below) names += fmt::format(" {}x{}", rule, n);
    fmt::print("  rules under {} hits:{}\n", fuzz::kRuleHitTarget, names);
  }
  fmt::print(
      "  by size: {} small graphs at {:.0f}/s, {} large at {:.1f}/s (per job; large: {} or more "
      "loop iterations)\n",
      t.small_graphs, fuzz::graphs_per_second(t.small_graphs, t.small_seconds), t.large_graphs,
      fuzz::graphs_per_second(t.large_graphs, t.large_seconds), fuzz::kLargeIterations);
  if (latency.has_value())
    fmt::print(
        "  latency: {} graph(s) timed on {} (one in {} sampled; unchanged rewrites are not "
        "timed)\n",
        t.latency_timed, latency->backend, f.latency_every);
  // Gate verdicts are the built-in rules' own; an external simplifier reports none.
  const simplifier::GateGaps gaps = simplifier::gate_gaps(t.gate_counts);
  if (!t.gate_counts.empty())
    fmt::print("  gates: {} in all; never declining {}: {}\n  gates never accepting {}: {}\n",
               gaps.gates, gaps.never_declined.size(), fmt::join(gaps.never_declined, " "),
               gaps.never_accepted.size(), fmt::join(gaps.never_accepted, " "));
}

std::vector<fuzz::FindingTriage> triage_new_findings(const FuzzFlags& f,
                                                     const fuzz::CampaignOptions& co,
                                                     const fuzz::CampaignResult& r) {
  const auto& t = r.totals;
  std::vector<fuzz::FindingTriage> triage;
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
  return triage;
}

void print_new_findings(const fuzz::CampaignOptions& co, const fuzz::CampaignResult& r,
                        const std::vector<fuzz::FindingTriage>& triage) {
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
}

}  // namespace uopfuzz::cli
