// Vulkan backend speed (issue 6), on the default device (lavapipe without a GPU):
// dispatch + readback of a tiny kernel, a 16M-element float32 add (bandwidth counts
// the two reads and the write: 12 bytes per element), and GLSL -> SPIR-V -> pipeline
// creation of a generated kernel (a new graph each iteration: no kernel-cache hit),
// with and without SIN (whose shader carries the double-precision sine).
// Host wall time is Google Benchmark's; the device's timestamp median is a counter.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "backends/vulkan/vulkan_backend.h"
#include "bench/bench_kernels.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"

namespace uopfuzz {
namespace {

using bench::median;

std::string add_kernel(int64_t n, int c = 0) {
  return fmt::format(R"(
%0 = PARAM slot=0 size={0} out : float32
%1 = CONST {0} : index
%2 = RANGE %1 axis=0 GLOBAL : index
%3 = INDEX %0 %2 : float32
%4 = PARAM slot=1 size={0} in : float32
%5 = INDEX %4 %2 : float32
%6 = LOAD %5 : float32
%7 = PARAM slot=2 size={0} in : float32
%8 = INDEX %7 %2 : float32
%9 = LOAD %8 : float32
%10 = ADD %6 %9 : float32
%11 = CONST {1} : float32
%12 = ADD %10 %11 : float32
%13 = STORE %3 %12 : void
%14 = END %13 %2 : void
%15 = SINK %14 : void
)",
                     n, c);
}

// out = SIN(a + b + c): the kernel carries the double-precision sine and its reduction.
std::string sin_kernel(int64_t n, int c) {
  std::string k = add_kernel(n, c);
  const std::string store = "%13 = STORE %3 %12 : void";
  k.replace(k.find(store), store.size(), "%16 = SIN %12 : float32\n%13 = STORE %3 %16 : void");
  return k;
}

// Runs `reps` timed runs per benchmark iteration and reports the device median too.
void run_kernel(benchmark::State& state, int64_t n) {
  ir::Context ctx;
  auto k = ir::parse_kernel(ctx, add_kernel(n));
  if (!k.ok()) return state.SkipWithError("parse");
  auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
  if (!c.ok()) return state.SkipWithError(c.error().message.c_str());
  oracle::Inputs in = oracle::make_inputs(k->kernel.root, 1);
  std::vector<double> dev;
  for (auto _ : state) {
    auto t = c.value()->time(in, 1);
    if (!t.ok()) return state.SkipWithError(t.error().message.c_str());
    state.SetIterationTime((*t)[0]);
    for (double d : c.value()->device_times()) dev.push_back(d);
  }
  state.counters["device_median_us"] = median(dev) * 1e6;
  state.SetBytesProcessed(state.iterations() * n * 12);
}

void BM_Vulkan_TinyDispatchReadback(benchmark::State& state) {
  run_kernel(state, 16);
}
BENCHMARK(BM_Vulkan_TinyDispatchReadback)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);

void BM_Vulkan_Add16M(benchmark::State& state) {
  run_kernel(state, int64_t{16} << 20);
}
BENCHMARK(BM_Vulkan_Add16M)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

void compile_pipelines(benchmark::State& state, std::string (*kernel)(int64_t, int)) {
  int c = 1000;
  {  // the first compile creates the device context: not measured
    ir::Context ctx;
    auto k = ir::parse_kernel(ctx, kernel(1024, c++));
    (void)backends::find_backend("vulkan")->compile(k->kernel.root);
  }
  for (auto _ : state) {
    state.PauseTiming();
    ir::Context ctx;
    auto k = ir::parse_kernel(ctx, kernel(1024, c++));  // a new constant: a new shader
    state.ResumeTiming();
    auto r = backends::find_backend("vulkan")->compile(k->kernel.root);
    if (!r.ok()) return state.SkipWithError(r.error().message.c_str());
  }
}
void BM_Vulkan_CompilePipeline(benchmark::State& state) {
  compile_pipelines(state, [](int64_t n, int c) { return add_kernel(n, c); });
}
BENCHMARK(BM_Vulkan_CompilePipeline)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The same with SIN: what the double-precision sine adds to a shader's compile time.
void BM_Vulkan_CompileSinPipeline(benchmark::State& state) {
  compile_pipelines(state, sin_kernel);
}
BENCHMARK(BM_Vulkan_CompileSinPipeline)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace uopfuzz
