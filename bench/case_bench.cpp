// Per-case suites: compile time and run time of every corpus/examples case and of a fixed
// set of generated kernels, the original graph and the faithful simplifier's rewrite side
// by side, on each compiled backend whose device is available.
//   BM_Case_Compile/<backend>/<case>/<variant>: a cold compile (kernel cache cleared)
//   BM_Case_Run/<backend>/<case>/<variant>: one run (GPU timestamps where the backend has them)
// `uopfuzz bench` measures the same things with interleaved samples and a significance
// test; these are for Google Benchmark's own tools (filters, repetitions, compare.py).

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backends/kernel_cache.h"
#include "backends/registry.h"
#include "bench/runner.h"

namespace uopfuzz::bench {
namespace {

// Graph seeds of the generated kernels: fixed, so runs compare.
constexpr uint64_t kGeneratedSeed = 1;
constexpr int kGeneratedCount = 8;

void compile_case(benchmark::State& state, backends::Backend* backend, ir::UOp graph) {
  for (auto _ : state) {
    backend->kernel_cache()->clear();
    const auto t0 = std::chrono::steady_clock::now();
    auto k = backend->compile(graph);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!k) {
      state.SkipWithError(k.error().message.c_str());
      break;
    }
  }
}

void run_case(benchmark::State& state, backends::Backend* backend, ir::UOp graph,
              const oracle::Inputs* inputs) {
  auto k = backend->compile(graph);
  if (!k) {
    state.SkipWithError(k.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto t = (*k)->time(*inputs, 1);
    if (!t) {
      state.SkipWithError(t.error().message.c_str());
      break;
    }
    std::vector<double> device = (*k)->device_times();
    state.SetIterationTime(device.empty() ? (*t)[0] : device[0]);
  }
}

// Registered before main: every case that prepares (UB-free on the oracle), on every
// compiled backend that has a device here.
const bool registered = [] {
  static std::vector<std::unique_ptr<PreparedCase>> kept;
  std::vector<BenchCase> cases;
  if (auto examples = cases_from(std::string(UOPFUZZ_SOURCE_DIR) + "/corpus/examples"))
    cases = *examples;
  for (auto& g : generated_cases(kGeneratedCount, kGeneratedSeed)) cases.push_back(std::move(g));
  std::vector<backends::Backend*> targets;
  for (const char* name : {"cpu", "vulkan"})
    if (backends::Backend* b = backends::find_backend(name); b && b->device().ok())
      targets.push_back(b);
  for (const BenchCase& c : cases) {
    auto p = prepare_case(c);
    if (!p) continue;
    kept.push_back(std::move(*p));
    PreparedCase* pc = kept.back().get();
    for (backends::Backend* b : targets)
      for (auto [variant, graph] :
           {std::pair{"original", pc->original}, std::pair{"rewritten", pc->rewritten}}) {
        const std::string suffix = std::string(b->name()) + "/" + c.name + "/" + variant;
        benchmark::RegisterBenchmark(("BM_Case_Compile/" + suffix).c_str(), compile_case, b, graph)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond)
            ->Iterations(5);
        benchmark::RegisterBenchmark(("BM_Case_Run/" + suffix).c_str(), run_case, b, graph,
                                     &pc->inputs)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
  }
  return true;
}();

}  // namespace
}  // namespace uopfuzz::bench
