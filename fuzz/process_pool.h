/** \file An isolated campaign: a pool of forked workers that a crash or a hang cannot take down.
 *
 * Worker w of `jobs` takes graphs w, w+jobs, w+2*jobs, ... and reports findings and
 * tallies as messages through a pipe; the graphs it has done are counted in a shared
 * slot (fuzz/isolate.h), which survives its death. A worker that crashes or runs past
 * the per-graph limit is replaced by one that goes on after that graph, and a triage
 * process reproduces and reduces the crash or hang, every attempt in its own child.
 * Only the parent writes the corpus, so one signature is one file.
 */
#pragma once

#include "fuzz/campaign.h"

namespace uopfuzz::fuzz {

/// run_campaign with `isolate` set.
CampaignResult run_in_worker_processes(const CampaignOptions& options, const GraphSource& source,
                                       const Shrinker& shrink);

}  // namespace uopfuzz::fuzz
