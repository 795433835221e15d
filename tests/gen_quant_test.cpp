// Tests for the generator's quantized kernels and tensor programs: over many seeds they
// verify, and they hold the variety the campaigns need (scale ratios below and above 1,
// ratios that are powers of two below 1 so the rounding meets exact ties, nonzero zero
// points on both sides of a REQUANTIZE, unit-axis reduces of each kind), with identical
// types on both sides of a conversion rare.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "gen/generator.h"
#include "gen/quant_types.h"
#include "gen/tensor_gen.h"
#include "ir/graph.h"
#include "ir/quant.h"
#include "ir/verify.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

/// What one conversion or reduce between two quantized types looks like.
struct PairCounts {
  int total = 0, below = 0, above = 0, ties = 0, identical = 0, zero_in = 0, zero_out = 0;
  void add(DType from, DType to) {
    const QuantParams& a = quant_params(from);
    const QuantParams& b = quant_params(to);
    ++total;
    const double m = a.scale / b.scale;
    if (m < 1) ++below;
    if (m > 1) ++above;
    // a power of two below 1: an odd centered value lands exactly halfway
    if (m < 1 && std::exp2(std::round(std::log2(m))) == m) ++ties;
    if (from == to) ++identical;
    if (a.zero_point != 0) ++zero_in;
    if (b.zero_point != 0) ++zero_out;
  }
  void expect_varied(const std::string& what) const {
    ASSERT_GT(total, 100) << what;
    EXPECT_GT(below, total / 10) << what;
    EXPECT_GT(above, total / 10) << what;
    EXPECT_GT(ties, total / 20) << what;
    EXPECT_GT(zero_in, total / 4) << what;
    EXPECT_GT(zero_out, total / 4) << what;
    EXPECT_LT(identical, total / 10) << what << ": identical types must be rare";
  }
};

TEST(GenQuant, KernelsVerifyAndHoldVariedRequantizes) {
  Context ctx;
  PairCounts all, fixed_point;
  int quantized_outputs = 0, dequantizes = 0, quantizes = 0;
  for (uint64_t seed = 0; seed < 1500; ++seed) {
    GenResult r = generate(ctx, GenPolicy{}, seed);
    auto errors = verify(r.kernel.root);
    ASSERT_TRUE(errors.empty()) << "seed " << seed << ": " << errors[0].message;
    EXPECT_TRUE(r.stats.oracle_error.empty()) << "seed " << seed << ": " << r.stats.oracle_error;
    for (UOp u : toposort(r.kernel.root)) {
      if (u.op() == Op::Param && u.arg<ParamArg>().output && u.dtype().is_quantized())
        ++quantized_outputs;
      if (u.op() == Op::Dequantize) ++dequantizes;
      if (u.op() == Op::Quantize) ++quantizes;
      if (u.op() != Op::Requantize) continue;
      all.add(u.src(0).dtype(), u.dtype());
      // the simplifier's requantize_fixed_point shape: a BITCAST of integer arithmetic
      UOp b = u.src(0);
      if (b.op() == Op::Bitcast && b.src(0).dtype().is_int() &&
          (b.src(0).op() == Op::Add || b.src(0).op() == Op::Sub || b.src(0).op() == Op::Mul))
        fixed_point.add(b.dtype(), u.dtype());
    }
  }
  all.expect_varied("REQUANTIZE");
  fixed_point.expect_varied("REQUANTIZE(BITCAST(integer arithmetic))");
  EXPECT_GT(quantized_outputs, 200);
  EXPECT_GT(dequantizes, 40);
  EXPECT_GT(quantizes, 100);
}

TEST(GenQuant, TensorProgramsVerifyAndHoldUnitAxisReducesOfEachKind) {
  Context ctx;
  PairCounts reduces;
  int unit_one = 0, unit_several = 0, unit_all = 0, unit_none = 0, unit_beside_wide = 0;
  int sums = 0, same_type_unit = 0;
  for (uint64_t seed = 0; seed < 1500; ++seed) {
    TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, seed);
    auto errors = verify(r.program.root);
    ASSERT_TRUE(errors.empty()) << "seed " << seed << ": " << errors[0].message;
    for (UOp u : toposort(r.program.root)) {
      ASSERT_FALSE(u.op() == Op::Pad && u.dtype().is_quantized()) << "seed " << seed;
      if (u.op() != Op::ReduceAxis || !u.src(0).dtype().is_quantized()) continue;
      const auto& arg = u.arg<ReduceAxisArg>();
      ASSERT_NE(arg.op, Op::Mul) << "seed " << seed;
      reduces.add(u.src(0).dtype(), u.dtype());
      const Shape& in = u.src(0).shape();
      bool unit = true;
      for (int64_t a : arg.axes) unit = unit && in[static_cast<size_t>(a)] == 1;
      if (!unit) {
        ++sums;
        continue;
      }
      if (u.src(0).dtype() == u.dtype()) ++same_type_unit;
      bool wide_kept = false;
      for (size_t i = 0; i < in.size(); ++i) wide_kept = wide_kept || in[i] > 1;
      if (arg.axes.empty())
        ++unit_none;
      else if (arg.axes.size() == in.size())
        ++unit_all;
      else if (arg.axes.size() >= 2)
        ++unit_several;
      else
        ++unit_one;
      if (!arg.axes.empty() && wide_kept) ++unit_beside_wide;  // [1,5,7,9] with axes [0]
    }
  }
  EXPECT_GT(unit_one, 30);
  EXPECT_GT(unit_several, 30);
  EXPECT_GT(unit_all, 30);
  EXPECT_GT(unit_none, 30);
  EXPECT_GT(unit_beside_wide, 30);
  EXPECT_GT(sums, 30);
  const int units = unit_one + unit_several + unit_all + unit_none;
  EXPECT_GT(same_type_unit, 0) << "the same-type direction of the unit-axis rule";
  EXPECT_LT(same_type_unit, units / 4) << "reduces that keep their type must be the minority";
  // the reduce's own type pair (p_same_reduce_type makes identical types a share of them)
  EXPECT_GT(reduces.below, reduces.total / 10);
  EXPECT_GT(reduces.above, reduces.total / 10);
  EXPECT_GT(reduces.ties, reduces.total / 20);
  EXPECT_GT(reduces.zero_in, reduces.total / 4);
  EXPECT_GT(reduces.zero_out, reduces.total / 4);
}

TEST(GenQuant, PartnerTypesAreSupportedAndComeFromAFiniteMenu) {
  SeedEntropy e(7);
  const QuantWeights w;
  std::set<std::string> names;
  for (int i = 0; i < 20000; ++i) {
    const DType to = draw_quant_type(e, w);
    ASSERT_FALSE(quant_type_error(to)) << to.name();
    const DType from = draw_requantize_source(e, w, to);
    ASSERT_FALSE(requantize_unsupported(from, to)) << from.name() << " -> " << to.name();
    names.insert(std::string(from.name()));
    names.insert(std::string(to.name()));
  }
  // 13 scales times 5 (ties) by at most 10 zero points by 4 storages bounds the menu
  EXPECT_LT(names.size(), 13u * 5 * 10 * 4);
}

}  // namespace
}  // namespace uopfuzz::gen
