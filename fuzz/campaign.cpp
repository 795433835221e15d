#include "fuzz/campaign.h"

#include <filesystem>

#include "fuzz/corpus.h"
#include "fuzz/graph_checker.h"
#include "fuzz/process_pool.h"
#include "gen/mutate.h"
#include "ir/hash.h"
#include "ir/parser.h"
#include "schedule/lower.h"
#include "simplifier/simplifier.h"
#include "simplifier/unfireable.h"

namespace uopfuzz::fuzz {

uint64_t graph_seed(uint64_t campaign_seed, uint64_t index) {
  return ir::mix64(campaign_seed * 0x9e3779b97f4a7c15ull + index + 1);  // splitmix64 of (seed, i)
}

backends::OptLevel drawn_opt_level(uint64_t graph_seed) {
  constexpr uint64_t kOptSalt = 0x6370752d6f707421ull;
  const double u = static_cast<double>(ir::mix64(graph_seed ^ kOptSalt) >> 11) * 0x1.0p-53;
  double below = 0;
  for (int i = 0; i < backends::kOptLevelCount; ++i) {
    below += kOptLevelShares[static_cast<size_t>(i)];
    if (u < below) return static_cast<backends::OptLevel>(i);
  }
  return backends::OptLevel::O3;
}

backends::OptLevel opt_level_for(const CampaignOptions& o, uint64_t graph_seed) {
  return o.opt_level ? *o.opt_level : drawn_opt_level(graph_seed);
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::Kernel: return "kernel";
    case Level::Tensor: return "tensor";
    case Level::Mixed: return "mixed";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : {Level::Kernel, Level::Tensor, Level::Mixed})
    if (level_name(l) == name) return l;
  return std::nullopt;
}

namespace {
// Graph i's draw for its level, independent of the generator's and the mutation's use of
// its seed.
constexpr uint64_t kLevelSalt = 0x74656e736f72ull;
}  // namespace

bool is_tensor_graph(Level level, uint64_t campaign_seed, uint64_t index) {
  switch (level) {
    case Level::Kernel: return false;
    case Level::Tensor: return true;
    case Level::Mixed: return ir::mix64(graph_seed(campaign_seed, index) ^ kLevelSalt) % 4 == 0;
  }
  return false;
}

std::optional<ir::Kernel> make_mutant(ir::Context& ctx, const MutantRecipe& recipe,
                                      const gen::GenPolicy& policy) {
  auto parent = ir::parse_kernel(ctx, recipe.parent_text);
  auto donor = ir::parse_kernel(ctx, recipe.donor_text);
  if (!parent.ok() || !donor.ok()) return std::nullopt;
  auto m = gen::mutate(ctx, parent->kernel, &donor->kernel, recipe.seed, policy);
  if (!m) return std::nullopt;
  return std::move(m->kernel);
}

std::string findings_dir(const std::string& corpus_dir, const std::string& simplifier) {
  if (corpus_dir.empty() || simplifier == "builtin") return corpus_dir;
  // A command line is no folder name: every external:CMD shares one.
  const std::string name = simplifier.starts_with("external:") ? "external" : simplifier;
  return (std::filesystem::path(corpus_dir) / name).string();
}

std::vector<std::pair<std::string, uint64_t>> rules_below(const CampaignProgress& p,
                                                          uint64_t target) {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (p.simplifier != "builtin") return out;
  for (const std::string& name : simplifier::all_rule_names()) {
    if (simplifier::unfireable_rules().count(name) || simplifier::recording_rules().count(name))
      continue;
    const auto it = p.rule_hits.find(name);
    const uint64_t n = it == p.rule_hits.end() ? 0 : it->second;
    if (n < target) out.emplace_back(name, n);
  }
  // The tensor-stage rules count where tensor programs were lowered.
  if (p.tensor_programs > 0)
    for (const std::string& name : schedule::tensor_rule_names()) {
      if (simplifier::unfireable_rules().count(name)) continue;
      const auto it = p.rule_hits.find(name);
      const uint64_t n = it == p.rule_hits.end() ? 0 : it->second;
      if (n < target) out.emplace_back(name, n);
    }
  return out;
}

Shrinker reducer_shrinker(double max_seconds) {
  return [max_seconds](ir::Context& ctx, const ir::Kernel& k, const reduce::Interesting& still) {
    reduce::ReduceOptions ro;
    ro.max_seconds = max_seconds;
    return reduce::reduce(ctx, k, still, ro).kernel;
  };
}

namespace {

CampaignResult run_in_process(const CampaignOptions& o, const GraphSource& source,
                              const Shrinker& shrink) {
  CampaignResult res;
  CampaignProgress& p = res.totals;
  const auto start = Clock::now();
  auto last_report = start;
  GraphChecker checker(o, source, shrink, start);
  p.simplifier = o.check.simplifier ? o.check.simplifier->name() : "builtin";
  auto report = [&] {
    p.seconds = seconds_since(start);
    settle_medians(p);
    if (o.on_progress) o.on_progress(p);
  };
  for (uint64_t i = o.shard.index;
       (o.max_graphs == 0 || i < o.max_graphs) && seconds_since(start) < o.seconds;
       i += o.shard.count) {
    if (auto f = checker.check(i, p)) {
      keep(*f, o);
      res.new_findings.push_back(std::move(*f));
      if (o.stop_when && o.stop_when(res.new_findings.back())) break;
    }
    if (o.on_progress && seconds_since(last_report) >= 0.5) {
      last_report = Clock::now();
      report();
    }
  }
  report();
  return res;
}

}  // namespace

CampaignResult run_campaign(const CampaignOptions& o, const GraphSource& source,
                            const Shrinker& shrink) {
  if (!o.corpus_dir.empty())
    remove_stale_temporaries(o.corpus_dir);  // a killed campaign's half-written files
  if (!o.isolate) return run_in_process(o, source, shrink);
  return run_in_worker_processes(o, source, shrink);
}

}  // namespace uopfuzz::fuzz
