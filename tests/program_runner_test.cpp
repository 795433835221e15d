// Running lowered Programs kernel by kernel (backends::run_program): buffers bound by slot,
// UB reported with its kernel, and the compiled backends agreeing with the oracle.

#include "backends/program_runner.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "ir/parser.h"
#include "schedule/lower.h"

namespace uopfuzz::backends {
namespace {

using namespace ir;
using I64s = std::vector<int64_t>;

class ProgramRunner : public ::testing::Test {
 protected:
  Context ctx_;

  Program lower_text(const std::string& text) {
    auto k = parse_kernel(ctx_, text);
    if (!k) {
      ADD_FAILURE() << k.error().message;
      return {};
    }
    auto p = schedule::lower(ctx_, k->kernel.root);
    if (!p) {
      ADD_FAILURE() << p.error().message;
      return {};
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
};

// Kernel 0 stores y = -x (CONTIGUOUS), kernel 1 divides x by y: x[1] = 0 divides by 0.
constexpr const char* kDivideByNegation = R"(
%0 = PARAM slot=0 in : int32[3]
%1 = NEG %0 : int32[3]
%2 = CONTIGUOUS %1 : int32[3]
%3 = CDIV %0 %2 : int32[3]
%4 = REALIZE %3 : void
)";

TEST_F(ProgramRunner, UbNamesTheKernel) {
  Program p = lower_text(kDivideByNegation);
  ASSERT_EQ(p.kernels.size(), 2u);
  auto out = run_program(*find_backend("oracle"), p, int32_inputs({{0, {4, 0, -6}}}));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->status, RunStatus::Ub);
  EXPECT_EQ(out->failed_kernel, 1);
  ASSERT_TRUE(out->ub.has_value());
  EXPECT_NE(out->ub->what.find("division by zero"), std::string::npos) << out->ub->what;
}

TEST_F(ProgramRunner, IntermediatesCarryValuesBetweenKernels) {
  // [4,1,-6] / [-4,-1,6] = [-1,-1,-1].
  Program p = lower_text(kDivideByNegation);
  auto out = run_program(*find_backend("oracle"), p, int32_inputs({{0, {4, 1, -6}}}));
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->status, RunStatus::Ok);
  const Buffer& b = out->outputs.at(0);
  ASSERT_EQ(b.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(b.get(i).i, -1);
}

TEST_F(ProgramRunner, MissingInputIsAnError) {
  Program p = lower_text(kDivideByNegation);
  auto out = run_program(*find_backend("oracle"), p, Inputs{});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("slot 0"), std::string::npos) << out.error().message;
}

// Programs of several kernels: reduce then broadcast, a disagreeing consumer, an output
// read by a later kernel, padding, reshapes and a float elementwise chain.
constexpr const char* kMixed = R"(
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=MAX axes=[1] : int32[2,1]
%2 = EXPAND %1 : int32[2,3]
%3 = SUB %0 %2 : int32[2,3]
%4 = FLIP %3 axes=[0,1] : int32[2,3]
%5 = ADD %3 %4 : int32[2,3]
%6 = PAD %5 pad=[1:0,0:2] : int32[3,5]
%7 = RESHAPE %6 : int32[15]
%8 = SHRINK %7 shrink=[2:14] : int32[12]
%9 = REALIZE %8 %3 %3 : void
)";

constexpr const char* kFloat = R"(
%0 = PARAM slot=0 in : float32[4]
%1 = PARAM slot=1 in : float32[4]
%2 = MUL %0 %1 : float32[4]
%3 = PERMUTE %2 order=[0] : float32[4]
%4 = FLIP %3 axes=[0] : float32[4]
%5 = ADD %4 %2 : float32[4]
%6 = REALIZE %5 : void
)";

TEST_F(ProgramRunner, CompiledBackendsAgreeWithTheOracle) {
  Inputs mixed = int32_inputs({{0, {3, -7, 12, 0, 5, -2}}});
  Inputs floats;
  Buffer a(dtypes::Float32, 4), b(dtypes::Float32, 4);
  for (size_t i = 0; i < 4; ++i) {
    a.set(i, round_float(dtypes::Float32, 0.5 * static_cast<double>(i) - 1.25));
    b.set(i, round_float(dtypes::Float32, 3.0 - static_cast<double>(i)));
  }
  floats.buffers[0] = a;
  floats.buffers[1] = b;
  for (auto [text, inputs] : {std::pair{kMixed, &mixed}, std::pair{kFloat, &floats}}) {
    Program p = lower_text(text);
    ASSERT_GE(p.kernels.size(), 1u);
    auto want = run_program(*find_backend("oracle"), p, *inputs);
    ASSERT_TRUE(want.ok()) << want.error().message;
    ASSERT_EQ(want->status, RunStatus::Ok);
    for (const char* name : {"cpu", "vulkan"}) {
      auto got = run_program(*find_backend(name), p, *inputs);
      ASSERT_TRUE(got.ok()) << name << ": " << got.error().message;
      EXPECT_EQ(got->status, RunStatus::Ok) << name;
      EXPECT_EQ(got->outputs, want->outputs) << name;
    }
  }
}

// The mixed program's values by hand: x = [[3,-7,12],[0,5,-2]], row max [12,5],
// d = x - max = [[-9,-19,0],[-5,0,-7]], flip both axes = [[-7,0,-5],[0,-19,-9]],
// s = d + flip = [[-16,-19,-5],[-5,-19,-16]]; padded one row above and two columns right
// to [3,5], flattened, elements 2..13.
TEST_F(ProgramRunner, MixedProgramValues) {
  Program p = lower_text(kMixed);
  auto out = run_program(*find_backend("oracle"), p, int32_inputs({{0, {3, -7, 12, 0, 5, -2}}}));
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->status, RunStatus::Ok);
  I64s got;
  for (size_t i = 0; i < out->outputs.at(0).size(); ++i) got.push_back(out->outputs.at(0).get(i).i);
  EXPECT_EQ(got, (I64s{0, 0, 0, -16, -19, -5, 0, 0, -5, -19, -16, 0}));
  I64s second;
  for (size_t i = 0; i < out->outputs.at(2).size(); ++i)
    second.push_back(out->outputs.at(2).get(i).i);
  EXPECT_EQ(second, (I64s{-9, -19, 0, -5, 0, -7}));
}

}  // namespace
}  // namespace uopfuzz::backends
