#include "fuzz/compare.h"

#include <fmt/format.h>

#include <chrono>

namespace uopfuzz::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool declined(const check::CheckResult& r) {
  return r.simplifier_failure && r.simplifier_failure->kind == sut::FailureKind::Unsupported;
}

void count(CompareSide& side, const check::CheckResult& r, uint64_t graph, double seconds) {
  side.check_seconds += seconds;
  side.child_seconds += r.child_seconds;
  side.protocol_seconds += r.protocol_seconds;
  if (declined(r)) {
    ++side.unsupported[r.simplifier_failure->reason];
    return;
  }
  if (!r.simplifier_failure) {
    ++side.rewrites;
    for (const auto& [rule, n] : r.simplified.hits) side.rule_hits[rule] += n;
  }
  if (r.kind != check::FindingKind::None) {
    const std::string key = fmt::format("{}/{}", check::finding_kind_name(r.kind), r.backend);
    if (side.findings[key]++ == 0) {
      side.first_graph[key] = graph;
      side.first_details[key] = r.details;
    }
  }
}

}  // namespace

KernelComparison compare_kernel(
    ir::Context& ctx, const ir::Kernel& kernel, const check::CheckOptions& options,
    const std::array<std::shared_ptr<sut::Simplifier>, 2>& simplifiers) {
  KernelComparison c;
  for (size_t s = 0; s < 2; ++s) {
    check::CheckOptions o = options;
    o.simplifier = simplifiers[s];
    for (const auto& [name, v] : kernel.header.vars) o.vars.emplace(name, v);
    const auto t = Clock::now();
    c.results[s] = check::check_kernel(ctx, kernel, o);
    c.seconds[s] = since(t);
  }
  const auto clean = [](const check::CheckResult& r) {
    return r.kind == check::FindingKind::None && !r.simplifier_failure && r.simplified.root;
  };
  if (clean(c.results[0]) && clean(c.results[1]))
    c.strength =
        check::compare_strength(c.results[0].simplified.root, c.results[1].simplified.root);
  return c;
}

CompareProgress run_comparison(const CompareOptions& o, const GraphSource& source) {
  CompareProgress p;
  for (size_t s = 0; s < 2; ++s) {
    p.sides[s].name = o.simplifiers[s]->name();
    p.sides[s].version = o.simplifiers[s]->version();
  }
  p.strength.a = p.sides[0].name;
  p.strength.b = p.sides[1].name;
  const auto start = Clock::now();
  double last_report = 0;
  for (uint64_t i = 0; o.max_graphs == 0 || i < o.max_graphs; ++i) {
    if (since(start) >= o.seconds) break;
    const uint64_t gs = graph_seed(o.seed, i);
    ir::Context ctx;
    const ir::Kernel k = source(ctx, gs);
    const KernelComparison c = compare_kernel(ctx, k, o.check, o.simplifiers);
    for (size_t s = 0; s < 2; ++s) count(p.sides[s], c.results[s], i, c.seconds[s]);
    ++p.graphs;
    if (c.strength)
      p.strength.add(*c.strength, fmt::format("graph {} seed {:#x}", i, gs));
    else
      ++p.strength.not_compared;
    p.seconds = since(start);
    if (o.on_progress && p.seconds - last_report >= 1) {
      last_report = p.seconds;
      o.on_progress(p);
    }
  }
  p.seconds = since(start);
  if (o.on_progress) o.on_progress(p);
  return p;
}

}  // namespace uopfuzz::fuzz
