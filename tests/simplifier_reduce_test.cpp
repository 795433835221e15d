// reduce_collapse and its inner rules (simplifier/collapse.cpp, reduce.cpp): for every rule
// a case where it fires and, for every gate, a case where it must refuse. Results are
// checked on the oracle (original vs rewrite, several seeds and VAR values) and by structure
// (which REDUCE/RANGE nodes remain). The other reduce rules: simplifier_reduce_unparented_test.cpp
// and simplifier_load_collapse_test.cpp.
#include <gtest/gtest.h>

#include "reduce_rules.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;
using namespace reduce_rules;

// ======================================================================================
// reduce_collapse and its inner rules (pm_reduce_collapse)

TEST_F(ReduceRules, BoundUpperCollapsesTheWindowSum) {
  UOp k = example("window_sum");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(r.hits["reduce_collapse"], 1u);
  EXPECT_GE(st_.nested_hits["bound_upper"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  EXPECT_EQ(count_op(r.root, Op::Range), 0);
  expect_same(k, r.root, sweep("cut", {0, 3, 7, 10, 16}));
  EXPECT_EQ(out0(r.root, {{"cut", 7}}).i, 21);
}

TEST_F(ReduceRules, BoundLowerCollapses) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = VAR name=lo min=-3 max=14 : index
%6 = CMPLT %4 %5 : bool
%7 = CONST 3 : int32
%8 = CONST 0 : int32
%9 = WHERE %6 %8 %7 : int32
%10 = REDUCE %9 %4 op=ADD : int32
%11 = STORE %2 %10 : void
%12 = SINK %11 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["bound_lower"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(k, r.root, sweep("lo", {-3, 0, 4, 10, 14}));
}

// where(!(r < lo) & (r < hi), 3, 0), the negation spelled r<lo XOR true; and the same with
// the negation on the outside: where(!(r < lo), 3, 0) (swapped to the lower-bound form).
TEST_F(ReduceRules, BoundTwoSidedCollapses) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = VAR name=lo min=-3 max=14 : index
%6 = VAR name=hi min=-3 max=14 : index
%7 = CMPLT %4 %5 : bool
%8 = CONST true : bool
%9 = XOR %7 %8 : bool
%10 = CMPLT %4 %6 : bool
%11 = AND %9 %10 : bool
%12 = CONST 3 : int32
%13 = CONST 0 : int32
%14 = WHERE %11 %12 %13 : int32
%15 = REDUCE %14 %4 op=ADD : int32
%16 = STORE %2 %15 : void
%17 = CONST 1 : index
%18 = INDEX %0 %17 : int32
%19 = RANGE %3 axis=1 REDUCE : index
%20 = CMPLT %19 %5 : bool
%21 = CMPNE %20 %8 : bool
%22 = WHERE %21 %12 %13 : int32
%23 = REDUCE %22 %19 op=ADD : int32
%24 = STORE %18 %23 : void
%25 = SINK %16 %24 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["bound_two_sided"], 1u);
  EXPECT_GE(st_.nested_hits["where_not_swap"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  std::vector<Vars> vs;
  for (int64_t lo : {-3, 0, 2, 9, 14})
    for (int64_t hi : {-3, 0, 5, 10, 14}) vs.push_back({{"lo", lo}, {"hi", hi}});
  expect_same(k, r.root, vs, 1);
}

// A float v: float(i) * 0.375 for a loaded i (exact), v * 0 (signed zeros) and inf: a
// sum of zero terms is +0 even when the term is inf, and a sum is never -0.
TEST_F(ReduceRules, BoundWithFloatValuesIsExact) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=3 out : float32
%1 = CONST 0 : index
%2 = PARAM slot=1 size=1 in vmin=-8 vmax=8 : int32
%3 = INDEX %2 %1 : int32
%4 = LOAD %3 : int32
%40 = CAST %4 : float32
%41 = CONST 0.375 : float32
%42 = MUL %40 %41 : float32
%5 = CONST 0 : float32
%6 = MUL %42 %5 : float32
%7 = CONST inf : float32
%8 = CONST 10 : index
%9 = VAR name=cut min=-2 max=12 : index
%10 = RANGE %8 axis=0 REDUCE : index
%11 = CMPLT %10 %9 : bool
%12 = WHERE %11 %42 %5 : float32
%13 = REDUCE %12 %10 op=ADD : float32
%14 = INDEX %0 %1 : float32
%15 = STORE %14 %13 : void
%16 = RANGE %8 axis=1 REDUCE : index
%17 = CMPLT %16 %9 : bool
%18 = WHERE %17 %6 %5 : float32
%19 = REDUCE %18 %16 op=ADD : float32
%20 = CONST 1 : index
%21 = INDEX %0 %20 : float32
%22 = STORE %21 %19 : void
%23 = RANGE %8 axis=2 REDUCE : index
%24 = CMPLT %23 %9 : bool
%25 = WHERE %24 %7 %5 : float32
%26 = REDUCE %25 %23 op=ADD : float32
%27 = CONST 2 : index
%28 = INDEX %0 %27 : float32
%29 = STORE %28 %26 : void
%30 = SINK %15 %22 %29 : void
)");
  UOp s = reduce_simplify(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s, sweep("cut", {-2, 0, 1, 5, 12}), 6);
}

// Gate (ours): a float bound sum must be exact: sum_r where(r < cut, 0.1, 0) rounds at
// each step, and a loaded float is unknown. Both stay.
TEST_F(ReduceRules, BoundRefusesAFloatSumItCannotProveExact) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = VAR name=cut min=0 max=12 : index
%6 = CMPLT %4 %5 : bool
%7 = CONST 0.1 : float32
%8 = CONST 0 : float32
%9 = WHERE %6 %7 %8 : float32
%10 = REDUCE %9 %4 op=ADD : float32
%11 = STORE %2 %10 : void
%12 = PARAM slot=1 size=1 in : float32
%13 = INDEX %12 %1 : float32
%14 = LOAD %13 : float32
%15 = RANGE %3 axis=1 REDUCE : index
%16 = CMPLT %15 %5 : bool
%17 = WHERE %16 %14 %8 : float32
%18 = REDUCE %17 %15 op=ADD : float32
%19 = CONST 1 : index
%20 = INDEX %0 %19 : float32
%21 = STORE %20 %18 : void
%22 = SINK %11 %21 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_collapse"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 2);
  expect_same(k, r.root, sweep("cut", {0, 7, 12}), 2);
}

// Gates of the bound rules: v holds the range; the bound holds the range.
TEST_F(ReduceRules, BoundRefusesRangeDependentValueOrBound) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CONST 4 : index
%6 = CMPLT %4 %5 : bool
%7 = CAST %4 : int32
%8 = CONST 0 : int32
%9 = WHERE %6 %7 %8 : int32
%10 = REDUCE %9 %4 op=ADD : int32
%11 = STORE %2 %10 : void
%12 = PARAM slot=1 size=10 in vmin=0 vmax=10 : int32
%13 = RANGE %3 axis=1 REDUCE : index
%14 = INDEX %12 %13 : int32
%15 = LOAD %14 : int32
%16 = CAST %15 : index
%17 = CMPLT %13 %16 : bool
%18 = CONST 3 : int32
%19 = WHERE %17 %18 %8 : int32
%20 = REDUCE %19 %13 op=ADD : int32
%21 = CONST 1 : index
%22 = INDEX %0 %21 : int32
%23 = STORE %22 %20 : void
%24 = SINK %11 %23 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_collapse"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 2);
  expect_same(k, r.root);
}

TEST_F(ReduceRules, BoundOffByOneBugChangesTheWindowSum) {
  UOp k = example("window_sum");
  UOp bad = reduce_simplify(k, BugSet().enable(Bug::BoundOffByOne));
  EXPECT_TRUE(differs(k, bad, sweep("cut", {7})));
  expect_same(k, reduce_simplify(k), sweep("cut", {7}));
}

// A bound rule under an outer LOOP range: out[i] = sum_r where(r < i, 3, 0) = 3i.
TEST_F(ReduceRules, CollapseReplacesOuterRangesByBoundedTemporaries) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CONST 10 : index
%5 = RANGE %4 axis=1 REDUCE : index
%6 = CMPLT %5 %2 : bool
%7 = CONST 3 : int32
%8 = CONST 0 : int32
%9 = WHERE %6 %7 %8 : int32
%10 = REDUCE %9 %5 op=ADD : int32
%11 = STORE %3 %10 : void
%12 = END %11 %2 : void
%13 = SINK %12 : void
)");
  UOp s = reduce_simplify(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  EXPECT_EQ(count_op(s, Op::Range), 1);
  for (UOp u : toposort(s))
    EXPECT_FALSE(u.op() == Op::Var) << "a temporary leaked: " << print_graph(s);
  expect_same(k, s);
  EXPECT_EQ(out0(s, {}, 3).i, 9);
}

// (x + y) < c -> x < c - y: where((r + k) < 7, 2, 0) and the same through a cast to int32.
TEST_F(ReduceRules, LiftAddLtExposesTheBound) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = VAR name=k min=-5 max=5 : index
%6 = ADD %4 %5 : index
%7 = CONST 7 : index
%8 = CMPLT %6 %7 : bool
%9 = CONST 2 : int32
%10 = CONST 0 : int32
%11 = WHERE %8 %9 %10 : int32
%12 = REDUCE %11 %4 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = RANGE %3 axis=1 REDUCE : index
%15 = CAST %14 : int32
%16 = CAST %5 : int32
%17 = ADD %15 %16 : int32
%18 = CAST %17 : index
%19 = CMPLT %18 %7 : bool
%20 = WHERE %19 %9 %10 : int32
%21 = REDUCE %20 %14 op=ADD : int32
%22 = CONST 1 : index
%23 = INDEX %0 %22 : int32
%24 = STORE %23 %21 : void
%25 = SINK %13 %24 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["lift_add_lt"], 2u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(k, r.root, sweep("k", {-5, -1, 0, 3, 5}), 1);
}

// Gate: (x + y) < c with a sized y that may wrap is not lifted: int8 r + 120.
TEST_F(ReduceRules, LiftAddLtRefusesAWrappingSum) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CAST %4 : int8
%6 = CONST 120 : int8
%7 = ADD %5 %6 : int8
%8 = CONST 125 : int8
%9 = CMPLT %7 %8 : bool
%10 = CONST 2 : int32
%11 = CONST 0 : int32
%12 = WHERE %9 %10 %11 : int32
%13 = REDUCE %12 %4 op=ADD : int32
%14 = STORE %2 %13 : void
%15 = SINK %14 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(st_.nested_hits.count("lift_add_lt"), 0u);
  expect_same(k, r.root);
}

// x * y < c -> x < (c + y - 1) // y for y > 0: r * 3 < 15, and r * y < c with VARs.
TEST_F(ReduceRules, LiftMulLtExposesTheBound) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CONST 3 : index
%6 = MUL %4 %5 : index
%7 = CONST 15 : index
%8 = CMPLT %6 %7 : bool
%9 = CONST 2 : int32
%10 = CONST 0 : int32
%11 = WHERE %8 %9 %10 : int32
%12 = REDUCE %11 %4 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = RANGE %3 axis=1 REDUCE : index
%15 = VAR name=y min=1 max=4 : index
%16 = VAR name=c min=-5 max=30 : index
%17 = MUL %14 %15 : index
%18 = CMPLT %17 %16 : bool
%19 = WHERE %18 %9 %10 : int32
%20 = REDUCE %19 %14 op=ADD : int32
%21 = CONST 1 : index
%22 = INDEX %0 %21 : int32
%23 = STORE %22 %20 : void
%24 = SINK %13 %23 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["lift_mul_lt"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  EXPECT_EQ(out0(r.root, {{"y", 1}, {"c", 0}}).i, 10);  // r*3 < 15: r < 5, 5 terms of 2
  std::vector<Vars> vs;
  for (int64_t y : {1, 2, 4})
    for (int64_t c : {-5, -1, 0, 1, 7, 30}) vs.push_back({{"y", y}, {"c", c}});
  expect_same(k, r.root, vs, 1);
}

// Gate: y.vmin > 0. The planted bug drops it: y = -1 flips the comparison, y = 0 divides by zero.
TEST_F(ReduceRules, LiftMulLtRefusesANonPositiveFactor) {
  UOp k = example("lift_mul_negative");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_collapse"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 1);
  auto vs = sweep("y", {-2, -1, 0, 1, 3});
  expect_same(k, r.root, vs, 1);
  UOp bad = reduce_simplify(k, BugSet().enable(Bug::LiftMulNonPositive));
  EXPECT_TRUE(differs(k, bad, vs, 1));
}

// sum(x + y) -> sum(x) + sum(y): the bound half and the constant half both collapse.
TEST_F(ReduceRules, SplitAddCollapsesBothHalves) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = VAR name=cut min=0 max=12 : index
%6 = CMPLT %4 %5 : bool
%7 = CONST 2 : int32
%8 = CONST 0 : int32
%9 = WHERE %6 %7 %8 : int32
%10 = CONST 5 : int32
%11 = ADD %9 %10 : int32
%12 = REDUCE %11 %4 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = SINK %13 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["reduce_split_add"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(k, r.root, sweep("cut", {0, 4, 12}), 1);
}

// Gate: an index sum split in two must not overflow where the whole did not. With loaded
// int64 terms a and b the halves a * 4 and b * 4 could (a = 2^62, b = -2^62), so no split.
TEST_F(ReduceRules, SplitAddRefusesAnIndexSumThatMayOverflow) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int64
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int64
%3 = PARAM slot=1 size=2 in : int64
%4 = INDEX %3 %1 : int64
%5 = LOAD %4 : int64
%6 = CAST %5 : index
%7 = CONST 1 : index
%8 = INDEX %3 %7 : int64
%9 = LOAD %8 : int64
%10 = CAST %9 : index
%11 = ADD %6 %10 : index
%12 = CONST 4 : index
%13 = RANGE %12 axis=0 REDUCE : index
%14 = REDUCE %11 %13 op=ADD : index
%15 = CAST %14 : int64
%16 = STORE %2 %15 : void
%17 = SINK %16 : void
)");
  auto r = apply(k, pm_reduce_collapse());
  EXPECT_EQ(r.hits.count("reduce_split_add"), 0u);
  // ...while the unparented rule may still take the whole sum (a + b) * 4.
  UOp s = reduce_simplify(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s);
}

// A range whose end is computed (2n) becomes a bounded temporary inside the collapse and
// is put back in the closed form.
TEST_F(ReduceRules, CollapseWithAComputedEnd) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = VAR name=n min=0 max=6 : index
%4 = CONST 2 : index
%5 = MUL %3 %4 : index
%6 = RANGE %5 axis=0 REDUCE : index
%7 = VAR name=lo min=-2 max=14 : index
%8 = CMPLT %6 %7 : bool
%9 = CONST 5 : int32
%10 = CONST 0 : int32
%11 = WHERE %8 %10 %9 : int32
%12 = REDUCE %11 %6 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = SINK %13 : void
)");
  UOp s = reduce_simplify(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  std::vector<Vars> vs;
  for (int64_t n : {0, 1, 3, 6})
    for (int64_t lo : {-2, 0, 3, 14}) vs.push_back({{"n", n}, {"lo", lo}});
  expect_same(k, s, vs, 1);
}

// The upstream multi-range reduce: pm_reduce_collapse alone turns sum over r1 < 3, r2 < 4
// of float(r1) + float(r2) into an ADD of two one-range sums (times 4 and times 3) = 30.
TEST_F(ReduceRules, MultiRangeFloatSumDistributesToAnAdd) {
  UOp k = example("multi_range_float_sum");
  UOp red;
  for (UOp u : toposort(k))
    if (u.op() == Op::Reduce) red = u;
  ASSERT_TRUE(red);
  UOp got = apply(red, pm_reduce_collapse()).root;
  // Our float sums end in "+ 0.0" (a sum is never -0), so the root is an ADD either way;
  // look through it to the sum of the two halves.
  ASSERT_EQ(got.op(), Op::Add) << print_graph(got);
  UOp k2 = substitute(ctx_, k, {{red, got}});
  int reduces = 0;
  for (UOp u : toposort(k2)) {
    if (u.op() != Op::Reduce) continue;
    ++reduces;
    EXPECT_EQ(u.num_src(), 2u) << "each remaining sum is over one range";
  }
  EXPECT_EQ(reduces, 2);
  expect_same(k, k2);
  EXPECT_EQ(out0(k2).f, 30.0);
  // In the kernel-graph stage the collapse gives up (a sum of float(r) has no closed
  // form here), and the result stays 30.
  UOp s = reduce_simplify(k);
  expect_same(k, s);
}

// (p & (r < 3)).where(2, 0) with a loaded bool p: p ? 2 * 3 : 0.
TEST_F(ReduceRules, AndGateMovesTheRangeFreeConditionOut) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size=1 in : bool
%4 = INDEX %3 %1 : bool
%5 = LOAD %4 : bool
%6 = CONST 10 : index
%7 = RANGE %6 axis=0 REDUCE : index
%8 = CONST 3 : index
%9 = CMPLT %7 %8 : bool
%10 = AND %5 %9 : bool
%11 = CONST 2 : int32
%12 = CONST 0 : int32
%13 = WHERE %10 %11 %12 : int32
%14 = REDUCE %13 %7 op=ADD : int32
%15 = STORE %2 %14 : void
%16 = SINK %15 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["reduce_and_gate"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(k, r.root, {{}}, 8);
}

// x * cast(gate) -> gate.where(x, 0): integers always; floats for a constant x only.
TEST_F(ReduceRules, MulCastedBoolBecomesAWhere) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = VAR name=cut min=0 max=12 : index
%6 = CMPLT %4 %5 : bool
%7 = CAST %6 : int32
%8 = PARAM slot=1 size=1 in : int32
%9 = INDEX %8 %1 : int32
%10 = LOAD %9 : int32
%11 = MUL %10 %7 : int32
%12 = REDUCE %11 %4 op=ADD : int32
%13 = STORE %2 %12 : void
%14 = PARAM slot=2 size=1 out : float32
%15 = INDEX %14 %1 : float32
%16 = RANGE %3 axis=1 REDUCE : index
%17 = CMPLT %16 %5 : bool
%18 = CAST %17 : float32
%19 = CONST -2.5 : float32
%20 = MUL %19 %18 : float32
%21 = REDUCE %20 %16 op=ADD : float32
%22 = STORE %15 %21 : void
%23 = SINK %13 %22 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(st_.nested_hits["mul_casted_bool"], 2u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(k, r.root, sweep("cut", {0, 3, 12}), 3);
}

// Gate: a non-constant float x stays x * float(g): with g false that is -0 (x < 0) or NaN
// (x = inf), where a WHERE would give +0.
TEST_F(ReduceRules, MulCastedBoolRefusesANonConstantFloat) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size=1 in : float32
%4 = INDEX %3 %1 : float32
%5 = LOAD %4 : float32
%6 = PARAM slot=2 size=1 in : bool
%7 = INDEX %6 %1 : bool
%8 = LOAD %7 : bool
%9 = CAST %8 : float32
%10 = MUL %5 %9 : float32
%11 = STORE %2 %10 : void
%12 = SINK %11 : void
)");
  auto r = apply(k, pm_reduce_collapse());
  EXPECT_EQ(r.hits.count("mul_casted_bool"), 0u);
  EXPECT_EQ(r.root, k);
}

// sum of g.where(x, INVALID) -> g.where(sum x, INVALID) (an intermediate form only: the
// verifier allows a gated index nowhere but in an INDEX, so the graph is built in code).
TEST_F(ReduceRules, ReduceOfAGatedIndexMovesTheGateOut) {
  UOp n = ctx_.const_int(dtypes::Index, 8);
  UOp r = ctx_.make(Op::Range, dtypes::Index, {n}, RangeArg{{0}, AxisType::Reduce});
  UOp v = ctx_.make(Op::Var, dtypes::Index, {}, VarArg{"v", 0, 9, std::nullopt});
  UOp g = ctx_.alu(Op::CmpLt, {v, ctx_.const_int(dtypes::Index, 5)});
  UOp x = ctx_.alu(Op::Add, {r, v});
  UOp red = ctx_.make(Op::Reduce, dtypes::Index, {ctx_.alu(Op::Where, {g, x, ctx_.invalid()}), r},
                      ReduceArg{Op::Add});
  auto res = apply(red, pm_reduce_collapse());
  EXPECT_GE(res.hits["reduce_where_invalid"], 1u);
  ASSERT_EQ(res.root.op(), Op::Where) << print_graph(res.root);
  EXPECT_EQ(res.root.src(0), g);
  EXPECT_EQ(res.root.src(2).op(), Op::Invalid);
  // Gate: a condition that holds the range stays inside.
  UOp gr = ctx_.alu(Op::CmpLt, {r, v});
  UOp w2 = ctx_.alu(Op::Where, {gr, x, ctx_.invalid()});
  UOp red2 = ctx_.make(Op::Reduce, dtypes::Index, {w2, r}, ReduceArg{Op::Add});
  auto res2 = apply(red2, pm_reduce_collapse());
  EXPECT_EQ(res2.hits.count("reduce_where_invalid"), 0u);
}

// Gate: a nested REDUCE that depends on the range stops the collapse of the outer one.
TEST_F(ReduceRules, CollapseGivesUpOnANestedReduce) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 4 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CONST 3 : index
%6 = RANGE %5 axis=1 REDUCE : index
%7 = ADD %4 %6 : index
%8 = CAST %7 : int32
%9 = REDUCE %8 %6 op=MAX : int32
%10 = REDUCE %9 %4 op=ADD : int32
%11 = STORE %2 %10 : void
%12 = SINK %11 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(r.hits.count("reduce_collapse"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 2);
  expect_same(k, r.root);
}

// The upstream arange form: sum_r0 (sum_r1 where(!((r0 + r1) < 9), 1, 0) - 1), ends 10.
// The inner sum collapses (lift, negation swap, lower bound) to a count of r0 + 1 terms;
// the outer sum of int(r0) over constant ends then folds too (to the constant 45).
TEST_F(ReduceRules, ArangeFormCollapsesTheInnerSum) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = RANGE %3 axis=1 REDUCE : index
%6 = ADD %4 %5 : index
%7 = CONST 9 : index
%8 = CMPLT %6 %7 : bool
%9 = CONST true : bool
%10 = XOR %8 %9 : bool
%11 = CONST 1 : int32
%12 = CONST 0 : int32
%13 = WHERE %10 %11 %12 : int32
%14 = REDUCE %13 %5 op=ADD : int32
%15 = SUB %14 %11 : int32
%16 = REDUCE %15 %4 op=ADD : int32
%17 = STORE %2 %16 : void
%18 = SINK %17 : void
)");
  auto r = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_GE(r.hits["reduce_collapse"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0) << print_graph(r.root);
  expect_same(k, r.root, {{}}, 1);
  EXPECT_EQ(out0(r.root).i, 45);
}

// Gate (ours): reduce_collapse does not close a loop that may run zero times over a body
// that can fault: sum over r < n of where(r < 3, 12 / d, 0) with n = 0, d = 0 evaluates
// nothing, while count * (12 / d) divides by zero. The planted CollapseZeroTrip does.
TEST_F(ReduceRules, CollapseRefusesAZeroTripLoopOverAFaultingBody) {
  UOp k = example("collapse_zero_trip");
  std::vector<Vars> at_zero = {{{"n", 0}, {"d", 0}}};
  auto faithful = apply(k, pm_reduce_simplify() + symbolic());
  EXPECT_EQ(faithful.hits.count("reduce_collapse"), 0u);
  expect_same(k, faithful.root, at_zero, 1);
  auto bad = apply(k, pm_reduce_simplify() + symbolic(), BugSet().enable(Bug::CollapseZeroTrip));
  EXPECT_EQ(bad.hits["reduce_collapse"], 1u);
  EXPECT_TRUE(differs(k, bad.root, at_zero, 1)) << print_graph(bad.root);
}

}  // namespace
}  // namespace uopfuzz::simplifier
