// The range rules, with the reference's upstream cases: each rule fires where it should
// and each gate refuses where it must; every rewrite keeps the oracle's results.
#include <gtest/gtest.h>

#include "simplifier/state.h"
#include "simplifier_test_util.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;
using namespace testing;

// out[r] = r % MOD for r < END (END may be a VAR named n).
std::string mod_kernel(const std::string& end_decl, int mod, int size) {
  return end_decl + "\n%out = PARAM slot=0 size=" + std::to_string(size) + R"( out : int32
%r = RANGE %n axis=0 LOOP : index
%at = INDEX %out %r : int32
%c = CONST )" +
         std::to_string(mod) + R"( : index
%m = FLOORMOD %r %c : index
%v = CAST %m : int32
%st = STORE %at %v : void
%e = END %st %r : void
%s = SINK %e : void
)";
}

TEST(RangeSplit, DivisibleConstEndSplitsIntoOuterAndInner) {
  Context ctx;
  Kernel k = parse_or_die(ctx, mod_kernel("%n = CONST 12 : index", 4, 12));
  auto r = simplify(ctx, k.root);
  auto ranges = ranges_of(r.root);
  ASSERT_EQ(ranges.size(), 2u) << print_graph(r.root);
  EXPECT_EQ(end_of(ranges[0]), 3);
  EXPECT_EQ(end_of(ranges[1]), 4);
  EXPECT_EQ(ranges[0].arg<RangeArg>().axis, (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(ranges[1].arg<RangeArg>().axis, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(count_op(r.root, Op::FloorMod), 0) << "(outer*4+inner) % 4 should fold to inner";
  EXPECT_EQ(r.hits["split_range"], 1u);
  expect_same_results(k.root, r.root);
}

TEST(RangeSplit, EightByTwo) {
  Context ctx;
  Kernel k = parse_or_die(ctx, mod_kernel("%n = CONST 8 : index", 2, 8));
  auto ranges = ranges_of(simplify(ctx, k.root).root);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(end_of(ranges[0]), 4);
  EXPECT_EQ(end_of(ranges[1]), 2);
}

TEST(RangeSplit, NonDivisibleEndDoesNotSplit) {
  Context ctx;
  Kernel k = parse_or_die(ctx, mod_kernel("%n = CONST 10 : index", 4, 10));
  auto r = simplify(ctx, k.root);
  ASSERT_EQ(ranges_of(r.root).size(), 1u);
  EXPECT_EQ(end_of(ranges_of(r.root)[0]), 10);
  EXPECT_EQ(r.hits.count("split_range"), 0u);
}

TEST(RangeSplit, VarEndDoesNotSplitEvenIfAMultiple) {
  Context ctx;
  Kernel k =
      parse_or_die(ctx, mod_kernel("%n = VAR name=n min=4 max=16 multiple_of=4 : index", 4, 16));
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(ranges_of(r.root).size(), 1u);
  EXPECT_EQ(r.hits.count("split_range"), 0u);
}

TEST(RangeSplit, WarpAndDeviceAxesDoNotSplit) {
  for (const char* type : {"WARP", "DEVICE"}) {
    Context ctx;
    std::string text = mod_kernel("%n = CONST 12 : index", 4, 12);
    text.replace(text.find("LOOP"), 4, type);
    auto r = simplify(ctx, parse_or_die(ctx, text).root);
    EXPECT_EQ(ranges_of(r.root).size(), 1u) << type;
  }
}

TEST(RangeSplit, NoOptimizeDoesNotSplit) {
  Context ctx;
  Kernel k = parse_or_die(ctx, mod_kernel("%n = CONST 12 : index", 4, 12));
  SimplifyOptions o;
  o.optimize = false;
  EXPECT_EQ(ranges_of(simplify(ctx, k.root, o).root).size(), 1u);
}

TEST(RangeSplit, FirstModulusWins) {
  // r % 4 and r % 6 on RANGE(12): whichever is seen first splits; the result stays right.
  Context ctx;
  Kernel k = parse_or_die(ctx, R"(%out = PARAM slot=0 size=12 out : int32
%n = CONST 12 : index
%r = RANGE %n axis=0 LOOP : index
%at = INDEX %out %r : int32
%c4 = CONST 4 : index
%c6 = CONST 6 : index
%m4 = FLOORMOD %r %c4 : index
%m6 = FLOORMOD %r %c6 : index
%sum = ADD %m4 %m6 : index
%v = CAST %sum : int32
%st = STORE %at %v : void
%e = END %st %r : void
%s = SINK %e : void
)");
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(r.hits["split_range"], 1u);
  EXPECT_EQ(ranges_of(r.root).size(), 2u);
  expect_same_results(k.root, r.root);
}

// out[where(r < G, r, INVALID)] = r over RANGE(END), plus optional extra uses.
std::string gated_kernel(int end, int guard, const std::string& extra_nodes = "",
                         const std::string& extra_effects = "") {
  return "%out = PARAM slot=0 size=" + std::to_string(std::max(guard, 1)) + R"( out : int32
%n = CONST )" +
         std::to_string(end) + R"( : index
%r = RANGE %n axis=0 LOOP : index
%g = CONST )" +
         std::to_string(guard) + R"( : index
%lt = CMPLT %r %g : bool
%inv = INVALID : index
%gi = WHERE %lt %r %inv : index
%at = INDEX %out %gi : int32
%v = CAST %r : int32
%st = STORE %at %v : void
%e = END %st %r : void
)" + extra_nodes +
         "%s = SINK %e" + extra_effects + " : void\n";
}

TEST(RangeShrink, GuardedRangeOf204ShrinksTo4) {
  Context ctx;
  Kernel k = parse_or_die(ctx, gated_kernel(204, 4));
  auto r = simplify(ctx, k.root);
  auto ranges = ranges_of(r.root);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(end_of(ranges[0]), 4);
  EXPECT_EQ(count_op(r.root, Op::Invalid), 0) << "the guard is always true after the shrink";
  expect_same_results(k.root, r.root);
}

TEST(RangeShrink, LargestGuardWins) {
  Context ctx;
  Kernel k = parse_or_die(ctx, gated_kernel(204, 4, R"(%o2 = PARAM slot=1 size=8 out : int32
%g8 = CONST 8 : index
%lt8 = CMPLT %r %g8 : bool
%gi8 = WHERE %lt8 %r %inv : index
%at8 = INDEX %o2 %gi8 : int32
%st8 = STORE %at8 %v : void
%e8 = END %st8 %r : void
)",
                                            " %e8"));
  auto r = simplify(ctx, k.root);
  auto ranges = ranges_of(r.root);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(end_of(ranges[0]), 8);
  expect_same_results(k.root, r.root);
}

TEST(RangeShrink, NoShrinkWhenGuardIsNotBelowTheEnd) {
  Context ctx;
  Kernel k = parse_or_die(ctx, gated_kernel(4, 6));
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(end_of(ranges_of(r.root).at(0)), 4);
  EXPECT_EQ(r.hits.count("shrink_range"), 0u);
}

TEST(RangeShrink, NoShrinkWhenAlsoUsedUngated) {
  Context ctx;
  Kernel k = parse_or_die(ctx, gated_kernel(12, 4, R"(%o2 = PARAM slot=1 size=12 out : int32
%at2 = INDEX %o2 %r : int32
%st2 = STORE %at2 %v : void
%e2 = END %st2 %r : void
)",
                                            " %e2"));
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(end_of(ranges_of(r.root).at(0)), 12);
  EXPECT_EQ(r.hits.count("shrink_range"), 0u);
  expect_same_results(k.root, r.root);
}

TEST(RangeShrink, NoShrinkOfAReduceRange) {
  Context ctx;
  Kernel k = parse_or_die(ctx, R"(%out = PARAM slot=0 size=1 out : int32
%in = PARAM slot=1 size=4 in : int32
%n = CONST 20 : index
%r = RANGE %n axis=0 REDUCE : index
%c4 = CONST 4 : index
%lt = CMPLT %r %c4 : bool
%inv = INVALID : index
%gi = WHERE %lt %r %inv : index
%ai = INDEX %in %gi : int32
%x = LOAD %ai : int32
%one = CONST 1 : int32
%t = ADD %x %one : int32
%sum = REDUCE %t %r op=ADD : int32
%c0 = CONST 0 : index
%ao = INDEX %out %c0 : int32
%st = STORE %ao %sum : void
%s = SINK %st : void
)");
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(r.hits.count("shrink_range"), 0u);
  expect_same_results(k.root, r.root);
}

TEST(RangeShrink, GuardOfOneRemovesTheRange) {
  Context ctx;
  Kernel k = parse_or_die(ctx, gated_kernel(204, 1));
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(ranges_of(r.root).size(), 0u) << print_graph(r.root);
  EXPECT_EQ(count_op(r.root, Op::End), 0);
  expect_same_results(k.root, r.root);
}

// out[i*8 + j] = VALUE over i < 4, j < 8.
std::string two_range_kernel(const std::string& value_nodes, const char* type_j = "LOOP") {
  return std::string(R"(%out = PARAM slot=0 size=32 out : int32
%c4 = CONST 4 : index
%c8 = CONST 8 : index
%i = RANGE %c4 axis=0 LOOP : index
%j = RANGE %c8 axis=1 )") +
         type_j + R"( : index
%i8 = MUL %i %c8 : index
%k = ADD %i8 %j : index
%at = INDEX %out %k : int32
)" + value_nodes +
         R"(%st = STORE %at %v : void
%e = END %st %i %j : void
%s = SINK %e : void
)";
}

TEST(RangeMerge, MergesWhenNoDivmodIsAdded) {
  Context ctx;
  Kernel k = parse_or_die(ctx, two_range_kernel("%v = CAST %k : int32\n"));
  auto r = simplify(ctx, k.root);
  auto ranges = ranges_of(r.root);
  ASSERT_EQ(ranges.size(), 1u) << print_graph(r.root);
  EXPECT_EQ(end_of(ranges[0]), 32);
  EXPECT_EQ(ranges[0].arg<RangeArg>().axis, (std::vector<int32_t>{0}));  // keeps r0's axis id
  EXPECT_EQ(count_op(r.root, Op::FloorDiv) + count_op(r.root, Op::FloorMod), 0);
  expect_same_results(k.root, r.root);
}

TEST(RangeMerge, RefusesWhenDivmodCountWouldGrow) {
  Context ctx;
  // 10*i + j needs i = k // 8 and j = k % 8 after a merge: two divmods more.
  Kernel k =
      parse_or_die(ctx, two_range_kernel("%c10 = CONST 10 : index\n%i10 = MUL %i %c10 : index\n%x "
                                         "= ADD %i10 %j : index\n%v = CAST %x : int32\n"));
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(ranges_of(r.root).size(), 2u);
  expect_same_results(k.root, r.root);
}

TEST(RangeMerge, RefusesDifferentAxisTypes) {
  Context ctx;
  Kernel k = parse_or_die(ctx, two_range_kernel("%v = CAST %k : int32\n", "UPCAST"));
  EXPECT_EQ(ranges_of(simplify(ctx, k.root).root).size(), 2u);
}

TEST(RangeFlatten, EndListsTheRangesItsExpressionsUse) {
  Context ctx;
  Kernel k = parse_or_die(ctx, two_range_kernel("%v = CAST %k : int32\n"));
  // Replace the END's ranges by an expression over them: flatten recovers i and j.
  UOp end = k.root.src(0);
  UOp i = end.src(1), j = end.src(2);
  UOp expr = ctx.alu(Op::Add, {ctx.alu(Op::Mul, {i, ctx.const_int(dtypes::Index, 8)}), j});
  UOp bad_end = ctx.make(Op::End, dtypes::Void, {end.src(0), expr});
  UOp sink = ctx.make(Op::Sink, dtypes::Void, {bad_end});
  ASSERT_FALSE(verify(sink).empty());
  SimplifyState st;
  RewriteOptions o;
  o.state = &st;
  auto r = graph_rewrite(ctx, sink, pm_flatten_range(), o);
  EXPECT_EQ(r.root, k.root);
}

}  // namespace
}  // namespace uopfuzz::simplifier
