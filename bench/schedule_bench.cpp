// Lowering cost: rangeify + kernel splitting + the simplifier pipeline on every kernel, for
// a small tensor program (softmax over rows: 10 nodes, 3 kernels), each iteration on a fresh
// Context. Target: <= 300 us on one core.
#include <benchmark/benchmark.h>

#include <chrono>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "schedule/lower.h"
#include "schedule/split_reduce.h"

namespace uopfuzz {
namespace {

ir::UOp softmax_rows(ir::Context& ctx) {
  using namespace ir::tensor;
  const ir::Shape shape{4, 6};
  ir::UOp x = input(ctx, ir::dtypes::Float32, shape, 0);
  ir::UOp shifted =
      alu(ctx, ir::Op::Sub, {x, expand(ctx, reduce_axis(ctx, x, ir::Op::Max, {1}), shape)});
  ir::UOp e = alu(ctx, ir::Op::Exp2, {shifted});
  ir::UOp total = expand(ctx, reduce_axis(ctx, e, ir::Op::Add, {1}), shape);
  return realize(ctx, {alu(ctx, ir::Op::Mul, {e, alu(ctx, ir::Op::Reciprocal, {total})})});
}

void BM_Schedule_LowerSmall(benchmark::State& state) {
  for (auto _ : state) {
    ir::Context ctx;
    auto program = schedule::lower(ctx, softmax_rows(ctx));
    if (!program) {
      state.SkipWithError(program.error().message.c_str());
      return;
    }
    schedule::SimplifiedProgram s = schedule::simplify_program(ctx, *program);
    benchmark::DoNotOptimize(s.program.kernels.data());
  }
}
BENCHMARK(BM_Schedule_LowerSmall)->Unit(benchmark::kMicrosecond);

// Split ReduceOp on cpu: the split Program's latency against the unsplit one's (the rule
// switched off), on the split examples' shapes at the default threshold. Counters: kernels
// (split), ratio (split / unsplit time; below 1: the split is faster). Arg: cpu threads,
// which only the split's first stage can use for a single output.
struct SplitCase {
  const char* name;
  ir::Shape shape;
  std::vector<int64_t> axes;
};

void split_reduce_latency(benchmark::State& state, const SplitCase& c) {
  ir::Context ctx;
  ir::UOp x = ir::tensor::input(ctx, ir::dtypes::Float32, c.shape, 0);
  ir::UOp root = ir::tensor::realize(ctx, {ir::tensor::reduce_axis(ctx, x, ir::Op::Add, c.axes)});
  schedule::LowerOptions unsplit_options;
  unsplit_options.disabled.insert(schedule::kSplitReduceRule);
  auto split = schedule::lower(ctx, root);
  auto unsplit = schedule::lower(ctx, root, unsplit_options);
  if (!split || !unsplit) {
    state.SkipWithError((split ? unsplit : split).error().message.c_str());
    return;
  }
  const ir::Program split_p = schedule::simplify_program(ctx, *split).program;
  const ir::Program unsplit_p = schedule::simplify_program(ctx, *unsplit).program;
  backends::Backend& cpu = *backends::find_backend("cpu");
  const ir::Inputs inputs = ir::make_inputs(root, 1);
  backends::RunOptions ro;
  ro.threads = static_cast<int>(state.range(0));
  auto seconds = [&](const ir::Program& p) {
    const auto start = std::chrono::steady_clock::now();
    auto out = backends::run_program(cpu, p, inputs, ro);
    benchmark::DoNotOptimize(out);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (!backends::run_program(cpu, split_p, inputs, ro) ||
      !backends::run_program(cpu, unsplit_p, inputs, ro)) {  // compiles both (cached)
    state.SkipWithError("the cpu backend cannot run the program");
    return;
  }
  double split_total = 0, unsplit_total = 0;
  for (auto _ : state) {
    const double t = seconds(split_p);
    split_total += t;
    unsplit_total += seconds(unsplit_p);
    state.SetIterationTime(t);
  }
  state.counters["kernels"] = static_cast<double>(split_p.kernels.size());
  state.counters["ratio"] = unsplit_total > 0 ? split_total / unsplit_total : 0;
}

const SplitCase kSplitCases[] = {
    {"sum_65536", {65536}, {0}},
    {"rows_16x65536", {16, 65536}, {1}},
    {"prime_65521", {65521}, {0}},
};

void BM_Schedule_SplitReduceCpu_Sum65536(benchmark::State& state) {
  split_reduce_latency(state, kSplitCases[0]);
}
void BM_Schedule_SplitReduceCpu_Rows16x65536(benchmark::State& state) {
  split_reduce_latency(state, kSplitCases[1]);
}
void BM_Schedule_SplitReduceCpu_Prime65521(benchmark::State& state) {
  split_reduce_latency(state, kSplitCases[2]);
}
BENCHMARK(BM_Schedule_SplitReduceCpu_Sum65536)
    ->Arg(1)
    ->Arg(4)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Schedule_SplitReduceCpu_Rows16x65536)
    ->Arg(1)
    ->Arg(4)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Schedule_SplitReduceCpu_Prime65521)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace uopfuzz
