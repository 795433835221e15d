// Lowering cost: rangeify + kernel splitting + the simplifier pipeline on every kernel, for
// a small tensor program (softmax over rows: 10 nodes, 3 kernels), each iteration on a fresh
// Context. Target: <= 300 us on one core.
#include <benchmark/benchmark.h>

#include "ir/tensor.h"
#include "schedule/lower.h"

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

}  // namespace
}  // namespace uopfuzz
