#include "fuzz/tensor_graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "backends/registry.h"
#include "fuzz/corpus.h"
#include "fuzz/corpus_header.h"
#include "fuzz/graph_checker.h"
#include "fuzz/tensor_latency.h"
#include "ir/graph.h"
#include "ir/hash.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"

namespace uopfuzz::fuzz {

schedule::LowerOptions lowering_for(const CampaignOptions& o, uint64_t graph_seed) {
  // Salted: independent of the generator's draws from the same seed.
  constexpr uint64_t kLoweringSalt = 0x70c0'17e5'7a11'0b5dull;
  uint64_t state = graph_seed ^ kLoweringSalt;
  schedule::LowerOptions lo = o.lower;
  const uint64_t level = ir::splitmix64(state) % 8;
  if (o.vary_lowering.pcontig) lo.pcontig = level < 4 ? 0 : static_cast<int>(level - 3);
  const uint64_t threshold = ir::splitmix64(state) % 12;
  if (o.vary_lowering.split_reduce_threshold)
    lo.split_reduce_threshold = threshold < 9 ? int64_t{16} << threshold : int64_t{32768};
  const uint64_t off = ir::splitmix64(state);
  if (o.vary_lowering.rule_off && off % kLoweringRuleOffEvery == 0) {
    const std::vector<std::string> names = schedule::tensor_rule_names();
    lo.disabled.insert(names[(off / kLoweringRuleOffEvery) % names.size()]);
  }
  return lo;
}

ir::Kernel campaign_tensor_program(const CampaignOptions& o, ir::Context& ctx,
                                   uint64_t graph_seed) {
  ir::Kernel k = o.tensor_source(ctx, graph_seed);
  const schedule::LowerOptions lo = lowering_for(o, graph_seed);
  auto& extra = k.header.extra;
  std::erase_if(extra, [](const auto& line) {
    return line.first == "pcontig" || line.first == "split-reduce-threshold" ||
           line.first == "lower-disable";
  });
  extra.emplace_back("pcontig", std::to_string(lo.pcontig));
  extra.emplace_back("split-reduce-threshold", std::to_string(lo.split_reduce_threshold));
  if (!lo.disabled.empty())
    extra.emplace_back("lower-disable", fmt::format("{}", fmt::join(lo.disabled, " ")));
  return k;
}

check::ProgramCheckOptions program_options_for(const CampaignOptions& o, const ir::Kernel& k) {
  check::ProgramCheckOptions po;
  po.check = o.check;
  for (const auto& [name, v] : k.header.vars) po.check.vars.emplace(name, v);
  po.lower = o.lower;
  // The campaign wrote these lines itself (campaign_tensor_program): they parse.
  if (auto recorded = read_corpus_header(k.header))
    po.lower = with_recorded_lowering(po.lower, *recorded);
  return po;
}

reduce::Interesting keeps_program_signature(const check::ProgramCheckOptions& options,
                                            const check::Signature& signature) {
  return [options, want = signature.text(), kind = signature.kind](const ir::Kernel& candidate) {
    ir::Context ctx;
    ir::Kernel copy = reduce::clone_kernel(ctx, candidate);
    if (!ir::is_tensor_program(copy.root) || !ir::verify(copy.root).empty()) return false;
    check::ProgramCheckResult r = check::check_program(ctx, copy, options);
    if (r.kind != kind) return false;
    return check::sign_program_finding(ctx, copy, options, r).text() == want;
  };
}

ir::Kernel tensor_corpus_entry(const ir::Kernel& k, const NewFinding& f, const CampaignOptions& o,
                               const check::ProgramCheckOptions& po) {
  ir::Kernel out = k;
  out.header.name = "finding-" + content_hash(k).substr(0, 8);
  out.header.seed = po.check.base_seed;
  out.header.expect = ir::Expect::Ok;
  out.header.expect_given = true;
  out.header.outputs.clear();
  ir::Inputs in = ir::make_inputs(k, po.check.base_seed, po.check.vars);
  if (auto run = oracle::eval_tensor_program(k.root, in);
      run.ok() && run->status == ir::RunStatus::Ok)
    for (const auto& [index, buf] : run->outputs) {
      ir::ExpectedOutput e{index, {}};
      for (size_t i = 0; i < buf.size(); ++i) e.values.push_back(buf.get(i));
      out.header.outputs.push_back(std::move(e));
    }
  CorpusHeader corpus;
  corpus.signature = f.signature.text();
  corpus.check_clean = true;  // the faithful lowering and simplifier must agree
  if (f.signature.backend != "oracle" && backends::find_backend(f.signature.backend)) {
    corpus.check_backends = {"oracle", f.signature.backend};
    if (backends::find_backend(f.signature.backend)->caps().opt_levels && !f.latency)
      corpus.cpu_opt = po.check.opt_level;
  }
  corpus.found_by = o.found_by.empty() ? "uopfuzz fuzz" : o.found_by;
  corpus.graph_seed = f.graph_seed;
  corpus.details = f.details;
  record_simplifier(corpus, po.check);
  record_lowering(corpus, po.lower);
  record_latency(corpus, f);
  out.header.extra = corpus_header_lines(corpus);
  return out;
}

std::string check_kind_name(ir::Context& ctx, const ir::Kernel& k, const CampaignOptions& o,
                            const check::CheckOptions& co) {
  if (!ir::is_tensor_program(k.root))
    return std::string(check::finding_kind_name(check::check_kernel(ctx, k, co).kind));
  check::ProgramCheckOptions po = program_options_for(o, k);
  po.check = co;
  return std::string(check::finding_kind_name(check::check_program(ctx, k, po).kind));
}

std::optional<NewFinding> GraphChecker::check_tensor(uint64_t i, CampaignProgress& tally) {
  const uint64_t gs = graph_seed(o_.seed, i);
  const auto started = Clock::now();
  if (recipe_sink_) recipe_sink_(nullptr);
  ir::Context ctx;
  const ir::Kernel k = campaign_tensor_program(o_, ctx, gs);
  check::ProgramCheckOptions po = program_options_for(o_, k);
  po.check.opt_level = opt_level_for(o_, gs);
  // A program's rewrite is known only inside the check: the sampled backends pick it by
  // its draw alone.
  for (const std::string& b : o_.schedule.backends)
    if (sampler_.pick(b, gs, sample_weight(false, false))) check::add_backend(po.check.backends, b);
  if (po.check.latency && i % std::max<uint64_t>(o_.latency_every, 1) != 0)
    po.check.latency.reset();
  check::ProgramCheckResult r = check::check_program(ctx, k, po);
  count_backends(tally, r.backend_times, seconds_since(started));
  ++tally.graphs;
  ++tally.tensor_programs;
  tally.tensor_seconds += seconds_since(started);
  if (r.latency) ++tally.latency_timed;
  if (k.root) tally.tensor_nodes.add(ir::toposort(k.root).size());
  count_simplifier(tally, o_, r.simplifier_failure, r.child_seconds, r.protocol_seconds);
  if (r.unsupported) {
    ++tally.tensor_unsupported;
    return std::nullopt;
  }
  for (const auto& [name, n] : r.simplified.hits) tally.rule_hits[name] += n;
  for (const auto& [name, n] : r.lowering_hits) tally.rule_hits[name] += n;
  if (r.kind == check::FindingKind::None) return std::nullopt;
  ++tally.findings;
  check::Signature sig = check::sign_program_finding(ctx, k, po, r);
  ++tally.by_signature[sig.text()];
  if (!seen_.insert(sig.text()).second) return std::nullopt;
  NewFinding f;
  f.signature = sig;
  f.graph_seed = gs;
  f.graph_index = i;
  f.tensor = true;
  f.seconds = seconds_since(start_);
  f.details = r.details;
  f.nodes_found = ir::toposort(k.root).size();
  const ir::Kernel small = measure_program_latency(
      f, ctx, k, shrink_ ? shrink_(ctx, k, keeps_program_signature(po, sig)) : k, po);
  f.nodes_reduced = ir::toposort(small.root).size();
  f.reduced_text = ir::print_kernel(small);
  f.corpus_text = ir::print_kernel(tensor_corpus_entry(small, f, o_, po));
  return f;
}

}  // namespace uopfuzz::fuzz
