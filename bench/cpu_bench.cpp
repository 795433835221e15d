// CPU backend speed (issue 5): JIT compile time of generated kernels, streaming
// bandwidth against plain -O3 -march=native C++ loops measured in the same run
// (elementwise a*b+c and a read-only sum over 64 MiB per buffer), thread scaling, and
// campaign throughput with --backends oracle,cpu. The ratios are printed when the binary
// exits ("ratio: ..." lines), from the figures of this one run.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/kernel_cache.h"
#include "backends/registry.h"
#include "bench/bench_kernels.h"
#include "bench/native_loops.h"
#include "check/differential.h"
#include "gen/generator.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"

namespace uopfuzz {
namespace {

using bench::elementwise;
using bench::median;

constexpr int64_t kElems = (int64_t{64} << 20) / 4;  // 64 MiB of float32 per buffer

std::string sum(int64_t n) {
  return fmt::format(R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size={0} in : float32
%4 = CONST {0} : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = INDEX %3 %5 : float32
%7 = LOAD %6 : float32
%8 = REDUCE %7 %5 op=ADD : float32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)",
                     n);
}

// Bandwidths measured in this run, printed as the issue's ratios when the binary exits.
struct Ratios {
  std::map<std::string, double> gbps;
  ~Ratios() {
    auto has = [&](std::initializer_list<const char*> keys) {
      for (const char* k : keys)
        if (!gbps.count(k)) return false;
      return true;
    };
    if (has({"cpu1", "native1"}))
      fmt::print("ratio: cpu elementwise, 1 thread: {:.0f}% of the native triad\n",
                 100 * gbps["cpu1"] / gbps["native1"]);
    if (has({"cpu1", "cpu2", "native1", "native2"}))
      fmt::print(
          "ratio: cpu elementwise, 2 threads: {:.2f}x one thread (the native triad: {:.2f}x)\n",
          gbps["cpu2"] / gbps["cpu1"], gbps["native2"] / gbps["native1"]);
    if (has({"cpu_sum", "native_sum"}))
      fmt::print("ratio: cpu float32 sum: {:.0f}% of the native sum\n",
                 100 * gbps["cpu_sum"] / gbps["native_sum"]);
  }
};
Ratios g_ratios;

double gbps(const benchmark::State& state, double seconds, int64_t bytes_per_iteration) {
  return seconds > 0 ? static_cast<double>(state.iterations()) *
                           static_cast<double>(bytes_per_iteration) / seconds / 1e9
                     : 0;
}

// One kernel with its inputs, shared by the benchmarks that stream it.
struct Streamed {
  ir::Context ctx;
  std::shared_ptr<backends::Kernel> kernel;
  oracle::Inputs inputs;
};

Streamed& streamed(const std::string& which) {
  static std::map<std::string, std::unique_ptr<Streamed>> all;
  auto& s = all[which];
  if (!s) {
    s = std::make_unique<Streamed>();
    auto k = ir::parse_kernel(s->ctx, which == "elementwise" ? elementwise(kElems) : sum(kElems));
    s->kernel = backends::find_backend("cpu")->compile(k->kernel.root).value();
    s->inputs = oracle::make_inputs(k->kernel.root, 1);
  }
  return *s;
}

void BM_Cpu_Elementwise(benchmark::State& state) {
  Streamed& s = streamed("elementwise");
  backends::RunOptions ro;
  ro.threads = static_cast<int>(state.range(0));
  double total = 0;
  for (auto _ : state) {
    const double t = s.kernel->time(s.inputs, 1, ro).value()[0];
    total += t;
    state.SetIterationTime(t);
  }
  state.SetBytesProcessed(state.iterations() * kElems * 4 * 4);
  g_ratios.gbps[ro.threads == 1 ? "cpu1" : "cpu2"] = gbps(state, total, kElems * 4 * 4);
}
BENCHMARK(BM_Cpu_Elementwise)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2);

void BM_Native_Triad(benchmark::State& state) {
  Streamed& s = streamed("elementwise");
  std::vector<float> out(static_cast<size_t>(kElems));
  auto f = [&](int slot) {
    return reinterpret_cast<const float*>(s.inputs.buffers.at(slot).data());
  };
  const int threads = static_cast<int>(state.range(0));
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (threads == 1) {
      bench::native_triad(out.data(), f(1), f(2), f(3), 0, kElems);
    } else {
      std::vector<std::thread> ts;
      for (int t = 0; t < threads; ++t)
        ts.emplace_back([&, t] {
          bench::native_triad(out.data(), f(1), f(2), f(3), kElems * t / threads,
                              kElems * (t + 1) / threads);
        });
      for (auto& t : ts) t.join();
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kElems * 4 * 4);
  g_ratios.gbps[threads == 1 ? "native1" : "native2"] =
      gbps(state, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
           kElems * 4 * 4);
}
BENCHMARK(BM_Native_Triad)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2);

void BM_Cpu_Sum(benchmark::State& state) {
  Streamed& s = streamed("sum");
  double total = 0;
  for (auto _ : state) {
    const double t = s.kernel->time(s.inputs, 1).value()[0];
    total += t;
    state.SetIterationTime(t);
  }
  state.SetBytesProcessed(state.iterations() * kElems * 4);
  g_ratios.gbps["cpu_sum"] = gbps(state, total, kElems * 4);
}
BENCHMARK(BM_Cpu_Sum)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_Native_Sum(benchmark::State& state) {
  Streamed& s = streamed("sum");
  const float* a = reinterpret_cast<const float*>(s.inputs.buffers.at(1).data());
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(bench::native_sum(a, kElems));
  state.SetBytesProcessed(state.iterations() * kElems * 4);
  g_ratios.gbps["native_sum"] =
      gbps(state, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
           kElems * 4);
}
BENCHMARK(BM_Native_Sum)->Unit(benchmark::kMillisecond)->MinTime(2);

// A cold JIT compile (cache cleared) of generated kernels, graph seeds 0..63 in turn.
void BM_Cpu_CompileGenerated(benchmark::State& state) {
  static std::vector<std::unique_ptr<ir::Context>> ctxs;
  static std::vector<ir::UOp> roots;
  if (roots.empty())
    for (uint64_t seed = 0; seed < 64; ++seed) {
      ctxs.push_back(std::make_unique<ir::Context>());
      roots.push_back(gen::generate(*ctxs.back(), gen::GenPolicy{}, seed).kernel.root);
    }
  backends::Backend* cpu = backends::find_backend("cpu");
  std::vector<double> ms;
  size_t i = 0;
  for (auto _ : state) {
    cpu->kernel_cache()->clear();
    auto t0 = std::chrono::steady_clock::now();
    auto k = cpu->compile(roots[i++ % roots.size()]);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(k);
  }
  state.counters["median_ms"] = median(ms);
}
BENCHMARK(BM_Cpu_CompileGenerated)->Unit(benchmark::kMillisecond);

// The fixed cost of one cold compile: the smallest kernel (the float32 sum), cache cleared.
void BM_Cpu_CompileTiny(benchmark::State& state) {
  ir::Context ctx;
  auto k = ir::parse_kernel(ctx, sum(16));
  backends::Backend* cpu = backends::find_backend("cpu");
  for (auto _ : state) {
    cpu->kernel_cache()->clear();
    benchmark::DoNotOptimize(cpu->compile(k->kernel.root));
  }
}
BENCHMARK(BM_Cpu_CompileTiny)->Unit(benchmark::kMillisecond);

// The campaign's unit of work with --backends oracle,cpu: generate, simplify, check on
// both (2 input seeds, as `uopfuzz fuzz`), one core.
void BM_Cpu_CheckedGraphs(benchmark::State& state) {
  gen::GenPolicy policy;
  uint64_t seed = 0;
  for (auto _ : state) {
    ir::Context ctx;
    gen::GenResult r = gen::generate(ctx, policy, seed++);
    check::CheckOptions o;
    o.seeds = 2;
    o.max_steps = 10'000'000;
    o.backends = {"oracle", "cpu"};
    o.vars = {r.kernel.header.vars.begin(), r.kernel.header.vars.end()};
    benchmark::DoNotOptimize(check::check_kernel(ctx, r.kernel, o).kind);
  }
  state.counters["checked/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Cpu_CheckedGraphs)->Unit(benchmark::kMillisecond)->MinTime(5);

}  // namespace
}  // namespace uopfuzz
