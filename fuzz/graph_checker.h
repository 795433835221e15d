/** \file One graph checked in this process, the unit of work of both campaign loops. */
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "fuzz/campaign.h"

namespace uopfuzz::fuzz {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t);

/// The medians a report shows, from the histograms the graphs were counted in.
void settle_medians(CampaignProgress& p);

/// The check options for graph i: the kernel's own @var values (the generator vouches
/// for them) unless the campaign fixes them, and the latency detector on sampled graphs.
check::CheckOptions options_for(const CampaignOptions& o, const ir::Kernel& k, uint64_t i);

/// Shrinks `k` while `still` holds, and fills in the finding's case and corpus entry.
void finish_case(NewFinding& f, ir::Context& ctx, const ir::Kernel& k,
                 const reduce::Interesting& still, const CampaignOptions& o,
                 const check::CheckOptions& co, const Shrinker& shrink);

/// Writes the finding's case to the campaign's corpus (if it has one), filling in its
/// path or why it could not be written.
void keep(NewFinding& f, const CampaignOptions& o);

/// One graph, checked in this process: the campaign's unit of work in both modes.
class GraphChecker {
 public:
  GraphChecker(const CampaignOptions& o, const GraphSource& source, const Shrinker& shrink,
               Clock::time_point start)
      : o_(o), source_(source), shrink_(shrink), start_(start) {}

  /// Checks graph i and counts it in `tally`. Returns a finding (signed, shrunk) when its
  /// signature is new to this checker.
  std::optional<NewFinding> check(uint64_t i, CampaignProgress& tally);

 private:
  const CampaignOptions& o_;
  const GraphSource& source_;
  const Shrinker& shrink_;
  Clock::time_point start_;
  std::set<std::string> seen_;
};

}  // namespace uopfuzz::fuzz
