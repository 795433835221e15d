// The effect walk every executor emits by (ir/effect_walk.h): a visitor that records the
// hooks the walk calls, on kernels whose order of events follows from the walk's rules and
// the loop plan's (ir/loop_plan.h): loops opened and closed around their bodies, a REDUCE's
// loops opened right inside its home, each value computed once in the scope it belongs to.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "ir/effect_walk.h"
#include "ir/graph.h"
#include "ir/parser.h"

namespace uopfuzz::ir {
namespace {

// Scopes are numbered as opened (0: the kernel's); values name their op and scope.
struct Recorder {
  using ScopeRef = int;
  using Operand = std::string;
  using Address = std::string;
  using Accumulator = std::string;

  TopLevel top_level(UOp u) const { return u.op() == Op::Store ? store_placement : end_placement; }
  int open_guard(int outer) {
    log.push_back(fmt("guard {} in {}", ++scopes, outer));
    return scopes;
  }
  void close_guard(int guard, int outer) {
    log.push_back(fmt("close guard {} into {}", guard, outer));
  }
  int open_loop(int outer, UOp range, const std::string& end, bool shared) {
    log.push_back(fmt("loop {} in {} over axis {} to {}{}", ++scopes, outer,
                      range.arg<RangeArg>().axis.at(0), end, shared ? " shared" : ""));
    return scopes;
  }
  void close_loops(std::span<const int> loops, int outer) {
    std::string ids;
    for (int l : loops) ids += fmt("{} ", l);
    log.push_back(fmt("close {}into {}", ids, outer));
  }
  std::string constant(int, UOp u) { return std::to_string(u.const_value().i); }
  std::string var(int, UOp u) { return u.arg<VarArg>().name; }
  std::string range(int s, UOp u) { return fmt("r{}@{}", u.arg<RangeArg>().axis.at(0), s); }
  std::string not_a_value(int, UOp u) { return std::string(op_name(u.op())); }
  std::string alu(int s, UOp u, const std::string* a) {
    std::string args;
    for (size_t i = 0; i < u.num_src(); ++i) args += (i ? "," : "") + a[i];
    return value(s, fmt("{}({})", op_name(u.op()), args));
  }
  std::string address(int s, UOp, const std::string* gate, const std::string& idx) {
    return value(s, gate ? fmt("[{} if {}]", idx, *gate) : fmt("[{}]", idx));
  }
  std::string load(int s, UOp, const std::string& a, const std::string* alt) {
    return value(s, fmt("LOAD {}{}", a, alt ? " else " + *alt : ""));
  }
  void store(int s, UOp, const std::string& a, const std::string& v) {
    log.push_back(fmt("STORE {} = {} @{}", a, v, s));
  }
  std::string reduce_begin(int home, UOp) { return value(home, "acc"); }
  void reduce_step(int innermost, UOp, std::string& acc, const std::string& v) {
    log.push_back(fmt("{} += {} @{}", acc, v, innermost));
  }
  std::string reduce_end(int home, UOp, std::string& acc, std::span<const int> loops) {
    close_loops(loops, home);
    return acc;
  }

  // Logs the computation of `what` in scope s; its users see a short name.
  std::string value(int s, const std::string& what) {
    std::string name = fmt("v{}", values++);
    log.push_back(fmt("{} = {} @{}", name, what, s));
    return name;
  }
  template <class... A>
  static std::string fmt(const char* f, const A&... a) {
    return ::fmt::format(::fmt::runtime(f), a...);
  }

  TopLevel store_placement = TopLevel::Inline, end_placement = TopLevel::Inline;
  std::vector<std::string> log;
  int scopes = 0, values = 0;
};

class EffectWalkTest : public ::testing::Test {
 protected:
  std::vector<std::string> walk(const char* text, Pinning pinning) {
    auto k = parse_kernel(ctx_, text);
    EXPECT_TRUE(k.ok()) << k.error().message;
    if (!k.ok()) return {};
    UOp root = k->kernel.root;
    EffectWalk<Recorder> w(rec_, LoopPlan(toposort(root), pinning), 0);
    auto e = w.run(root);
    EXPECT_FALSE(e) << e->message;
    return rec_.log;
  }
  Context ctx_;
  Recorder rec_;
};

// out[r0*4 + r1] = int32(r0*4): r0*4 is computed once per iteration of r0's loop, outside r1's.
const char* kNestedEnds =
    "%0 = PARAM slot=0 size=64 out : int32\n"
    "%1 = VAR name=n min=1 max=16 : index\n"
    "%2 = RANGE %1 axis=0 LOOP : index\n"
    "%3 = CONST 4 : index\n"
    "%4 = RANGE %3 axis=1 LOOP : index\n"
    "%5 = MUL %2 %3 : index\n"
    "%6 = ADD %5 %4 : index\n"
    "%7 = INDEX %0 %6 : int32\n"
    "%8 = CAST %5 : int32\n"
    "%9 = STORE %7 %8 : void\n"
    "%10 = END %9 %4 : void\n"
    "%11 = END %10 %2 : void\n"
    "%12 = SINK %11 : void\n";

TEST_F(EffectWalkTest, NestedEndsOpenTheirLoopsAroundTheBodyAndHoistInvariants) {
  const std::vector<std::string> expected = {
      "loop 1 in 0 over axis 0 to n",
      "loop 2 in 1 over axis 1 to 4",
      "v0 = MUL(r0@1,4) @1",
      "v1 = ADD(v0,r1@2) @2",
      "v2 = [v1] @2",
      "v3 = CAST(v0) @1",  // the same MUL: memoised, not recomputed
      "STORE v2 = v3 @2",
      "close 2 into 1",
      "close 1 into 0",
  };
  EXPECT_EQ(walk(kNestedEnds, Pinning::None), expected);
}

// out[r0*4 + r2] = sum over r1 < 3 of in[r0*3 + r1]: the REDUCE depends on r0 alone.
const char* kReduceInLoop =
    "%0 = PARAM slot=0 size=24 out : int32\n"
    "%1 = CONST 6 : index\n"
    "%2 = RANGE %1 axis=0 LOOP : index\n"
    "%3 = CONST 4 : index\n"
    "%4 = RANGE %3 axis=2 LOOP : index\n"
    "%5 = MUL %2 %3 : index\n"
    "%6 = ADD %5 %4 : index\n"
    "%7 = INDEX %0 %6 : int32\n"
    "%8 = PARAM slot=1 size=18 in : int32\n"
    "%9 = CONST 3 : index\n"
    "%10 = MUL %2 %9 : index\n"
    "%11 = RANGE %9 axis=1 REDUCE : index\n"
    "%12 = ADD %10 %11 : index\n"
    "%13 = INDEX %8 %12 : int32\n"
    "%14 = LOAD %13 : int32\n"
    "%15 = REDUCE %14 %11 op=ADD : int32\n"
    "%16 = STORE %7 %15 : void\n"
    "%17 = END %16 %4 : void\n"
    "%18 = END %17 %2 : void\n"
    "%19 = SINK %18 : void\n";

TEST_F(EffectWalkTest, AHoistedReduceOpensItsLoopInsideItsHomeNotWhereItIsDemanded) {
  // Demanded inside r2's loop (scope 2), placed in r0's (scope 1): r2's loop is set
  // aside while the REDUCE's loop is emitted, then its body goes on in scope 2.
  const std::vector<std::string> expected = {
      "loop 1 in 0 over axis 0 to 6",
      "loop 2 in 1 over axis 2 to 4",
      "v0 = MUL(r0@1,4) @1",
      "v1 = ADD(v0,r2@2) @2",
      "v2 = [v1] @2",
      "v3 = acc @1",
      "loop 3 in 1 over axis 1 to 3",
      "v4 = MUL(r0@1,3) @1",
      "v5 = ADD(v4,r1@3) @3",
      "v6 = [v5] @3",
      "v7 = LOAD v6 @3",
      "v3 += v7 @3",
      "close 3 into 1",
      "STORE v2 = v3 @2",
      "close 2 into 1",
      "close 1 into 0",
  };
  EXPECT_EQ(walk(kReduceInLoop, Pinning::None), expected);
}

TEST_F(EffectWalkTest, APinnedReduceStaysWhereItIsDemanded) {
  // Pinning::Memory: the LOAD, and the REDUCE of it, run only where an effect needs them.
  const std::vector<std::string> expected = {
      "loop 1 in 0 over axis 0 to 6",
      "loop 2 in 1 over axis 2 to 4",
      "v0 = MUL(r0@1,4) @1",
      "v1 = ADD(v0,r2@2) @2",
      "v2 = [v1] @2",
      "v3 = acc @2",
      "loop 3 in 2 over axis 1 to 3",
      "v4 = MUL(r0@1,3) @1",
      "v5 = ADD(v4,r1@3) @3",
      "v6 = [v5] @3",
      "v7 = LOAD v6 @3",
      "v3 += v7 @3",
      "close 3 into 2",
      "STORE v2 = v3 @2",
      "close 2 into 1",
      "close 1 into 0",
  };
  EXPECT_EQ(walk(kReduceInLoop, Pinning::Memory), expected);
}

// A STORE outside every loop and an END over n, both storing int32(n*2).
const char* kTwoEffects =
    "%0 = PARAM slot=0 size=1 out : int32\n"
    "%1 = PARAM slot=1 size=16 out : int32\n"
    "%2 = VAR name=n min=1 max=16 : index\n"
    "%3 = CONST 2 : index\n"
    "%4 = MUL %2 %3 : index\n"
    "%5 = CAST %4 : int32\n"
    "%6 = CONST 0 : index\n"
    "%7 = INDEX %0 %6 : int32\n"
    "%8 = STORE %7 %5 : void\n"
    "%9 = RANGE %2 axis=0 LOOP : index\n"
    "%10 = INDEX %1 %9 : int32\n"
    "%11 = STORE %10 %5 : void\n"
    "%12 = END %11 %9 : void\n"
    "%13 = SINK %8 %12 : void\n";

TEST_F(EffectWalkTest, EffectsRunInOrderAndShareWhatTheKernelScopeComputed) {
  rec_.store_placement = TopLevel::FirstThread;
  rec_.end_placement = TopLevel::Split;
  // n*2 depends on no range: computed once in the kernel's scope, outside the guard, and
  // reused by the END; the guard is closed before the END's loop opens.
  const std::vector<std::string> expected = {
      "guard 1 in 0",
      "v0 = [0] @1",
      "v1 = MUL(n,2) @0",
      "v2 = CAST(v1) @0",
      "STORE v0 = v2 @1",
      "close guard 1 into 0",
      "loop 2 in 0 over axis 0 to n shared",
      "v3 = [r0@2] @2",
      "STORE v3 = v2 @2",
      "close 2 into 0",
  };
  EXPECT_EQ(walk(kTwoEffects, Pinning::Memory), expected);
}

TEST_F(EffectWalkTest, AnythingButAStoreOrEndAmongTheEffectsIsRefused) {
  UOp c = ctx_.const_int(dtypes::Int32, 1);
  UOp sink = ctx_.make(Op::Sink, dtypes::Void, {c});
  EffectWalk<Recorder> w(rec_, LoopPlan(toposort(sink), Pinning::None), 0);
  auto e = w.run(sink);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, unexpected_effect(c));
}

}  // namespace
}  // namespace uopfuzz::ir
