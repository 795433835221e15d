/** \file A fuzz campaign: generate, check, sign, shrink, keep.
 *
 * For each graph seed: a fresh Context, a generated kernel, the differential check; a
 * finding is signed by rule bisection, and the first case of each signature is reduced
 * and written to the corpus (atomically) before the campaign goes on. The same seed
 * gives the same sequence of graphs on any machine.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "check/dedup.h"
#include "ir/kernel.h"

namespace uopfuzz::fuzz {

/// Builds the kernel for one graph seed (the generator, or a test's stand-in).
using GraphSource = std::function<ir::Kernel(ir::Context&, uint64_t graph_seed)>;
/// Shrinks a finding's kernel while `still` holds (the reducer, or none).
using Shrinker = std::function<ir::Kernel(ir::Context&, const ir::Kernel&, const check::CheckOptions&, check::FindingKind)>;

struct CampaignOptions {
  double seconds = 60;         ///< wall-clock budget
  uint64_t max_graphs = 0;     ///< 0: until the time is up
  uint64_t seed = 1;           ///< campaign seed: graph i uses graph_seed(seed, i)
  check::CheckOptions check;   ///< simplifier switches (planted bugs), input seeds
  std::string corpus_dir;      ///< where new findings go ("" : not written)
  std::string found_by;        ///< recorded in each case's header (e.g. the command)
  bool stop_at_first_finding = false;  ///< end the campaign once one new signature is kept
  /// Called about twice a second, and once at the end.
  std::function<void(const struct CampaignProgress&)> on_progress;
};

struct NewFinding {
  check::Signature signature;
  uint64_t graph_seed = 0;
  uint64_t graph_index = 0;    ///< how many graphs the campaign had tried before it
  double seconds = 0;          ///< time into the campaign when it was found
  size_t nodes_found = 0, nodes_reduced = 0;
  std::string details;         ///< the check's one-line description
  std::string reduced_text;    ///< the minimized case as .uop text
  std::string path;            ///< corpus file ("" when not written)
  std::string write_error;     ///< why it could not be written, if so
};

struct CampaignProgress {
  double seconds = 0;
  uint64_t graphs = 0;
  /// What a typical checked graph is, to read the throughput by: medians (the lower
  /// middle value; 0 before any) of the original graph's node count, and of its loop
  /// iterations and oracle steps on the first input seed (graphs whose check ran it).
  uint64_t median_nodes = 0;
  uint64_t median_iterations = 0;
  uint64_t median_steps = 0;
  uint64_t findings = 0;       ///< all findings, duplicates included
  std::map<std::string, uint64_t> by_signature;
  std::map<std::string, uint64_t> rule_hits;
};

struct CampaignResult {
  CampaignProgress totals;
  std::vector<NewFinding> new_findings;  ///< one per signature, in the order found
};

uint64_t graph_seed(uint64_t campaign_seed, uint64_t index);

CampaignResult run_campaign(const CampaignOptions& options, const GraphSource& source, const Shrinker& shrink = {});

}  // namespace uopfuzz::fuzz
