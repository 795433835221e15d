// The loop plan and the kernel signature every executor shares: where a node is
// evaluated as loops open and close, what the compiled backends pin where it is
// demanded, and the input check's messages.

#include <gtest/gtest.h>

#include "ir/graph.h"
#include "ir/loop_plan.h"
#include "ir/parser.h"
#include "ir/signature.h"

namespace uopfuzz::ir {
namespace {

// out[i*4 + j] = in[j] + i*4 over two loops; n is a VAR bound on the outer loop.
const char* kNest =
    "%0 = PARAM slot=0 size=64 out : int32\n"
    "%1 = PARAM slot=1 size=4 in : int32\n"
    "%2 = VAR name=n min=1 max=16 : index\n"
    "%3 = RANGE %2 axis=0 LOOP : index\n"
    "%4 = CONST 4 : index\n"
    "%5 = RANGE %4 axis=1 LOOP : index\n"
    "%6 = MUL %3 %4 : index\n"
    "%7 = ADD %6 %5 : index\n"
    "%8 = INDEX %0 %7 : int32\n"
    "%9 = INDEX %1 %5 : int32\n"
    "%10 = LOAD %9 : int32\n"
    "%11 = CAST %6 : int32\n"
    "%12 = ADD %10 %11 : int32\n"
    "%13 = STORE %8 %12 : void\n"
    "%14 = END %13 %3 %5 : void\n"
    "%15 = SINK %14 : void\n";

class NestedLoops : public ::testing::Test {
 protected:
  void SetUp() override {
    auto k = parse_kernel(ctx_, kNest);
    ASSERT_TRUE(k.ok()) << k.error().message;
    topo_ = toposort(k->kernel.root);
  }
  Context ctx_;
  std::vector<UOp> topo_;
};

UOp find(const std::vector<UOp>& topo, Op op, int nth = 0) {
  for (UOp u : topo)
    if (u.op() == op && nth-- == 0) return u;
  return UOp();
}

TEST_F(NestedLoops, EachNodeIsEvaluatedInTheInnermostOpenLoopItDependsOn) {
  UOp outer = find(topo_, Op::Range, 0), inner = find(topo_, Op::Range, 1);
  ASSERT_EQ(outer.src(0).op(), Op::Var);
  UOp outer_only = find(topo_, Op::Mul);  // RANGE(n) * 4
  UOp both = find(topo_, Op::Add);        // depends on the two ranges
  LoopPlan plan(topo_, Pinning::None);
  plan.enter(outer);
  plan.enter(inner);
  ASSERT_EQ(plan.depth(), 3u);
  EXPECT_EQ(plan.home(outer.src(0), plan.depth()), 0u);  // a VAR: once, in the kernel's scope
  EXPECT_EQ(plan.home(outer_only, plan.depth()), 1u);    // hoisted out of the inner loop
  EXPECT_EQ(plan.home(both, plan.depth()), 2u);
  // Demanded from the outer loop alone, a node over both ranges cannot go deeper.
  EXPECT_EQ(plan.home(outer_only, 2), 1u);
}

TEST_F(NestedLoops, MemoryPinsLoadsAndTheirUsersWhereDemanded) {
  UOp outer = find(topo_, Op::Range, 0), inner = find(topo_, Op::Range, 1);
  UOp load = find(topo_, Op::Load);
  UOp sum = find(topo_, Op::Add, 1);  // LOAD + CAST
  ASSERT_EQ(sum.src(0), load);
  LoopPlan hoisting(topo_, Pinning::None), pinning(topo_, Pinning::Memory);
  for (LoopPlan* p : {&hoisting, &pinning}) {
    p->enter(outer);
    p->enter(inner);
  }
  EXPECT_FALSE(hoisting.pinned(load));
  EXPECT_TRUE(pinning.pinned(load));
  EXPECT_TRUE(pinning.pinned(sum));
  EXPECT_FALSE(pinning.pinned(find(topo_, Op::Mul)));
  // The load depends on the inner range only: the oracle hoists it there, a compiled
  // backend evaluates it where demanded (the same loop here, and no further out).
  EXPECT_EQ(hoisting.home(load, 3), 2u);
  EXPECT_EQ(pinning.home(load, 3), 2u);
  EXPECT_EQ(hoisting.home(load, 2), 0u);  // no open loop binds its range
  EXPECT_EQ(pinning.home(load, 2), 1u);   // pinned: where it is demanded
}

TEST_F(NestedLoops, KeysDifferAcrossScopesAndAcrossReopenedLoops) {
  UOp outer = find(topo_, Op::Range, 0), inner = find(topo_, Op::Range, 1);
  UOp mul = find(topo_, Op::Mul);
  LoopPlan plan(topo_, Pinning::None);
  plan.enter(outer);
  const uint64_t first = plan.key(mul, 1);
  EXPECT_NE(first, plan.key(mul, 0));
  plan.enter(inner);
  EXPECT_EQ(plan.key(mul, 1), first);  // the same evaluation seen from the inner loop
  LoopPlan::Suspended s = plan.suspend_above(0);
  EXPECT_EQ(plan.depth(), 1u);
  plan.resume(std::move(s));
  EXPECT_EQ(plan.depth(), 3u);
  EXPECT_EQ(plan.key(mul, 1), first);
  plan.leave();
  plan.leave();
  plan.enter(outer);  // a second loop over the same range is a new scope
  EXPECT_NE(plan.key(mul, 1), first);
}

TEST_F(NestedLoops, SignatureListsBuffersAndVarsInGraphOrderAndChecksInputs) {
  Signature sig = signature(topo_);
  ASSERT_EQ(sig.buffers.size(), 2u);
  EXPECT_EQ(sig.buffers[0].slot, 0);
  EXPECT_TRUE(sig.buffers[0].output);
  EXPECT_EQ(sig.buffers[1].slot, 1);
  EXPECT_EQ(sig.buffers[1].size, 4);
  ASSERT_EQ(sig.vars.size(), 1u);
  EXPECT_EQ(sig.vars[0].name, "n");
  EXPECT_EQ(sig.var_of.at(find(topo_, Op::Var)), 0u);
  EXPECT_EQ(sig.buffer_of.at(find(topo_, Op::Param, 1)), 1u);

  Inputs in;
  auto message = [&] {
    auto e = check_inputs(sig, in);
    return e ? e->message : std::string("fits");
  };
  EXPECT_EQ(message(), "no input buffer for PARAM slot 1");
  in.buffers.emplace(1, Buffer(dtypes::Int64, 4));
  EXPECT_EQ(message(), "input buffer for slot 1 must be 4 x int32, got 4 x int64");
  in.buffers.at(1) = Buffer(dtypes::Int32, 4);
  EXPECT_EQ(message(), "no value for VAR n (give one, e.g. --var n=1)");
  in.vars["n"] = 17;
  EXPECT_EQ(message(), "VAR n=17 is outside its bounds [1, 16]");
  in.vars["n"] = 16;
  EXPECT_EQ(message(), "fits");
}

}  // namespace
}  // namespace uopfuzz::ir
