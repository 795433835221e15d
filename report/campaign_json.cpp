#include "report/campaign_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "check/differential.h"
#include "fuzz/campaign_setup.h"
#include "report/policy_json.h"
#include "simplifier/unfireable.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::report {

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

/// The campaign as the results format (docs/results-format.md) summarizes it.
FuzzSummary campaign_summary(uint64_t seed, const std::vector<std::string>& checked,
                             double mutate_share, const fuzz::CampaignResult& r, bool latency,
                             const std::vector<std::string>& sampled,
                             const std::vector<fuzz::FindingTriage>& triage) {
  const auto& t = r.totals;
  FuzzSummary s;
  s.seed = seed;
  s.seconds = t.seconds;
  s.graphs = int64_t(t.graphs);
  s.graphs_per_second = t.graphs / std::max(t.seconds, 1e-9);
  s.jobs = t.jobs;
  s.backends = checked;
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
  s.mutate_share = mutate_share;
  s.graphs_mutated = int64_t(t.mutated);
  s.rule_hit_target = int64_t(fuzz::kRuleHitTarget);
  for (const auto& [rule, n] : fuzz::rules_below(t, fuzz::kRuleHitTarget))
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
    FuzzFinding one;
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
      one.latency = LatencyStats{nf.latency->ratio, nf.latency->p_value, nf.latency->rerun_ratio,
                                 nf.latency->rerun_p_value, nf.latency->confirmed};
    s.new_findings.push_back(std::move(one));
  }
  return s;
}

nlohmann::ordered_json campaign_document(const FuzzSummary& summary, const std::string& context,
                                         const std::string& level, const fuzz::Shard& shard,
                                         const fuzz::CampaignProgress& t,
                                         const std::vector<gen::AvoidedShape>& avoided,
                                         const std::vector<std::string>& forms,
                                         const gen::GenPolicy& policy, const std::string& cpu_opt) {
  // The per-level figures ride along in the summary as one more object.
  auto doc = nlohmann::ordered_json::parse(fuzz_summary_json(summary, context));
  doc["level"] = level;
  doc["shard"] = {{"index", shard.index}, {"count", shard.count}};
  doc["levels"] = level_json(t);
  doc["simplifier"] = simplifier_json(t, avoided, forms, policy);
  doc["executors"] = executors_json(t);
  doc["cpu_opt"] = cpu_opt;
  doc["policy"] = policy_json(policy);  // every knob of the generator, by its name
  return doc;
}

}  // namespace uopfuzz::report
