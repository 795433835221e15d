// The reference's upstream cases, end to end through simplify(): each example kernel is
// rewritten to the form tinygrad reaches, and the rewrite still computes the same values.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bug_examples.h"
#include "simplifier_test_util.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;
using namespace testing;

Kernel example(Context& ctx, const std::string& name) {
  return parse_or_die(ctx, test_support::read_example(name));
}

// The value the kernel's single STORE writes, if it is a constant.
UOp stored_const(UOp root) {
  for (UOp u : toposort(root))
    if (u.op() == Op::Store && u.src(1).is_const()) return u.src(1);
  return UOp();
}

TEST(Upstream, ArangeSumStoresTheConstant45) {
  for (const char* name : {"arange_sum", "arange_rangeify_form"}) {
    SCOPED_TRACE(name);
    Context ctx;
    Kernel k = example(ctx, name);
    auto r = simplify(ctx, k.root);
    EXPECT_EQ(count_op(r.root, Op::Range), 0) << print_graph(r.root);
    EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
    UOp c = stored_const(r.root);
    ASSERT_TRUE(c);
    EXPECT_EQ(c.const_value().i, 45);
    expect_same_results(k.root, r.root);
  }
}

TEST(Upstream, ArangeFormCollapsesItsInnerSumWithoutFolding) {
  // With the constant fold off, the collapse rules alone still remove the inner REDUCE
  // (sum_r1 where(!(r0+r1 < 9), 1, 0) has a closed form in r0); the outer sum's closed
  // form (reduce_affine_sum) is off too, so the outer REDUCE shows the inner one went.
  Context ctx;
  Kernel k = example(ctx, "arange_rangeify_form");
  SimplifyOptions o;
  o.disabled = {"fold_reduce", "reduce_affine_sum"};
  auto r = simplify(ctx, k.root, o);
  EXPECT_EQ(count_op(k.root, Op::Reduce), 2);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 1);
  EXPECT_GE(r.hits["bound_lower"], 1u);
  expect_same_results(k.root, r.root);
}

TEST(Upstream, MultiRangeFloatSumIs30) {
  Context ctx;
  Kernel k = example(ctx, "multi_range_float_sum");
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  UOp c = stored_const(r.root);
  ASSERT_TRUE(c);
  EXPECT_EQ(c.const_value().f, 30.0);
  expect_same_results(k.root, r.root);
}

TEST(Upstream, ShapelessConstReduceWithoutOptimizationIs12) {
  Context ctx;
  Kernel k = example(ctx, "shapeless_const_reduce");
  SimplifyOptions o;
  o.optimize = false;
  auto r = simplify(ctx, k.root, o);
  EXPECT_EQ(count_op(r.root, Op::Reduce), 0);
  UOp c = stored_const(r.root);
  ASSERT_TRUE(c);
  EXPECT_EQ(c.const_value().f, 12.0);
}

TEST(Upstream, ArangeReshapeSumGives1_5_9) {
  Context ctx;
  Kernel k = example(ctx, "arange_reshape_sum");
  auto r = simplify(ctx, k.root);
  auto out = oracle::run(r.root, oracle::make_inputs(r.root, 0));
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->status, oracle::RunStatus::Ok);
  const Buffer& b = out->outputs.at(0);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b.get(0).i, 1);
  EXPECT_EQ(b.get(1).i, 5);
  EXPECT_EQ(b.get(2).i, 9);
}

TEST(Upstream, FoldReduceKeepsUndefinedBehaviour) {
  // sum over r < 4 of 12 / (r - 2) divides by zero at r = 2: not folded.
  Context ctx;
  Kernel k = parse_or_die(ctx, R"(%out = PARAM slot=0 size=1 out : int32
%c0 = CONST 0 : index
%at = INDEX %out %c0 : int32
%n = CONST 4 : index
%r = RANGE %n axis=0 REDUCE : index
%ri = CAST %r : int32
%c2 = CONST 2 : int32
%d = SUB %ri %c2 : int32
%c12 = CONST 12 : int32
%q = CDIV %c12 %d : int32
%sum = REDUCE %q %r op=ADD : int32
%st = STORE %at %sum : void
%s = SINK %st : void
)");
  auto r = simplify(ctx, k.root);
  EXPECT_EQ(r.hits.count("fold_reduce"), 0u);
  EXPECT_EQ(count_op(r.root, Op::Cdiv), 1);
}

}  // namespace
}  // namespace uopfuzz::simplifier
