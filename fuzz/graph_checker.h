/** \file One graph checked in this process, the unit of work of both campaign loops. */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "fuzz/campaign.h"
#include "fuzz/executor_schedule.h"
#include "fuzz/mutation_corpus.h"

namespace uopfuzz::fuzz {

using Clock = std::chrono::steady_clock;

using check::seconds_since;

/// The medians a report shows, from the histograms the graphs were counted in.
void settle_medians(CampaignProgress& p);

/// The check options for graph i: the kernel's own @var values (the generator vouches
/// for them) unless the campaign fixes them, and the latency detector on sampled graphs.
check::CheckOptions options_for(const CampaignOptions& o, const ir::Kernel& k, uint64_t i);

/// Shrinks `k` while `still` holds, and fills in the finding's case and corpus entry.
void finish_case(NewFinding& f, ir::Context& ctx, const ir::Kernel& k,
                 const reduce::Interesting& still, const CampaignOptions& o,
                 const check::CheckOptions& co, const Shrinker& shrink);

/// Counts what the simplifier under test did on one graph in `tally`: its version (once),
/// a declined graph by reason, and the seconds spent in its process and on the protocol.
void count_simplifier(CampaignProgress& tally, const CampaignOptions& o,
                      const std::optional<sut::Failure>& failure, double child_seconds,
                      double protocol_seconds);

/// Writes the finding's case to the campaign's corpus (if it has one), filling in its
/// path or why it could not be written.
void keep(NewFinding& f, const CampaignOptions& o);

/// One graph, checked in this process: the campaign's unit of work in both modes.
class GraphChecker {
 public:
  GraphChecker(const CampaignOptions& o, const GraphSource& source, const Shrinker& shrink,
               Clock::time_point start)
      : o_(o),
        source_(source),
        shrink_(shrink),
        start_(start),
        corpus_(o.mutation.corpus_size),
        sampler_(o.schedule) {}

  /// Checks graph i (generated, a mutant of the corpus, or a tensor program: campaign.h) and counts
  /// it in `tally`. Returns a finding (signed, shrunk) when its signature is new to this checker.
  std::optional<NewFinding> check(uint64_t i, CampaignProgress& tally);

  /// Told, before graph i is made, what makes it: a mutant's recipe, or nullptr for the
  /// generated graph (an isolated worker leaves it where a crash's triage can read it).
  void on_graph(std::function<void(const MutantRecipe*)> sink) { recipe_sink_ = std::move(sink); }

 private:
  /// check() for a graph the campaign's level makes a tensor program (fuzz/tensor_graph.cpp).
  std::optional<NewFinding> check_tensor(uint64_t i, CampaignProgress& tally);
  /// Lets the schedule's backends pick graph `graph_seed` once its rewrite is known.
  void attach_sampler(check::CheckOptions& co, uint64_t graph_seed) const;
  /// Counts a checked graph's time on each backend, and tells the sampler.
  void count_backends(CampaignProgress& tally, const check::BackendTimes& times,
                      double graph_seconds);

  const CampaignOptions& o_;
  const GraphSource& source_;
  const Shrinker& shrink_;
  Clock::time_point start_;
  std::set<std::string> seen_;
  MutationCorpus corpus_;
  BackendSampler sampler_;
  std::map<std::string, uint64_t> rule_seen_;  // this worker's rule hits, for rare rules
  std::function<void(const MutantRecipe*)> recipe_sink_;
};

}  // namespace uopfuzz::fuzz
