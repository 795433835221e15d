#include "fuzz/tensor_latency.h"

namespace uopfuzz::fuzz {

std::optional<LatencyFigures> decision_latency_figures(const check::ProgramCheckResult& result) {
  if (!result.latency || !result.latency->finding()) return std::nullopt;
  return latency_figures(result.latency->finding()->verdict);
}

namespace {

std::optional<LatencyFigures> measure(ir::Context& ctx, const ir::Kernel& k,
                                      const check::ProgramCheckOptions& po,
                                      const std::string& culprit) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    check::ProgramCheckResult r = check::check_program(ctx, k, po);
    auto figures = decision_latency_figures(r);
    if (figures && r.latency->finding()->culprit == culprit) return figures;
  }
  return std::nullopt;
}

}  // namespace

ir::Kernel measure_program_latency(NewFinding& f, ir::Context& ctx, const ir::Kernel& found,
                                   const ir::Kernel& small, const check::ProgramCheckOptions& po) {
  if (f.signature.kind != check::FindingKind::Latency || !po.check.latency) return small;
  f.latency = measure(ctx, small, po, f.signature.culprit);
  if (f.latency || small.root == found.root) return small;
  f.latency = measure(ctx, found, po, f.signature.culprit);
  if (f.latency) f.details += " (the minimized case did not reproduce: kept as found)";
  return found;
}

void record_latency(CorpusHeader& corpus, const NewFinding& f) {
  if (!f.latency) return;
  corpus.latency =
      CorpusLatency{f.signature.backend,    f.latency->ratio,         f.latency->p_value,
                    f.latency->rerun_ratio, f.latency->rerun_p_value, f.latency->confirmed};
  corpus.check_backends.clear();  // the replay times it on the latency backend
}

}  // namespace uopfuzz::fuzz
