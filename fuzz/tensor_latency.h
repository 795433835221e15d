/** \file A tensor campaign's latency findings (check/program_latency.h): the figures the
 * corpus records for a confirmed slowdown of a lowering decision, measured on the minimized
 * program as the kernel campaign measures its minimized kernel. */
#pragma once

#include <optional>

#include "check/program_check.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus_header.h"

namespace uopfuzz::fuzz {

/// The figures of `result`'s confirmed decision; nullopt when it has none.
std::optional<LatencyFigures> decision_latency_figures(const check::ProgramCheckResult& result);

/// A latency finding `f` of `found`, minimized to `small`: sets f.latency from up to three
/// timings of `small` (timing is noisy), and when none confirms, from `found` as it is,
/// returning it as the case to keep (a timing predicate can pass once by chance and let the
/// reducer drift). Other findings: `small` unchanged.
ir::Kernel measure_program_latency(NewFinding& f, ir::Context& ctx, const ir::Kernel& found,
                                   const ir::Kernel& small, const check::ProgramCheckOptions& po);

/// The corpus lines of f's latency figures (replay re-times them), if it has any.
void record_latency(CorpusHeader& corpus, const NewFinding& f);

}  // namespace uopfuzz::fuzz
