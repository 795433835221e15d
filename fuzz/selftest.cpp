#include "fuzz/selftest.h"

#include <algorithm>

#include "check/program_check.h"
#include "fuzz/corpus_header.h"
#include "fuzz/isolate.h"
#include "gen/generator.h"
#include "gen/tensor_gen.h"
#include "ir/parser.h"
#include "ir/tensor.h"

namespace uopfuzz::fuzz {
namespace {

/// A campaign's settings that every planted bug's shares: isolated (the bugs that crash or
/// hang the simplifier are found too), two seeds per graph, a step limit of 10^7.
CampaignOptions selftest_campaign(const SelftestOptions& o) {
  CampaignOptions co;
  co.seconds = o.seconds_per_bug;
  co.seed = o.seed;
  co.check.seeds = 2;
  co.check.max_steps = 10'000'000;
  co.check.backends = o.backends;
  co.isolate = true;
  return co;
}

/// Whether the faithful simplifier passes the minimized case (for a latency bug: shows no
/// confirmed regression on it either), checked in a child so that it cannot take the
/// self-test down.
bool faithful_passes(const std::string& reduced_text,
                     const std::optional<check::LatencyOptions>& latency) {
  ChildOutcome faithful = run_isolated(
      [&] {
        ir::Context ctx;
        auto k = ir::parse_kernel(ctx, reduced_text);
        if (!k.ok()) return std::string("unparsable");
        check::CheckOptions opts;
        opts.vars.insert(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
        opts.latency = latency;
        return std::string(
            check::finding_kind_name(check::check_kernel(ctx, k->kernel, opts).kind));
      },
      30);
  return faithful.status == ChildOutcome::Status::Returned && faithful.output == "none";
}

CampaignOptions campaign_for(const SelftestOptions& o, const simplifier::BugInfo& b) {
  const bool latency = b.kind == simplifier::BugKind::Latency;
  CampaignOptions co = selftest_campaign(o);
  co.check.simplify.bugs.enable(b.bug);
  if (latency) {
    co.check.latency = check::LatencyOptions{};
    co.check.latency->backend = o.latency_backend;
  }
  // A check on the oracle takes milliseconds, so 2 s is a hang; compiled backends add two
  // compiles per check (tens of ms, far more on a loaded machine), so they get 10 s.
  const bool compiled = latency || std::any_of(o.backends.begin(), o.backends.end(),
                                               [](const std::string& n) { return n != "oracle"; });
  co.graph_timeout_s = o.graph_timeout > 0 ? o.graph_timeout : compiled ? 10 : 2;
  co.triage_timeout_s = std::min(co.graph_timeout_s, compiled ? 5.0 : 0.5);
  return co;
}

// Whether the faithful lowering and simplifier pass the minimized tensor program, checked in
// a child.
bool faithful_lowering_passes(const std::string& reduced_text) {
  ChildOutcome faithful = run_isolated(
      [&] {
        ir::Context ctx;
        auto k = ir::parse_kernel(ctx, reduced_text);
        if (!k.ok()) return std::string("unparsable");
        check::ProgramCheckOptions opts;
        opts.check.vars.insert(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
        if (auto recorded = read_corpus_header(k->kernel.header))
          opts.lower = with_recorded_lowering(opts.lower, *recorded);
        auto r = check::check_program(ctx, k->kernel, opts);
        return r.unsupported ? std::string("unsupported")
                             : std::string(check::finding_kind_name(r.kind));
      },
      30);
  return faithful.status == ChildOutcome::Status::Returned && faithful.output == "none";
}

// Tensor programs large enough that a lowering decision's cost shows on a cpu: a reduce
// recomputed per use combines thousands of elements thousands of times.
gen::GenPolicy whole_program_timing_policy() {
  gen::GenPolicy p;
  p.tensor.max_numel = 4096;
  p.tensor.max_nodes = 10;
  p.tensor.max_outputs = 2;
  return p;
}

// A latency bug's campaign: every program's lowering decisions timed on the latency backend
// (check/program_latency.h), on programs from `policy`, with an oracle step limit that lets
// the bugged Program finish.
void time_whole_programs(CampaignOptions& co, const SelftestOptions& o,
                         const gen::GenPolicy& policy) {
  co.check.latency = check::LatencyOptions{};
  co.check.latency->backend = o.latency_backend;
  co.check.max_steps = 200'000'000;
  co.graph_timeout_s = o.graph_timeout > 0 ? o.graph_timeout : 30;
  co.triage_timeout_s = std::min(co.graph_timeout_s, 10.0);
  co.tensor_source = [&policy](ir::Context& ctx, uint64_t gs) {
    return gen::generate_tensor_program(ctx, policy, gs).program;
  };
}

/// A row's outcome: the planted bug's finding (found), else the campaign's first, else none.
template <class Row>
void record_outcome(Row& row, const std::optional<NewFinding>& planted, const CampaignResult& r) {
  row.found = planted.has_value();
  row.finding = planted                  ? planted
                : r.new_findings.empty() ? std::nullopt
                                         : std::optional<NewFinding>(r.new_findings.front());
  row.graphs = row.finding ? row.finding->graph_index + 1 : r.totals.graphs;
  row.new_findings = r.new_findings.size();
}

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times.empty() ? 0 : times[times.size() / 2];
}

}  // namespace

LoweringSelftestResult run_lowering_selftest(
    const SelftestOptions& o, const std::function<void(const LoweringSelftestRow&)>& on_row) {
  gen::GenPolicy policy;
  const gen::GenPolicy large_policy = whole_program_timing_policy();
  GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate(ctx, policy, gs).kernel;
  };
  Shrinker shrink = reducer_shrinker(10);
  LoweringSelftestResult result;
  std::vector<double> times;
  for (schedule::LoweringBug b : schedule::all_lowering_bugs()) {
    CampaignOptions co = selftest_campaign(o);
    co.level = Level::Tensor;
    co.tensor_source = [&](ir::Context& ctx, uint64_t gs) {
      return gen::generate_tensor_program(ctx, policy, gs).program;
    };
    co.lower.bugs.insert(b);
    if (o.pcontig) co.lower.pcontig = *o.pcontig;
    if (o.split_reduce_threshold) co.lower.split_reduce_threshold = *o.split_reduce_threshold;
    co.vary_lowering = {!o.pcontig, !o.split_reduce_threshold, true};
    co.graph_timeout_s = o.graph_timeout > 0 ? o.graph_timeout : 10;
    co.triage_timeout_s = std::min(co.graph_timeout_s, 5.0);
    const bool latency = schedule::lowering_bug_kind(b) == simplifier::BugKind::Latency;
    if (latency) time_whole_programs(co, o, large_policy);
    std::optional<NewFinding> planted;
    const std::string name(schedule::lowering_bug_name(b));
    co.stop_when = [&](const NewFinding& f) {
      // A latency bug counts only when the detector finds it (the oracle's step limit on a
      // reduce recomputed per use is not what it is planted for).
      if (latency && f.signature.kind != check::FindingKind::Latency) return false;
      if (f.signature.culprit != name || f.reduced_text.empty() ||
          !faithful_lowering_passes(f.reduced_text))
        return false;
      planted = f;
      return true;
    };
    CampaignResult r = run_campaign(co, source, shrink);
    LoweringSelftestRow row{b};
    record_outcome(row, planted, r);
    if (row.found)
      times.push_back(row.finding->seconds);
    else
      ++result.missed;
    if (on_row) on_row(row);
    result.rows.push_back(std::move(row));
  }
  result.median_seconds = median(times);
  return result;
}

SelftestResult run_selftest(const SelftestOptions& o,
                            const std::function<void(const SelftestRow&)>& on_row) {
  gen::GenPolicy policy;
  GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate(ctx, policy, gs).kernel;
  };
  Shrinker shrink = reducer_shrinker(10);
  SelftestResult result;
  std::vector<double> times;
  for (const auto& b : simplifier::all_bugs()) {
    CampaignOptions co = campaign_for(o, b);
    std::optional<NewFinding> planted;
    co.stop_when = [&](const NewFinding& f) {
      if (f.reduced_text.empty() || !faithful_passes(f.reduced_text, co.check.latency))
        return false;
      planted = f;
      return true;
    };
    CampaignResult r = run_campaign(co, source, shrink);
    SelftestRow row{b};
    record_outcome(row, planted, r);
    if (row.found)
      times.push_back(row.finding->seconds);
    else
      ++result.missed;
    if (on_row) on_row(row);
    result.rows.push_back(std::move(row));
  }
  result.median_seconds = median(times);
  return result;
}

namespace {

/// Whether `spec` without any planted bug passes the minimized case, checked in a child (its
/// own external process, started there).
bool faithful_external_passes(const std::string& reduced_text, const std::string& spec,
                              sut::ExternalOptions external) {
  external.adapter_bugs.clear();
  ChildOutcome faithful = run_isolated(
      [&] {
        auto sut = sut::make_simplifier(spec, external);
        if (!sut.ok()) return std::string("no simplifier");
        ir::Context ctx;
        auto k = ir::parse_kernel(ctx, reduced_text);
        if (!k.ok()) return std::string("unparsable");
        check::CheckOptions opts;
        opts.simplifier = *sut;
        opts.vars.insert(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
        if (ir::is_tensor_program(k->kernel.root)) {
          check::ProgramCheckOptions po;
          po.check = opts;
          return std::string(
              check::finding_kind_name(check::check_program(ctx, k->kernel, po).kind));
        }
        return std::string(
            check::finding_kind_name(check::check_kernel(ctx, k->kernel, opts).kind));
      },
      external.startup_timeout_s + 4 * external.timeout_s);
  return faithful.status == ChildOutcome::Status::Returned && faithful.output == "none";
}

}  // namespace

AdapterSelftestResult run_adapter_selftest(
    const SelftestOptions& o, const std::string& spec, const sut::ExternalOptions& external,
    const std::vector<std::string>& bugs, const std::set<std::string>& tensor_bugs,
    const std::function<void(const AdapterSelftestRow&)>& on_row) {
  gen::GenPolicy policy;
  GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate(ctx, policy, gs).kernel;
  };
  // The planted tensor bugs are in the adapter's realize decision, views and split reduce.
  // The hard inputs (divisors read as 0 under an off gate, size-0 dims, caps, rounding
  // floats) make tinygrad's own faults show within seconds (a division realized without
  // its gate: UB, SIGFPE on its CPU device), and minimizing those eats the budget the
  // planted bug needs: a plain campaign looks for those, not the selftest.
  gen::GenPolicy tensor_policy = policy;
  tensor_policy.tensor.p_divisor_input = 0;
  tensor_policy.tensor.nodes.gated_divide = 0;
  tensor_policy.tensor.p_degenerate_shapes = 0;
  tensor_policy.tensor.p_edge_inputs = 0;
  tensor_policy.tensor.p_hard_float_inputs = 0;
  // Short: every external request is a round trip, and findings other than the planted
  // bug's (the campaign goes on after them) should not eat the budget.
  Shrinker shrink = reducer_shrinker(3);
  AdapterSelftestResult result;
  for (const std::string& bug : bugs) {
    AdapterSelftestRow row{bug};
    sut::ExternalOptions with_bug = external;
    with_bug.adapter_bugs = {bug};
    auto sut = sut::make_simplifier(spec, with_bug);
    if (!sut.ok()) {
      row.error = sut.error().message;
      ++result.missed;
      if (on_row) on_row(row);
      result.rows.push_back(std::move(row));
      continue;
    }
    CampaignOptions co = selftest_campaign(o);
    co.check.simplifier = *sut;
    // A bug in the adapter's scheduler, views or split reduce shows in tensor programs run
    // through its whole pipeline.
    if (tensor_bugs.count(bug)) {
      co.level = Level::Tensor;
      co.tensor_source = [&tensor_policy](ir::Context& ctx, uint64_t gs) {
        return gen::generate_tensor_program(ctx, tensor_policy, gs).program;
      };
    }
    // As `uopfuzz fuzz` runs by default: a quarter mutants (a cast inserted, a dtype
    // changed), which is what reaches a bug in a cast fold.
    co.mutation.share = 0.25;
    // An external rewrite takes milliseconds, its child's start up to seconds.
    co.graph_timeout_s = o.graph_timeout > 0 ? o.graph_timeout : external.timeout_s + 5;
    co.triage_timeout_s = std::min(co.graph_timeout_s, external.timeout_s);
    std::optional<NewFinding> planted;
    co.stop_when = [&](const NewFinding& f) {
      if (f.reduced_text.empty() || !faithful_external_passes(f.reduced_text, spec, external))
        return false;
      planted = f;
      return true;
    };
    CampaignResult r = run_campaign(co, source, shrink);
    record_outcome(row, planted, r);
    row.seconds = row.found ? row.finding->seconds : r.totals.seconds;
    if (!row.found) ++result.missed;
    if (on_row) on_row(row);
    result.rows.push_back(std::move(row));
  }
  return result;
}

}  // namespace uopfuzz::fuzz
