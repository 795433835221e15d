// The tensor generator's hard inputs (gen/tensor_gen.h, SEMANTICS.md "Inputs"): from fixed
// seeds it draws divisors that read 0 where a PAD gate is off, size-0 and size-1 dims in
// every op that takes an axis, integer inputs at their types' caps and float inputs that
// round, each seen in the drawn programs and their @input lines; the lines survive the
// .uop text; rounding floats never reach a float sum; and switching them off leaves the
// program as it was.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gen/tensor_gen.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

constexpr uint64_t kSeeds = 1500;

bool is_division(Op op) {
  return op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod;
}

/// A division whose divisor is an input of stated nonzero range, under a PAD.
bool gated_bounded_division(UOp root) {
  for (UOp pad : toposort(root)) {
    if (pad.op() != Op::Pad) continue;
    for (UOp u : toposort(pad))
      if (is_division(u.op()) && u.src(1).op() == Op::Param && u.src(1).arg<ParamArg>().vmin)
        return true;
  }
  return false;
}

/// The source shapes of each axis-taking op that hold a dim of extent 0 or 1, by op name
/// ("REDUCE_AXIS/0": a reduced axis of extent 0; the others: any dim of the source or result).
void count_degenerate(UOp root, std::map<std::string, int>& seen) {
  for (UOp u : toposort(root)) {
    const Op op = u.op();
    if (op == Op::ReduceAxis) {
      for (int64_t a : u.arg<ReduceAxisArg>().axes) {
        const int64_t d = u.src(0).shape()[static_cast<size_t>(a)];
        if (d <= 1) ++seen[fmt::format("REDUCE_AXIS/{}", d)];
      }
      continue;
    }
    if (op != Op::Expand && op != Op::Reshape && op != Op::Permute && op != Op::Pad &&
        op != Op::Shrink && op != Op::Flip)
      continue;
    std::set<int64_t> dims(u.src(0).shape().begin(), u.src(0).shape().end());
    dims.insert(u.shape().begin(), u.shape().end());
    for (int64_t d : {int64_t{0}, int64_t{1}})
      if (dims.count(d)) ++seen[fmt::format("{}/{}", op_name(op), d)];
  }
}

struct Drawn {
  int programs_gated_division = 0;
  std::map<std::string, int> degenerate;  ///< see count_degenerate
  std::set<std::string> int_caps;         ///< "dtype value" of cap values in @input lines
  int float_lines = 0, inf = 0, nan = 0, negative_zero = 0, huge = 0, tiny = 0, one = 0;
  std::vector<std::string> failures;
};

const Drawn& drawn() {
  static const Drawn d = [] {
    Drawn out;
    Context ctx;
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, seed);
      const Kernel& k = r.program;
      if (gated_bounded_division(k.root)) ++out.programs_gated_division;
      count_degenerate(k.root, out.degenerate);
      // The @input lines print and parse back bit for bit (NaN, inf, -0, 2^64 - 1).
      if (!k.header.inputs.empty()) {
        Context other;
        auto parsed = parse_kernel(other, print_kernel(k));
        if (!parsed)
          out.failures.push_back(fmt::format("seed {}: {}", seed, parsed.error().message));
        else if (!(parsed->kernel.header.inputs == k.header.inputs))
          out.failures.push_back(fmt::format("seed {}: @input lines changed in the text", seed));
      }
      for (const GivenInput& g : k.header.inputs) {
        if (g.dtype.is_float()) {
          ++out.float_lines;
          for (Value v : g.values) {
            const double x = v.f;
            out.inf += std::isinf(x);
            out.nan += std::isnan(x);
            out.negative_zero += x == 0 && std::signbit(x);
            out.huge += std::isfinite(x) && std::fabs(x) >= 1e20;
            out.tiny += x != 0 && std::fabs(x) <= 1e-20;
            out.one += x == 1 || x == -1;
          }
          continue;
        }
        for (Value v : g.values) {
          const std::string s = std::string(g.dtype.name()) + " " + format_value(g.dtype, v);
          out.int_caps.insert(s);
        }
      }
    }
    return out;
  }();
  return d;
}

TEST(TensorGenHard, HardInputLinesRoundTripThroughTheText) {
  const Drawn& d = drawn();
  for (size_t i = 0; i < d.failures.size() && i < 5; ++i) ADD_FAILURE() << d.failures[i];
}

TEST(TensorGenHard, DivisionsUnderAPadGateDivideByAnInputOfNonzeroRange) {
  EXPECT_GE(drawn().programs_gated_division, 20) << "of " << kSeeds << " programs";
}

TEST(TensorGenHard, SizeZeroAndOneDimsReachEveryAxisOp) {
  const Drawn& d = drawn();
  for (const char* op : {"EXPAND", "RESHAPE", "PERMUTE", "PAD", "SHRINK", "FLIP"})
    for (int ext : {0, 1}) {
      const std::string key = fmt::format("{}/{}", op, ext);
      EXPECT_GE(d.degenerate.count(key) ? d.degenerate.at(key) : 0, 3) << key;
    }
  for (const char* key : {"REDUCE_AXIS/0", "REDUCE_AXIS/1"})
    EXPECT_GE(d.degenerate.count(key) ? d.degenerate.at(key) : 0, 3) << key;
}

TEST(TensorGenHard, IntegerInputsHoldTheirTypesCaps) {
  const std::set<std::string>& caps = drawn().int_caps;
  for (const char* want :
       {"int8 -128", "int8 127", "int16 -32768", "int16 32767", "int32 -2147483648",
        "int32 2147483647", "int64 -9223372036854775808", "int64 9223372036854775807", "uint8 255",
        "uint8 128", "uint16 65535", "uint32 4294967295", "uint32 2147483648",
        "uint64 9223372036854775807", "uint64 9223372036854775808", "uint64 18446744073709551615"})
    EXPECT_TRUE(caps.count(want)) << want << " never drawn";
}

TEST(TensorGenHard, FloatInputsRoundAndHoldSpecials) {
  const Drawn& d = drawn();
  EXPECT_GE(d.float_lines, 10);
  EXPECT_GT(d.inf, 0);
  EXPECT_GT(d.nan, 0);
  EXPECT_GT(d.negative_zero, 0);
  EXPECT_GT(d.huge, 0);
  EXPECT_GT(d.tiny, 0);
  EXPECT_GT(d.one, 0);
}

// Rounding floats (and integers at their caps converted to floats) never reach a float sum,
// whose order the lowering chooses (SEMANTICS.md "Inputs").
TEST(TensorGenHard, RoundingInputsNeverReachAFloatSum) {
  Context ctx;
  int checked = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, seed);
    std::set<int> given;
    for (const GivenInput& g : r.program.header.inputs) given.insert(g.slot);
    if (given.empty()) continue;
    ++checked;
    for (UOp u : toposort(r.program.root)) {
      if (u.op() != Op::ReduceAxis || !u.dtype().is_float()) continue;
      const Op op = u.arg<ReduceAxisArg>().op;
      if (op == Op::Max || op == Op::Min) continue;
      for (UOp x : toposort(u)) {
        const bool given_float =
            x.op() == Op::Param && x.dtype().is_float() && given.count(x.arg<ParamArg>().slot);
        const bool converted = (x.op() == Op::Cast || x.op() == Op::Bitcast) &&
                               x.dtype().is_float() && !x.src(0).dtype().is_float() &&
                               !x.src(0).dtype().is_quantized();
        bool converted_given = false;
        if (converted)
          for (UOp y : toposort(x))
            converted_given = converted_given || (y.op() == Op::Param && !y.dtype().is_float() &&
                                                  given.count(y.arg<ParamArg>().slot));
        EXPECT_FALSE(given_float || converted_given) << "seed " << seed << "\n"
                                                     << print_kernel(r.program);
      }
    }
  }
  EXPECT_GT(checked, 50);
}

// The inputs the generator draws do not change what a program without @input lines reads:
// the seed fill (SEMANTICS.md "Inputs") is the same with and without the policy's hard inputs.
TEST(TensorGenHard, HardInputsOffGivesNoInputLines) {
  GenPolicy kind;
  kind.tensor.p_edge_inputs = 0;
  kind.tensor.p_hard_float_inputs = 0;
  Context ctx;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    TensorGenResult r = generate_tensor_program(ctx, kind, seed);
    EXPECT_TRUE(r.program.header.inputs.empty()) << "seed " << seed;
    // The program itself is the one the default policy draws: the inputs are drawn after it.
    // (A repair checks with the @input lines, so it may differ where one was made.)
    TensorGenResult d = generate_tensor_program(ctx, GenPolicy{}, seed);
    if (!r.repaired && !d.repaired) EXPECT_EQ(r.program.root, d.program.root) << "seed " << seed;
  }
}

}  // namespace
}  // namespace uopfuzz::gen
