#include "fuzz/compare.h"

#include <fmt/format.h>

#include <chrono>

#include "check/program_check.h"

namespace uopfuzz::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool declined(const check::CheckResult& r) {
  return r.simplifier_failure && r.simplifier_failure->kind == sut::FailureKind::Unsupported;
}

// A program check's outcome counted as a kernel check's: declines, findings, rule hits.
check::CheckResult as_kernel_result(const check::ProgramCheckResult& r) {
  check::CheckResult k;
  k.kind = r.kind;
  k.backend = r.backend;
  k.details = r.details;
  k.child_seconds = r.child_seconds;
  k.protocol_seconds = r.protocol_seconds;
  k.simplifier_failure = r.simplifier_failure;
  if (r.unsupported && !k.simplifier_failure)
    k.simplifier_failure = sut::Failure{sut::FailureKind::Unsupported, *r.unsupported, "", ""};
  k.simplified.hits = r.simplified.hits;
  for (const auto& [rule, n] : r.lowering_hits) k.simplified.hits[rule] += n;
  return k;
}

LoweringShape shape_of(const ir::Program& p) {
  LoweringShape s{p.kernels.size(), 0};
  for (const ir::ProgramBuffer& b : p.buffers)
    if (b.role == ir::ProgramBuffer::Role::Intermediate) ++s.intermediates;
  return s;
}

void count_figure(LoweringTally::Figure& f, uint64_t a, uint64_t b, const std::string& label) {
  f.a_total += a;
  f.b_total += b;
  if (a < b && f.a_fewer++ < 3) f.a_examples.push_back(label);
  if (b < a && f.b_fewer++ < 3) f.b_examples.push_back(label);
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

void LoweringTally::add(const std::array<LoweringShape, 2>& s, const std::string& label) {
  ++compared;
  if (s[0].kernels != s[1].kernels || s[0].intermediates != s[1].intermediates) ++differences;
  count_figure(kernels, s[0].kernels, s[1].kernels, label);
  count_figure(intermediates, s[0].intermediates, s[1].intermediates, label);
}

ProgramComparison compare_program(
    ir::Context& ctx, const ir::Kernel& program, const check::CheckOptions& options,
    const std::array<std::shared_ptr<sut::Simplifier>, 2>& simplifiers) {
  ProgramComparison c;
  for (size_t s = 0; s < 2; ++s) {
    check::ProgramCheckOptions o;
    o.check = options;
    o.check.simplifier = simplifiers[s];
    o.check.latency.reset();
    const auto t = Clock::now();
    c.results[s] = check::check_program(ctx, program, o);
    c.seconds[s] = since(t);
  }
  const auto known = [](const check::ProgramCheckResult& r) {
    return r.kind == check::FindingKind::None && !r.unsupported &&
           !r.simplified.program.kernels.empty();
  };
  if (known(c.results[0]) && known(c.results[1]))
    c.shapes = std::array<LoweringShape, 2>{shape_of(c.results[0].simplified.program),
                                            shape_of(c.results[1].simplified.program)};
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
    const std::string label = fmt::format("graph {} seed {:#x}", i, gs);
    if (o.tensor_source) {
      const ir::Kernel program = o.tensor_source(ctx, gs);
      const ProgramComparison c = compare_program(ctx, program, o.check, o.simplifiers);
      for (size_t s = 0; s < 2; ++s)
        count(p.sides[s], as_kernel_result(c.results[s]), i, c.seconds[s]);
      if (c.shapes)
        p.lowering.add(*c.shapes, label);
      else
        ++p.lowering.not_compared;
    } else {
      const ir::Kernel k = source(ctx, gs);
      const KernelComparison c = compare_kernel(ctx, k, o.check, o.simplifiers);
      for (size_t s = 0; s < 2; ++s) count(p.sides[s], c.results[s], i, c.seconds[s]);
      if (c.strength)
        p.strength.add(*c.strength, label);
      else
        ++p.strength.not_compared;
    }
    ++p.graphs;
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
