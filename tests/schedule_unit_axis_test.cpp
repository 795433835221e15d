// Shape normalization (removed axes recorded) and the unit-axis reduce rule
// (schedule/normalize_shapes.h): the structure each leaves (what must go, what must stay),
// the records, the outputs against ir/quant.h's definition and the tensor oracle, and the
// two planted bugs changing outputs. Expected numbers are worked out by hand in comments.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "ir/graph.h"
#include "ir/quant.h"
#include "ir/verify.h"
#include "oracle/tensor_eval.h"
#include "parse_root.h"
#include "schedule/lower.h"
#include "schedule/normalize_shapes.h"

namespace uopfuzz::schedule {
namespace {

using namespace ir;

class UnitAxis : public ::testing::Test {
 protected:
  Context ctx_;
  LowerReport report_;

  UOp parse(const std::string& text) { return uopfuzz::testing::parse_root(ctx_, text); }

  Program lower_ok(UOp root, const LowerOptions& o = {}) {
    auto p = lower(ctx_, root, o, &report_);
    if (!p) {
      ADD_FAILURE() << p.error().message;
      return {};
    }
    return *p;
  }

  uint64_t hits(const char* rule) const {
    auto it = report_.hits.find(rule);
    return it == report_.hits.end() ? 0 : it->second;
  }

  /// The tensor program after both tensor stages, as lower() runs them.
  UOp tensor_stage(UOp root, const LowerOptions& o = {}) {
    UOp squeezed = squeeze_unit_dims(ctx_, root, o, report_.hits, report_.squeezed);
    return reduce_unit_axes(ctx_, squeezed, o, report_.hits);
  }

  static int count(UOp root, Op op) {
    auto topo = toposort(root);
    return static_cast<int>(
        std::count_if(topo.begin(), topo.end(), [&](UOp u) { return u.op() == op; }));
  }
  static int count(const Program& p, Op op) {
    int n = 0;
    for (const ProgramKernel& k : p.kernels) n += count(k.root, op);
    return n;
  }

  /// Output `slot` of `p` on the oracle backend, the stored values as int64 (or float bits
  /// for a float output).
  static std::vector<Value> run(const Program& p, const Inputs& in, int slot = 0) {
    auto out = backends::run_program(*backends::find_backend("oracle"), p, in);
    if (!out) {
      ADD_FAILURE() << out.error().message;
      return {};
    }
    EXPECT_EQ(out->status, RunStatus::Ok);
    const Buffer& b = out->outputs.at(slot);
    std::vector<Value> got;
    for (size_t i = 0; i < b.size(); ++i) got.push_back(b.get(i));
    return got;
  }

  static std::vector<int64_t> ints(const std::vector<Value>& v) {
    std::vector<int64_t> out;
    for (const Value& x : v) out.push_back(x.i);
    return out;
  }

  static Inputs ints_in(DType dt, const std::vector<int64_t>& values) {
    Inputs in;
    Buffer b(dt, values.size());
    for (size_t i = 0; i < values.size(); ++i) b.set(i, wrap_int(dt.storage(), values[i]));
    in.buffers[0] = b;
    return in;
  }
};

const char* kSeedRequantize =
    "%x = PARAM slot=0 in : qint8<0.03,0>[1,4]\n"
    "%s = REDUCE_AXIS %x op=ADD axes=[0] : qint8<0.12,0>[1,4]\n"
    "%r = REALIZE %s : void\n";

TEST_F(UnitAxis, RuleNamesAreTensorRules) {
  auto names = tensor_rule_names();
  EXPECT_NE(std::find(names.begin(), names.end(), kSqueezeUnitDimsRule), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), kReduceUnitAxisRule), names.end());
}

// Same type: the reduce disappears and nothing replaces it (no REQUANTIZE, no kernel REDUCE).
TEST_F(UnitAxis, SameTypeLeavesNeitherReduceNorConversion) {
  for (const char* text : {"%x = PARAM slot=0 in : int32[3,1]\n"
                           "%s = REDUCE_AXIS %x op=ADD axes=[1] : int32[3,1]\n"
                           "%r = REALIZE %s : void\n",
                           "%x = PARAM slot=0 in : qint8<0.03,0>[1,3]\n"
                           "%s = REDUCE_AXIS %x op=ADD axes=[0] : qint8<0.03,0>[1,3]\n"
                           "%r = REALIZE %s : void\n"}) {
    SCOPED_TRACE(text);
    report_ = {};
    UOp after = tensor_stage(parse(text));
    EXPECT_EQ(count(after, Op::ReduceAxis), 0);
    EXPECT_EQ(count(after, Op::Requantize), 0);
    EXPECT_EQ(hits(kReduceUnitAxisRule), 1u);
    Program p = lower_ok(parse(text));
    EXPECT_EQ(count(p, Op::Reduce), 0);
    EXPECT_EQ(count(p, Op::Requantize), 0);
  }
}

// Different quantized types: the reduce disappears and exactly one REQUANTIZE stays.
TEST_F(UnitAxis, DifferentQuantizedTypesKeepOneRequantize) {
  UOp after = tensor_stage(parse(kSeedRequantize));
  EXPECT_EQ(count(after, Op::ReduceAxis), 0);
  EXPECT_EQ(count(after, Op::Requantize), 1);
  Program p = lower_ok(parse(kSeedRequantize));
  EXPECT_EQ(count(p, Op::Reduce), 0);
  EXPECT_EQ(count(p, Op::Requantize), 1);
  EXPECT_EQ(hits(kReduceUnitAxisRule), 1u);
}

// The seed's numbers: ratio 0.03 / 0.12 = 1/4, so [4, 8, 20, -12] -> [1, 2, 5, -3].
TEST_F(UnitAxis, SeedRequantizeOutputs) {
  Program p = lower_ok(parse(kSeedRequantize));
  const DType in = DType::quantized(ScalarType::Int8, 0.03, 0);
  EXPECT_EQ(ints(run(p, ints_in(in, {4, 8, 20, -12}))), (std::vector<int64_t>{1, 2, 5, -3}));
}

// Both zero points: 11 at <0.04,7> is 0.16 -> 2 steps of 0.08 + 3 = 5; 7 (real 0) -> 3;
// -128 -> -135 / 2 = -67.5, a tie away from zero: -68 + 3 = -65.
TEST_F(UnitAxis, ZeroPointsAndTieOutputs) {
  Program p =
      lower_ok(parse("%x = PARAM slot=0 in : qint8<0.04,7>[3,1]\n"
                     "%s = REDUCE_AXIS %x op=MIN axes=[1] : qint8<0.08,3>[3,1]\n"
                     "%r = REALIZE %s : void\n"));
  const DType in = DType::quantized(ScalarType::Int8, 0.04, 7);
  EXPECT_EQ(ints(run(p, ints_in(in, {11, 7, -128}))), (std::vector<int64_t>{5, 3, -65}));
}

// The axes=[] trap: [1,5,7,9] axes=[0] loses dim 0, the record says axis 0 was removed and
// none is left, and the reduce becomes "reduce nothing" (a REQUANTIZE), not a total.
TEST_F(UnitAxis, TrapRecordsRemovedAxisAndReducesNothing) {
  const std::string text =
      "%x = PARAM slot=0 in : qint8<0.03,1>[1,5,7,9]\n"
      "%s = REDUCE_AXIS %x op=ADD axes=[0] : qint8<0.02,-3>[1,5,7,9]\n"
      "%r = REALIZE %s : void\n";
  LowerOptions only_squeeze;
  only_squeeze.disabled = {kReduceUnitAxisRule};
  UOp squeezed = squeeze_unit_dims(ctx_, parse(text), only_squeeze, report_.hits, report_.squeezed);
  ASSERT_EQ(report_.squeezed.size(), 1u);
  const SqueezeRecord& r = report_.squeezed[0];
  EXPECT_EQ(r.axes, (std::vector<int64_t>{0}));
  EXPECT_EQ(r.removed, (std::vector<int64_t>{0}));
  EXPECT_TRUE(r.remapped.empty());
  EXPECT_EQ(hits(kSqueezeUnitDimsRule), 1u);
  auto topo = toposort(squeezed);
  auto reduce =
      std::find_if(topo.begin(), topo.end(), [](UOp u) { return u.op() == Op::ReduceAxis; });
  ASSERT_NE(reduce, topo.end());
  EXPECT_TRUE(reduce->arg<ReduceAxisArg>().axes.empty());
  EXPECT_EQ(reduce->src(0).shape(), (Shape{5, 7, 9}));
  EXPECT_EQ(reduce->shape(), (Shape{5, 7, 9}));

  // Every element requantized alone, as ir/quant.h defines it: ratio 1.5, z 1 -> -3.
  const DType in = DType::quantized(ScalarType::Int8, 0.03, 1);
  const DType out = DType::quantized(ScalarType::Int8, 0.02, -3);
  std::vector<int64_t> values(315);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i % 256) - 128;
  Program p = lower_ok(parse(text));
  const auto r15 = requantizer(0.03, 0.02);
  ASSERT_TRUE(r15);
  std::vector<int64_t> want;
  for (int64_t q : values) want.push_back(requantize_centered(q - 1, *r15, out));
  EXPECT_EQ(ints(run(p, ints_in(in, values))), want);
  // Spot checks by hand: q = 1 is real 0 -> -3; q = 2 -> 1.5 -> 2 - 3 = -1; q = 0 -> -5;
  // q = 127 -> 189 - 3 saturates at 127; q = -128 -> -193.5 -> -194 - 3 saturates at -128.
  EXPECT_EQ(want[129], -3);
  EXPECT_EQ(want[130], -1);
  EXPECT_EQ(want[128], -5);
  EXPECT_EQ(want[255], 127);
  EXPECT_EQ(want[0], -128);
}

// A float sum over a size-1 axis folds 0 + -0.0 = +0.0: neither stage may touch it. A MAX
// over it is the identity (-inf loses to -0.0), so it is forwarded and -0.0 stays.
TEST_F(UnitAxis, FloatSumOfNegativeZeroIsLeftAlone) {
  const std::string text =
      "%x = PARAM slot=0 in : float32[3,1]\n"
      "%s = REDUCE_AXIS %x op=ADD axes=[1] : float32[3,1]\n"
      "%m = REDUCE_AXIS %x op=MAX axes=[1] : float32[3,1]\n"
      "%r = REALIZE %s %m : void\n";
  UOp root = parse(text);
  Program p = lower_ok(root);
  EXPECT_EQ(hits(kReduceUnitAxisRule), 1u);                 // the MAX only
  EXPECT_EQ(hits(kSqueezeUnitDimsRule), 1u);                // the MAX's dim 1; the sum keeps it
  EXPECT_EQ(count(tensor_stage(root), Op::ReduceAxis), 1);  // the sum stays
  Inputs in;
  Buffer b(dtypes::Float32, 3);
  for (size_t i = 0; i < 3; ++i) b.set(i, Value::of_float(i == 1 ? 1.5 : -0.0));
  in.buffers[0] = b;
  auto sums = run(p, in, 0);
  auto maxes = run(p, in, 1);
  ASSERT_EQ(sums.size(), 3u);
  ASSERT_EQ(maxes.size(), 3u);
  EXPECT_FALSE(std::signbit(sums[0].f));
  EXPECT_EQ(sums[1].f, 1.5);
  EXPECT_TRUE(std::signbit(maxes[0].f));
  EXPECT_EQ(maxes[0].f, 0.0);
  // The tensor oracle, the definition, agrees bit for bit.
  auto want = oracle::eval_tensor_program(root, in);
  ASSERT_TRUE(want) << want.error().message;
  for (int slot : {0, 1})
    for (size_t i = 0; i < 3; ++i)
      EXPECT_EQ(std::signbit(want->outputs.at(slot).get(i).f), std::signbit(run(p, in, slot)[i].f));
}

// Plain types against the tensor oracle: an int sum and product, a MIN over all axes of a
// [1,3,1], and a sum over [1,4] axes=[1] (not a unit axis: it stays a reduce).
TEST_F(UnitAxis, PlainTypesMatchTensorOracle) {
  const std::string text =
      "%x = PARAM slot=0 in : int32[1,3,1]\n"
      "%s = REDUCE_AXIS %x op=ADD axes=[0,2] : int32[1,3,1]\n"
      "%p = REDUCE_AXIS %x op=MUL axes=[2] : int32[1,3,1]\n"
      "%m = REDUCE_AXIS %x op=MIN axes=[0,1,2] : int32[1,1,1]\n"
      "%r = REALIZE %s %p %m : void\n";
  UOp root = parse(text);
  Program p = lower_ok(root);
  EXPECT_EQ(hits(kReduceUnitAxisRule), 2u);
  Inputs in = ints_in(dtypes::Int32, {7, -2147483647 - 1, 5});
  auto want = oracle::eval_tensor_program(root, in);
  ASSERT_TRUE(want) << want.error().message;
  for (int slot : {0, 1, 2}) {
    std::vector<Value> w;
    for (size_t i = 0; i < want->outputs.at(slot).size(); ++i)
      w.push_back(want->outputs.at(slot).get(i));
    EXPECT_EQ(ints(run(p, in, slot)), ints(w)) << "output " << slot;
  }
  EXPECT_EQ(ints(run(p, in, 2)), (std::vector<int64_t>{-2147483647 - 1}));
}

// Switched off by name, the reduces stay and the outputs are the same.
TEST_F(UnitAxis, RulesSwitchOffByName) {
  const std::string text =
      "%x = PARAM slot=0 in : int32[1,3]\n"
      "%s = REDUCE_AXIS %x op=ADD axes=[0] : int32[1,3]\n"
      "%r = REALIZE %s : void\n";
  LowerOptions off;
  off.disabled = {kSqueezeUnitDimsRule, kReduceUnitAxisRule};
  Program p = lower_ok(parse(text), off);
  EXPECT_TRUE(report_.hits.empty());
  EXPECT_TRUE(report_.squeezed.empty());
  EXPECT_EQ(count(tensor_stage(parse(text), off), Op::ReduceAxis), 1);
  EXPECT_EQ(ints(run(p, ints_in(dtypes::Int32, {4, -5, 6}))), (std::vector<int64_t>{4, -5, 6}));
}

// unit-axis-forwards-input keeps the stored integers: [4, 8, 20, -12] instead of
// [1, 2, 5, -3].
TEST_F(UnitAxis, ForwardsInputBugChangesOutputs) {
  LowerOptions bugged;
  bugged.bugs = {LoweringBug::UnitAxisForwardsInput};
  Program p = lower_ok(parse(kSeedRequantize), bugged);
  const DType in = DType::quantized(ScalarType::Int8, 0.03, 0);
  EXPECT_EQ(ints(run(p, ints_in(in, {4, 8, 20, -12}))), (std::vector<int64_t>{4, 8, 20, -12}));
}

// squeeze-empty-axes-all reads the emptied axes as all axes: sum([1,3] axes=[0]) of
// [4, -5, 6] becomes the total 5 everywhere instead of [4, -5, 6].
TEST_F(UnitAxis, EmptyAxesAllBugChangesOutputs) {
  const std::string text =
      "%x = PARAM slot=0 in : int32[1,3]\n"
      "%s = REDUCE_AXIS %x op=ADD axes=[0] : int32[1,3]\n"
      "%r = REALIZE %s : void\n";
  LowerOptions bugged;
  bugged.bugs = {LoweringBug::SqueezeEmptyAxesAll};
  Program good = lower_ok(parse(text));
  EXPECT_EQ(ints(run(good, ints_in(dtypes::Int32, {4, -5, 6}))), (std::vector<int64_t>{4, -5, 6}));
  Program bad = lower_ok(parse(text), bugged);
  EXPECT_EQ(ints(run(bad, ints_in(dtypes::Int32, {4, -5, 6}))), (std::vector<int64_t>{5, 5, 5}));
}

}  // namespace
}  // namespace uopfuzz::schedule
