// The reducer on tensor programs: a generated-looking program shrinks to a handful of ops
// under a structural predicate and under one on values (the tensor oracle's); each tensor pass
// proposes the edit its crafted program is made for, and its result verifies; kernels and tensor
// programs each get only their own passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gen/tensor_gen.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/tensor_eval.h"
#include "reduce/reducer.h"

namespace uopfuzz::reduce {
namespace {

using ir::Op;

ir::Kernel parse(ir::Context& ctx, const std::string& text) {
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? parsed->kernel : ir::Kernel{};
}

std::vector<std::string> proposed_texts(ir::Context& ctx, const ir::Kernel& k, Pass pass) {
  std::vector<std::string> out;
  for (const ir::Kernel& c : propose(ctx, k, pass)) out.push_back(ir::print_kernel(c));
  return out;
}

bool contains(const std::vector<std::string>& texts, const std::string& text) {
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

// 21 ops, two outputs, every kind of tensor op.
const char* kBigProgram = R"(@name big
%0 = PARAM slot=0 in : float32[4,6]
%1 = PARAM slot=1 in : float32[4,6]
%2 = ADD %0 %1 : float32[4,6]
%3 = PERMUTE %2 order=[1,0] : float32[6,4]
%4 = FLIP %3 axes=[1] : float32[6,4]
%5 = CONST 2 : float32[6,4]
%6 = MUL %4 %5 : float32[6,4]
%7 = PAD %6 pad=[1:1,0:2] : float32[8,6]
%8 = SHRINK %7 shrink=[1:7,0:5] : float32[6,5]
%9 = PAD %8 pad=[0:0,2:1] : float32[6,8]
%10 = REDUCE_AXIS %9 op=ADD axes=[1] : float32[6,1]
%11 = RESHAPE %10 : float32[6]
%12 = RESHAPE %11 : float32[2,3]
%13 = EXP2 %12 : float32[2,3]
%14 = REDUCE_AXIS %0 op=MAX axes=[0] : float32[1,6]
%15 = EXPAND %14 : float32[4,6]
%16 = SUB %15 %1 : float32[4,6]
%17 = CONTIGUOUS %16 : float32[4,6]
%18 = RESHAPE %17 : float32[2,12]
%19 = SHRINK %18 shrink=[0:2,0:3] : float32[2,3]
%20 = ADD %13 %19 : float32[2,3]
%21 = CONST 3 : float32[2,3]
%22 = MAX %20 %21 : float32[2,3]
%23 = SQRT %16 : float32[4,6]
%24 = REALIZE %22 %23 : void
)";

// The structural finding: a PAD feeding a REDUCE_AXIS that reduces a dim of size >= 3.
bool pad_feeds_wide_reduce(const ir::Kernel& k) {
  for (ir::UOp u : ir::toposort(k.root)) {
    if (u.op() != Op::ReduceAxis || u.src(0).op() != Op::Pad) continue;
    for (int64_t axis : u.arg<ir::ReduceAxisArg>().axes)
      if (u.src(0).shape()[static_cast<size_t>(axis)] >= 3) return true;
  }
  return false;
}

TEST(ReduceTensor, BigProgramShrinksToItsPadAndReduce) {
  ir::Context ctx;
  ir::Kernel start = parse(ctx, kBigProgram);
  ASSERT_TRUE(ir::verify(start.root).empty());
  ASSERT_EQ(size_of(start).ops, 21u);
  ASSERT_TRUE(pad_feeds_wide_reduce(start));

  ReduceOptions o;
  o.max_seconds = 0;
  o.max_attempts = 20000;
  ReduceResult r = reduce(ctx, start, pad_feeds_wide_reduce, o);
  ASSERT_TRUE(r.start_interesting);
  EXPECT_TRUE(r.fixed_point);
  EXPECT_TRUE(ir::verify(r.kernel.root).empty());
  EXPECT_TRUE(pad_feeds_wide_reduce(r.kernel));
  // Nothing but a leaf, the PAD, the REDUCE_AXIS and the REALIZE is needed.
  EXPECT_LE(size_of(r.kernel).ops, 6u) << ir::print_kernel(r.kernel);
  EXPECT_LE(r.final_nodes, 4u) << ir::print_kernel(r.kernel);
  // The kernel passes had nothing to say about a tensor program.
  for (const PassStats& s : r.passes) {
    if (s.pass < Pass::TensorDropOutput) {
      EXPECT_EQ(s.proposed, 0u) << pass_name(s.pass);
    }
  }
}

// The value finding: a FLIP whose value (by the tensor oracle, on the inputs of seed 0)
// differs from its operand's, i.e. a FLIP that does something.
bool flip_changes_values(const ir::Kernel& k) {
  ir::Context ctx;  // the sub-programs below are new nodes: made in a Context of our own
  const ir::UOp root = ir::copy_graph(ctx, k.root);
  const ir::Inputs inputs = ir::make_inputs(k, 0);
  for (ir::UOp u : ir::toposort(root)) {
    if (u.op() != Op::Flip) continue;
    auto out = oracle::eval_tensor_program(ir::tensor::realize(ctx, {u, u.src(0)}), inputs);
    if (!out.ok() || out->status != ir::RunStatus::Ok) continue;
    const ir::Buffer& a = out->outputs.at(0);
    const ir::Buffer& b = out->outputs.at(1);
    for (size_t i = 0; i < a.size(); ++i)
      if (!ir::same_bits(a.get(i), b.get(i))) return true;
  }
  return false;
}

TEST(ReduceTensor, BigProgramShrinksToAFlipThatFlips) {
  ir::Context ctx;
  ir::Kernel start = parse(ctx, kBigProgram);
  ASSERT_TRUE(flip_changes_values(start));
  ReduceOptions o;
  o.max_seconds = 0;
  o.max_attempts = 20000;
  ReduceResult r = reduce(ctx, start, flip_changes_values, o);
  ASSERT_TRUE(r.start_interesting);
  EXPECT_TRUE(r.fixed_point);
  EXPECT_TRUE(ir::verify(r.kernel.root).empty());
  EXPECT_TRUE(flip_changes_values(r.kernel));
  EXPECT_LE(size_of(r.kernel).ops, 6u) << ir::print_kernel(r.kernel);
  // An input, the FLIP and the REALIZE: a CONST would flip to itself.
  EXPECT_LE(r.final_nodes, 3u) << ir::print_kernel(r.kernel);
}

TEST(ReduceTensor, DropOutputRenumbersOutputLines) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(@output 0 [1, 2]
@output 1 [3]
%0 = PARAM slot=0 in : int32[2]
%1 = PARAM slot=1 in : int32[1]
%2 = REALIZE %0 %1 : void
)");
  std::vector<ir::Kernel> c = propose(ctx, k, Pass::TensorDropOutput);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(ir::print_kernel(c[0]), R"(@output 0 [3]
%0 = PARAM slot=1 in : int32[1]
%1 = REALIZE %0 : void
)");
  EXPECT_EQ(ir::print_kernel(c[1]), R"(@output 0 [1, 2]
%0 = PARAM slot=0 in : int32[2]
%1 = REALIZE %0 : void
)");
  // One output left: nothing to drop.
  EXPECT_TRUE(propose(ctx, c[0], Pass::TensorDropOutput).empty());
}

TEST(ReduceTensor, DropOpKeepsTheOpThePredicateNeeds) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(%0 = PARAM slot=0 in : float32[2,3]
%1 = NEG %0 : float32[2,3]
%2 = EXP2 %1 : float32[2,3]
%3 = CONTIGUOUS %2 : float32[2,3]
%4 = REALIZE %3 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorDropOp);
  EXPECT_TRUE(contains(texts, R"(%0 = PARAM slot=0 in : float32[2,3]
%1 = NEG %0 : float32[2,3]
%2 = REALIZE %1 : void
)"));
  EXPECT_TRUE(contains(texts, R"(%0 = CONST 1 : float32[2,3]
%1 = REALIZE %0 : void
)"));
  auto has_neg = [](const ir::Kernel& c) {
    for (ir::UOp u : ir::toposort(c.root))
      if (u.op() == Op::Neg) return true;
    return false;
  };
  ReduceOptions o;
  o.passes = {Pass::TensorDropOp};
  ReduceResult r = reduce(ctx, k, has_neg, o);
  EXPECT_TRUE(ir::verify(r.kernel.root).empty());
  // The NEG stays, on the input (a leaf: not an op this pass replaces).
  EXPECT_EQ(ir::print_kernel(r.kernel), R"(%0 = PARAM slot=0 in : float32[2,3]
%1 = NEG %0 : float32[2,3]
%2 = REALIZE %1 : void
)");
}

// An output may become any op below it, of another dtype or shape; an @output line stays
// only where its output kept its element count and dtype.
TEST(ReduceTensor, DropOpMakesAnOutputAnyOpBelowIt) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(@output 0 [1, 2]
@output 1 [5]
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[2,1]
%2 = CAST %1 : float32[2,1]
%3 = RESHAPE %2 : float32[2]
%4 = CONST 5 : float32[1]
%5 = REALIZE %3 %4 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorDropOp);
  // The reduce itself as output 0 (int32, the float @output line dropped) ...
  EXPECT_TRUE(contains(texts, R"(@output 1 [5]
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[2,1]
%2 = CONST 5 : float32[1]
%3 = REALIZE %1 %2 : void
)"));
  // ... and its CAST (float32, two elements: the line stays).
  EXPECT_TRUE(contains(texts, R"(@output 0 [1, 2]
@output 1 [5]
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[2,1]
%2 = CAST %1 : float32[2,1]
%3 = CONST 5 : float32[1]
%4 = REALIZE %2 %3 : void
)"));
  // An input never becomes an output: an output that only copies an input shows nothing.
  for (const std::string& t : texts)
    EXPECT_EQ(t.find("PARAM slot=0 in : int32[2,3]\n%1 = CONST"), std::string::npos) << t;
}

TEST(ReduceTensor, DropMovementRebuildsUsersOnTheSource) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = PERMUTE %0 order=[1,0] : int32[3,2]
%2 = NEG %1 : int32[3,2]
%3 = RESHAPE %2 : int32[6]
%4 = REALIZE %3 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorDropMovement);
  // The RESHAPE removed: the output takes the NEG's shape.
  EXPECT_TRUE(contains(texts, R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = PERMUTE %0 order=[1,0] : int32[3,2]
%2 = NEG %1 : int32[3,2]
%3 = REALIZE %2 : void
)"));
  // The PERMUTE removed: the NEG is rebuilt on [2,3] and the RESHAPE still fits.
  EXPECT_TRUE(contains(texts, R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = NEG %0 : int32[2,3]
%2 = RESHAPE %1 : int32[6]
%3 = REALIZE %2 : void
)"));
}

TEST(ReduceTensor, DropMovementFallsBackToAReshape) {
  ir::Context ctx;
  // The ADD needs [3,2] on both sides: dropping the PERMUTE cannot rebuild it, but a
  // RESHAPE of the same six elements can stand in.
  ir::Kernel k = parse(ctx, R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = PERMUTE %0 order=[1,0] : int32[3,2]
%2 = PARAM slot=1 in : int32[3,2]
%3 = ADD %1 %2 : int32[3,2]
%4 = REALIZE %3 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorDropMovement);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = RESHAPE %0 : int32[3,2]
%2 = PARAM slot=1 in : int32[3,2]
%3 = ADD %1 %2 : int32[3,2]
%4 = REALIZE %3 : void
)");
  ReduceOptions o;
  o.passes = {Pass::TensorDropMovement};
  ReduceResult r = reduce(
      ctx, k, [](const ir::Kernel&) { return true; }, o);
  EXPECT_TRUE(ir::verify(r.kernel.root).empty());
  EXPECT_EQ(ir::print_kernel(r.kernel), texts[0]);
}

TEST(ReduceTensor, DropReduceAxisGrowsTheUsers) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[0,1] : int32[1,1]
%2 = EXPAND %1 : int32[4,1]
%3 = REALIZE %2 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorDropReduceAxis);
  ASSERT_EQ(texts.size(), 2u);
  // Axis 0 kept reduced: dim 1 regains its 3, which the EXPAND now keeps.
  EXPECT_EQ(texts[0], R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[2,1]
%2 = EXPAND %1 : int32[2,1]
%3 = REALIZE %2 : void
)");
  EXPECT_EQ(texts[1], R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[0] : int32[1,3]
%2 = EXPAND %1 : int32[4,3]
%3 = REALIZE %2 : void
)");
  // A user that cannot take the larger shape: an ADD with an operand of the reduced shape.
  ir::Kernel fixed = parse(ctx, R"(%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=MAX axes=[1] : int32[2,1]
%2 = PARAM slot=1 in : int32[2,1]
%3 = ADD %1 %2 : int32[2,1]
%4 = REALIZE %3 : void
)");
  EXPECT_TRUE(propose(ctx, fixed, Pass::TensorDropReduceAxis).empty());
}

TEST(ReduceTensor, ShrinkDimRebuildsShapesAndInputs) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(@input 0 [1, 2, 3, 4, 5, 6, 7, 8]
%0 = PARAM slot=0 in : int32[2,4]
%1 = PARAM slot=1 in : int32[2,4]
%2 = ADD %0 %1 : int32[2,4]
%3 = RESHAPE %2 : int32[8]
%4 = SHRINK %3 shrink=[2:7] : int32[5]
%5 = REALIZE %4 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorShrinkDim);
  // Both inputs [2,4] -> [2,2] (half of dim 1): the RESHAPE follows, the SHRINK window
  // slides back inside the four elements left, the @input line keeps its first values.
  EXPECT_TRUE(contains(texts, R"(@input 0 [1, 2, 3, 4]
%0 = PARAM slot=0 in : int32[2,2]
%1 = PARAM slot=1 in : int32[2,2]
%2 = ADD %0 %1 : int32[2,2]
%3 = RESHAPE %2 : int32[4]
%4 = SHRINK %3 shrink=[0:4] : int32[4]
%5 = REALIZE %4 : void
)"));
  // One input alone would leave the ADD with operands of two shapes.
  for (const ir::Kernel& c : propose(ctx, k, Pass::TensorShrinkDim)) {
    EXPECT_TRUE(ir::verify(c.root).empty()) << ir::print_kernel(c);
    const ir::Shape& a = c.root.src(0).src(0).src(0).src(0).shape();
    const ir::Shape& b = c.root.src(0).src(0).src(0).src(1).shape();
    EXPECT_EQ(a, b);
  }
}

TEST(ReduceTensor, ConstValueMovesTowardZeroAndOne) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, R"(%0 = CONST 6 : int32[3]
%1 = REALIZE %0 : void
)");
  auto texts = proposed_texts(ctx, k, Pass::TensorConstValue);
  std::vector<std::string> want;
  for (int v : {0, 1, 3, 5})
    want.push_back("%0 = CONST " + std::to_string(v) + " : int32[3]\n%1 = REALIZE %0 : void\n");
  EXPECT_EQ(texts, want);
}

TEST(ReduceTensor, EachLevelGetsOnlyItsOwnPasses) {
  ir::Context ctx;
  ir::Kernel tensor_program = parse(ctx, kBigProgram);
  ir::Kernel kernel = parse(ctx, R"(%0 = PARAM slot=0 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CONST 7 : int32
%5 = ADD %4 %4 : int32
%6 = STORE %3 %5 : void
%7 = END %6 %2 : void
%8 = SINK %7 : void
)");
  size_t kernel_edits = 0, tensor_edits = 0;
  for (Pass p : all_passes()) {
    const bool tensor_pass = p >= Pass::TensorDropOutput;
    const size_t on_kernel = propose(ctx, kernel, p).size();
    const size_t on_tensor = propose(ctx, tensor_program, p).size();
    if (tensor_pass) {
      EXPECT_EQ(on_kernel, 0u) << pass_name(p);
      tensor_edits += on_tensor;
    } else {
      EXPECT_EQ(on_tensor, 0u) << pass_name(p);
      kernel_edits += on_kernel;
    }
  }
  // Each level does get edits from its own passes.
  EXPECT_GT(kernel_edits, 0u);
  EXPECT_GT(tensor_edits, 0u);
}

// On generated programs every tensor pass's candidates verify (the rebuild re-infers each
// shape and leaves out what no longer fits), and a reduction keeping one REDUCE_AXIS over
// an axis of size >= 2 ends at a handful of nodes.
TEST(ReduceTensor, GeneratedProgramsGiveVerifiedCandidatesAndShrink) {
  auto wide_reduce = [](const ir::Kernel& k) {
    for (ir::UOp u : ir::toposort(k.root))
      if (u.op() == Op::ReduceAxis)
        for (int64_t axis : u.arg<ir::ReduceAxisArg>().axes)
          if (u.src(0).shape()[static_cast<size_t>(axis)] >= 2) return true;
    return false;
  };
  int reduced = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    ir::Context ctx;
    const ir::Kernel k = gen::generate_tensor_program(ctx, gen::GenPolicy{}, seed).program;
    ASSERT_TRUE(ir::verify(k.root).empty()) << "seed " << seed;
    for (Pass p : all_passes()) {
      if (p < Pass::TensorDropOutput) continue;
      for (const ir::Kernel& c : propose(ctx, k, p))
        EXPECT_TRUE(ir::verify(c.root).empty()) << "seed " << seed << ", " << pass_name(p) << ":\n"
                                                << ir::print_kernel(c);
    }
    if (!wide_reduce(k)) continue;
    ReduceOptions o;
    o.max_seconds = 0;
    o.max_attempts = 5000;
    ReduceResult r = reduce(ctx, k, wide_reduce, o);
    EXPECT_TRUE(wide_reduce(r.kernel));
    // A leaf, the REDUCE_AXIS and the REALIZE: what carried the reduce's value to the
    // output's dtype and shape (conversions, compares, WHEREs, broadcasts) goes when the
    // output becomes the reduce itself.
    EXPECT_LE(r.final_nodes, 3u) << "seed " << seed << ":\n" << ir::print_kernel(r.kernel);
    ++reduced;
  }
  EXPECT_GT(reduced, 0);
}

}  // namespace
}  // namespace uopfuzz::reduce
