// The tensor-program generator (gen/tensor_gen.h): every program verifies, round-trips
// through the .uop text, runs without undefined behaviour on the tensor oracle and is the
// same for the same seed; byte entropy gives valid programs and stops cleanly; and the
// distribution reaches every tensor op, dtype and the shapes the lowering must handle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gen/tensor_gen.h"
#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

constexpr uint64_t kSeeds = 2000;

/// Why `k` is not a valid generated program (empty: it is): it must verify and print and
/// parse back to the same text.
std::string invalid(const Kernel& k) {
  if (!is_tensor_program(k.root)) return "the root is not a REALIZE";
  auto errors = verify(k.root);
  if (!errors.empty()) return "verify: " + errors[0].message + "\n" + print_kernel(k);
  const std::string text = print_kernel(k);
  Context other;
  auto parsed = parse_kernel(other, text);
  if (!parsed) return "parse: " + parsed.error().message + "\n" + text;
  if (print_kernel(parsed->kernel) != text) return "text does not round-trip\n" + text;
  return {};
}

TEST(TensorGen, EveryProgramOfTwoThousandSeedsVerifiesAndRoundTrips) {
  Context ctx;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, seed);
    const std::string why = invalid(r.program);
    ASSERT_TRUE(why.empty()) << "seed " << seed << ": " << why;
    EXPECT_FALSE(r.still_undefined) << "seed " << seed;
  }
}

// The oracle check inside the generator is switched off here, so this sees what the
// construction alone gives: repairs would hide a generator bug.
TEST(TensorGen, EveryProgramRunsFreeOfUndefinedBehaviourByConstruction) {
  GenPolicy policy;
  policy.tensor.check = false;
  Context ctx;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    TensorGenResult r = generate_tensor_program(ctx, policy, seed);
    auto run = oracle::eval_tensor_program(r.program.root, make_inputs(r.program.root, 0));
    ASSERT_TRUE(run.ok()) << "seed " << seed << ": " << run.error().message;
    ASSERT_EQ(run->status, RunStatus::Ok)
        << "seed " << seed << ": " << (run->ub ? run->ub->what : "step limit") << "\n"
        << print_kernel(r.program);
  }
}

TEST(TensorGen, SameSeedGivesSameTextInAnyContext) {
  Context shared;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Context a, b;
    const std::string ta = print_kernel(generate_tensor_program(a, GenPolicy{}, seed).program);
    EXPECT_EQ(ta, print_kernel(generate_tensor_program(b, GenPolicy{}, seed).program));
    EXPECT_EQ(ta, print_kernel(generate_tensor_program(shared, GenPolicy{}, seed).program));
  }
  Context c;
  EXPECT_NE(print_kernel(generate_tensor_program(c, GenPolicy{}, 1).program),
            print_kernel(generate_tensor_program(c, GenPolicy{}, 2).program));
}

// The same seeds give the same text on every machine and compiler. A deliberate change of
// the generator's output bumps kTensorGeneratorVersion and this hash together; the new
// hash is what this test prints when it fails:
//   ./build/tests/uopfuzz_tests --gtest_filter=TensorGen.PinnedTextOfFiftySeeds
TEST(TensorGen, PinnedTextOfFiftySeeds) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Context ctx;
    for (unsigned char c : print_kernel(generate_tensor_program(ctx, GenPolicy{}, seed).program))
      h = (h ^ c) * 0x100000001b3ull;
  }
  EXPECT_EQ(h, 0x6a909a53c68778f2ull)
      << "tensor generator output changed (version " << kTensorGeneratorVersion << "): new hash 0x"
      << std::hex << h;
}

TEST(TensorGen, HeaderRecordsNameSeedGeneratorAndGenSeed) {
  Context ctx;
  TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, 4321);
  const KernelHeader& h = r.program.header;
  EXPECT_EQ(h.name, "tensor-gen-4321");
  ASSERT_TRUE(h.seed.has_value());
  EXPECT_EQ(*h.seed, 0u);
  std::map<std::string, std::string> extra(h.extra.begin(), h.extra.end());
  EXPECT_EQ(extra["generator"], kTensorGeneratorVersion);
  EXPECT_EQ(extra["gen-seed"], "4321");
  EXPECT_EQ(r.nodes, static_cast<int>(toposort(r.program.root).size()));
}

/// What a run of seeds reached, counted from the programs themselves.
struct Coverage {
  std::map<Op, int> ops;
  std::map<Op, int> reduce_ops;
  std::set<std::string> dtypes;
  int zero_dim = 0, size_one_reduce = 0, empty_axes = 0, several_axes = 0, all_axes = 0;
  int multi_consumer = 0, reduce_broadcast = 0, large_reduce = 0, several_outputs = 0;
  int rank0 = 0, rank4 = 0;
  std::vector<int> nodes;

  void add(UOp root) {
    const std::vector<UOp> topo = toposort(root);
    nodes.push_back(static_cast<int>(topo.size()));
    NodeMap<std::vector<UOp>> users;  // distinct users of each node
    for (UOp u : topo)
      for (UOp s : u.src())
        if (users[s].empty() || users[s].back() != u) users[s].push_back(u);
    if (root.num_src() >= 2) ++several_outputs;
    bool multi = false;
    for (UOp u : topo) {
      ++ops[u.op()];
      if (u.op() == Op::Realize) continue;
      dtypes.insert(std::string(u.dtype().name()));
      if (std::find(u.shape().begin(), u.shape().end(), 0) != u.shape().end()) ++zero_dim;
      if (u.shape().empty()) ++rank0;
      if (u.shape().size() == 4) ++rank4;
      if (users[u].size() >= 2 && u.op() != Op::Const) multi = true;
      if (u.op() == Op::ReduceAxis) count_reduce(u);
      // x op EXPAND(REDUCE_AXIS(x)), either operand order
      if (u.num_src() == 2 && op_in(u.op(), Alu)) {
        for (int k = 0; k < 2; ++k) {
          UOp other = u.src(1 - k), r = u.src(k);
          if (r.op() == Op::Expand) r = r.src(0);
          if (r.op() == Op::ReduceAxis && r.src(0) == other) ++reduce_broadcast;
        }
      }
    }
    multi_consumer += multi;
  }

  void count_reduce(UOp u) {
    const auto& a = u.arg<ReduceAxisArg>();
    const Shape& in = u.src(0).shape();
    ++reduce_ops[a.op];
    if (a.axes.empty()) ++empty_axes;
    if (a.axes.size() >= 2) ++several_axes;
    if (!in.empty() && a.axes.size() == in.size()) ++all_axes;
    if (!a.axes.empty() &&
        std::all_of(a.axes.begin(), a.axes.end(), [&](int64_t ax) { return in[ax] == 1; }))
      ++size_one_reduce;
    const int64_t out = numel(u.shape());
    if (out > 0 && numel(in) / out >= 32768) ++large_reduce;
  }
};

TEST(TensorGen, DistributionCoversOpsDtypesAndShapes) {
  Coverage c;
  Context ctx;
  for (uint64_t seed = 0; seed < kSeeds; ++seed)
    c.add(generate_tensor_program(ctx, GenPolicy{}, seed).program.root);
  for (Op op :
       {Op::Param, Op::Const,      Op::Reshape,    Op::Permute, Op::Expand, Op::Pad,     Op::Shrink,
        Op::Flip,  Op::ReduceAxis, Op::Contiguous, Op::Realize, Op::Cast,   Op::Bitcast, Op::Where,
        Op::CmpLt, Op::Cdiv,       Op::FloorMod,   Op::Shl,     Op::Shr,    Op::Neg,     Op::Trunc})
    EXPECT_GT(c.ops[op], 0) << op_name(op);
  for (Op op : {Op::Add, Op::Mul, Op::Max, Op::Min}) EXPECT_GT(c.reduce_ops[op], 0) << op_name(op);
  for (DType dt : all_dtypes()) {
    if (dt.is_void() || dt.is_index()) continue;
    EXPECT_TRUE(c.dtypes.count(std::string(dt.name()))) << dt.name();
  }
  EXPECT_GT(c.zero_dim, 0);
  EXPECT_GT(c.size_one_reduce, 0);
  EXPECT_GT(c.empty_axes, 0);
  EXPECT_GT(c.several_axes, 0);
  EXPECT_GT(c.all_axes, 0);
  EXPECT_GT(c.multi_consumer, 0);
  EXPECT_GT(c.reduce_broadcast, 0);
  EXPECT_GT(c.large_reduce, 0);
  EXPECT_GT(c.several_outputs, 0);
  EXPECT_GT(c.rank0, 0);
  EXPECT_GT(c.rank4, 0);
  std::sort(c.nodes.begin(), c.nodes.end());
  const int median = c.nodes[c.nodes.size() / 2];
  EXPECT_GE(median, 10);
  EXPECT_LE(median, 30);
}

// libFuzzer's bytes: any string gives a valid program, and a short one runs out and
// generation still ends with one.
TEST(TensorGen, ByteEntropyGivesValidProgramsAndStopsWhenBytesRunOut) {
  Context ctx;
  SeedEntropy fill(7);
  int exhausted = 0;
  for (size_t len : {0, 1, 2, 5, 16, 64, 256, 1024, 4096}) {
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<uint8_t> bytes(len);
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(fill.below(256));
      ByteEntropy e(bytes);
      TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, e);
      const std::string why = invalid(r.program);
      ASSERT_TRUE(why.empty()) << "length " << len << ": " << why;
      EXPECT_EQ(r.entropy_exhausted, e.exhausted());
      EXPECT_LE(e.consumed(), len);
      exhausted += r.entropy_exhausted;
    }
  }
  EXPECT_GT(exhausted, 0);
  // No bytes at all: every draw is 0, the simplest program.
  ByteEntropy none(nullptr, 0);
  TensorGenResult r = generate_tensor_program(ctx, GenPolicy{}, none);
  EXPECT_TRUE(r.entropy_exhausted);
  EXPECT_TRUE(invalid(r.program).empty());
  EXPECT_EQ(r.program.root.num_src(), 1u);
}

// A node that slips through undefined is replaced by a CONST 1 of its shape: here a CDIV
// whose divisor has a zero element (input slot 0 is not read by it).
TEST(TensorGen, CheckRepairsAnUndefinedNode) {
  const char* text =
      "@name div_by_zero\n"
      "%0 = PARAM slot=0 in : int32[2,3]\n"
      "%1 = CONST 0 : int32[2,3]\n"
      "%2 = CDIV %0 %1 : int32[2,3]\n"
      "%3 = ADD %2 %0 : int32[2,3]\n"
      "%4 = REALIZE %3 : void\n";
  Context ctx;
  auto parsed = parse_kernel(ctx, text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Kernel k = parsed->kernel;
  TensorGenResult res;
  check_and_repair_tensor_program(ctx, k, TensorGenPolicy{}, res);
  EXPECT_EQ(res.oracle_error, "");
  EXPECT_EQ(res.repairs, 1);
  EXPECT_FALSE(res.still_undefined);
  EXPECT_NE(print_graph(k.root).find("CONST 1 : int32[2,3]"), std::string::npos)
      << print_graph(k.root);
  EXPECT_EQ(print_graph(k.root).find("CDIV"), std::string::npos);
  auto run = oracle::eval_tensor_program(k.root, make_inputs(k.root, 0));
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, RunStatus::Ok);
  // With no repairs allowed the program stays as it is, and says so.
  Kernel again = parsed->kernel;
  TensorGenPolicy none;
  none.max_repairs = 0;
  TensorGenResult res0;
  check_and_repair_tensor_program(ctx, again, none, res0);
  EXPECT_TRUE(res0.still_undefined);
  EXPECT_EQ(again.root, parsed->kernel.root);
}

// The knobs do what they say: switching a kind off removes it.
TEST(TensorGen, PolicyKnobsSwitchShapesOff) {
  GenPolicy policy;
  policy.tensor.p_large_reduce = 0;
  policy.tensor.p_zero_dim = policy.tensor.degenerate_zero_dim = 0;
  policy.tensor.nodes.reduce = policy.tensor.nodes.reduce_broadcast = 0;
  policy.tensor.nodes.unary_in_reduce = 0;  // u op expand(reduce(u)) is a reduce broadcast too
  policy.tensor.max_outputs = 1;
  Coverage c;
  Context ctx;
  for (uint64_t seed = 0; seed < 300; ++seed)
    c.add(generate_tensor_program(ctx, policy, seed).program.root);
  EXPECT_EQ(c.large_reduce, 0);
  EXPECT_EQ(c.zero_dim, 0);
  EXPECT_EQ(c.several_outputs, 0);
  EXPECT_EQ(c.reduce_broadcast, 0);
}

}  // namespace
}  // namespace uopfuzz::gen
