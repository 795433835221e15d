// Tests of the tensor oracle (oracle::eval_tensor_program) on tensor programs written as
// .uop text. Every expected output is worked out by hand from SEMANTICS.md, "Tensor
// programs", in the comment beside it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ir/parser.h"
#include "ir/run_io.h"
#include "ir/verify.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::oracle {
namespace {

using namespace ir;
using I64s = std::vector<int64_t>;
using F64s = std::vector<double>;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

Buffer ints(DType dt, const I64s& v) {
  Buffer b(dt, v.size());
  for (size_t i = 0; i < v.size(); ++i) b.set(i, wrap_int(dt, v[i]));
  return b;
}
Buffer floats(DType dt, const F64s& v) {
  Buffer b(dt, v.size());
  for (size_t i = 0; i < v.size(); ++i) b.set(i, round_float(dt, v[i]));
  return b;
}
I64s as_ints(const Buffer& b) {
  I64s v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).i);
  return v;
}
F64s as_floats(const Buffer& b) {
  F64s v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).f);
  return v;
}
I64s iota(int64_t n) {
  I64s v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

class TensorOracle : public ::testing::Test {
 protected:
  Context ctx_;

  // Parses and verifies: every program below is a valid tensor program.
  UOp parse(const std::string& text) {
    auto r = parse_kernel(ctx_, text);
    if (!r) {
      ADD_FAILURE() << "parse error at line " << r.error().loc.line << ": " << r.error().message
                    << "\n"
                    << text;
      return UOp();
    }
    UOp root = r->kernel.root;
    auto errors = verify(root);
    for (const auto& e : errors) ADD_FAILURE() << "does not verify: " << e.message << "\n" << text;
    return root;
  }

  RunOutput run(const std::string& text, const Inputs& in = {}) {
    auto out = eval_tensor_program(parse(text), in);
    if (!out) {
      ADD_FAILURE() << "error: " << out.error().message << "\n" << text;
      return {};
    }
    return *out;
  }

  // The ints of output k of an Ok run.
  I64s run_ints(const std::string& text, const Inputs& in = {}, int k = 0) {
    RunOutput out = run(text, in);
    EXPECT_EQ(out.status, RunStatus::Ok) << (out.ub ? out.ub->what : "") << "\n" << text;
    if (!out.outputs.count(k)) {
      ADD_FAILURE() << "no output " << k;
      return {};
    }
    return as_ints(out.outputs.at(k));
  }
  F64s run_floats(const std::string& text, const Inputs& in = {}, int k = 0) {
    RunOutput out = run(text, in);
    EXPECT_EQ(out.status, RunStatus::Ok) << (out.ub ? out.ub->what : "") << "\n" << text;
    if (!out.outputs.count(k)) {
      ADD_FAILURE() << "no output " << k;
      return {};
    }
    return as_floats(out.outputs.at(k));
  }

  static Inputs one(Buffer b) {
    Inputs in;
    in.buffers.emplace(0, std::move(b));
    return in;
  }
};

// ---------------------------------------------------------------------------------
// Leaves, reshape, contiguous, several outputs

TEST_F(TensorOracle, ConstIsTheSameValueEverywhere) {
  EXPECT_EQ(run_ints("%0 = CONST 7 : int32[2,3]\n%1 = REALIZE %0 : void\n"), I64s(6, 7));
}

TEST_F(TensorOracle, ReshapeAndContiguousKeepRowMajorOrder) {
  // [2,3] 0..5 read as [3,2] is the same row-major sequence.
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2,3]\n"
      "%1 = RESHAPE %0 : int32[3,2]\n"
      "%2 = CONTIGUOUS %1 : int32[3,2]\n"
      "%3 = REALIZE %2 %0 : void\n";
  Inputs in = one(ints(dtypes::Int32, iota(6)));
  RunOutput out = run(prog, in);
  ASSERT_EQ(out.status, RunStatus::Ok);
  ASSERT_EQ(out.outputs.size(), 2u);
  EXPECT_EQ(as_ints(out.outputs.at(0)), iota(6));
  EXPECT_EQ(as_ints(out.outputs.at(1)), iota(6));
}

TEST_F(TensorOracle, RankZeroTensors) {
  // A rank-0 tensor has one element: 5 + 7 = 12.
  const char* prog =
      "%0 = PARAM slot=0 in : int32[]\n"
      "%1 = CONST 7 : int32[]\n"
      "%2 = ADD %0 %1 : int32[]\n"
      "%3 = REALIZE %2 : void\n";
  EXPECT_EQ(run_ints(prog, one(ints(dtypes::Int32, {5}))), I64s{12});
}

// ---------------------------------------------------------------------------------
// Movement ops

TEST_F(TensorOracle, PermuteOfRankThree) {
  // x[j,k,i] = 12j + 4k + i over [2,3,4]; order=[2,0,1] gives out[i,j,k] = x[j,k,i]
  // over [4,2,3]: for each i, (j,k) row-major: i + 12j + 4k.
  const char* prog =
      "%0 = PARAM slot=0 in : int32[24]\n"
      "%1 = RESHAPE %0 : int32[2,3,4]\n"
      "%2 = PERMUTE %1 order=[2,0,1] : int32[4,2,3]\n"
      "%3 = REALIZE %2 : void\n";
  EXPECT_EQ(
      run_ints(prog, one(ints(dtypes::Int32, iota(24)))),
      (I64s{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
}

TEST_F(TensorOracle, PadOnBothSidesReadsZero) {
  // [[1,2],[3,4]] with one row before and two columns after: a zero row, then each row
  // followed by two zeros.
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2,2]\n"
      "%1 = PAD %0 pad=[1:0,0:2] : int32[3,4]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(prog, one(ints(dtypes::Int32, {1, 2, 3, 4}))),
            (I64s{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
  // Before and after on one dim: [5,6] -> [0,0,5,6,0].
  const char* one_dim =
      "%0 = PARAM slot=0 in : int32[2]\n"
      "%1 = PAD %0 pad=[2:1] : int32[5]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(one_dim, one(ints(dtypes::Int32, {5, 6}))), (I64s{0, 0, 5, 6, 0}));
}

TEST_F(TensorOracle, PadOfBoolReadsFalseAndOfFloatReadsPlusZero) {
  const char* b =
      "%0 = PARAM slot=0 in : bool[1]\n"
      "%1 = PAD %0 pad=[1:1] : bool[3]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(b, one(ints(dtypes::Bool, {1}))), (I64s{0, 1, 0}));
  const char* f =
      "%0 = PARAM slot=0 in : float32[1]\n"
      "%1 = PAD %0 pad=[0:1] : float32[2]\n"
      "%2 = REALIZE %1 : void\n";
  F64s got = run_floats(f, one(floats(dtypes::Float32, {-2.5})));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], -2.5);
  EXPECT_EQ(got[1], 0.0);
  EXPECT_FALSE(std::signbit(got[1]));
}

TEST_F(TensorOracle, ShrinkKeepsBeginToEnd) {
  // 0..11 as [3,4], rows 1..2 and columns 1..2: [[5,6],[9,10]].
  const char* prog =
      "%0 = PARAM slot=0 in : int32[3,4]\n"
      "%1 = SHRINK %0 shrink=[1:3,1:3] : int32[2,2]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(prog, one(ints(dtypes::Int32, iota(12)))), (I64s{5, 6, 9, 10}));
}

TEST_F(TensorOracle, FlipOfOneAndOfTwoAxes) {
  // [[0,1,2],[3,4,5]]: flipping both axes reverses the sequence; axis 0 alone swaps rows.
  const char* both =
      "%0 = PARAM slot=0 in : int32[2,3]\n"
      "%1 = FLIP %0 axes=[0,1] : int32[2,3]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(both, one(ints(dtypes::Int32, iota(6)))), (I64s{5, 4, 3, 2, 1, 0}));
  const char* rows =
      "%0 = PARAM slot=0 in : int32[2,3]\n"
      "%1 = FLIP %0 axes=[0] : int32[2,3]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(rows, one(ints(dtypes::Int32, iota(6)))), (I64s{3, 4, 5, 0, 1, 2}));
}

TEST_F(TensorOracle, ExpandAfterReshapeBroadcastsSizeOneDims) {
  // [1,2,3] as a column [3,1] expanded to [3,2] repeats each value along the row; as a
  // row [1,3] expanded to [2,3] repeats the row.
  const char* column =
      "%0 = PARAM slot=0 in : int32[3]\n"
      "%1 = RESHAPE %0 : int32[3,1]\n"
      "%2 = EXPAND %1 : int32[3,2]\n"
      "%3 = RESHAPE %0 : int32[1,3]\n"
      "%4 = EXPAND %3 : int32[2,3]\n"
      "%5 = REALIZE %2 %4 : void\n";
  Inputs in = one(ints(dtypes::Int32, {1, 2, 3}));
  EXPECT_EQ(run_ints(column, in, 0), (I64s{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(run_ints(column, in, 1), (I64s{1, 2, 3, 1, 2, 3}));
}

TEST_F(TensorOracle, SizeZeroDimsGiveEmptyTensors) {
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2,0]\n"
      "%1 = PERMUTE %0 order=[1,0] : int32[0,2]\n"
      "%2 = PAD %1 pad=[0:0,1:0] : int32[0,3]\n"
      "%3 = REALIZE %2 : void\n";
  RunOutput out = run(prog, one(ints(dtypes::Int32, {})));
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(out.outputs.at(0).size(), 0u);
}

// ---------------------------------------------------------------------------------
// REDUCE_AXIS

constexpr const char* kReduce23 =
    "%0 = PARAM slot=0 in : int32[2,3]\n"
    "%1 = REDUCE_AXIS %0 {} : int32{}\n"
    "%2 = REALIZE %1 : void\n";

std::string reduce23(const std::string& arg, const std::string& shape) {
  std::string s = kReduce23;
  s.replace(s.find("{}"), 2, arg);
  s.replace(s.find("{}"), 2, shape);
  return s;
}

TEST_F(TensorOracle, ReduceOverOneSeveralAndAllAxes) {
  // [[0,1,2],[3,4,5]]: row sums 3, 12; column sums 3, 5, 7; total 15.
  Inputs in = one(ints(dtypes::Int32, iota(6)));
  EXPECT_EQ(run_ints(reduce23("op=ADD axes=[1]", "[2,1]"), in), (I64s{3, 12}));
  EXPECT_EQ(run_ints(reduce23("op=ADD axes=[0]", "[1,3]"), in), (I64s{3, 5, 7}));
  EXPECT_EQ(run_ints(reduce23("op=ADD axes=[0,1]", "[1,1]"), in), I64s{15});
  EXPECT_EQ(run_ints(reduce23("op=ADD axes=all", "[1,1]"), in), I64s{15});
  // [[1,2,3],[4,5,6]]: row products 6, 120; column max 4, 5, 6; row min 1, 4.
  Inputs in1 = one(ints(dtypes::Int32, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(run_ints(reduce23("op=MUL axes=[1]", "[2,1]"), in1), (I64s{6, 120}));
  EXPECT_EQ(run_ints(reduce23("op=MAX axes=[0]", "[1,3]"), in1), (I64s{4, 5, 6}));
  EXPECT_EQ(run_ints(reduce23("op=MIN axes=[1]", "[2,1]"), in1), (I64s{1, 4}));
}

TEST_F(TensorOracle, ReduceOverTheMiddleAxesOfRankThree) {
  // x[i,j,k] = 6i + 3j + k over [2,2,3]; reducing axes 0 and 2 leaves j:
  // j=0: (0+1+2) + (6+7+8) = 24; j=1: (3+4+5) + (9+10+11) = 42.
  const char* prog =
      "%0 = PARAM slot=0 in : int32[12]\n"
      "%1 = RESHAPE %0 : int32[2,2,3]\n"
      "%2 = REDUCE_AXIS %1 op=ADD axes=[0,2] : int32[1,2,1]\n"
      "%3 = REALIZE %2 : void\n";
  EXPECT_EQ(run_ints(prog, one(ints(dtypes::Int32, iota(12)))), (I64s{24, 42}));
}

TEST_F(TensorOracle, ReduceOverASizeOneAxisFoldsFromTheIdentity) {
  // One element per output: ADD gives 0 + x, which turns -0.0 into +0.0 (as a kernel
  // REDUCE over a range of size 1 does); MUL gives 1 * x = x.
  const char* add =
      "%0 = PARAM slot=0 in : float32[2,1]\n"
      "%1 = REDUCE_AXIS %0 op=ADD axes=[1] : float32[2,1]\n"
      "%2 = REALIZE %1 : void\n";
  F64s got = run_floats(add, one(floats(dtypes::Float32, {-0.0, 2.5})));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], 0.0);
  EXPECT_FALSE(std::signbit(got[0]));
  EXPECT_EQ(got[1], 2.5);
  const char* mul =
      "%0 = PARAM slot=0 in : int32[3,1]\n"
      "%1 = REDUCE_AXIS %0 op=MUL axes=[1] : int32[3,1]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(mul, one(ints(dtypes::Int32, {-3, 0, 9}))), (I64s{-3, 0, 9}));
}

TEST_F(TensorOracle, ReduceOverNoAxesLeavesTheValueUnchanged) {
  // axes=[] reduces nothing: the value itself, -0.0 included (no fold from +0).
  const char* prog =
      "%0 = PARAM slot=0 in : float32[3]\n"
      "%1 = REDUCE_AXIS %0 op=ADD axes=[] : float32[3]\n"
      "%2 = REALIZE %1 : void\n";
  F64s got = run_floats(prog, one(floats(dtypes::Float32, {-0.0, 1.5, -4})));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(std::signbit(got[0]));
  EXPECT_EQ(got[1], 1.5);
  EXPECT_EQ(got[2], -4.0);
  // On a rank-0 tensor the empty list is the only one.
  const char* scalar =
      "%0 = PARAM slot=0 in : int32[]\n"
      "%1 = REDUCE_AXIS %0 op=MAX axes=[] : int32[]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(scalar, one(ints(dtypes::Int32, {-7}))), I64s{-7});
}

TEST_F(TensorOracle, ReduceOverASizeZeroAxisGivesTheIdentity) {
  // No element to fold: ADD 0, MAX the lowest int32, float MIN +inf, MUL 1.
  Inputs in = one(ints(dtypes::Int32, {}));
  auto prog = [](const std::string& dt, const std::string& op) {
    return "%0 = PARAM slot=0 in : " + dt + "[2,0]\n%1 = REDUCE_AXIS %0 op=" + op +
           " axes=[1] : " + dt + "[2,1]\n%2 = REALIZE %1 : void\n";
  };
  EXPECT_EQ(run_ints(prog("int32", "ADD"), in), (I64s{0, 0}));
  EXPECT_EQ(run_ints(prog("int32", "MUL"), in), (I64s{1, 1}));
  EXPECT_EQ(run_ints(prog("int32", "MAX"), in),
            (I64s{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min()}));
  F64s got = run_floats(prog("float32", "MIN"), one(floats(dtypes::Float32, {})));
  EXPECT_EQ(got, (F64s{INFINITY, INFINITY}));
}

TEST_F(TensorOracle, BoolMaxIsAnyAndMinIsAll) {
  // Rows [F,T,F] and [F,F,F]: any = T, F. Rows [T,T,T] and [T,F,T]: all = T, F.
  const char* any =
      "%0 = PARAM slot=0 in : bool[2,3]\n"
      "%1 = REDUCE_AXIS %0 op=MAX axes=[1] : bool[2,1]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(any, one(ints(dtypes::Bool, {0, 1, 0, 0, 0, 0}))), (I64s{1, 0}));
  const char* all =
      "%0 = PARAM slot=0 in : bool[2,3]\n"
      "%1 = REDUCE_AXIS %0 op=MIN axes=[1] : bool[2,1]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(all, one(ints(dtypes::Bool, {1, 1, 1, 1, 0, 1}))), (I64s{1, 0}));
}

TEST_F(TensorOracle, FloatSumsFoldInRowMajorOrderRoundingEachStep) {
  // float32, in order: 1e8 + 1 rounds to 1e8 (its ULP is 8), - 1e8 gives 0, + 1 gives 1.
  // The exact sum, 2, is what float64 gives.
  const char* f32 =
      "%0 = PARAM slot=0 in : float32[4]\n"
      "%1 = REDUCE_AXIS %0 op=ADD axes=[0] : float32[1]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_floats(f32, one(floats(dtypes::Float32, {1e8, 1, -1e8, 1}))), F64s{1.0});
  const char* f64 =
      "%0 = PARAM slot=0 in : float64[4]\n"
      "%1 = REDUCE_AXIS %0 op=ADD axes=[0] : float64[1]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_floats(f64, one(floats(dtypes::Float64, {1e8, 1, -1e8, 1}))), F64s{2.0});
  // Along axis 0 of [4,1] laid out as a column the order is the same: rows in order.
  const char* column =
      "%0 = PARAM slot=0 in : float32[4]\n"
      "%1 = RESHAPE %0 : float32[2,2]\n"
      "%2 = PERMUTE %1 order=[1,0] : float32[2,2]\n"
      "%3 = REDUCE_AXIS %2 op=ADD axes=[0,1] : float32[1,1]\n"
      "%4 = REALIZE %3 : void\n";
  // Transposed, the row-major order is 1e8, -1e8, 1, 1: 0, 1, 2.
  EXPECT_EQ(run_floats(column, one(floats(dtypes::Float32, {1e8, 1, -1e8, 1}))), F64s{2.0});
}

// ---------------------------------------------------------------------------------
// Elementwise ops

TEST_F(TensorOracle, SizedIntegersWrapAround) {
  // int8: 100 + 100 = 200 - 256 = -56; int32: 2^31 - 1 + 1 wraps to -2^31.
  const char* i8 =
      "%0 = PARAM slot=0 in : int8[2]\n"
      "%1 = ADD %0 %0 : int8[2]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(i8, one(ints(dtypes::Int8, {100, -100}))), (I64s{-56, 56}));
  const char* i32 =
      "%0 = PARAM slot=0 in : int32[1]\n"
      "%1 = CONST 1 : int32[1]\n"
      "%2 = ADD %0 %1 : int32[1]\n"
      "%3 = REALIZE %2 : void\n";
  EXPECT_EQ(run_ints(i32, one(ints(dtypes::Int32, {2147483647}))), I64s{-2147483648LL});
  // A sum reduction wraps the same way: 3 * 100 = 300 - 256 = 44 in int8.
  const char* sum =
      "%0 = PARAM slot=0 in : int8[3]\n"
      "%1 = REDUCE_AXIS %0 op=ADD axes=[0] : int8[1]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(sum, one(ints(dtypes::Int8, {100, 100, 100}))), I64s{44});
}

TEST_F(TensorOracle, ElementwiseWhereCastCompareAndBitcast) {
  // x = [-2, 0, 3]: x < 1 is [T, T, F]; WHERE picks x where true, 10 elsewhere.
  const char* where =
      "%0 = PARAM slot=0 in : int32[3]\n"
      "%1 = CONST 1 : int32[3]\n"
      "%2 = CMPLT %0 %1 : bool[3]\n"
      "%3 = CONST 10 : int32[3]\n"
      "%4 = WHERE %2 %0 %3 : int32[3]\n"
      "%5 = CAST %4 : float32[3]\n"
      "%6 = REALIZE %4 %5 %2 : void\n";
  Inputs in = one(ints(dtypes::Int32, {-2, 0, 3}));
  EXPECT_EQ(run_ints(where, in, 0), (I64s{-2, 0, 10}));
  EXPECT_EQ(run_floats(where, in, 1), (F64s{-2.0, 0.0, 10.0}));
  EXPECT_EQ(run_ints(where, in, 2), (I64s{1, 1, 0}));
  // 1.0f is 0x3f800000 = 1065353216; -2.0f is 0xc0000000, as int32 -1073741824.
  const char* bitcast =
      "%0 = PARAM slot=0 in : float32[2]\n"
      "%1 = BITCAST %0 : int32[2]\n"
      "%2 = REALIZE %1 : void\n";
  EXPECT_EQ(run_ints(bitcast, one(floats(dtypes::Float32, {1.0, -2.0}))),
            (I64s{1065353216, -1073741824}));
}

TEST_F(TensorOracle, ReduceThenBroadcastBack) {
  // x - max(x, axis 1) on [[1,5],[7,2]]: maxes 5, 7; [[-4,0],[0,-5]].
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2,2]\n"
      "%1 = REDUCE_AXIS %0 op=MAX axes=[1] : int32[2,1]\n"
      "%2 = EXPAND %1 : int32[2,2]\n"
      "%3 = SUB %0 %2 : int32[2,2]\n"
      "%4 = REALIZE %3 : void\n";
  EXPECT_EQ(run_ints(prog, one(ints(dtypes::Int32, {1, 5, 7, 2}))), (I64s{-4, 0, 0, -5}));
}

// ---------------------------------------------------------------------------------
// Undefined behaviour and errors

TEST_F(TensorOracle, DivisionByAZeroElementIsUbAtThatNodeAndElement) {
  // The divisor [[1,2],[0,4]] is 0 at element [1,0] only.
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2,2]\n"
      "%1 = PARAM slot=1 in : int32[2,2]\n"
      "%2 = CDIV %0 %1 : int32[2,2]\n"
      "%3 = REALIZE %2 : void\n";
  UOp root = parse(prog);
  Inputs in;
  in.buffers.emplace(0, ints(dtypes::Int32, {8, 8, 8, 8}));
  in.buffers.emplace(1, ints(dtypes::Int32, {1, 2, 0, 4}));
  auto out = eval_tensor_program(root, in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->status, RunStatus::Ub);
  ASSERT_TRUE(out->ub.has_value());
  EXPECT_EQ(out->ub->node, root.src(0));
  EXPECT_CONTAINS(out->ub->what, "division by zero");
  EXPECT_CONTAINS(out->ub->what, "[1,0]");
  EXPECT_TRUE(out->outputs.empty());
  // Without the zero the same program is defined: 8/1, 8/2, 8/8, 8/4.
  in.buffers.at(1) = ints(dtypes::Int32, {1, 2, 8, 4});
  EXPECT_EQ(run_ints(prog, in), (I64s{8, 4, 1, 2}));
}

TEST_F(TensorOracle, EveryElementIsEvaluatedEvenWhenShrunkAway) {
  // The undefined element [1] of the division is cut off by the SHRINK; it is still UB
  // (SEMANTICS.md, "Tensor evaluation": every element of every node is evaluated).
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2]\n"
      "%1 = CDIV %0 %0 : int32[2]\n"
      "%2 = SHRINK %1 shrink=[0:1] : int32[1]\n"
      "%3 = REALIZE %2 : void\n";
  RunOutput out = run(prog, one(ints(dtypes::Int32, {3, 0})));
  EXPECT_EQ(out.status, RunStatus::Ub);
}

TEST_F(TensorOracle, MissingOrMisfitInputsAreErrors) {
  const char* prog =
      "%0 = PARAM slot=0 in : int32[2,2]\n"
      "%1 = NEG %0 : int32[2,2]\n"
      "%2 = REALIZE %1 : void\n";
  UOp root = parse(prog);
  auto missing = eval_tensor_program(root, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_CONTAINS(missing.error().message, "slot 0");
  auto short_buffer = eval_tensor_program(root, one(ints(dtypes::Int32, {1, 2, 3})));
  ASSERT_FALSE(short_buffer.ok());
  EXPECT_CONTAINS(short_buffer.error().message, "slot 0");
  auto wrong_dtype = eval_tensor_program(root, one(ints(dtypes::Int64, {1, 2, 3, 4})));
  ASSERT_FALSE(wrong_dtype.ok());
  // The right buffer: -1, -2, -3, -4.
  EXPECT_EQ(run_ints(prog, one(ints(dtypes::Int32, {1, 2, 3, 4}))), (I64s{-1, -2, -3, -4}));
}

TEST_F(TensorOracle, AKernelIsNotATensorProgram) {
  UOp kernel = parse(
      "%0 = PARAM slot=0 size=1 out : int32\n"
      "%1 = CONST 0 : index\n"
      "%2 = INDEX %0 %1 : int32\n"
      "%3 = CONST 1 : int32\n"
      "%4 = STORE %2 %3 : void\n"
      "%5 = SINK %4 : void\n");
  auto out = eval_tensor_program(kernel, {});
  ASSERT_FALSE(out.ok());
  EXPECT_CONTAINS(out.error().message, "REALIZE");
}

TEST_F(TensorOracle, MakeInputsFillsTensorParamsByElementCount) {
  const char* prog =
      "%0 = PARAM slot=0 in : float32[3,5]\n"
      "%1 = REDUCE_AXIS %0 op=ADD axes=[0,1] : float32[1,1]\n"
      "%2 = REALIZE %1 : void\n";
  UOp root = parse(prog);
  Inputs in = make_inputs(root, 7);
  ASSERT_EQ(in.buffers.at(0).size(), 15u);
  double sum = 0;  // the inputs are multiples of 1/8: every order sums them exactly
  for (size_t i = 0; i < 15; ++i) sum += in.buffers.at(0).get(i).f;
  EXPECT_EQ(run_floats(prog, in), F64s{sum});
}

}  // namespace
}  // namespace uopfuzz::oracle
