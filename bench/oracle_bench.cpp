// Oracle speed: scalar op evaluations (interpreter instructions) per second on one
// core, for an elementwise kernel, a reduction and an ALU-heavy loop, plus the cost of
// compiling a small kernel. Target (issue: foundation): >= 50 M evaluations/s.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>

#include "bench/bench_kernels.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz {
namespace {

std::string elementwise_loop(int64_t n) {
  return bench::elementwise(n, "LOOP");
}

// out[0] = sum_r a[r] * b[r], int32.
std::string dot(int n) {
  return fmt::format(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size={0} in : int32
%4 = CONST {0} : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = INDEX %3 %5 : int32
%7 = LOAD %6 : int32
%8 = PARAM slot=2 size={0} in : int32
%9 = INDEX %8 %5 : int32
%10 = LOAD %9 : int32
%11 = MUL %7 %10 : int32
%12 = REDUCE %11 %5 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = SINK %13 : void
)",
                     n);
}

// out[i] = a chain of 16 integer ops on i (index arithmetic, as in address math).
std::string alu_chain(int n) {
  std::string s = fmt::format(R"(
%p = PARAM slot=0 size={0} out : int32
%n = CONST {0} : index
%r = RANGE %n axis=0 LOOP : index
%c3 = CONST 3 : index
%c7 = CONST 7 : index
%x0 = ADD %r %c3 : index
)",
                              n);
  for (int i = 1; i <= 16; ++i) {
    const char* op = i % 4 == 0 ? "FLOORMOD" : i % 4 == 1 ? "MUL" : i % 4 == 2 ? "ADD" : "XOR";
    const char* rhs = i % 4 == 0 ? "%c7" : "%c3";
    s += fmt::format("%x{} = {} %x{} {} : index\n", i, op, i - 1, rhs);
  }
  s += R"(%v = CAST %x16 : int32
%i = INDEX %p %r : int32
%st = STORE %i %v : void
%e = END %st %r : void
%sink = SINK %e : void
)";
  return s;
}

void run_kernel(benchmark::State& state, const std::string& text) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  if (!parsed) {
    state.SkipWithError(parsed.error().message.c_str());
    return;
  }
  auto program = oracle::Program::compile(parsed->kernel.root);
  if (!program) {
    state.SkipWithError(program.error().message.c_str());
    return;
  }
  oracle::Inputs inputs = oracle::make_inputs(parsed->kernel.root, 1);
  uint64_t steps = 0;
  for (auto _ : state) {
    auto out = program->run(inputs);
    steps += out->steps;
    benchmark::DoNotOptimize(out->outputs);
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
}

void BM_Oracle_Elementwise(benchmark::State& state) {
  run_kernel(state, elementwise_loop(static_cast<int>(state.range(0))));
}
void BM_Oracle_DotReduce(benchmark::State& state) {
  run_kernel(state, dot(static_cast<int>(state.range(0))));
}
void BM_Oracle_AluChain(benchmark::State& state) {
  run_kernel(state, alu_chain(static_cast<int>(state.range(0))));
}

void BM_Oracle_CompileSmall(benchmark::State& state) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, dot(16));
  for (auto _ : state) {
    auto program = oracle::Program::compile(parsed->kernel.root);
    benchmark::DoNotOptimize(program);
  }
}

// The tensor oracle: a small program of every kind of op (a campaign checks >= 1,000 such
// programs per second per core, each evaluated here once), and a large reduction.
constexpr const char* kSmallTensorProgram = R"(
%0 = PARAM slot=0 in : int32[12]
%1 = RESHAPE %0 : int32[3,4]
%2 = REDUCE_AXIS %1 op=ADD axes=[1] : int32[3,1]
%3 = PERMUTE %1 order=[1,0] : int32[4,3]
%4 = PAD %3 pad=[1:0,0:2] : int32[5,5]
%5 = SHRINK %4 shrink=[0:3,1:4] : int32[3,3]
%6 = FLIP %5 axes=[0] : int32[3,3]
%7 = REDUCE_AXIS %6 op=MAX axes=[1] : int32[3,1]
%8 = MUL %2 %7 : int32[3,1]
%9 = EXPAND %8 : int32[3,4]
%10 = SUB %1 %9 : int32[3,4]
%11 = REALIZE %10 %2 : void
)";

void run_tensor_program(benchmark::State& state, const std::string& text) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  if (!parsed) {
    state.SkipWithError(parsed.error().message.c_str());
    return;
  }
  oracle::Inputs inputs = oracle::make_inputs(parsed->kernel.root, 1);
  uint64_t elements = 0;
  for (auto _ : state) {
    auto out = oracle::eval_tensor_program(parsed->kernel.root, inputs);
    elements += out->steps;
    benchmark::DoNotOptimize(out->outputs);
  }
  state.counters["programs_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["elements_per_s"] =
      benchmark::Counter(static_cast<double>(elements), benchmark::Counter::kIsRate);
}

void BM_TensorOracle_Small(benchmark::State& state) {
  run_tensor_program(state, kSmallTensorProgram);
}
void BM_TensorOracle_Reduce(benchmark::State& state) {
  run_tensor_program(state, fmt::format(R"(
%0 = PARAM slot=0 in : float32[{0}]
%1 = RESHAPE %0 : float32[{1},1024]
%2 = REDUCE_AXIS %1 op=ADD axes=[0] : float32[1,1024]
%3 = REALIZE %2 : void
)",
                                        state.range(0), state.range(0) / 1024));
}

BENCHMARK(BM_Oracle_Elementwise)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Oracle_DotReduce)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Oracle_AluChain)->Arg(1 << 18)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Oracle_CompileSmall)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TensorOracle_Small)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TensorOracle_Reduce)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace uopfuzz

BENCHMARK_MAIN();
