/** \file A tensor program in a campaign: checked by check::check_program, signed by
 * check::sign_program_finding, shrunk while it keeps its signature and kept in the corpus
 * with its tensor oracle outputs (a replay checks them, then that the faithful lowering and
 * simplifier agree with them). */
#pragma once

#include <string>

#include "check/program_check.h"
#include "fuzz/campaign.h"
#include "reduce/reducer.h"

namespace uopfuzz::fuzz {

inline constexpr uint64_t kLoweringRuleOffEvery = 8;

/// The lowering options of graph `graph_seed`'s tensor program: `o.lower` with, where
/// `o.vary_lowering` asks, a pcontig level and a split-reduce threshold drawn from the seed
/// (half the programs at level 0, tinygrad's default, the rest spread over 1..4; three in
/// four thresholds small, 16..4096, so that splits fire on small shapes, the rest 32768), and
/// in one program of kLoweringRuleOffEvery one tensor rule switched off.
schedule::LowerOptions lowering_for(const CampaignOptions& o, uint64_t graph_seed);

/// Graph `graph_seed`'s tensor program (o.tensor_source) with its lowering options recorded
/// in its header (@pcontig, @split-reduce-threshold): they travel with it through reduction
/// into the minimized case and the corpus.
ir::Kernel campaign_tensor_program(const CampaignOptions& o, ir::Context& ctx, uint64_t graph_seed);

/// The program check of a campaign's tensor program: its check options (the program's own
/// @var values), planted lowering bugs, and the lowering options its header records.
check::ProgramCheckOptions program_options_for(const CampaignOptions& o, const ir::Kernel& k);

/// Interesting when the candidate verifies and check_program reports a finding signed
/// `signature`. Each call works on a copy in a fresh Context.
reduce::Interesting keeps_program_signature(const check::ProgramCheckOptions& options,
                                            const check::Signature& signature);

/// The corpus entry of a tensor finding: the reduced program with its tensor oracle outputs
/// on the check's first seed, the signature, and `@check clean`.
ir::Kernel tensor_corpus_entry(const ir::Kernel& k, const NewFinding& f, const CampaignOptions& o,
                               const check::ProgramCheckOptions& po);

/// The finding kind's name the check of `k` (a kernel or a tensor program) gives with the
/// campaign's options: what a crash's triage compares.
std::string check_kind_name(ir::Context& ctx, const ir::Kernel& k, const CampaignOptions& o,
                            const check::CheckOptions& co);

}  // namespace uopfuzz::fuzz
