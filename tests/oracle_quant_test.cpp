// Tests for the tensor oracle's quantized REDUCE_AXIS, the quantized input filler, rangeify's
// quantized reduce lowering, and the metamorphic check (check/quant_metamorphic.h). Expected
// integers are worked by hand from SEMANTICS.md ("Quantized types", "REDUCE_AXIS").
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/program_check.h"
#include "check/quant_metamorphic.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/quant.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"
#include "schedule/lowering_bugs.h"
#include "schedule/split_reduce.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz {
namespace {

using ir::DType;
using ir::ScalarType;

ir::Kernel parse(ir::Context& ctx, const std::string& text) {
  auto k = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message) << "\n" << text;
  return k.ok() ? k->kernel : ir::Kernel{};
}

// Output `o` of the tensor oracle on `text` (its @input lines given), as stored integers.
std::vector<int64_t> tensor_oracle(const std::string& text, int o = 0) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, text);
  if (!k.root) return {};
  auto run = oracle::eval_tensor_program(k.root, ir::make_inputs(k, 0));
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
  if (!run.ok()) return {};
  EXPECT_EQ(run->status, ir::RunStatus::Ok);
  std::vector<int64_t> out;
  const ir::Buffer& b = run->outputs.at(o);
  for (size_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).i);
  return out;
}

std::string reduce_program(const std::string& in, const std::string& out, const std::string& op,
                           const std::string& axes, const std::string& input_values) {
  return "@input 0 [" + input_values + "]\n%0 = PARAM slot=0 in : " + in + "\n" +
         "%1 = REDUCE_AXIS %0 op=" + op + " axes=" + axes + " : " + out + "\n" +
         "%2 = REALIZE %1 : void\n";
}

TEST(QuantTensorOracle, SeedUnitAxisRequantizes) {
  // s_in 0.03 -> s_out 0.12: M = 0.25, x / 4 rounded.
  for (const char* op : {"ADD", "MAX", "MIN"})
    EXPECT_EQ(tensor_oracle(reduce_program("qint8<0.03,0>[4,1]", "qint8<0.12,0>[4,1]", op, "[1]",
                                           "4, 8, 20, -12")),
              (std::vector<int64_t>{1, 2, 5, -3}))
        << op;
  // axes=[] reduces nothing: exactly REQUANTIZE of each element.
  EXPECT_EQ(tensor_oracle(reduce_program("qint8<0.03,0>[4]", "qint8<0.12,0>[4]", "ADD", "[]",
                                         "4, 8, 20, -12")),
            (std::vector<int64_t>{1, 2, 5, -3}));
  // Equal types: the identity, bit for bit.
  EXPECT_EQ(tensor_oracle(reduce_program("qint8<0.03,5>[1,4]", "qint8<0.03,5>[1,4]", "ADD", "[0]",
                                         "4, 8, 127, -128")),
            (std::vector<int64_t>{4, 8, 127, -128}));
}

TEST(QuantTensorOracle, SeedZeroPoints) {
  // qint8<0.04,7> -> qint8<0.08,3>: 11 - 7 = 4, 4 * 0.5 = 2, + 3 = 5; real 0 (7) -> 3.
  EXPECT_EQ(tensor_oracle(
                reduce_program("qint8<0.04,7>[1,2]", "qint8<0.08,3>[1,2]", "ADD", "[0]", "11, 7")),
            (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(tensor_oracle(
                reduce_program("quint8<0.04,7>[2]", "quint8<0.08,3>[2]", "MAX", "[]", "11, 255")),
            (std::vector<int64_t>{5, 127}));  // (255 - 7) / 2 = 124, + 3
}

TEST(QuantTensorOracle, SumRoundsTiesAwayAndSaturatesBothEnds) {
  // qint16<0.25,1> -> qint8<1,-2>: M = 0.25, the centered sum of each row / 4, ties away
  // from zero, + (-2), clamped to -128..127.
  const std::string text = reduce_program("qint16<0.25,1>[5,3]", "qint8<1,-2>[5,1]", "ADD", "[1]",
                                          "2, 3, 4,"       // 1+2+3 = 6: 1.5 -> 2, -> 0
                                          " 0, -1, -2,"    // -6: -1.5 -> -2, -> -4
                                          " 1000, 1, 1,"   // 999: 249.75 -> 250 -> 127
                                          " -1000, 1, 1,"  // -1001: -250.25 -> -128
                                          " 1, 1, 1");     // real 0 -> z_out
  EXPECT_EQ(tensor_oracle(text), (std::vector<int64_t>{0, -4, 127, -128, -2}));
  // MAX and MIN fold the centered values, then requantize once.
  EXPECT_EQ(tensor_oracle(reduce_program("qint16<0.25,1>[2,3]", "qint8<1,-2>[2,1]", "MAX", "[1]",
                                         "2, 11, 4, -9, -7, -30")),
            (std::vector<int64_t>{1, -4}));  // 10 / 4 = 2.5 -> 3; -8 / 4 = -2
  EXPECT_EQ(tensor_oracle(reduce_program("qint16<0.25,1>[2,3]", "qint8<1,-2>[2,1]", "MIN", "[1]",
                                         "2, 11, 4, -9, -7, -30")),
            (std::vector<int64_t>{-2, -10}));  // 1 / 4 -> 0; -31 / 4 = -7.75 -> -8
}

TEST(QuantTensorOracle, SizeZeroAxisRequantizesTheInt32Identity) {
  // ADD: 0 -> z_out. MAX: INT32_MIN * 0.5 saturates low; MIN: INT32_MAX * 0.5 high.
  const std::map<std::string, std::vector<int64_t>> want = {
      {"ADD", {-2, -2}}, {"MAX", {-128, -128}}, {"MIN", {127, 127}}};
  for (const auto& [op, expected] : want) {
    const std::string text =
        "%0 = PARAM slot=0 in : qint8<0.5,1>[2,0]\n"
        "%1 = REDUCE_AXIS %0 op=" +
        op + " axes=[1] : qint8<1,-2>[2,1]\n%2 = REALIZE %1 : void\n";
    EXPECT_EQ(tensor_oracle(text), expected) << op;
    // The lowering agrees (its REDUCE over an empty range gives the same identity).
    ir::Context ctx;
    check::ProgramCheckResult r = check::check_program(ctx, parse(ctx, text));
    EXPECT_FALSE(r.unsupported) << *r.unsupported;
    EXPECT_EQ(r.kind, check::FindingKind::None) << op << ": " << r.details;
  }
}

TEST(QuantInputs, EdgesOneInFourTheRestUniform) {
  ir::Context ctx;
  const DType q = DType::quantized(ScalarType::UInt8, 0.08, 3);
  const ir::UOp p = ir::tensor::input(ctx, q, {4000}, 0);
  const ir::Inputs in = ir::make_inputs(ir::tensor::realize(ctx, {p}), 7);
  const ir::Buffer& b = in.buffers.at(0);
  ASSERT_EQ(b.dtype(), q);
  std::map<int64_t, int> count;
  for (size_t i = 0; i < b.size(); ++i) ++count[static_cast<int64_t>(b.get(i).u)];
  EXPECT_GE(count.begin()->first, 0);
  EXPECT_LE(count.rbegin()->first, 255);
  // Each edge (qmin, qmax, z, z - 1, z + 1) is drawn about 1/20 of the time (200), a value of
  // the uniform rest about 3/4 * 1/256 of it (12).
  for (int64_t edge : {0, 255, 3, 2, 4}) EXPECT_GT(count[edge], 120) << edge;
  EXPECT_GT(count.size(), 200u);  // the rest spans the whole storage range

  // z at the top of the range: z + 1 is clamped, nothing leaves the range; qint32 values
  // reach far beyond the small integers other dtypes get.
  const DType top = DType::quantized(ScalarType::Int8, 1.0, 127);
  const ir::Inputs in2 =
      ir::make_inputs(ir::tensor::realize(ctx, {ir::tensor::input(ctx, top, {2000}, 0)}), 3);
  int at_top = 0;
  for (size_t i = 0; i < 2000; ++i) {
    const int64_t v = in2.buffers.at(0).get(i).i;
    EXPECT_TRUE(v >= -128 && v <= 127) << v;
    at_top += v == 127;
  }
  EXPECT_GT(at_top, 2000 * 3 / 20 / 2);  // qmax, z and z + 1 all land on 127: ~15%
  const DType wide = DType::quantized(ScalarType::Int32, 0.5, 0);
  const ir::Inputs in3 =
      ir::make_inputs(ir::tensor::realize(ctx, {ir::tensor::input(ctx, wide, {400}, 0)}), 5);
  int large = 0, at_min = 0;
  for (size_t i = 0; i < 400; ++i) {
    const int64_t v = in3.buffers.at(0).get(i).i;
    large += v > (int64_t{1} << 24) || v < -(int64_t{1} << 24);
    at_min += v == std::numeric_limits<int32_t>::min();
  }
  EXPECT_GT(large, 200);
  EXPECT_GT(at_min, 0);
}

TEST(QuantInputs, GivenQuantizedInputsParseAndRun) {
  // quint8 stored integers up to 255; an out-of-range one is a parse error.
  EXPECT_EQ(tensor_oracle(reduce_program("quint8<0.5,128>[3]", "quint8<0.5,128>[3]", "MIN", "[]",
                                         "255, 0, 128")),
            (std::vector<int64_t>{255, 0, 128}));
  ir::Context ctx;
  EXPECT_FALSE(ir::parse_kernel(
                   ctx, reduce_program("qint8<0.5,0>[1]", "qint8<0.5,0>[1]", "ADD", "[]", "128"))
                   .ok());
}

// The quantized programs the lowering must take and agree on with the tensor oracle (on the
// oracle backend, every seed's inputs with their edge values).
const char* const kLoweredPrograms[] = {
    // a multi-element sum, another output type
    "%0 = PARAM slot=0 in : qint8<0.03,2>[3,5]\n"
    "%1 = REDUCE_AXIS %0 op=ADD axes=[1] : qint8<0.12,-1>[3,1]\n"
    "%2 = REALIZE %1 : void\n",
    // MAX and MIN over two axes, uint8 storage, a ratio above 1
    "%0 = PARAM slot=0 in : quint8<0.5,7>[2,3,4]\n"
    "%1 = REDUCE_AXIS %0 op=MAX axes=[0,2] : qint8<0.125,0>[1,3,1]\n"
    "%2 = REDUCE_AXIS %0 op=MIN axes=[1] : quint8<0.5,7>[2,1,4]\n"
    "%3 = REALIZE %1 %2 : void\n",
    // the seed's unit axis, axes=[], size 0
    "%0 = PARAM slot=0 in : qint8<0.03,0>[1,5,7,9]\n"
    "%1 = REDUCE_AXIS %0 op=ADD axes=[0] : qint8<0.12,0>[1,5,7,9]\n"
    "%2 = REDUCE_AXIS %0 op=ADD axes=[] : qint16<0.01,-3>[1,5,7,9]\n"
    "%3 = REALIZE %1 %2 : void\n",
    // elementwise conversions, movement ops and a reduce of a permuted quantized tensor
    "%0 = PARAM slot=0 in : float32[4,3]\n"
    "%1 = QUANTIZE %0 : qint8<0.25,1>[4,3]\n"
    "%2 = PERMUTE %1 order=[1,0] : qint8<0.25,1>[3,4]\n"
    "%3 = REQUANTIZE %2 : quint8<0.5,100>[3,4]\n"
    "%4 = FLIP %3 axes=[1] : quint8<0.5,100>[3,4]\n"
    "%5 = REDUCE_AXIS %4 op=ADD axes=[1] : qint16<0.3,0>[3,1]\n"
    "%6 = DEQUANTIZE %5 : float32[3,1]\n"
    "%7 = REALIZE %6 %4 : void\n",
};

TEST(QuantLowering, AgreesWithTheTensorOracle) {
  for (const char* text : kLoweredPrograms) {
    ir::Context ctx;
    ir::Kernel k = parse(ctx, text);
    check::ProgramCheckOptions o;
    o.check.seeds = 4;
    check::ProgramCheckResult r = check::check_program(ctx, k, o);
    ASSERT_FALSE(r.unsupported) << *r.unsupported << "\n" << text;
    EXPECT_EQ(r.kind, check::FindingKind::None) << r.details << "\n" << text;
    EXPECT_EQ(r.seeds_run, 4);
  }
}

TEST(QuantLowering, ReduceBecomesAnInt32FoldAndOneRequantize) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, kLoweredPrograms[0]);
  auto p = schedule::lower(ctx, k.root);
  ASSERT_TRUE(p.ok()) << p.error().message;
  int reduces = 0, requantizes = 0;
  for (const ir::ProgramKernel& kernel : p->kernels)
    for (ir::UOp u : ir::toposort(kernel.root)) {
      if (u.op() == ir::Op::Reduce) {
        ++reduces;
        EXPECT_EQ(u.dtype(), ir::dtypes::Int32);
      }
      if (u.op() == ir::Op::Requantize) {
        ++requantizes;
        EXPECT_EQ(u.src(0).dtype(), DType::quantized(ScalarType::Int32, 0.03, 0));
      }
    }
  EXPECT_EQ(reduces, 1);
  EXPECT_EQ(requantizes, 1);
}

TEST(QuantLowering, SplitReduceNeverSplitsAQuantizedReduce) {
  auto splits = [](const std::string& dtype) {
    ir::Context ctx;
    ir::Kernel k = parse(ctx, "%0 = PARAM slot=0 in : " + dtype +
                                  "[256]\n%1 = REDUCE_AXIS %0 op=ADD axes=[0] : " + dtype +
                                  "[1]\n%2 = REALIZE %1 : void\n");
    schedule::LowerOptions lo;
    lo.split_reduce_threshold = 16;
    std::map<std::string, uint64_t> hits;
    schedule::split_reduces(ctx, k.root, lo, hits);
    return hits[schedule::kSplitReduceRule];
  };
  EXPECT_EQ(splits("int32"), 1u);  // the same reduce on plain integers does split
  EXPECT_EQ(splits("qint8<0.03,2>"), 0u);
}

// A stand-in simplifier under test that forgets the input zero point of every REQUANTIZE of a
// non-qint32 value (it reads the operand as if its zero point were 0): the built-in rewrite,
// then that mistake.
class ForgetsInputZero : public sut::Simplifier {
 public:
  std::string name() const override { return "forgets-input-zero"; }
  std::string version() override { return ""; }
  sut::Capabilities capabilities() override { return {}; }
  sut::Outcome simplify(ir::Context& ctx, ir::UOp root,
                        const simplifier::SimplifyOptions& options) override {
    sut::Outcome out = sut::builtin()->simplify(ctx, root, options);
    std::unordered_map<ir::UOp, ir::UOp, ir::UOpHash> done;
    out.result.root = rebuild(ctx, out.result.root, done);
    return out;
  }

 private:
  ir::UOp rebuild(ir::Context& ctx, ir::UOp u,
                  std::unordered_map<ir::UOp, ir::UOp, ir::UOpHash>& done) {
    if (auto it = done.find(u); it != done.end()) return it->second;
    std::vector<ir::UOp> src;
    for (ir::UOp s : u.src()) src.push_back(rebuild(ctx, s, done));
    if (u.op() == ir::Op::Requantize && ir::quant_params(src[0].dtype()).zero_point != 0) {
      const ir::QuantParams& q = ir::quant_params(src[0].dtype());
      src[0] = ctx.make(ir::Op::Bitcast, DType::quantized(q.storage, q.scale, 0), {src[0]});
    }
    ir::UOp now = ctx.make(u.op(), u.dtype(), src, u.arg(), u.shape());
    done.emplace(u, now);
    return now;
  }
};

// Equal input and output types: the unit-axis reduce is the identity, so the lowering emits no
// REQUANTIZE and the differential check cannot see a requantize bug; the second domain can.
const char* const kSameTypeUnitAxis =
    "%0 = PARAM slot=0 in : qint8<0.04,7>[1,6]\n"
    "%1 = REDUCE_AXIS %0 op=ADD axes=[0] : qint8<0.04,7>[1,6]\n"
    "%2 = REALIZE %1 : void\n";

TEST(QuantMetamorphic, PassesAFaithfulLowering) {
  for (const char* text : {kSameTypeUnitAxis, kLoweredPrograms[2]}) {
    for (uint64_t seed : {0u, 1u, 2u, 3u}) {
      ir::Context ctx;
      ir::Kernel k = parse(ctx, text);
      check::QuantMetamorphicResult m = check::check_quant_metamorphic(ctx, k, {}, seed);
      EXPECT_GE(m.pairs, 1) << text;
      EXPECT_FALSE(m.disagreement) << *m.disagreement;
    }
  }
  // No unit-axis reduce: nothing to check.
  ir::Context ctx;
  EXPECT_EQ(check::check_quant_metamorphic(ctx, parse(ctx, kLoweredPrograms[0]), {}, 0).pairs, 0);
}

TEST(QuantMetamorphic, FindsARequantizeBugTheDifferentialCheckMisses) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, kSameTypeUnitAxis);
  check::ProgramCheckOptions o;
  o.check.simplifier = std::make_shared<ForgetsInputZero>();
  check::ProgramCheckResult r = check::check_program(ctx, k, o);
  ASSERT_FALSE(r.unsupported) << *r.unsupported;
  EXPECT_EQ(r.kind, check::FindingKind::Mismatch);
  EXPECT_EQ(r.details.rfind("metamorphic: ", 0), 0u) << r.details;
  ASSERT_TRUE(r.metamorphic_witness);
  // The witness is a complete case: its inputs are given, and the tensor oracle shows the two
  // domains agree (the bug is the simplifier's, not the definition's).
  ASSERT_EQ(r.metamorphic_witness->header.inputs.size(), 2u);
  auto ref = oracle::eval_tensor_program(r.metamorphic_witness->root,
                                         ir::make_inputs(*r.metamorphic_witness, 0));
  ASSERT_TRUE(ref.ok());
  for (size_t i = 0; i < ref->outputs.at(0).size(); ++i)
    EXPECT_EQ(ref->outputs.at(0).get(i).i, ref->outputs.at(1).get(i).i) << i;
  const check::Signature sig = check::sign_program_finding(ctx, k, o, r);
  EXPECT_EQ(sig.backend, "metamorphic");
  EXPECT_EQ(sig.text().find("mismatch/"), 0u) << sig.text();

  // The same program with a reduce between different types: the differential check itself
  // finds the bug (so the metamorphic check is not what finds it there).
  ir::Context ctx2;
  check::ProgramCheckResult r2 =
      check::check_program(ctx2,
                           parse(ctx2, reduce_program("qint8<0.04,7>[1,6]", "qint8<0.08,3>[1,6]",
                                                      "ADD", "[0]", "11, 7, 9, -128, 127, 0")),
                           o);
  EXPECT_EQ(r2.kind, check::FindingKind::Mismatch);
  EXPECT_NE(r2.details.rfind("metamorphic: ", 0), 0u) << r2.details;
}

TEST(QuantMetamorphic, FindsAndBlamesThePlantedUnitAxisBugOnSameTypes) {
  // Between equal types forwarding the input is right, so the differential check passes; the
  // second domain's reduce needs its requantize, which the planted bug drops.
  ir::Context ctx;
  ir::Kernel k = parse(ctx, kSameTypeUnitAxis);
  check::ProgramCheckOptions o;
  o.lower.bugs.insert(schedule::LoweringBug::UnitAxisForwardsInput);
  check::ProgramCheckResult r = check::check_program(ctx, k, o);
  ASSERT_FALSE(r.unsupported) << *r.unsupported;
  EXPECT_EQ(r.kind, check::FindingKind::Mismatch);
  EXPECT_EQ(r.details.rfind("metamorphic: ", 0), 0u) << r.details;
  const check::Signature sig = check::sign_program_finding(ctx, k, o, r);
  EXPECT_EQ(sig.text(), "mismatch/unit-axis-forwards-input/metamorphic");
  // Without the bug the same check is clean.
  EXPECT_EQ(check::check_program(ctx, k, {}).kind, check::FindingKind::None);
}

}  // namespace
}  // namespace uopfuzz
