// Lowering tensor programs (schedule::lower) and running the Program on the oracle. Expected
// outputs are worked out by hand from the tensor ops' definitions in the comment beside each.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/tensor_eval.h"
#include "parse_root.h"
#include "schedule/lower.h"

namespace uopfuzz::schedule {
namespace {

using namespace ir;
using I64s = std::vector<int64_t>;

class ScheduleLower : public ::testing::Test {
 protected:
  Context ctx_;

  UOp parse(const std::string& text) { return uopfuzz::testing::parse_root(ctx_, text); }

  /// Lowers `root`, expecting success and kernels that verify.
  Program lower_ok(UOp root, LoweringBugSet bugs = {}) {
    LowerOptions o;
    o.bugs = std::move(bugs);
    auto p = lower(ctx_, root, o);
    if (!p) {
      ADD_FAILURE() << p.error().message;
      return {};
    }
    for (const ProgramKernel& k : p->kernels) {
      auto errors = verify(k.root);
      EXPECT_TRUE(errors.empty()) << errors.front().message;
    }
    return *p;
  }

  static Inputs int32_inputs(const std::map<int, I64s>& values) {
    Inputs in;
    for (const auto& [slot, vs] : values) {
      Buffer b(dtypes::Int32, vs.size());
      for (size_t i = 0; i < vs.size(); ++i) b.set(i, wrap_int(dtypes::Int32, vs[i]));
      in.buffers[slot] = b;
    }
    return in;
  }

  static I64s ints(const Buffer& b) {
    I64s out;
    for (size_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).i);
    return out;
  }

  /// The outputs of `program` on the oracle, by REALIZE index, as integers.
  std::map<int, I64s> run(const Program& program, const std::map<int, I64s>& inputs) {
    auto out =
        backends::run_program(*backends::find_backend("oracle"), program, int32_inputs(inputs));
    std::map<int, I64s> got;
    if (!out) {
      ADD_FAILURE() << out.error().message;
      return got;
    }
    EXPECT_EQ(out->status, RunStatus::Ok)
        << "kernel " << out->failed_kernel << ": " << (out->ub ? out->ub->what : "");
    for (const auto& [k, b] : out->outputs) got[k] = ints(b);
    return got;
  }

  I64s run0(const std::string& text, const std::map<int, I64s>& inputs, LoweringBugSet bugs = {}) {
    return run(lower_ok(parse(text), std::move(bugs)), inputs)[0];
  }
};

// PERMUTE then + 10: x = [[0,1,2],[3,4,5]], x^T = [[0,3],[1,4],[2,5]].
constexpr const char* kPermuteAdd = R"(
%0 = PARAM slot=0 in : int32[2,3]
%1 = PERMUTE %0 order=[1,0] : int32[3,2]
%2 = CONST 10 : int32[3,2]
%3 = ADD %1 %2 : int32[3,2]
%4 = REALIZE %3 : void
)";

TEST_F(ScheduleLower, PermuteAndConstantFuseIntoOneKernel) {
  Program p = lower_ok(parse(kPermuteAdd));
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(run(p, {{0, {0, 1, 2, 3, 4, 5}}})[0], (I64s{10, 13, 11, 14, 12, 15}));
}

// SHRINK [1:4] of [1,2,3,4,5] is [2,3,4]; FLIP gives [4,3,2]. Reading size - r instead
// of (size-1) - r shifts every read one further: [5,4,3].
constexpr const char* kShrinkFlip = R"(
%0 = PARAM slot=0 in : int32[5]
%1 = SHRINK %0 shrink=[1:4] : int32[3]
%2 = FLIP %1 axes=[0] : int32[3]
%3 = REALIZE %2 : void
)";

TEST_F(ScheduleLower, ShrinkAndFlip) {
  EXPECT_EQ(run0(kShrinkFlip, {{0, {1, 2, 3, 4, 5}}}), (I64s{4, 3, 2}));
  EXPECT_EQ(run0(kShrinkFlip, {{0, {1, 2, 3, 4, 5}}}, {LoweringBug::FlipNoSizeMinusOne}),
            (I64s{5, 4, 3}));
}

// SHRINK [0:3] of [1,2,3,4] is [1,2,3]; PAD 2:1 gives [0,0,1,2,3,0]. A valid range one
// element too long reads the shrunk-away 4 into the last element.
constexpr const char* kShrinkPad = R"(
%0 = PARAM slot=0 in : int32[4]
%1 = SHRINK %0 shrink=[0:3] : int32[3]
%2 = PAD %1 pad=[2:1] : int32[6]
%3 = REALIZE %2 : void
)";

TEST_F(ScheduleLower, PadReadsZeroOutsideTheSource) {
  EXPECT_EQ(run0(kShrinkPad, {{0, {1, 2, 3, 4}}}), (I64s{0, 0, 1, 2, 3, 0}));
  EXPECT_EQ(run0(kShrinkPad, {{0, {1, 2, 3, 4}}}, {LoweringBug::PadValidOffByOne}),
            (I64s{0, 0, 1, 2, 3, 4}));
}

// PAD of a computed value: x + 1 = [2,3], padded 1:1 -> [0,2,3,0] (the padding is 0, not 0 + 1).
TEST_F(ScheduleLower, PadOfAComputedValueIsMasked) {
  EXPECT_EQ(run0(R"(
%0 = PARAM slot=0 in : int32[2]
%1 = CONST 1 : int32[2]
%2 = ADD %0 %1 : int32[2]
%3 = PAD %2 pad=[1:1] : int32[4]
%4 = REALIZE %3 : void
)",
                 {{0, {1, 2}}}),
            (I64s{0, 2, 3, 0}));
}

// A division under a PAD would divide by the gated loads' 0 in the padding: it gets a
// buffer of its own. [6,8] / [2,4] = [3,2], padded 1:1 -> [0,3,2,0].
TEST_F(ScheduleLower, DivisionUnderAPadIsComputedWhereValid) {
  Program p = lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[2]
%1 = PARAM slot=1 in : int32[2]
%2 = CDIV %0 %1 : int32[2]
%3 = PAD %2 pad=[1:1] : int32[4]
%4 = REALIZE %3 : void
)"));
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(run(p, {{0, {6, 8}}, {1, {2, 4}}})[0], (I64s{0, 3, 2, 0}));
}

// A [3,2] input read as [6] is the identity: [0..5]. Re-split by the sizes reversed
// ([2,3]) it reads (lin/3, lin%3) of the [3,2] input: 0,1,2,2,3,4.
constexpr const char* kReshape = R"(
%0 = PARAM slot=0 in : int32[3,2]
%1 = RESHAPE %0 : int32[6]
%2 = REALIZE %1 : void
)";

TEST_F(ScheduleLower, ReshapeResplitsByTheInputSizes) {
  EXPECT_EQ(run0(kReshape, {{0, {0, 1, 2, 3, 4, 5}}}), (I64s{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(run0(kReshape, {{0, {0, 1, 2, 3, 4, 5}}}, {LoweringBug::ReshapeSizesReversed}),
            (I64s{0, 1, 2, 2, 3, 4}));
}

// [6] -> [2,3] -> transpose -> [6]: [[0,1,2],[3,4,5]]^T flattened = [0,3,1,4,2,5].
TEST_F(ScheduleLower, ReshapePermuteReshape) {
  EXPECT_EQ(run0(R"(
%0 = PARAM slot=0 in : int32[6]
%1 = RESHAPE %0 : int32[2,3]
%2 = PERMUTE %1 order=[1,0] : int32[3,2]
%3 = RESHAPE %2 : int32[6]
%4 = REALIZE %3 : void
)",
                 {{0, {0, 1, 2, 3, 4, 5}}}),
            (I64s{0, 3, 1, 4, 2, 5}));
}

// x - sum(x, 1) broadcast back: rows sum to 6 and 15. The reduce is realized (its own
// kernel), the subtraction reads it.
TEST_F(ScheduleLower, ReduceThenBroadcastIsRealized) {
  Program p = lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[2,1]
%2 = EXPAND %1 : int32[2,3]
%3 = SUB %0 %2 : int32[2,3]
%4 = REALIZE %3 : void
)"));
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(run(p, {{0, {1, 2, 3, 4, 5, 6}}})[0], (I64s{-5, -4, -3, -11, -10, -9}));
}

// MAX and MIN over columns, MUL over everything: [[1,5,3],[4,2,6]].
TEST_F(ScheduleLower, ReduceOps) {
  auto out = run(lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=MAX axes=[0] : int32[1,3]
%2 = REDUCE_AXIS %0 op=MIN axes=[0] : int32[1,3]
%3 = REDUCE_AXIS %0 op=MUL axes=[0,1] : int32[1,1]
%4 = REALIZE %1 %2 %3 : void
)")),
                 {{0, {1, 5, 3, 4, 2, 6}}});
  EXPECT_EQ(out[0], (I64s{4, 5, 6}));
  EXPECT_EQ(out[1], (I64s{1, 2, 3}));
  EXPECT_EQ(out[2], (I64s{720}));
}

// y = 2x read twice at the same index: one kernel. y + y*y with y = [2,4,6,8].
TEST_F(ScheduleLower, AgreeingConsumersShareTheKernel) {
  Program p = lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[4]
%1 = CONST 2 : int32[4]
%2 = MUL %0 %1 : int32[4]
%3 = MUL %2 %2 : int32[4]
%4 = ADD %2 %3 : int32[4]
%5 = REALIZE %4 : void
)"));
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(run(p, {{0, {1, 2, 3, 4}}})[0], (I64s{6, 20, 42, 72}));
}

// y = 2x read at r and at 3 - r: rangeify gives y a buffer, which buffer removal inlines
// again (no reduce in scope): one kernel. y + flip(y) = [10,10,10,10]; reusing
// the first consumer's ranges for both reads gives 2y = [4,8,12,16].
constexpr const char* kDisagree = R"(
%0 = PARAM slot=0 in : int32[4]
%1 = CONST 2 : int32[4]
%2 = MUL %0 %1 : int32[4]
%3 = FLIP %2 axes=[0] : int32[4]
%4 = ADD %2 %3 : int32[4]
%5 = REALIZE %4 : void
)";

TEST_F(ScheduleLower, DisagreeingConsumersRealizeTheNode) {
  Program p = lower_ok(parse(kDisagree));
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(run(p, {{0, {1, 2, 3, 4}}})[0], (I64s{10, 10, 10, 10}));
  EXPECT_EQ(run0(kDisagree, {{0, {1, 2, 3, 4}}}, {LoweringBug::MultiConsumerReuse}),
            (I64s{4, 8, 12, 16}));
}

// y = 2x (one element) read at index 0 by two kernels, each under its own PAD gate: the
// gates cannot be OR-ed (each names its own kernel's range), so y gets a buffer.
// x = [5]: [0,10,10,10] and [10,10,0,0].
TEST_F(ScheduleLower, GatesFromDifferentKernelsRealizeTheNode) {
  auto out = run(lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[1]
%1 = CONST 2 : int32[1]
%2 = MUL %0 %1 : int32[1]
%3 = EXPAND %2 : int32[3]
%4 = PAD %3 pad=[1:0] : int32[4]
%5 = EXPAND %2 : int32[2]
%6 = PAD %5 pad=[0:2] : int32[4]
%7 = REALIZE %4 %6 : void
)")),
                 {{0, {5}}});
  EXPECT_EQ(out[0], (I64s{0, 10, 10, 10}));
  EXPECT_EQ(out[1], (I64s{10, 10, 0, 0}));
}

// Outputs that are an input, a constant, the same node twice, and a CONTIGUOUS.
TEST_F(ScheduleLower, SeveralOutputs) {
  Program p = lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[3]
%1 = CONST 7 : int32[2]
%2 = NEG %0 : int32[3]
%3 = CONTIGUOUS %2 : int32[3]
%4 = ADD %3 %0 : int32[3]
%5 = REALIZE %0 %1 %2 %2 %4 : void
)"));
  int outputs = 0;
  for (const ProgramBuffer& b : p.buffers) outputs += b.role == ProgramBuffer::Role::Output;
  EXPECT_EQ(outputs, 5);
  auto out = run(p, {{0, {1, -2, 3}}});
  EXPECT_EQ(out[0], (I64s{1, -2, 3}));
  EXPECT_EQ(out[1], (I64s{7, 7}));
  EXPECT_EQ(out[2], (I64s{-1, 2, -3}));
  EXPECT_EQ(out[3], (I64s{-1, 2, -3}));
  EXPECT_EQ(out[4], (I64s{0, 0, 0}));
}

// A [0,3] input summed over its empty axis is [0,0,0]; an empty output gets a buffer
// and no kernel; a [1,3] input expanded to [2,3]. An empty product is 1.
TEST_F(ScheduleLower, SizeZeroAndSizeOneDims) {
  Program p = lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[0,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[0] : int32[1,3]
%2 = PARAM slot=1 in : int32[1,3]
%3 = EXPAND %2 : int32[2,3]
%4 = SHRINK %3 shrink=[0:0,0:3] : int32[0,3]
%5 = MAX %1 %2 : int32[1,3]
%6 = REDUCE_AXIS %0 op=MUL axes=[0] : int32[1,3]
%7 = REALIZE %3 %4 %5 %6 : void
)"));
  EXPECT_EQ(p.kernels.size(), 3u);
  auto out = run(p, {{0, {}}, {1, {-1, 4, 0}}});
  EXPECT_EQ(out[0], (I64s{-1, 4, 0, -1, 4, 0}));
  EXPECT_EQ(out[1], (I64s{}));
  EXPECT_EQ(out[2], (I64s{0, 4, 0}));
  EXPECT_EQ(out[3], (I64s{1, 1, 1}));
}

// Rank 0: a scalar input broadcast to [2,2] plus 1, and a [2,3] sum to a scalar.
TEST_F(ScheduleLower, RankZero) {
  UOp s = tensor::input(ctx_, dtypes::Int32, {}, 0);
  UOp m = tensor::input(ctx_, dtypes::Int32, {2, 3}, 1);
  UOp b = tensor::expand(ctx_, tensor::reshape(ctx_, s, {1, 1}), {2, 2});
  UOp plus = tensor::alu(ctx_, Op::Add, {b, tensor::constant(ctx_, dtypes::Int32, 1, {2, 2})});
  UOp sum = tensor::reshape(ctx_, tensor::reduce_axis(ctx_, m, Op::Add, {0, 1}), {});
  auto out = run(lower_ok(tensor::realize(ctx_, {plus, sum})), {{0, {5}}, {1, {1, 2, 3, 4, 5, 6}}});
  EXPECT_EQ(out[0], (I64s{6, 6, 6, 6}));
  EXPECT_EQ(out[1], (I64s{21}));
}

// Every tensor op in one program: row sums of arange(12) as [3,4] ([6,22,38]), and of its
// transpose padded, cut, flipped ([[4,8],[0,0]]), the max (8) plus 1 broadcast to [1,5].
TEST_F(ScheduleLower, EveryOpInOneProgram) {
  I64s x;
  for (int64_t i = 0; i < 12; ++i) x.push_back(i);
  auto out = run(lower_ok(parse(R"(
%0 = PARAM slot=0 in : int32[12]
%1 = RESHAPE %0 : int32[3,4]
%2 = REDUCE_AXIS %1 op=ADD axes=[1] : int32[3,1]
%3 = RESHAPE %2 : int32[3]
%4 = PERMUTE %1 order=[1,0] : int32[4,3]
%5 = PAD %4 pad=[1:0,0:2] : int32[5,5]
%6 = SHRINK %5 shrink=[0:2,1:3] : int32[2,2]
%7 = FLIP %6 axes=[0] : int32[2,2]
%8 = REDUCE_AXIS %7 op=MAX axes=all : int32[1,1]
%9 = CONST 1 : int32[1,1]
%10 = ADD %8 %9 : int32[1,1]
%11 = EXPAND %10 : int32[1,5]
%12 = REALIZE %3 %11 : void
)")),
                 {{0, x}});
  EXPECT_EQ(out[0], (I64s{6, 22, 38}));
  EXPECT_EQ(out[1], (I64s{9, 9, 9, 9, 9}));
}

// tinygrad's arange(n): ones(n) padded n-1 before, windows of n (the pool trick: expand,
// flatten, shrink, reshape), each window summed, minus 1. arange(12).reshape(3,4).sum(1)
// is [0+1+2+3, 4+5+6+7, 8+9+10+11] = [6, 22, 38].
UOp arange_sum(Context& ctx) {
  const int64_t n = 12;
  UOp ones = tensor::constant(ctx, dtypes::Int32, 1, {n});
  UOp padded = tensor::pad(ctx, ones, {{n - 1, 0}});  // [2n-1]
  UOp rows = tensor::expand(ctx, tensor::reshape(ctx, padded, {1, 2 * n - 1}), {n + 1, 2 * n - 1});
  UOp flat = tensor::reshape(ctx, rows, {(n + 1) * (2 * n - 1)});
  UOp cut = tensor::shrink(ctx, flat, {{0, 2 * n * n}});
  UOp windows = tensor::shrink(ctx, tensor::reshape(ctx, cut, {n, 2 * n}), {{0, n}, {0, n}});
  UOp counts = tensor::reshape(ctx, tensor::reduce_axis(ctx, windows, Op::Add, {1}), {n});
  UOp arange = tensor::alu(ctx, Op::Add, {counts, tensor::constant(ctx, dtypes::Int32, -1, {n})});
  UOp sums = tensor::reduce_axis(ctx, tensor::reshape(ctx, arange, {3, 4}), Op::Add, {1});
  return tensor::realize(ctx, {tensor::reshape(ctx, sums, {3})});
}

TEST_F(ScheduleLower, ArangeSumIsOneKernel) {
  Program p = lower_ok(arange_sum(ctx_));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(run(p, {})[0], (I64s{6, 22, 38}));
  SimplifiedProgram s = simplify_program(ctx_, p);
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(run(s.program, {})[0], (I64s{6, 22, 38}));
}

TEST_F(ScheduleLower, RefusesAKernel) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 1 : int32
%4 = STORE %2 %3 : void
%5 = SINK %4 : void
)");
  auto p = lower(ctx_, k);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.rfind("unsupported:", 0), 0u) << p.error().message;
}

// Differential: small random chains of every tensor op over one input, lowered and run on
// the oracle, against the tensor oracle's element-by-element evaluation.
class RandomTensorPrograms {
 public:
  RandomTensorPrograms(Context& ctx, uint64_t seed) : ctx_(ctx), rng_(seed) {}

  UOp program() {
    Shape shape;
    for (int64_t rank = pick(0, 3), i = 0; i < rank; ++i) shape.push_back(pick(1, 4));
    UOp x = tensor::input(ctx_, dtypes::Int32, shape, 0);
    UOp a = chain(x), b = chain(x);
    std::vector<UOp> outs{a};
    if (a.shape() == b.shape())
      outs.push_back(tensor::alu(ctx_, Op::Add, {a, b}));
    else
      outs.push_back(b);
    return tensor::realize(ctx_, outs);
  }

 private:
  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  UOp chain(UOp x) {
    for (int64_t n = pick(1, 4); n-- > 0;) {
      UOp y = step(x);
      if (numel(y.shape()) <= 400) x = y;
    }
    return x;
  }

  UOp step(UOp x) {
    Shape s = x.shape();
    size_t rank = s.size();
    switch (pick(0, 8)) {
      case 0: {  // merge two adjacent dims, or split one
        if (rank >= 2 && pick(0, 1)) {
          size_t i = static_cast<size_t>(pick(0, static_cast<int64_t>(rank) - 2));
          s[i] *= s[i + 1];
          s.erase(s.begin() + static_cast<long>(i) + 1);
        } else {
          s.insert(s.begin() + pick(0, static_cast<int64_t>(rank)), 1);
        }
        return tensor::reshape(ctx_, x, s);
      }
      case 1: {
        std::vector<int64_t> order(rank);
        for (size_t i = 0; i < rank; ++i) order[i] = static_cast<int64_t>(i);
        std::shuffle(order.begin(), order.end(), rng_);
        return tensor::permute(ctx_, x, order);
      }
      case 2: {
        for (int64_t& d : s)
          if (d == 1) d = pick(1, 3);
        return tensor::expand(ctx_, x, s);
      }
      case 3: {
        std::vector<std::pair<int64_t, int64_t>> p;
        for (size_t i = 0; i < rank; ++i) p.emplace_back(pick(0, 2), pick(0, 2));
        return tensor::pad(ctx_, x, p);
      }
      case 4: {
        std::vector<std::pair<int64_t, int64_t>> p;
        for (int64_t d : s) {
          int64_t b = pick(0, d), e = pick(b, d);
          p.emplace_back(b, e);
        }
        return tensor::shrink(ctx_, x, p);
      }
      case 5:
      case 6: {
        std::vector<int64_t> axes;
        for (size_t i = 0; i < rank; ++i)
          if (pick(0, 1)) axes.push_back(static_cast<int64_t>(i));
        if (pick(0, 1)) return tensor::flip(ctx_, x, axes);
        const Op ops[] = {Op::Add, Op::Max, Op::Min, Op::Mul};
        return tensor::reduce_axis(ctx_, x, ops[pick(0, 3)], axes);
      }
      case 7: return tensor::contiguous(ctx_, x);
      default: return tensor::alu(ctx_, Op::Mul, {x, x});
    }
  }

  Context& ctx_;
  std::mt19937_64 rng_;
};

TEST_F(ScheduleLower, AgreesWithTheTensorOracleOnRandomPrograms) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    UOp root = RandomTensorPrograms(ctx_, seed).program();
    ASSERT_TRUE(verify(root).empty()) << "seed " << seed << ": " << verify(root).front().message;
    UOp x = toposort(root).front();
    I64s values;
    for (int64_t i = 0; i < numel(x.shape()); ++i) values.push_back((i * 7) % 11 - 5);
    Inputs in = int32_inputs({{0, values}});
    auto want = oracle::eval_tensor_program(root, in);
    ASSERT_TRUE(want.ok()) << want.error().message;
    Program p = lower_ok(root);
    auto got = backends::run_program(*backends::find_backend("oracle"), p, in);
    ASSERT_TRUE(got.ok()) << "seed " << seed << ": " << got.error().message;
    ASSERT_EQ(got->status, RunStatus::Ok) << "seed " << seed;
    EXPECT_EQ(got->outputs, want->outputs) << "seed " << seed << "\n" << print_graph(root);
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}

}  // namespace
}  // namespace uopfuzz::schedule
