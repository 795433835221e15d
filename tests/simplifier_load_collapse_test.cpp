// pm_load_collapse and pm_reduce_load_collapse (simplifier/load_collapse.cpp), and the
// reduce rules inside the whole pipeline: for every rule a case where it fires and, for
// every gate, a case where it must refuse, checked on the oracle and by structure.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "reduce_rules.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;
using namespace reduce_rules;

// ======================================================================================
// pm_load_collapse / pm_reduce_load_collapse

TEST_F(ReduceRules, GatherCollapsesToOneAccess) {
  UOp k = example("gather_sum");
  auto r = apply(k, pm_load_collapse() + symbolic());
  EXPECT_EQ(r.hits["load_collapse"], 1u);
  EXPECT_GE(st_.nested_hits["gather_ne"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  EXPECT_EQ(count_op(r.root, Op::Range), 0);
  expect_same(k, r.root);
  EXPECT_EQ(out0(r.root).f, 6.0);
}

// idx anywhere in [-3, 12] against a table of 8: out-of-range indexes select nothing, and
// the collapsed access never reads outside the table (its INDEX is gated).
TEST_F(ReduceRules, GatherKeepsTheBoundsCheckAndGatesTheLoad) {
  const char* text = R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size=1 in vmin=-3 vmax=12 : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CAST %5 : index
%7 = CONST 8 : index
%8 = RANGE %7 axis=0 REDUCE : index
%9 = CMPNE %8 %6 : bool
%10 = CONST 0 : float32
%11 = PARAM slot=2 size=8 in : float32
%12 = INDEX %11 %8 : float32
%13 = LOAD %12 : float32
%14 = CONST 2 : float32
%15 = MUL %13 %14 : float32
%16 = WHERE %9 %10 %15 : float32
%17 = REDUCE %16 %8 op=ADD : float32
%18 = STORE %2 %17 : void
%19 = SINK %18 : void
)";
  UOp k = parse(text);
  UOp s = load_collapse(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  bool gated = false;
  for (UOp u : toposort(s))
    if (u.op() == Op::Index && u.src(0).arg<ParamArg>().slot == 2)
      gated = u.src(1).op() == Op::Where && u.src(1).src(2).op() == Op::Invalid;
  EXPECT_TRUE(gated) << print_graph(s);
  expect_same(k, s, {{}}, 24);
  // The planted bug drops the check: some index reads outside the table.
  UOp bad = load_collapse(k, BugSet().enable(Bug::GatherNoBoundsCheck));
  EXPECT_TRUE(differs(k, bad, {{}}, 24));
}

TEST_F(ReduceRules, GatherOutOfRangeIndexSelectsNothing) {
  UOp k = example("gather_oob");  // input seeds 5..7 load an idx outside [0, 8)
  UOp s = load_collapse(k);
  EXPECT_EQ(count_op(s, Op::Reduce), 0);
  expect_same(k, s, {{}}, 3, 5);
  EXPECT_EQ(out0(s, {}, 0, 5).i, 0);
  EXPECT_TRUE(differs(k, load_collapse(k, BugSet().enable(Bug::GatherNoBoundsCheck)), {{}}, 3, 5));
}

// Gates of the gather: an end that may be 0 (the clamped access would evaluate a point the
// loop never produced), and an index that depends on the range.
TEST_F(ReduceRules, GatherRefusesAnEmptyRangeOrARangeDependentIndex) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size=8 in vmin=0 vmax=7 : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CAST %5 : index
%7 = VAR name=n min=0 max=8 : index
%8 = RANGE %7 axis=0 REDUCE : index
%9 = CMPNE %6 %8 : bool
%10 = CONST 0 : int32
%11 = CAST %8 : int32
%12 = WHERE %9 %10 %11 : int32
%13 = REDUCE %12 %8 op=ADD : int32
%14 = STORE %2 %13 : void
%15 = CONST 8 : index
%16 = RANGE %15 axis=1 REDUCE : index
%17 = INDEX %3 %16 : int32
%18 = LOAD %17 : int32
%19 = CAST %18 : index
%20 = CMPNE %19 %16 : bool
%21 = CAST %16 : int32
%22 = WHERE %20 %10 %21 : int32
%23 = REDUCE %22 %16 op=ADD : int32
%24 = CONST 1 : index
%25 = INDEX %0 %24 : int32
%26 = STORE %25 %23 : void
%27 = SINK %14 %26 : void
)");
  auto r = apply(k, pm_load_collapse() + symbolic());
  EXPECT_EQ(r.hits.count("load_collapse"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 2);
  expect_same(k, r.root, sweep("n", {0, 3, 8}), 2);
}

// tinygrad compares in int32: WHERE(idx != int32(r), 0, e). The cast keeps every r, so
// the gather collapses as on a bare range.
TEST_F(ReduceRules, GatherThroughALosslessCastCollapses) {
  for (const char* name : {"embedding_lookup", "gather_tensor_index", "arange_mod_index"}) {
    UOp k = example(name);
    auto r = apply(k, pm_load_collapse() + symbolic());
    EXPECT_GE(st_.nested_hits["gather_ne"], 1u) << name;
    EXPECT_EQ(count_op(r.root, Op::Reduce), 0) << name << print_graph(r.root);
    expect_same(k, r.root, {{}}, 8);
  }
}

// sum over r < end of WHERE(idx != int8(r), 0, float(r)), idx an int8 in [lo, hi].
std::string int8_gather(int end, int lo, int hi) {
  return fmt::format(R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size=1 in vmin={} vmax={} : int8
%4 = INDEX %3 %1 : int8
%5 = LOAD %4 : int8
%6 = CONST {} : index
%7 = RANGE %6 axis=0 REDUCE : index
%8 = CAST %7 : int8
%9 = CMPNE %5 %8 : bool
%10 = CONST 0 : float32
%11 = CAST %7 : float32
%12 = WHERE %9 %10 %11 : float32
%13 = REDUCE %12 %7 op=ADD : float32
%14 = STORE %2 %13 : void
%15 = SINK %14 : void
)",
                     lo, hi, end);
}

// Gate: the cast must keep every value of the range. int8(r) for r < 128 does; for
// r < 200 it wraps (int8(196) == -60), so idx = -60 selects r = 196, and the collapse,
// which compares index(idx) with r, would select nothing: it must not fire.
TEST_F(ReduceRules, GatherRefusesALossyCast) {
  UOp fits = parse(int8_gather(128, -100, 127));
  auto r = apply(fits, pm_load_collapse() + symbolic());
  EXPECT_GE(st_.nested_hits["gather_ne"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(fits, r.root, {{}}, 16);

  UOp wraps = parse(int8_gather(200, -100, -57));
  r = apply(wraps, pm_load_collapse() + symbolic());
  EXPECT_EQ(st_.nested_hits.count("gather_ne"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 1);
  expect_same(wraps, r.root, {{}}, 16);
  // What firing would compute: the same gather on index(idx) and the bare range.
  std::string text = int8_gather(200, -100, -57);
  text.replace(text.find("%8 = CAST %7 : int8"), 19, "%8 = CAST %5 : index");
  text.replace(text.find("%9 = CMPNE %5 %8"), 16, "%9 = CMPNE %8 %7");
  UOp bare = parse(text);
  UOp fired = load_collapse(bare);
  EXPECT_EQ(count_op(fired, Op::Reduce), 0);
  EXPECT_TRUE(differs(wraps, fired, {{}}, 16));
  EXPECT_NE(out0(wraps).f, 0.0);  // the original picks a wrapped r
}

// Gate: a gated-off load reads 0, which the table (vmin=1) never holds. An op above it that
// is undefined on some values (a float-to-int cast of 0 - 1, a division by 0) would make
// the always-evaluated e undefined where idx is outside [0, 8): the gather must not fire.
// The cast case is what a default campaign found (uint32(float(0) - 1)).
TEST_F(ReduceRules, GatherRefusesAnOpThatFaultsOnAGatedOffRead) {
  // e is %14..%17, on the table read %13.
  auto gather_of = [](const std::string& e_lines) {
    return R"(
%0 = PARAM slot=0 size=1 out : uint32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : uint32
%3 = PARAM slot=1 size=1 in vmin=-3 vmax=12 : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CAST %5 : index
%7 = CONST 8 : index
%8 = RANGE %7 axis=0 REDUCE : index
%9 = CMPNE %8 %6 : bool
%10 = CONST 0 : uint32
%11 = PARAM slot=2 size=8 in vmin=1 vmax=20 : uint32
%12 = INDEX %11 %8 : uint32
%13 = LOAD %12 : uint32
)" + e_lines +
           R"(%18 = WHERE %9 %10 %17 : uint32
%19 = REDUCE %18 %8 op=ADD : uint32
%20 = STORE %2 %19 : void
%21 = SINK %20 : void
)";
  };
  for (const char* e : {R"(%14 = CAST %13 : float32
%15 = CONST 1 : float32
%16 = SUB %14 %15 : float32
%17 = CAST %16 : uint32
)",
                        R"(%14 = CONST 100 : uint32
%15 = CONST 3 : uint32
%16 = ADD %13 %15 : uint32
%17 = CDIV %14 %13 : uint32
)"}) {
    UOp k = parse(gather_of(e));
    auto r = apply(k, pm_load_collapse() + symbolic());
    EXPECT_EQ(st_.nested_hits.count("gather_ne"), 0u) << e;
    expect_same(k, r.root, {{}}, 16);
  }
  // A total op above the read (an unsigned add) still collapses, and stays exact.
  UOp total = parse(gather_of(R"(%14 = CONST 100 : uint32
%15 = CONST 3 : uint32
%16 = MUL %13 %15 : uint32
%17 = ADD %16 %14 : uint32
)"));
  auto r = apply(total, pm_load_collapse() + symbolic());
  EXPECT_GE(st_.nested_hits["gather_ne"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(total, r.root, {{}}, 16);
}

// (x + y) != c -> x != c - y exposes the gather: sum_r where(r + k != idx, 0, table[r]).
TEST_F(ReduceRules, LiftAddNeExposesTheGather) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size=1 in vmin=-3 vmax=12 : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CAST %5 : index
%7 = CONST 8 : index
%8 = RANGE %7 axis=0 REDUCE : index
%9 = VAR name=k min=0 max=3 : index
%10 = ADD %8 %9 : index
%11 = CMPNE %10 %6 : bool
%12 = CONST 0 : int32
%13 = PARAM slot=2 size=8 in : int32
%14 = INDEX %13 %8 : int32
%15 = LOAD %14 : int32
%16 = WHERE %11 %12 %15 : int32
%17 = REDUCE %16 %8 op=ADD : int32
%18 = STORE %2 %17 : void
%19 = SINK %18 : void
)");
  auto r = apply(k, pm_load_collapse() + symbolic());
  EXPECT_GE(st_.nested_hits["lift_add_ne"], 1u);
  EXPECT_GE(st_.nested_hits["gather_ne"], 1u);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  expect_same(k, r.root, sweep("k", {0, 1, 3}), 16);
}

// The rule that keeps arithmetic off a loaded index: (load + 3) < c -> load < c - 3.
TEST_F(ReduceRules, LiftAddLtLoadMovesTheAdditionOffTheLoad) {
  UOp k = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size=1 in : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CAST %5 : index
%7 = CONST 3 : index
%8 = ADD %6 %7 : index
%9 = VAR name=c min=-10 max=10 : index
%10 = CMPLT %8 %9 : bool
%11 = CONST 1 : int32
%12 = CONST 0 : int32
%13 = WHERE %10 %11 %12 : int32
%14 = STORE %2 %13 : void
%15 = SINK %14 : void
)");
  auto r = apply(k, pm_load_collapse() + symbolic());
  EXPECT_EQ(r.hits["lift_add_lt_load"], 1u);
  for (UOp u : toposort(r.root)) {
    if (u.op() == Op::CmpLt) {
      EXPECT_EQ(u.src(0).op(), Op::Cast) << print_graph(r.root);
    }
  }
  expect_same(k, r.root, sweep("c", {-10, -2, 0, 5, 10}), 6);
  // Gate: no load on the left, nothing to do.
  UOp plain = parse(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = VAR name=x min=0 max=5 : index
%4 = CONST 3 : index
%5 = ADD %3 %4 : index
%6 = VAR name=c min=-10 max=10 : index
%7 = CMPLT %5 %6 : bool
%8 = CONST 1 : int32
%9 = CONST 0 : int32
%10 = WHERE %7 %8 %9 : int32
%11 = STORE %2 %10 : void
%12 = SINK %11 : void
)");
  EXPECT_EQ(apply(plain, pm_load_collapse() + symbolic()).hits.count("lift_add_lt_load"), 0u);
}

// pm_load_collapse only takes one-range sums.
TEST_F(ReduceRules, LoadCollapseTakesOneRangeSumsOnly) {
  UOp k = example("multi_range_float_sum");
  auto r = apply(k, pm_load_collapse() + symbolic());
  EXPECT_EQ(r.hits.count("load_collapse"), 0u);
  expect_same(k, r.root);
}

// ======================================================================================
// The rules inside the whole pipeline: every example that uses them still checks out.

TEST_F(ReduceRules, PipelineKeepsEveryReduceExampleRight) {
  for (const char* name :
       {"arange_sum", "arange_broadcast_sum", "arange_reshape_sum", "gather_sum", "gather_oob",
        "multi_range_float_sum", "shapeless_const_reduce", "unparented_add", "unparented_max",
        "unparented_mul", "window_sum", "collapse_zero_trip", "lift_mul_negative"}) {
    SCOPED_TRACE(name);
    auto parsed = parse_kernel(ctx_, read_example(name));
    ASSERT_TRUE(parsed.ok());
    Vars vars(parsed->kernel.header.vars.begin(), parsed->kernel.header.vars.end());
    for (bool optimize : {false, true}) {
      SimplifyOptions o;
      o.optimize = optimize;
      auto s = simplify(ctx_, parsed->kernel.root, o);
      EXPECT_TRUE(s.converged);
      expect_same(parsed->kernel.root, s.root, {vars}, 2);
    }
  }
}

}  // namespace
}  // namespace uopfuzz::simplifier
