// pm_reduce_unparented (simplifier/reduce_unparented.cpp): for every rule a case where it
// fires and, for every gate, a case where it must refuse; checked on the oracle (original vs
// rewrite, several seeds and VAR values) and by structure (which REDUCE/RANGE nodes remain).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "reduce_rules.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;
using namespace reduce_rules;

// ======================================================================================
// pm_reduce_unparented

TEST_F(ReduceRules, UnparentedAddMultipliesByTheEnd) {
  UOp k = example("unparented_add");
  auto r = apply(k, pm_reduce_unparented() + symbolic());
  EXPECT_EQ(r.hits["reduce_unparented"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  EXPECT_EQ(count_op(r.root, Op::Range), 1);  // the LOOP range stays
  expect_same(k, r.root);
  EXPECT_EQ(out0(r.root, {}, 2).i, 15);
}

TEST_F(ReduceRules, UnparentedMulRaisesToThePower) {
  UOp k = example("unparented_mul");
  UOp s = unparented(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s);
  EXPECT_EQ(out0(s, {}, 2).i, 64);
}

TEST_F(ReduceRules, UnparentedMaxAndMinKeepTheValue) {
  UOp k = example("unparented_max");
  UOp s = unparented(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s);
  UOp m = parse(R"(
%0 = PARAM slot=0 size=3 out : int32
%1 = CONST 3 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CAST %2 : int32
%5 = CONST 4 : index
%6 = RANGE %5 axis=1 REDUCE : index
%7 = REDUCE %4 %6 op=MIN : int32
%8 = STORE %3 %7 : void
%9 = END %8 %2 : void
%10 = SINK %9 : void
)");
  UOp sm = unparented(m);
  EXPECT_EQ(count_op(sm, Op::Reduce), 0);
  expect_same(m, sm);
}

// any and all (bool MAX and MIN): an unused range goes, the value stays; over a used
// range of a constant trip count, fold_reduce evaluates them. Each is checked on the
// oracle, with both results present: row i < 4 reduces i < r + 1 over r < 3, so any is
// true for i <= 2 and all only for i = 0.
TEST_F(ReduceRules, BoolAnyAndAllSimplify) {
  for (const char* op : {"MAX", "MIN"}) {
    const std::string text = fmt::format(R"(
%0 = PARAM slot=0 size=4 out : bool
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : bool
%4 = CONST 3 : index
%5 = RANGE %4 axis=1 REDUCE : index
%6 = CONST 1 : index
%7 = ADD %5 %6 : index
%8 = CMPLT %2 %7 : bool
%9 = CONST 5 : index
%10 = RANGE %9 axis=2 REDUCE : index
%11 = REDUCE %8 %5 %10 op={} : bool
%12 = STORE %3 %11 : void
%13 = END %12 %2 : void
%14 = SINK %13 : void
)",
                                         op);
    UOp k = parse(text);
    auto u = apply(k, pm_reduce_unparented() + symbolic());
    EXPECT_GE(u.hits["reduce_unparented"], 1u) << op;
    expect_same(k, u.root);
    SimplifyResult full = simplify(ctx_, k);
    expect_same(k, full.root);
    std::vector<int64_t> rows;
    for (size_t i = 0; i < 4; ++i) rows.push_back(out0(k, {}, i).i);
    EXPECT_EQ(rows, (op == std::string("MAX") ? std::vector<int64_t>{1, 1, 1, 0}
                                              : std::vector<int64_t>{1, 0, 0, 0}))
        << op;
  }
}

// sum over r0 < 3, r1 < 4 of int(r0): r1 goes (times 4), r0 stays.
TEST_F(ReduceRules, UnparentedKeepsTheUsedRanges) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 3 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CONST 4 : index
%6 = RANGE %5 axis=1 REDUCE : index
%7 = CAST %4 : int32
%8 = REDUCE %7 %4 %6 op=ADD : int32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)");
  UOp s = unparented(k);
  ASSERT_EQ(count_op(s, Op::Reduce), 1);
  for (UOp u : toposort(s)) {
    if (u.op() == Op::Reduce) {
      EXPECT_EQ(u.num_src(), 2u);
    }
  }
  expect_same(k, s);
  EXPECT_EQ(out0(s).i, 12);
}

// The upstream shapeless const reduce: 3.0 over an UNROLL range of 4 is the constant 12.
TEST_F(ReduceRules, UnparentedFloatConstantBecomesAConstant) {
  UOp k = example("shapeless_const_reduce");
  UOp s = reduce_simplify(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  bool has12 = false;
  for (UOp u : toposort(s))
    has12 |= u.is_const() && u.dtype() == dtypes::Float32 && u.const_value().f == 12.0;
  EXPECT_TRUE(has12) << print_graph(s);
  expect_same(k, s);
}

// A float sum starts from +0: four times -0 is +0, not -0 * 4. (x = float(i) * 0.0 is -0
// for a negative loaded i.)
TEST_F(ReduceRules, UnparentedFloatSumOfNegativeZeroIsPositiveZero) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size=1 in vmin=-8 vmax=8 : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CAST %5 : float32
%7 = CONST 0 : float32
%8 = MUL %6 %7 : float32
%9 = CONST 4 : index
%10 = RANGE %9 axis=0 REDUCE : index
%11 = REDUCE %8 %10 op=ADD : float32
%12 = STORE %2 %11 : void
%13 = SINK %12 : void
)");
  UOp s = unparented(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s, {{}}, 8);  // some seeds load a negative value: x * 0 = -0
}

// Gate (ours): a float sum rewritten as count * v must be exact. 0.1 has a 24-bit
// significand: ten partial sums of it round, 0.1 * 10 rounds once. A loaded float is
// unknown. Both stay sums; 0.375 (3 * 2^-3) and float(int) are exact and go.
TEST_F(ReduceRules, UnparentedFloatSumOnlyWhenExact) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=4 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CONST 0.1 : float32
%6 = REDUCE %5 %4 op=ADD : float32
%7 = STORE %2 %6 : void
%8 = PARAM slot=1 size=1 in : float32
%9 = INDEX %8 %1 : float32
%10 = LOAD %9 : float32
%11 = RANGE %3 axis=1 REDUCE : index
%12 = REDUCE %10 %11 op=ADD : float32
%13 = CONST 1 : index
%14 = INDEX %0 %13 : float32
%15 = STORE %14 %12 : void
%16 = CONST 0.375 : float32
%17 = RANGE %3 axis=2 REDUCE : index
%18 = REDUCE %16 %17 op=ADD : float32
%19 = CONST 2 : index
%20 = INDEX %0 %19 : float32
%21 = STORE %20 %18 : void
%22 = PARAM slot=2 size=1 in vmin=-8 vmax=8 : int32
%23 = INDEX %22 %1 : int32
%24 = LOAD %23 : int32
%25 = CAST %24 : float32
%26 = RANGE %3 axis=3 REDUCE : index
%27 = REDUCE %25 %26 op=ADD : float32
%28 = CONST 3 : index
%29 = INDEX %0 %28 : float32
%30 = STORE %29 %27 : void
%31 = SINK %7 %15 %21 %30 : void
)");
  UOp s = unparented(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 2);
  expect_same(k, s);
}

// Gate (ours): MAX over a range that may run zero times is the identity, not the value.
TEST_F(ReduceRules, UnparentedMaxRefusesAPossiblyEmptyRange) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 7 : int32
%4 = VAR name=n min=0 max=4 : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = REDUCE %3 %5 op=MAX : int32
%7 = STORE %2 %6 : void
%8 = SINK %7 : void
)");
  auto r = apply(k, pm_reduce_unparented() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_unparented"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 1);
  EXPECT_EQ(out0(k, {{"n", 0}}).i, std::numeric_limits<int32_t>::min());  // the identity
  // ...and with the planted bug MAX multiplies: 7 * n.
  auto bug =
      apply(k, pm_reduce_unparented() + symbolic(), BugSet().enable(Bug::UnparentedMaxMultiplies));
  EXPECT_TRUE(differs(k, bug.root, sweep("n", {0, 1, 3})));
}

// Gate: MUL raises to a constant power only.
TEST_F(ReduceRules, UnparentedMulRefusesAVariableEnd) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 3 : int32
%4 = VAR name=n min=1 max=4 : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = REDUCE %3 %5 op=MUL : int32
%7 = STORE %2 %6 : void
%8 = SINK %7 : void
)");
  auto r = apply(k, pm_reduce_unparented() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_unparented"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 1);
}

// ADD over a possibly empty (even negative-end) range with nothing else left: max(n, 0) * x.
TEST_F(ReduceRules, UnparentedAddOverAPossiblyEmptyRangeCountsMaxOfEndAndZero) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size=1 in vmin=-8 vmax=8 : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = VAR name=n min=-2 max=4 : index
%7 = RANGE %6 axis=0 REDUCE : index
%8 = REDUCE %5 %7 op=ADD : int32
%9 = STORE %2 %8 : void
%10 = CAST %5 : float32
%11 = CONST 0.125 : float32
%12 = MUL %10 %11 : float32
%13 = PARAM slot=3 size=1 out : float32
%14 = INDEX %13 %1 : float32
%15 = RANGE %6 axis=1 REDUCE : index
%16 = REDUCE %12 %15 op=ADD : float32
%17 = STORE %14 %16 : void
%18 = SINK %9 %17 : void
)");
  UOp s = unparented(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s, sweep("n", {-2, 0, 1, 4}));
}

// Gate (ours): dropping a possibly empty range while another stays would evaluate the
// value where the original never did: here 12 / (int(r1) - 2) divides by zero at r1 = 2,
// but with n = 0 the original never runs the inner loop.
TEST_F(ReduceRules, UnparentedRefusesAPossiblyEmptyRangeWhileAnotherStays) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = VAR name=n min=0 max=2 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CONST 4 : index
%6 = RANGE %5 axis=1 REDUCE : index
%7 = CAST %6 : int32
%8 = CONST 2 : int32
%9 = SUB %7 %8 : int32
%10 = CONST 12 : int32
%11 = CDIV %10 %9 : int32
%12 = REDUCE %11 %4 %6 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = SINK %13 : void
)");
  auto r = apply(k, pm_reduce_unparented() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_unparented"), 0u);
  expect_same(k, r.root, sweep("n", {0}));
}

TEST_F(ReduceRules, UnparentedPlantedBugsChangeResults) {
  UOp mx = example("unparented_max");
  EXPECT_TRUE(differs(mx, unparented(mx, BugSet().enable(Bug::UnparentedMaxMultiplies))));
  UOp ml = example("unparented_mul");
  EXPECT_TRUE(differs(ml, unparented(ml, BugSet().enable(Bug::UnparentedMulMultiplies))));
  // The faithful rules keep both results.
  expect_same(mx, unparented(mx));
  expect_same(ml, unparented(ml));
}

}  // namespace
}  // namespace uopfuzz::simplifier
