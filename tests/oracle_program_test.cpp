// Whole-program tests of the oracle (oracle::Program) on kernels written as .uop text.
// Expected outputs are worked out by hand from SEMANTICS.md in the comment beside each.
// Here: loops, REDUCE and gated memory access; UB reports and demand-driven evaluation in
// oracle_program_ub_test.cpp, inputs and runs in oracle_program_runs_test.cpp.

#include "oracle_program.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace uopfuzz::oracle {
namespace {

using namespace ir;
using namespace program_test;

// ---------------------------------------------------------------------------------
// Loops

// out[r0*4 + r1] = 10*r0 + r1 over r0 < 3, r1 < 4.
const char* kNestedBody = R"(
%out = PARAM slot=0 size=12 out : int32
%c3 = CONST 3 : index
%c4 = CONST 4 : index
%c10 = CONST 10 : index
%r0 = RANGE %c3 axis=0 LOOP : index
%r1 = RANGE %c4 axis=1 LOOP : index
%m = MUL %r0 %c4 : index
%i = ADD %m %r1 : index
%ix = INDEX %out %i : int32
%t = MUL %r0 %c10 : index
%v0 = ADD %t %r1 : index
%v = CAST %v0 : int32
%st = STORE %ix %v : void
)";

TEST_F(OracleProgram, EndOverTwoRanges) {
  RunOutput out =
      run(std::string(kNestedBody) + "%e = END %st %r0 %r1 : void\n%s = SINK %e : void\n");
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(ints(out.outputs.at(0)), (I64s{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}));
  EXPECT_EQ(out.iterations, 3u + 3u * 4u);  // the r0 body 3 times, the r1 body 4 times in each
}

TEST_F(OracleProgram, NestedEnds) {
  RunOutput out = run(std::string(kNestedBody) +
                      "%e1 = END %st %r1 : void\n%e0 = END %e1 %r0 : void\n%s = SINK %e0 : void\n");
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(ints(out.outputs.at(0)), (I64s{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}));
}

// out[r0] = r1 over r0 < 3, r1 < 2 stores out[0] twice. With r0 outermost the second
// store is at (r0=0, r1=1), and the report lists r0 first.
TEST_F(OracleProgram, EndRunsFirstRangeOutermost) {
  const std::string text = R"(
%out = PARAM slot=0 size=3 out : int32
%c3 = CONST 3 : index
%c2 = CONST 2 : index
%r0 = RANGE %c3 axis=0 LOOP : index
%r1 = RANGE %c2 axis=1 LOOP : index
%ix = INDEX %out %r0 : int32
%v = CAST %r1 : int32
%st = STORE %ix %v : void
%e = END %st %r0 %r1 : void
%s = SINK %e : void
)";
  UOp root = parse(text);
  RunOutput out = run(text);
  ASSERT_EQ(out.status, RunStatus::Ub);
  ASSERT_TRUE(out.ub);
  EXPECT_EQ(out.ub->node, unique(root, Op::Store));
  EXPECT_CONTAINS(out.ub->what, "stored twice");
  ASSERT_EQ(out.ub->iteration.size(), 2u);
  EXPECT_EQ(out.ub->iteration[0].first, range_axis(root, 0));
  EXPECT_EQ(out.ub->iteration[0].second, 0);
  EXPECT_EQ(out.ub->iteration[1].first, range_axis(root, 1));
  EXPECT_EQ(out.ub->iteration[1].second, 1);
  EXPECT_TRUE(out.outputs.empty());  // outputs are only meaningful without UB
}

// Untouched output elements stay zero (+0.0 for floats).
TEST_F(OracleProgram, OutputsStartZeroed) {
  RunOutput out = run(R"(
%o = PARAM slot=0 size=4 out : float32
%c1 = CONST 1 : index
%ix = INDEX %o %c1 : float32
%v = CONST 2.5 : float32
%st = STORE %ix %v : void
%s = SINK %st : void
)");
  ASSERT_EQ(out.status, RunStatus::Ok);
  const Buffer& b = out.outputs.at(0);
  EXPECT_EQ(b.get(0).u, 0u);  // +0.0, not -0.0
  EXPECT_EQ(b.get(1).f, 2.5);
  EXPECT_EQ(b.get(2).u, 0u);
  EXPECT_EQ(b.get(3).u, 0u);
}

// ---------------------------------------------------------------------------------
// REDUCE

// out[0] = REDUCE op over r0 < 3, r1 < 4 of CAST(r0*a + r1*b + c).
std::string reduce2(const char* op, const char* dt, int a, int b, int c) {
  return fmt::format(R"(
%out = PARAM slot=0 size=1 out : {dt}
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : {dt}
%c3 = CONST 3 : index
%c4 = CONST 4 : index
%a = CONST {a} : index
%b = CONST {b} : index
%c = CONST {c} : index
%r0 = RANGE %c3 axis=0 REDUCE : index
%r1 = RANGE %c4 axis=1 REDUCE : index
%x0 = MUL %r0 %a : index
%x1 = MUL %r1 %b : index
%x2 = ADD %x0 %x1 : index
%x = ADD %x2 %c : index
%v = CAST %x : {dt}
%red = REDUCE %v %r0 %r1 op={op} : {dt}
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                     fmt::arg("dt", dt), fmt::arg("a", a), fmt::arg("b", b), fmt::arg("c", c),
                     fmt::arg("op", op));
}

TEST_F(OracleProgram, ReduceEachOpOneRange) {
  struct Case {
    const char* op;
    const char* dt;
    int end, a, b;
    int64_t want;
    const char* why;
  };
  const Case cases[] = {
      {"ADD", "int32", 5, 1, 0, 10, "0+1+2+3+4"},
      {"ADD", "int32", 10, 1, 0, 45, "arange(10).sum()"},
      {"MUL", "int32", 5, 1, 1, 120, "1*2*3*4*5"},
      {"MUL", "int8", 6, 1, 1, -48, "720 wraps to 208 = -48 in int8"},
      {"MAX", "int32", 5, -1, 2, 2, "max(2,1,0,-1,-2): the first"},
      {"MAX", "int32", 5, 1, -2, 2, "max(-2,-1,0,1,2): the last"},
      {"MIN", "int32", 5, -1, 2, -2, "min(2,1,0,-1,-2)"},
      {"MIN", "int64", 5, 1, -2, -2, "min(-2,-1,0,1,2): the first"},
      {"ADD", "int64", 5, 3, 1, 35, "1+4+7+10+13"},
  };
  for (const Case& c : cases) {
    RunOutput out = run(reduce1(c.op, c.dt, c.end, c.a, c.b));
    ASSERT_EQ(out.status, RunStatus::Ok) << c.why;
    EXPECT_EQ(out.outputs.at(0).get(0).i, c.want) << c.op << " " << c.dt << ": " << c.why;
  }
}

TEST_F(OracleProgram, ReduceUnsignedComparesUnsigned) {
  // CAST(-r) to uint8 over r < 5: 0, 255, 254, 253, 252.
  RunOutput mx = run(reduce1("MAX", "uint8", 5, -1, 0));
  ASSERT_EQ(mx.status, RunStatus::Ok);
  EXPECT_EQ(mx.outputs.at(0).get(0).u, 255u);
  RunOutput mn = run(reduce1("MIN", "uint8", 5, -1, 0));
  ASSERT_EQ(mn.status, RunStatus::Ok);
  EXPECT_EQ(mn.outputs.at(0).get(0).u, 0u);
  RunOutput sum = run(reduce1("ADD", "uint8", 5, -1, 0));  // 0+255+254+253+252 = 1014 = 246 mod 256
  ASSERT_EQ(sum.status, RunStatus::Ok);
  EXPECT_EQ(sum.outputs.at(0).get(0).u, 246u);
}

TEST_F(OracleProgram, ReduceEachOpTwoRanges) {
  struct Case {
    const char* op;
    int a, b, c;
    int64_t want;
    const char* why;
  };
  const Case cases[] = {
      {"ADD", 4, 1, 0, 66, "0+1+...+11"},
      {"MUL", 1, 1, 1, 1036800, "(1*2*3*4)(2*3*4*5)(3*4*5*6) = 24*120*360"},
      {"MAX", 1, -1, 0, 2, "max of r0 - r1: r0=2, r1=0"},
      {"MAX", -4, 1, 0, 3, "max of r1 - 4*r0: r0=0, r1=3"},
      {"MIN", 1, -1, 0, -3, "min of r0 - r1: r0=0, r1=3"},
      {"MIN", 4, 1, 5, 5, "min of 4*r0 + r1 + 5"},
  };
  for (const Case& c : cases) {
    RunOutput out = run(reduce2(c.op, "int32", c.a, c.b, c.c));
    ASSERT_EQ(out.status, RunStatus::Ok) << c.why;
    EXPECT_EQ(out.outputs.at(0).get(0).i, c.want) << c.op << ": " << c.why;
  }
}

// The upstream multi-range test: sum over r1 < 3, r2 < 4 of float(r1) + float(r2)
// = 4*(0+1+2) + 3*(0+1+2+3) = 12 + 18 = 30.
TEST_F(OracleProgram, MultiRangeFloatSum) {
  RunOutput out = run(R"(
%out = PARAM slot=0 size=1 out : float32
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : float32
%c3 = CONST 3 : index
%c4 = CONST 4 : index
%r1 = RANGE %c3 axis=1 REDUCE : index
%r2 = RANGE %c4 axis=2 REDUCE : index
%f1 = CAST %r1 : float32
%f2 = CAST %r2 : float32
%v = ADD %f1 %f2 : float32
%red = REDUCE %v %r1 %r2 op=ADD : float32
%st = STORE %ix %red : void
%s = SINK %st : void
)");
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(out.outputs.at(0).get(0).f, 30.0);
}

// With no iterations a REDUCE yields its identity (VAR n = 0 as the end).
TEST_F(OracleProgram, ZeroTripReduceIsTheIdentity) {
  auto text = [](const char* op, const char* dt) {
    return fmt::format(R"(
%out = PARAM slot=0 size=1 out : {dt}
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : {dt}
%n = VAR name=n min=0 max=8 : index
%c4 = CONST 4 : index
%r0 = RANGE %c4 axis=0 REDUCE : index
%r1 = RANGE %n axis=1 REDUCE : index
%x = ADD %r0 %r1 : index
%v = CAST %x : {dt}
%red = REDUCE %v %r0 %r1 op={op} : {dt}
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                       fmt::arg("dt", dt), fmt::arg("op", op));
  };
  Inputs in;
  in.vars["n"] = 0;
  EXPECT_EQ(run(text("ADD", "int32"), in).outputs.at(0).get(0).i, 0);
  EXPECT_EQ(run(text("MUL", "int32"), in).outputs.at(0).get(0).i, 1);
  EXPECT_EQ(run(text("MAX", "int32"), in).outputs.at(0).get(0).i, kI32Min);
  EXPECT_EQ(run(text("MIN", "uint16"), in).outputs.at(0).get(0).u, 65535u);
  EXPECT_EQ(run(text("MIN", "float32"), in).outputs.at(0).get(0).f, INFINITY);
  EXPECT_EQ(run(text("MAX", "float16"), in).outputs.at(0).get(0).f, -INFINITY);
  // And with n = 2 the same kernel sums (r0 + r1) over 4 x 2: 2*(0+1+2+3) + 4*(0+1) = 16.
  in.vars["n"] = 2;
  EXPECT_EQ(run(text("ADD", "int32"), in).outputs.at(0).get(0).i, 16);
}

// Float sums fold left to right in lexicographic range order, rounding every step.
TEST_F(OracleProgram, FloatSumOrderIsLexicographic) {
  const double big = 16777216.0;  // 2^24: adding 1 to it is a float32 tie that rounds to even
  // One range over [2^24, 1, 1, -2^24]: ((2^24 + 1) + 1) - 2^24 = 0 in order (each +1
  // is lost), while the exact sum is 2 and the reverse order gives 2.
  {
    Inputs in;
    in.buffers.emplace(1, float_buffer(dtypes::Float32, {big, 1.0, 1.0, -big}));
    RunOutput out = run(R"(
%out = PARAM slot=0 size=1 out : float32
%in = PARAM slot=1 size=4 in : float32
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : float32
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 REDUCE : index
%iv = INDEX %in %r : float32
%v = LOAD %iv : float32
%red = REDUCE %v %r op=ADD : float32
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                        in);
    ASSERT_EQ(out.status, RunStatus::Ok);
    EXPECT_EQ(out.outputs.at(0).get(0).f, 0.0);
  }
  // Two ranges over in[r0*2 + r1] = [1, 2^24, -2^24, 1]: r0 outermost visits 1, 2^24,
  // -2^24, 1: 1 + 2^24 rounds to 2^24, then 0, then 1. (r1 outermost would visit 1,
  // -2^24, 2^24, 1 and give 2.)
  {
    Inputs in;
    in.buffers.emplace(1, float_buffer(dtypes::Float32, {1.0, big, -big, 1.0}));
    RunOutput out = run(R"(
%out = PARAM slot=0 size=1 out : float32
%in = PARAM slot=1 size=4 in : float32
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : float32
%c2 = CONST 2 : index
%r0 = RANGE %c2 axis=0 REDUCE : index
%r1 = RANGE %c2 axis=1 REDUCE : index
%m = MUL %r0 %c2 : index
%i = ADD %m %r1 : index
%iv = INDEX %in %i : float32
%v = LOAD %iv : float32
%red = REDUCE %v %r0 %r1 op=ADD : float32
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                        in);
    ASSERT_EQ(out.status, RunStatus::Ok);
    EXPECT_EQ(out.outputs.at(0).get(0).f, 1.0);
  }
}

// float16 sums round after every step: in = [2048, 1, 1, 1]. 2048 + 1 = 2049 is a tie
// between 2048 and 2050 and rounds to the even 2048, three times over: 2048. (The exact
// sum 2051 would round to 2052.)
TEST_F(OracleProgram, Float16ReduceRoundsEveryStep) {
  Inputs in;
  in.buffers.emplace(1, float_buffer(dtypes::Float16, {2048.0, 1.0, 1.0, 1.0}));
  RunOutput out = run(R"(
%out = PARAM slot=0 size=1 out : float16
%in = PARAM slot=1 size=4 in : float16
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : float16
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 REDUCE : index
%iv = INDEX %in %r : float16
%v = LOAD %iv : float16
%red = REDUCE %v %r op=ADD : float16
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                      in);
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(out.outputs.at(0).get(0).f, 2048.0);
}

// ---------------------------------------------------------------------------------
// Gated memory access

// out[r] = LOAD(in[WHERE(r < 4, r, INVALID)], ALT) over r < 8, in = [10, 20, 30, 40].
// For r >= 4 the index is out of bounds but gated off: no check, the alternative.
std::string gated_load(const std::string& alt_lines, const std::string& load_line) {
  return R"(
%out = PARAM slot=0 size=8 out : int32
%in = PARAM slot=1 size=4 in : int32
%c8 = CONST 8 : index
%c4 = CONST 4 : index
%r = RANGE %c8 axis=0 LOOP : index
%ox = INDEX %out %r : int32
%g = CMPLT %r %c4 : bool
%inv = INVALID : index
%gi = WHERE %g %r %inv : index
%ix = INDEX %in %gi : int32
)" + alt_lines +
         load_line + R"(
%st = STORE %ox %ld : void
%e = END %st %r : void
%s = SINK %e : void
)";
}

TEST_F(OracleProgram, GatedLoadYieldsAltAndSkipsBoundsCheck) {
  Inputs in;
  in.buffers.emplace(1, int_buffer(dtypes::Int32, {10, 20, 30, 40}));
  RunOutput with_alt =
      run(gated_load("%alt = CONST -1 : int32\n", "%ld = LOAD %ix %alt : int32"), in);
  ASSERT_EQ(with_alt.status, RunStatus::Ok);
  EXPECT_EQ(ints(with_alt.outputs.at(0)), (I64s{10, 20, 30, 40, -1, -1, -1, -1}));
  RunOutput no_alt = run(gated_load("", "%ld = LOAD %ix : int32"), in);
  ASSERT_EQ(no_alt.status, RunStatus::Ok);
  EXPECT_EQ(ints(no_alt.outputs.at(0)), (I64s{10, 20, 30, 40, 0, 0, 0, 0}));
}

TEST_F(OracleProgram, GatedFloatLoadDefaultsToZero) {
  Inputs in;
  in.buffers.emplace(1, float_buffer(dtypes::Float16, {-0.5}));
  // out[r] = LOAD(in[WHERE(r < 1, r, INVALID)]) over r < 3: [-0.5, 0, 0].
  RunOutput out = run(R"(
%out = PARAM slot=0 size=3 out : float16
%in = PARAM slot=1 size=1 in : float16
%c3 = CONST 3 : index
%c1 = CONST 1 : index
%r = RANGE %c3 axis=0 LOOP : index
%ox = INDEX %out %r : float16
%g = CMPLT %r %c1 : bool
%inv = INVALID : index
%gi = WHERE %g %r %inv : index
%ix = INDEX %in %gi : float16
%ld = LOAD %ix : float16
%st = STORE %ox %ld : void
%e = END %st %r : void
%s = SINK %e : void
)",
                      in);
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(floats(out.outputs.at(0)), (std::vector<double>{-0.5, 0.0, 0.0}));
  EXPECT_FALSE(std::signbit(out.outputs.at(0).get(1).f));
}

// out[WHERE(r < 4, r, INVALID)] = 2r over r < 8 into a buffer of 6: the gated-off stores
// (r = 4..7; r = 6, 7 would be out of bounds) do nothing, out[4], out[5] stay 0.
TEST_F(OracleProgram, GatedStoreIsSkipped) {
  RunOutput out = run(R"(
%out = PARAM slot=0 size=6 out : int32
%c8 = CONST 8 : index
%c4 = CONST 4 : index
%c2 = CONST 2 : index
%r = RANGE %c8 axis=0 LOOP : index
%g = CMPLT %r %c4 : bool
%inv = INVALID : index
%gi = WHERE %g %r %inv : index
%ox = INDEX %out %gi : int32
%x = MUL %r %c2 : index
%v = CAST %x : int32
%st = STORE %ox %v : void
%e = END %st %r : void
%s = SINK %e : void
)");
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(ints(out.outputs.at(0)), (I64s{0, 2, 4, 6, 0, 0}));
}

// out[WHERE(r == 3, 0, INVALID)] = r over r < 5: only one store happens (no double store).
TEST_F(OracleProgram, GatedStoreDoesNotCountAsAStore) {
  RunOutput out = run(R"(
%out = PARAM slot=0 size=1 out : int32
%c5 = CONST 5 : index
%c3 = CONST 3 : index
%c0 = CONST 0 : index
%r = RANGE %c5 axis=0 LOOP : index
%g = CMPEQ %r %c3 : bool
%inv = INVALID : index
%gi = WHERE %g %c0 %inv : index
%ox = INDEX %out %gi : int32
%v = CAST %r : int32
%st = STORE %ox %v : void
%e = END %st %r : void
%s = SINK %e : void
)");
  ASSERT_EQ(out.status, RunStatus::Ok);
  EXPECT_EQ(ints(out.outputs.at(0)), (I64s{3}));
}

}  // namespace
}  // namespace uopfuzz::oracle
