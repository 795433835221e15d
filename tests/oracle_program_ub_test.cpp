// Whole-program tests of the oracle (oracle::Program) on kernels written as .uop text.
// Expected outputs are worked out by hand from SEMANTICS.md in the comment beside each.
// Here: undefined behaviour reports, demand-driven evaluation and inputs that do not fit.

#include <gtest/gtest.h>

#include <string>

#include "oracle_program.h"

namespace uopfuzz::oracle {
namespace {

using namespace ir;
using namespace program_test;

// ---------------------------------------------------------------------------------
// Undefined behaviour reports

// out[r] = in[r + OFF] over r < 8 with in of size 4.
std::string copy_kernel(int off) {
  return fmt::format(R"(
%out = PARAM slot=0 size=8 out : int32
%in = PARAM slot=1 size=4 in : int32
%c8 = CONST 8 : index
%off = CONST {} : index
%r = RANGE %c8 axis=0 LOOP : index
%ox = INDEX %out %r : int32
%i = ADD %r %off : index
%ix = INDEX %in %i : int32
%ld = LOAD %ix : int32
%st = STORE %ox %ld : void
%e = END %st %r : void
%s = SINK %e : void
)",
                     off);
}

TEST_F(OracleProgram, OutOfBoundsLoad) {
  Inputs in;
  in.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 2, 3, 4}));
  {
    const std::string text = copy_kernel(0);  // first bad index: r = 4
    UOp root = parse(text);
    RunOutput out = run(text, in);
    ASSERT_EQ(out.status, RunStatus::Ub);
    ASSERT_TRUE(out.ub);
    EXPECT_EQ(out.ub->node, unique(root, Op::Load));
    EXPECT_CONTAINS(out.ub->what, "out-of-bounds load");
    EXPECT_CONTAINS(out.ub->what, "index 4");
    ASSERT_EQ(out.ub->iteration.size(), 1u);
    EXPECT_EQ(out.ub->iteration[0].first, range_axis(root, 0));
    EXPECT_EQ(out.ub->iteration[0].second, 4);
  }
  {
    const std::string text = copy_kernel(-1);  // r = 0 reads in[-1]
    UOp root = parse(text);
    RunOutput out = run(text, in);
    ASSERT_EQ(out.status, RunStatus::Ub);
    EXPECT_EQ(out.ub->node, unique(root, Op::Load));
    EXPECT_CONTAINS(out.ub->what, "index -1");
    ASSERT_EQ(out.ub->iteration.size(), 1u);
    EXPECT_EQ(out.ub->iteration[0].second, 0);
  }
}

// out[r0*5 + r1] = 1 over r0 < 3, r1 < 5 into 12 elements: first bad index 12 at (2, 2).
TEST_F(OracleProgram, OutOfBoundsStoreInNestedLoops) {
  const std::string text = R"(
%out = PARAM slot=0 size=12 out : int32
%c3 = CONST 3 : index
%c5 = CONST 5 : index
%r0 = RANGE %c3 axis=0 LOOP : index
%r1 = RANGE %c5 axis=1 LOOP : index
%m = MUL %r0 %c5 : index
%i = ADD %m %r1 : index
%ox = INDEX %out %i : int32
%one = CONST 1 : int32
%st = STORE %ox %one : void
%e = END %st %r0 %r1 : void
%s = SINK %e : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  ASSERT_TRUE(out.ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Store));
  EXPECT_CONTAINS(out.ub->what, "out-of-bounds store");
  EXPECT_CONTAINS(out.ub->what, "index 12");
  ASSERT_EQ(out.ub->iteration.size(), 2u);
  EXPECT_EQ(out.ub->iteration[0].first, range_axis(root, 0));
  EXPECT_EQ(out.ub->iteration[0].second, 2);
  EXPECT_EQ(out.ub->iteration[1].first, range_axis(root, 1));
  EXPECT_EQ(out.ub->iteration[1].second, 2);
}

// out[r FLOORMOD 2] = r over r < 3: r = 2 stores out[0] a second time.
TEST_F(OracleProgram, DoubleStore) {
  const std::string text = R"(
%out = PARAM slot=0 size=2 out : int32
%c3 = CONST 3 : index
%c2 = CONST 2 : index
%r = RANGE %c3 axis=0 LOOP : index
%i = FLOORMOD %r %c2 : index
%ox = INDEX %out %i : int32
%v = CAST %r : int32
%st = STORE %ox %v : void
%e = END %st %r : void
%s = SINK %e : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Store));
  EXPECT_CONTAINS(out.ub->what, "stored twice");
  ASSERT_EQ(out.ub->iteration.size(), 1u);
  EXPECT_EQ(out.ub->iteration[0].second, 2);
}

// Two effects of the SINK storing the same element: the second is UB (no loop open).
TEST_F(OracleProgram, DoubleStoreAcrossEffects) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int32
%c0 = CONST 0 : index
%ox = INDEX %out %c0 : int32
%a = CONST 1 : int32
%b = CONST 2 : int32
%s1 = STORE %ox %a : void
%s2 = STORE %ox %b : void
%s = SINK %s1 %s2 : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  EXPECT_EQ(out.ub->node, root.src(1));
  EXPECT_TRUE(out.ub->iteration.empty());
}

// out[r] = 12 CDIV (int(r) - 2) over r < 4: division by zero at r = 2.
TEST_F(OracleProgram, DivisionByZeroReportsIteration) {
  const std::string text = R"(
%out = PARAM slot=0 size=4 out : int32
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 LOOP : index
%ox = INDEX %out %r : int32
%ri = CAST %r : int32
%two = CONST 2 : int32
%d = SUB %ri %two : int32
%twelve = CONST 12 : int32
%q = CDIV %twelve %d : int32
%st = STORE %ox %q : void
%e = END %st %r : void
%s = SINK %e : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  ASSERT_TRUE(out.ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Cdiv));
  EXPECT_CONTAINS(out.ub->what, "division by zero");
  ASSERT_EQ(out.ub->iteration.size(), 1u);
  EXPECT_EQ(out.ub->iteration[0].first, range_axis(root, 0));
  EXPECT_EQ(out.ub->iteration[0].second, 2);
}

// Inside a REDUCE the report names the reduce's own ranges: sum over r0 < 2, r1 < 4 of
// 10 CMOD (r1 - r0 - 1) first divides by zero at (r0 = 0, r1 = 1).
TEST_F(OracleProgram, DivisionByZeroInsideReduce) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int64
%c0 = CONST 0 : index
%ox = INDEX %out %c0 : int64
%c2 = CONST 2 : index
%c4 = CONST 4 : index
%one = CONST 1 : index
%r0 = RANGE %c2 axis=0 REDUCE : index
%r1 = RANGE %c4 axis=1 REDUCE : index
%t = SUB %r1 %r0 : index
%d = SUB %t %one : index
%ten = CONST 10 : index
%q = CMOD %ten %d : index
%v = CAST %q : int64
%red = REDUCE %v %r0 %r1 op=ADD : int64
%st = STORE %ox %red : void
%s = SINK %st : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Cmod));
  ASSERT_EQ(out.ub->iteration.size(), 2u);
  EXPECT_EQ(out.ub->iteration[0].first, range_axis(root, 0));
  EXPECT_EQ(out.ub->iteration[0].second, 0);
  EXPECT_EQ(out.ub->iteration[1].first, range_axis(root, 1));
  EXPECT_EQ(out.ub->iteration[1].second, 1);
}

// The fold step itself can be UB: index sum of 2^62 over r < 4 overflows at r = 1.
TEST_F(OracleProgram, IndexOverflowInReduceFold) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int64
%c0 = CONST 0 : index
%ox = INDEX %out %c0 : int64
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 REDUCE : index
%big = CONST 4611686018427387904 : index
%z = MUL %r %c0 : index
%v = ADD %big %z : index
%red = REDUCE %v %r op=ADD : index
%w = CAST %red : int64
%st = STORE %ox %w : void
%s = SINK %st : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Reduce));
  EXPECT_CONTAINS(out.ub->what, "index overflow");
  ASSERT_EQ(out.ub->iteration.size(), 1u);
  EXPECT_EQ(out.ub->iteration[0].second, 1);
}

// ---------------------------------------------------------------------------------
// Demand-driven evaluation (SEMANTICS.md, "Evaluation")

// out[r] = 100 CDIV d over r < n. The division depends on no range; it is only
// evaluated when a store needs it, so d = 0 is UB only if the loop runs.
const char* kInvariantDiv = R"(
%out = PARAM slot=0 size=4 out : int32
%n = VAR name=n min=0 max=4 : index
%d = VAR name=d min=0 max=5 : int32
%r = RANGE %n axis=0 LOOP : index
%ox = INDEX %out %r : int32
%h = CONST 100 : int32
%q = CDIV %h %d : int32
%st = STORE %ox %q : void
%e = END %st %r : void
%s = SINK %e : void
)";

TEST_F(OracleProgram, InvariantUbInAZeroTripLoopIsNotDemanded) {
  UOp root = parse(kInvariantDiv);
  Program p = compile(kInvariantDiv);
  Inputs in;
  in.vars = {{"n", 0}, {"d", 0}};
  auto out = p.run(in);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->status, RunStatus::Ok);
  EXPECT_EQ(ints(out->outputs.at(0)), (I64s{0, 0, 0, 0}));
  // n = 3, d = 0: the first store needs 100 / 0. The report names the division, and
  // the (empty) iteration in which a loop-invariant node is evaluated.
  in.vars = {{"n", 3}, {"d", 0}};
  out = p.run(in);
  ASSERT_EQ(out->status, RunStatus::Ub);
  EXPECT_EQ(out->ub->node, unique(root, Op::Cdiv));
  EXPECT_TRUE(out->ub->iteration.empty());
  // d = 5, n = 3: 100 / 5 = 20 three times.
  in.vars = {{"n", 3}, {"d", 5}};
  out = p.run(in);
  ASSERT_EQ(out->status, RunStatus::Ok);
  EXPECT_EQ(ints(out->outputs.at(0)), (I64s{20, 20, 20, 0}));
}

// A node that depends only on the outer range r0, used only in the inner loop over
// r1 < n: 10 CDIV (int(r0) - 1) divides by zero at r0 = 1, which is UB only when the
// inner loop runs there (n >= 1); the report gives the iteration of the evaluation.
TEST_F(OracleProgram, UbIsReportedWhereTheDemandedValueWasEvaluated) {
  auto text = [](const char* divisor) {
    return fmt::format(R"(
%out = PARAM slot=0 size=8 out : int32
%n = VAR name=n min=0 max=4 : index
%c2 = CONST 2 : index
%c4 = CONST 4 : index
%r0 = RANGE %c2 axis=0 LOOP : index
%r1 = RANGE %n axis=1 LOOP : index
%m = MUL %r0 %c4 : index
%i = ADD %m %r1 : index
%ox = INDEX %out %i : int32
%a = CAST %r0 : int32
%b = CAST %r1 : int32
%one = CONST 1 : int32
%am = SUB %a %one : int32
%ten = CONST 10 : int32
%q = CDIV %ten %{} : int32
%st = STORE %ox %q : void
%e = END %st %r0 %r1 : void
%s = SINK %e : void
)",
                       divisor);
  };
  Inputs zero, one;
  zero.vars["n"] = 0;
  one.vars["n"] = 1;
  const std::string outer = text("am");
  UOp root = parse(outer);
  EXPECT_EQ(run(outer, zero).status, RunStatus::Ok);
  RunOutput out = run(outer, one);
  ASSERT_EQ(out.status, RunStatus::Ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Cdiv));
  ASSERT_EQ(out.ub->iteration.size(), 1u);  // evaluated in the r0 loop
  EXPECT_EQ(out.ub->iteration[0].first, range_axis(root, 0));
  EXPECT_EQ(out.ub->iteration[0].second, 1);

  EXPECT_EQ(run(text("b"), zero).status, RunStatus::Ok);
  RunOutput inner1 = run(text("b"), one);
  ASSERT_EQ(inner1.status, RunStatus::Ub);
  ASSERT_EQ(inner1.ub->iteration.size(), 2u);
  EXPECT_EQ(inner1.ub->iteration[1].second, 0);
}

// Effects run in order, and an undefined value is UB when an effect needs it. Effect 1
// stores 7 to out[0] for every r < n with r < lim (lim = 2 stores it twice, at r = 1);
// effect 2 stores 1 CDIV z.
TEST_F(OracleProgram, EffectsRunInOrderAndUbHappensAtTheFirstNeed) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int32
%out2 = PARAM slot=1 size=1 out : int32
%c0 = CONST 0 : index
%n = VAR name=n min=0 max=1099511627776 : index
%lim = VAR name=lim min=0 max=2 : index
%r = RANGE %n axis=0 LOOP : index
%g = CMPLT %r %lim : bool
%mul = MUL %r %c0 : index
%inv = INVALID : index
%gi = WHERE %g %mul %inv : index
%ox = INDEX %out %gi : int32
%v = CONST 7 : int32
%st = STORE %ox %v : void
%e = END %st %r : void
%one = CONST 1 : int32
%z = VAR name=z min=0 max=1 : int32
%q = CDIV %one %z : int32
%ox2 = INDEX %out2 %c0 : int32
%st2 = STORE %ox2 %q : void
%s = SINK %e %st2 : void
)";
  UOp root = parse(text);
  Program p = compile(text);
  Inputs in;
  // Both UBs present: effect 1's double store comes first.
  in.vars = {{"n", 2}, {"lim", 2}, {"z", 0}};
  auto out = p.run(in);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->status, RunStatus::Ub);
  EXPECT_EQ(out->ub->node, root.src(0).src(0));  // effect 1's STORE
  // Effect 1 fine (one store): effect 2 needs 1 / 0.
  in.vars = {{"n", 2}, {"lim", 1}, {"z", 0}};
  out = p.run(in);
  ASSERT_EQ(out->status, RunStatus::Ub);
  EXPECT_EQ(out->ub->node, unique(root, Op::Cdiv));
  // An enormous effect 1 runs into the step limit before effect 2 could be UB.
  in.vars = {{"n", int64_t{1} << 40}, {"lim", 1}, {"z", 0}};
  RunOptions opts;
  opts.max_steps = 1000;
  out = p.run(in, opts);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::StepLimit);
  // Without UB: effect 1 with n = 1 stores 7 once, effect 2 stores 1 / 1.
  in.vars = {{"n", 1}, {"lim", 2}, {"z", 1}};
  out = p.run(in);
  ASSERT_EQ(out->status, RunStatus::Ok);
  EXPECT_EQ(out->outputs.at(0).get(0).i, 7);
  EXPECT_EQ(out->outputs.at(1).get(0).i, 1);
}

// A REDUCE whose value is undefined in some iteration is undefined: UB when stored,
// nothing when its loop runs zero times.
TEST_F(OracleProgram, UndefinedReduceTermsPoisonTheResult) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int32
%c0 = CONST 0 : index
%n = VAR name=n min=0 max=4 : index
%r = RANGE %n axis=0 REDUCE : index
%ri = CAST %r : int32
%c12 = CONST 12 : int32
%q = CDIV %c12 %ri : int32
%sum = REDUCE %q %r op=ADD : int32
%ox = INDEX %out %c0 : int32
%st = STORE %ox %sum : void
%s = SINK %st : void
)";
  UOp root = parse(text);
  Inputs in;
  in.vars = {{"n", 0}};
  RunOutput out = run(text, in);
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(out.outputs.at(0).get(0).i, 0);
  in.vars = {{"n", 3}};
  out = run(text, in);
  ASSERT_EQ(out.status, RunStatus::Ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Cdiv));
  ASSERT_EQ(out.ub->iteration.size(), 1u);
  EXPECT_EQ(out.ub->iteration[0].second, 0);
}

// WHERE evaluates both branches: a division by zero in the unselected branch is UB.
TEST_F(OracleProgram, WhereEvaluatesBothBranches) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int32
%c0 = CONST 0 : index
%ox = INDEX %out %c0 : int32
%t = CONST true : bool
%one = CONST 1 : int32
%z = VAR name=z min=0 max=1 : int32
%q = CDIV %one %z : int32
%w = WHERE %t %one %q : int32
%st = STORE %ox %w : void
%s = SINK %st : void
)";
  Inputs in;
  in.vars["z"] = 0;
  EXPECT_EQ(run(text, in).status, RunStatus::Ub);
  in.vars["z"] = 1;
  RunOutput ok = run(text, in);
  ASSERT_EQ(ok.status, RunStatus::Ok);
  EXPECT_EQ(ok.outputs.at(0).get(0).i, 1);
}

// ---------------------------------------------------------------------------------
// Inputs that do not fit are errors, not UB.

TEST_F(OracleProgram, VarInputs) {
  Program p = compile(kInvariantDiv);
  Inputs in;
  in.vars = {{"n", 2}};  // d missing
  auto missing = p.run(in);
  ASSERT_FALSE(missing.ok());
  EXPECT_CONTAINS(missing.error().message, "VAR d");
  in.vars = {{"n", 5}, {"d", 1}};  // n above its max of 4
  auto above = p.run(in);
  ASSERT_FALSE(above.ok());
  EXPECT_CONTAINS(above.error().message, "outside its bounds");
  in.vars = {{"n", 2}, {"d", -1}};  // d below its min of 0
  EXPECT_FALSE(p.run(in).ok());
  in.vars = {{"n", 4}, {"d", 1}};  // both at their bounds: fine
  auto ok = p.run(in);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ints(ok->outputs.at(0)), (I64s{100, 100, 100, 100}));
}

TEST_F(OracleProgram, InputBufferMustFit) {
  Program p = compile(copy_kernel(0));
  Inputs none;
  auto missing = p.run(none);
  ASSERT_FALSE(missing.ok());
  EXPECT_CONTAINS(missing.error().message, "slot 1");
  Inputs small;
  small.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 2, 3}));
  auto wrong_size = p.run(small);
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_CONTAINS(wrong_size.error().message, "slot 1");
  Inputs big;
  big.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 2, 3, 4, 5}));
  EXPECT_FALSE(p.run(big).ok());
  Inputs wrong_type;
  wrong_type.buffers.emplace(1, int_buffer(dtypes::Int64, {1, 2, 3, 4}));
  EXPECT_FALSE(p.run(wrong_type).ok());
}

TEST_F(OracleProgram, UnverifiedGraphDoesNotCompile) {
  // A RANGE used outside the END that closes it.
  auto r = parse_kernel(ctx_, R"(
%out = PARAM slot=0 size=4 out : int32
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 LOOP : index
%ox = INDEX %out %r : int32
%v = CONST 1 : int32
%st = STORE %ox %v : void
%s = SINK %st : void
)");
  ASSERT_TRUE(r.ok());
  auto p = Program::compile(r->kernel.root);
  ASSERT_FALSE(p.ok());
  EXPECT_CONTAINS(p.error().message, "verify");
}

}  // namespace
}  // namespace uopfuzz::oracle
