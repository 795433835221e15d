// The reduce rules (simplifier/reduce_unparented.cpp, collapse.cpp, reduce.cpp,
// load_collapse.cpp): for every rule a case where it fires and, for every gate, a case
// where it must refuse. Results are checked on the oracle (original vs rewrite, several
// seeds and VAR values) and by structure (which REDUCE/RANGE nodes remain).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "bug_examples.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;
using Vars = std::map<std::string, int64_t>;

std::string read_example(const std::string& name) {
  std::string text = test_support::read_example(name);
  EXPECT_FALSE(text.empty()) << "missing example " << name;
  return text;
}

int count_op(UOp root, Op op) {
  int n = 0;
  for (UOp u : toposort(root)) n += u.op() == op;
  return n;
}

class ReduceRules : public ::testing::Test {
 protected:
  Context ctx_;
  SimplifyState st_;

  UOp parse(const std::string& text) {
    auto p = parse_kernel(ctx_, text);
    if (!p) {
      ADD_FAILURE() << "parse error at " << p.error().loc.line << ":" << p.error().loc.col << ": "
                    << p.error().message << "\n"
                    << text;
      return UOp();
    }
    return p->kernel.root;
  }
  UOp example(const std::string& name) { return parse(read_example(name)); }

  // fold_reduce (symbolic) would evaluate these small constant-trip REDUCEs outright;
  // it is switched off so the rules under test are what rewrites them.
  RewriteResult apply(UOp root, const RuleSet& rules, BugSet bugs = {}) {
    static const std::unordered_set<std::string> no_fold = {"fold_reduce"};
    st_ = SimplifyState();
    st_.bugs = bugs;
    st_.disabled = &no_fold;
    RewriteOptions o;
    o.state = &st_;
    o.disabled = &no_fold;
    RewriteResult r = graph_rewrite(ctx_, root, rules, o);
    EXPECT_TRUE(r.converged);
    return r;
  }
  // The kernel-graph stage's reduce rules, and the optimize-only load collapse.
  UOp reduce_simplify(UOp root, BugSet bugs = {}) {
    return apply(root, pm_reduce_simplify() + symbolic(), bugs).root;
  }
  UOp load_collapse(UOp root, BugSet bugs = {}) {
    return apply(root, pm_load_collapse() + symbolic(), bugs).root;
  }
  UOp unparented(UOp root, BugSet bugs = {}) {
    return apply(root, pm_reduce_unparented() + symbolic(), bugs).root;
  }

  static oracle::RunOutput run(UOp root, uint64_t seed, const Vars& vars) {
    auto in = oracle::make_inputs(root, seed, vars);
    auto out = oracle::run(root, in);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message) << "\n" << print_graph(root);
    return out.ok() ? std::move(out.value()) : oracle::RunOutput{};
  }

  // The rewrite verifies and agrees with the original on every seed and VAR assignment.
  static void expect_same(UOp original, UOp rewritten, const std::vector<Vars>& var_sets = {{}},
                          int seeds = 4, uint64_t base = 0) {
    auto errors = verify(rewritten);
    ASSERT_TRUE(errors.empty()) << "rewrite does not verify: " << errors[0].message << "\n"
                                << print_graph(rewritten);
    for (const Vars& vars : var_sets)
      for (uint64_t seed = base; seed < base + static_cast<uint64_t>(seeds); ++seed) {
        auto a = run(original, seed, vars);
        auto b = run(rewritten, seed, vars);
        ASSERT_EQ(a.status, oracle::RunStatus::Ok)
            << "the original itself has UB: " << (a.ub ? a.ub->what : "");
        ASSERT_EQ(b.status, oracle::RunStatus::Ok)
            << "UB introduced: " << (b.ub ? b.ub->what : "") << "\n"
            << print_graph(rewritten);
        for (const auto& [slot, buf] : a.outputs) {
          ASSERT_TRUE(b.outputs.count(slot));
          EXPECT_TRUE(buf == b.outputs.at(slot))
              << "output " << slot << " differs at seed " << seed << "\n"
              << print_graph(rewritten);
        }
      }
  }

  // Some seed / VAR assignment tells the rewrite apart: a verifier failure, UB the
  // original does not have, or a different output.
  static bool differs(UOp original, UOp rewritten, const std::vector<Vars>& var_sets = {{}},
                      int seeds = 4, uint64_t base = 0) {
    if (!verify(rewritten).empty()) return true;
    for (const Vars& vars : var_sets)
      for (uint64_t seed = base; seed < base + static_cast<uint64_t>(seeds); ++seed) {
        auto a = run(original, seed, vars);
        if (a.status != oracle::RunStatus::Ok) continue;
        auto b = run(rewritten, seed, vars);
        if (b.status != oracle::RunStatus::Ok) return true;
        for (const auto& [slot, buf] : a.outputs)
          if (!(buf == b.outputs.at(slot))) return true;
      }
    return false;
  }

  static Value out0(UOp root, const Vars& vars = {}, size_t i = 0, uint64_t seed = 0) {
    auto r = run(root, seed, vars);
    EXPECT_EQ(r.status, oracle::RunStatus::Ok);
    return r.outputs.count(0) ? r.outputs.at(0).get(i) : Value::of_int(-999);
  }
};

std::vector<Vars> sweep(const std::string& name, std::vector<int64_t> values) {
  std::vector<Vars> out;
  for (int64_t v : values) out.push_back({{name, v}});
  return out;
}

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
