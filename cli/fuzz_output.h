/** \file What `uopfuzz fuzz` prints: the progress line while it runs, the summary, the root
 * causes of an external simplifier's findings and one line per new finding. */
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/latency.h"
#include "cli/fuzz_flags.h"
#include "fuzz/campaign.h"
#include "fuzz/campaign_setup.h"
#include "fuzz/finding_triage.h"
#include "fuzz/shard.h"

namespace uopfuzz::cli {

/// The campaign's on_progress: on a terminal, one line rewritten in place; else a line
/// every 5 seconds.
std::function<void(const fuzz::CampaignProgress&)> progress_printer(bool tty);

/// The summary after the campaign: totals, shard, executors, tensor programs, the external
/// simplifier, mutation, rules under target, sizes, latency and gates.
void print_campaign_summary(const FuzzFlags& f, const fuzz::CampaignResult& r,
                            const fuzz::Shard& shard, const fuzz::ExecutorSchedule& schedule,
                            const fuzz::GenerationPlan& plan,
                            const std::optional<check::LatencyOptions>& latency);

/// An external simplifier's new findings named by their root cause (only those no known
/// cause explains are new), with the reproducers --emit asks for; prints the count by cause.
std::vector<fuzz::FindingTriage> triage_new_findings(const FuzzFlags& f,
                                                     const fuzz::CampaignOptions& co,
                                                     const fuzz::CampaignResult& r);

/// One line per new finding (NEW, or KNOWN and its root cause), where it was written, and
/// its reproducer.
void print_new_findings(const fuzz::CampaignOptions& co, const fuzz::CampaignResult& r,
                        const std::vector<fuzz::FindingTriage>& triage);

}  // namespace uopfuzz::cli
