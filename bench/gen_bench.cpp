// Generator throughput on one core at the default policy: graphs generated per second
// (with and without the generator's own oracle check), and graphs generated, simplified
// and checked on the oracle per second (the fuzz loop's unit of work; target of the
// fuzz-loop issue: >= 5,000 checked graphs per second per core). Counters report the
// median node count of the generated graphs and of their rewrites.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "check/differential.h"
#include "gen/generator.h"
#include "gen/tensor_gen.h"

namespace uopfuzz {
namespace {

double median(std::vector<int> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// arg: GenPolicy::check_seeds (0: no oracle check inside the generator)
void BM_Gen_Generate(benchmark::State& state) {
  gen::GenPolicy policy;
  policy.check_seeds = static_cast<int>(state.range(0));
  uint64_t seed = 0;
  std::vector<int> nodes;
  for (auto _ : state) {
    ir::Context ctx;
    gen::GenResult r = gen::generate(ctx, policy, seed++);
    nodes.push_back(r.stats.nodes);
    benchmark::DoNotOptimize(r.kernel.root);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["graphs/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["median_nodes"] = median(nodes);
}
BENCHMARK(BM_Gen_Generate)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Generate + simplify + differential check (3 input seeds, the header's VAR values).
// arg: GenPolicy::check_seeds
void BM_Gen_GenerateSimplifyCheck(benchmark::State& state) {
  gen::GenPolicy policy;
  policy.check_seeds = static_cast<int>(state.range(0));
  uint64_t seed = 0;
  std::vector<int> nodes, rewritten;
  int64_t findings = 0;
  for (auto _ : state) {
    ir::Context ctx;
    gen::GenResult r = gen::generate(ctx, policy, seed++);
    check::CheckOptions o;
    o.vars = {r.kernel.header.vars.begin(), r.kernel.header.vars.end()};
    check::CheckResult c = check::check_kernel(ctx, r.kernel, o);
    findings += c.kind != check::FindingKind::None;
    nodes.push_back(r.stats.nodes);
    benchmark::DoNotOptimize(c.kind);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["checked/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["median_nodes"] = median(nodes);
  state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_Gen_GenerateSimplifyCheck)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Tensor programs generated per second. arg: TensorGenPolicy::check (1: the tensor oracle
// checks each program on input seed 0).
void BM_Gen_GenerateTensor(benchmark::State& state) {
  gen::GenPolicy policy;
  policy.tensor.check = state.range(0) != 0;
  uint64_t seed = 0;
  std::vector<int> nodes;
  for (auto _ : state) {
    ir::Context ctx;
    gen::TensorGenResult r = gen::generate_tensor_program(ctx, policy, seed++);
    nodes.push_back(r.nodes);
    benchmark::DoNotOptimize(r.program.root);
  }
  state.counters["programs/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["median_nodes"] = median(nodes);
}
BENCHMARK(BM_Gen_GenerateTensor)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace uopfuzz
