/** \file A fuzz campaign's results as `uopfuzz fuzz` reports them (docs/results-format.md):
 * the per-level, per-executor and simplifier objects of its --json, the summary struct it
 * is built from, and the one-line figures its progress and summary lines share. Unlike the
 * rest of report/, these read the campaign's own structs (fuzz/campaign.h), so they are a
 * library of their own (uopfuzz_result_json) and report's readers stay harness-free. */
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/finding_triage.h"
#include "fuzz/shard.h"
#include "gen/declines.h"
#include "gen/policy.h"
#include "report/results.h"

namespace uopfuzz::report {

/// Per-level counts and rates (kernels: their graphs and seconds; tensor programs: theirs).
nlohmann::ordered_json level_json(const fuzz::CampaignProgress& t);

/// The graphs each executor checked and where the worker time went (the oracle, each backend).
nlohmann::ordered_json executors_json(const fuzz::CampaignProgress& t);

/// One line: each executor's graphs, rate and share of the worker time.
std::string executors_line(const fuzz::CampaignProgress& t);

/// The graphs the simplifier under test declined, all reasons together.
uint64_t unsupported_count(const fuzz::CampaignProgress& t);

/// One class of declines (sut::decline_class): how many, and its most frequent reason.
struct DeclineClass {
  uint64_t count = 0, example_count = 0;
  std::string example;
};

/// The campaign's declines by class, largest first (ties by name).
std::vector<std::pair<std::string, DeclineClass>> declines_by_class(
    const fuzz::CampaignProgress& t);

/// n as a share of `graphs` (0 when there are none).
double share_of(uint64_t n, uint64_t graphs);

/// The simplifier under test: who, which version, what it declined, what was not generated
/// for it, and where the time went.
nlohmann::ordered_json simplifier_json(const fuzz::CampaignProgress& t,
                                       const std::vector<gen::AvoidedShape>& avoided,
                                       const std::vector<std::string>& forms,
                                       const gen::GenPolicy& policy);

/// The campaign as the results format summarizes it; `checked`: the backends every graph is
/// checked on, `sampled`: the ones that check a share of them.
FuzzSummary campaign_summary(uint64_t seed, const std::vector<std::string>& checked,
                             double mutate_share, const fuzz::CampaignResult& r, bool latency,
                             const std::vector<std::string>& sampled,
                             const std::vector<fuzz::FindingTriage>& triage);

/// The --json document: the summary and its context, with the level, shard, per-level,
/// simplifier and executor objects and the cpu's compile level.
nlohmann::ordered_json campaign_document(const FuzzSummary& summary, const std::string& context,
                                         const std::string& level, const fuzz::Shard& shard,
                                         const fuzz::CampaignProgress& t,
                                         const std::vector<gen::AvoidedShape>& avoided,
                                         const std::vector<std::string>& forms,
                                         const gen::GenPolicy& policy, const std::string& cpu_opt);

}  // namespace uopfuzz::report
