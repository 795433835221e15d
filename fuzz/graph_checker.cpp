#include "fuzz/graph_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "backends/registry.h"
#include "fuzz/corpus.h"
#include "fuzz/corpus_header.h"
#include "gen/mutate.h"
#include "gen/near_miss.h"
#include "ir/graph.h"
#include "ir/hash.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "oracle/interpreter.h"
#include "reduce/predicates.h"

namespace uopfuzz::fuzz {

LatencyFigures latency_figures(const check::LatencyVerdict& v) {
  LatencyFigures f;
  f.ratio = v.first.ratio;
  f.p_value = v.first.test.p_greater;
  if (v.rerun) {
    f.rerun_ratio = v.rerun->ratio;
    f.rerun_p_value = v.rerun->test.p_greater;
  }
  f.confirmed = v.confirmed;
  return f;
}

void settle_medians(CampaignProgress& p) {
  p.median_nodes = p.nodes.median();
  p.median_iterations = p.iterations.median();
  p.median_steps = p.steps.median();
}

namespace {

// The corpus entry: the reduced original graph, with what a replay checks (its oracle
// outputs, and that the faithful simplifier's rewrite agrees) and how it was found.
ir::Kernel corpus_entry(const ir::Kernel& k, const NewFinding& f, const CampaignOptions& o,
                        const check::CheckOptions& co) {
  ir::Kernel out = k;
  out.header.name = "finding-" + content_hash(k).substr(0, 8);
  out.header.seed = co.base_seed;
  out.header.expect = ir::Expect::Ok;
  out.header.expect_given = true;
  out.header.outputs.clear();
  // VARs the check derived from the seed are pinned, so the replay runs what was found.
  oracle::Inputs in = oracle::make_inputs(k, co.base_seed, co.vars);
  out.header.vars.assign(in.vars.begin(), in.vars.end());
  if (auto run = oracle::run(k.root, in); run.ok() && run->status == oracle::RunStatus::Ok)
    for (const auto& [slot, buf] : run->outputs) {
      ir::ExpectedOutput e{slot, {}};
      for (size_t i = 0; i < buf.size(); ++i) e.values.push_back(buf.get(i));
      out.header.outputs.push_back(std::move(e));
    }
  CorpusHeader corpus;
  corpus.signature = f.signature.text();
  corpus.check_clean = true;  // the faithful simplifier must agree
  // A finding on a compiled backend replays there too (the backend must run it right).
  // (A failure of the simplifier under test is signed by its name, not a backend's.)
  if (f.signature.backend != "oracle" && !f.latency &&
      backends::find_backend(f.signature.backend)) {
    corpus.check_backends = {"oracle", f.signature.backend};
    if (backends::find_backend(f.signature.backend)->caps().opt_levels)
      corpus.cpu_opt = co.opt_level;
  }
  corpus.found_by = o.found_by.empty() ? "uopfuzz fuzz" : o.found_by;
  corpus.graph_seed = f.graph_seed;
  corpus.details = f.details;
  record_simplifier(corpus, co);
  // The replay re-times it with the faithful simplifier (the regression stays fixed).
  if (f.latency)
    corpus.latency =
        CorpusLatency{f.signature.backend,    f.latency->ratio,         f.latency->p_value,
                      f.latency->rerun_ratio, f.latency->rerun_p_value, f.latency->confirmed};
  out.header.extra = corpus_header_lines(corpus);
  return out;
}

// What the latency detector measures on `k` with `co`: up to three tries for a confirmed
// measurement (timing is noisy), else the last one as it was; nullopt when not timed.
std::optional<LatencyFigures> measure_latency(ir::Context& ctx, const ir::Kernel& k,
                                              const check::CheckOptions& co) {
  std::optional<LatencyFigures> figures;
  for (int attempt = 0; attempt < 3 && !(figures && figures->confirmed); ++attempt) {
    check::CheckResult again = check::check_kernel(ctx, k, co);
    if (!again.latency) break;
    figures = latency_figures(*again.latency);
  }
  return figures;
}

}  // namespace

check::CheckOptions options_for(const CampaignOptions& o, const ir::Kernel& k, uint64_t i) {
  check::CheckOptions co = o.check;
  co.opt_level = opt_level_for(o, graph_seed(o.seed, i));
  for (const auto& [name, v] : k.header.vars) co.vars.emplace(name, v);
  co.simplify.forms = recorded_forms(k.header);
  if (co.latency && i % std::max<uint64_t>(o.latency_every, 1) != 0) co.latency.reset();
  return co;
}

void finish_case(NewFinding& f, ir::Context& ctx, const ir::Kernel& k,
                 const reduce::Interesting& still, const CampaignOptions& o,
                 const check::CheckOptions& co, const Shrinker& shrink) {
  f.nodes_found = ir::toposort(k.root).size();
  ir::Kernel small = shrink ? shrink(ctx, k, still) : k;
  if (f.signature.kind == check::FindingKind::Latency) {
    // The corpus records what the minimized case itself measures. A timing predicate can
    // pass once by chance, letting the reducer drift to a case that is not slower: then
    // the case as found is kept instead, if it still measures as a regression.
    f.latency = measure_latency(ctx, small, co);
    if (!(f.latency && f.latency->confirmed) && small.root != k.root) {
      if (auto whole = measure_latency(ctx, k, co); whole && whole->confirmed) {
        small = k;
        f.latency = whole;
        f.details += " (the minimized case did not reproduce: kept as found)";
      }
    }
  }
  f.nodes_reduced = ir::toposort(small.root).size();
  f.reduced_text = ir::print_kernel(small);
  f.corpus_text = ir::print_kernel(corpus_entry(small, f, o, co));
}

namespace {

// Graph i's draw for mutation, independent of the generator's use of its seed.
constexpr uint64_t kMutationSalt = 0x6d75746174696f6eull;

double unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace

std::optional<NewFinding> GraphChecker::check(uint64_t i, CampaignProgress& tally) {
  if (is_tensor_graph(o_.level, o_.seed, i)) return check_tensor(i, tally);
  const uint64_t gs = graph_seed(o_.seed, i);
  const auto started = Clock::now();
  ir::Context ctx;
  ir::Kernel k;
  std::string mutant_note;
  const uint64_t draw = ir::mix64(gs ^ kMutationSalt);
  if (!corpus_.empty() && unit(draw) < o_.mutation.share) {
    const MutationCorpus::Pick pick = corpus_.draw(draw);
    const MutantRecipe recipe{pick.parent->text, pick.donor->text, ir::mix64(draw)};
    if (recipe_sink_) recipe_sink_(&recipe);
    const ir::Kernel parent{pick.parent->kernel.header,
                            ir::copy_graph(ctx, pick.parent->kernel.root)};
    const ir::Kernel donor{pick.donor->kernel.header, ir::copy_graph(ctx, pick.donor->kernel.root)};
    if (auto m = gen::mutate(ctx, parent, &donor, recipe.seed, o_.mutation.policy)) {
      k = std::move(m->kernel);
      mutant_note = fmt::format(" (a mutant, {}: {})", gen::mutator_name(m->mutator), m->what);
      ++tally.mutated;
    } else {
      ++tally.mutants_rejected;
    }
  } else if (recipe_sink_) {
    recipe_sink_(nullptr);
  }
  if (!k.root) {
    k = source_(ctx, gs);
    for (const auto& [key, row] : k.header.extra)  // a generated near miss names its row
      if (key == gen::kNearMissKey) ++tally.near_misses[row];
  }
  check::CheckOptions co = options_for(o_, k, i);
  attach_sampler(co, gs);
  check::CheckResult r = check::check_kernel(ctx, k, co);
  if (o_.mutation.share > 0)
    corpus_.observe(k, r.simplified.hits, r.kind == check::FindingKind::None);
  for (const auto& [name, n] : r.simplified.hits) rule_seen_[name] += n;
  count_backends(tally, r.backend_times, seconds_since(started));
  // From here on (signing, shrinking) the backends this graph ran on are fixed: a shrunk
  // candidate must be checked where the graph was, whatever the sampler would pick.
  co.sampled = {};
  for (const auto& [name, seconds] : r.backend_times.seconds) check::add_backend(co.backends, name);
  ++tally.graphs;
  if (r.original_ran && r.original_iterations >= kLargeIterations) {
    ++tally.large_graphs;
    tally.large_seconds += seconds_since(started);
  } else {
    ++tally.small_graphs;
    tally.small_seconds += seconds_since(started);
  }
  tally.nodes.add(ir::toposort(k.root).size());
  if (r.original_ran) {
    tally.iterations.add(r.original_iterations);
    tally.steps.add(r.original_steps);
  }
  for (const auto& [name, n] : r.simplified.hits) tally.rule_hits[name] += n;
  ir::add_gate_counts(tally.gate_counts, r.simplified.gates);
  if (r.latency) ++tally.latency_timed;
  count_simplifier(tally, o_, r.simplifier_failure, r.child_seconds, r.protocol_seconds);
  if (r.kind == check::FindingKind::None) return std::nullopt;
  ++tally.findings;
  check::Signature sig = check::signature_of(ctx, k, co, r, r.backend);
  ++tally.by_signature[sig.text()];
  if (!seen_.insert(sig.text()).second) return std::nullopt;
  NewFinding f;
  f.signature = sig;
  f.graph_seed = gs;
  f.graph_index = i;
  f.seconds = seconds_since(start_);
  f.details = r.details + mutant_note;
  finish_case(f, ctx, k, reduce::keeps_signature(co, sig), o_, co, shrink_);
  return f;
}

void GraphChecker::attach_sampler(check::CheckOptions& co, uint64_t graph_seed) const {
  if (o_.schedule.backends.empty()) return;
  co.sampled.names = o_.schedule.backends;
  co.sampled.pick = [this, graph_seed](const std::string& backend, bool changed,
                                       const std::map<std::string, uint64_t>& hits) {
    bool rare = false;
    for (const auto& [name, n] : hits) {
      auto seen = rule_seen_.find(name);
      rare = rare || (n > 0 && (seen == rule_seen_.end() || seen->second < kRareRuleHits));
    }
    return sampler_.pick(backend, graph_seed, sample_weight(changed, rare));
  };
}

void GraphChecker::count_backends(CampaignProgress& tally, const check::BackendTimes& times,
                                  double graph_seconds) {
  for (const auto& [name, seconds] : times.seconds) {
    CampaignProgress::Executor& e = tally.executors[name];
    ++e.graphs;
    e.seconds += seconds;
  }
  // Whole tens of microseconds: exact medians from a histogram that stays small.
  for (const auto& [key, seconds] : times.compiles)
    tally.compile_us[key].add(static_cast<uint64_t>(std::llround(seconds * 1e5)) * 10);
  sampler_.observe(graph_seconds, times.seconds);
}

void count_simplifier(CampaignProgress& tally, const CampaignOptions& o,
                      const std::optional<sut::Failure>& failure, double child_seconds,
                      double protocol_seconds) {
  sut::Simplifier* s = o.check.simplifier.get();
  if (tally.simplifier_version.empty())
    tally.simplifier_version = s ? s->version() : sut::builtin()->version();
  if (failure && failure->kind == sut::FailureKind::Unsupported)
    ++tally.unsupported[failure->reason];
  tally.child_seconds += child_seconds;
  tally.protocol_seconds += protocol_seconds;
}

void keep(NewFinding& f, const CampaignOptions& o) {
  if (o.corpus_dir.empty()) return;
  if (f.corpus_text.empty()) {
    f.write_error = "no case to write (" + f.details + ")";
    return;
  }
  ir::Context ctx;
  auto k = ir::parse_kernel(ctx, f.corpus_text);
  if (!k.ok()) {
    f.write_error = "the case does not parse back: " + k.error().message;
    return;
  }
  const std::string dir =
      findings_dir(o.corpus_dir, o.check.simplifier ? o.check.simplifier->name() : "builtin");
  auto path = write_case(dir, k->kernel);
  if (path.ok())
    f.path = *path;
  else
    f.write_error = path.error().message;
}

}  // namespace uopfuzz::fuzz
