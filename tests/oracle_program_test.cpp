// Whole-program tests of the oracle (oracle::Program) on kernels written as .uop text.
// Expected outputs are worked out by hand from SEMANTICS.md in the comment beside each.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"

namespace uopfuzz::oracle {
namespace {

using namespace ir;
using I64s = std::vector<int64_t>;

// gtest only (no gmock): substring checks that print the whole text on failure.
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();

class OracleProgram : public ::testing::Test {
 protected:
  Context ctx_;

  UOp parse(const std::string& text) {
    auto r = parse_kernel(ctx_, text);
    if (!r) {
      ADD_FAILURE() << "parse error at line " << r.error().loc.line << ":" << r.error().loc.col
                    << ": " << r.error().message << "\n"
                    << text;
      return UOp();
    }
    return r->kernel.root;
  }

  Program compile(const std::string& text) {
    UOp root = parse(text);
    auto p = Program::compile(root);
    if (!p) {
      ADD_FAILURE() << "compile error: " << p.error().message << "\n" << text;
      throw std::runtime_error("no program");  // gtest reports the test as failed
    }
    return std::move(p.value());
  }

  RunOutput run(const std::string& text, const Inputs& in = {}, const RunOptions& opts = {}) {
    Program p = compile(text);
    auto out = p.run(in, opts);
    if (!out) {
      ADD_FAILURE() << "run error: " << out.error().message;
      return RunOutput{};
    }
    return std::move(out.value());
  }

  // The unique node of `op` in the graph of `root` (the UB report's node is compared to it).
  static UOp unique(UOp root, Op op) {
    UOp found;
    for (UOp u : toposort(root))
      if (u.op() == op) {
        EXPECT_FALSE(found) << "more than one " << op_name(op);
        found = u;
      }
    EXPECT_TRUE(found) << "no " << op_name(op);
    return found;
  }
  static UOp range_axis(UOp root, int axis) {
    for (UOp u : toposort(root))
      if (u.op() == Op::Range && u.arg<RangeArg>().axis[0] == axis) return u;
    ADD_FAILURE() << "no RANGE with axis " << axis;
    return UOp();
  }
};

std::vector<int64_t> ints(const Buffer& b) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).i);
  return v;
}
std::vector<uint64_t> uints(const Buffer& b) {
  std::vector<uint64_t> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).u);
  return v;
}
std::vector<double> floats(const Buffer& b) {
  std::vector<double> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).f);
  return v;
}

Buffer int_buffer(DType dt, std::vector<int64_t> values) {
  Buffer b(dt, values.size());
  for (size_t i = 0; i < values.size(); ++i) b.set(i, wrap_int(dt, values[i]));
  return b;
}
Buffer float_buffer(DType dt, std::vector<double> values) {
  Buffer b(dt, values.size());
  for (size_t i = 0; i < values.size(); ++i) b.set(i, Value::of_float(values[i]));
  return b;
}

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

// out[0] = REDUCE op over r < end of CAST(r*a + b).
std::string reduce1(const char* op, const char* dt, int end, int a, int b) {
  return fmt::format(R"(
%out = PARAM slot=0 size=1 out : {dt}
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : {dt}
%end = CONST {end} : index
%a = CONST {a} : index
%b = CONST {b} : index
%r = RANGE %end axis=0 REDUCE : index
%m = MUL %r %a : index
%x = ADD %m %b : index
%v = CAST %x : {dt}
%red = REDUCE %v %r op={op} : {dt}
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                     fmt::arg("dt", dt), fmt::arg("end", end), fmt::arg("a", a), fmt::arg("b", b),
                     fmt::arg("op", op));
}

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

// ---------------------------------------------------------------------------------
// The step limit stops any loop, however large, quickly.

TEST_F(OracleProgram, StepLimitStopsEnormousLoop) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int64
%c0 = CONST 0 : index
%ox = INDEX %out %c0 : int64
%huge = CONST 1099511627776 : index
%r = RANGE %huge axis=0 REDUCE : index
%one = CONST 1 : int64
%red = REDUCE %one %r op=ADD : int64
%st = STORE %ox %red : void
%s = SINK %st : void
)";
  Program p = compile(text);
  RunOptions opts;
  opts.max_steps = 100000;
  auto t0 = std::chrono::steady_clock::now();
  auto out = p.run({}, opts);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::StepLimit);
  EXPECT_FALSE(out->ub);
  EXPECT_TRUE(out->outputs.empty());
  EXPECT_GT(out->steps, 100000u);
  EXPECT_LT(out->steps, 200000u);
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 2000);
  // Nested END loops (2^20 x 2^20) stop as well.
  const std::string nested = R"(
%out = PARAM slot=0 size=1 out : int32
%c0 = CONST 0 : index
%big = CONST 1048576 : index
%r0 = RANGE %big axis=0 LOOP : index
%r1 = RANGE %big axis=1 LOOP : index
%a = CMPEQ %r0 %c0 : bool
%b = CMPEQ %r1 %c0 : bool
%g = AND %a %b : bool
%inv = INVALID : index
%gi = WHERE %g %c0 %inv : index
%ox = INDEX %out %gi : int32
%v = CONST 7 : int32
%st = STORE %ox %v : void
%e = END %st %r0 %r1 : void
%s = SINK %e : void
)";
  auto out2 = compile(nested).run({}, opts);
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ(out2->status, RunStatus::StepLimit);
  // With a generous limit a small loop finishes and counts its steps.
  RunOutput small = run(reduce1("ADD", "int32", 10, 1, 0));
  EXPECT_EQ(small.status, RunStatus::Ok);
  EXPECT_GT(small.steps, 10u);
}

// ---------------------------------------------------------------------------------
// One compiled program, many runs: no state leaks from one run into the next.

TEST_F(OracleProgram, ProgramReuseAcrossRuns) {
  // out[r] = 12 CDIV in[r] over r < 4.
  const std::string text = R"(
%out = PARAM slot=0 size=4 out : int32
%in = PARAM slot=1 size=4 in : int32
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 LOOP : index
%ox = INDEX %out %r : int32
%ix = INDEX %in %r : int32
%ld = LOAD %ix : int32
%tw = CONST 12 : int32
%q = CDIV %tw %ld : int32
%st = STORE %ox %q : void
%e = END %st %r : void
%s = SINK %e : void
)";
  Program p = compile(text);
  Inputs a, b, bad;
  a.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 2, 3, 4}));
  b.buffers.emplace(1, int_buffer(dtypes::Int32, {-1, -5, 12, 13}));
  bad.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 0, 1, 1}));
  for (int round = 0; round < 3; ++round) {
    auto ra = p.run(a);
    ASSERT_TRUE(ra.ok());
    ASSERT_EQ(ra->status, RunStatus::Ok) << round;  // a fresh run: no "stored twice"
    EXPECT_EQ(ints(ra->outputs.at(0)), (I64s{12, 6, 4, 3}));
    auto rbad = p.run(bad);
    ASSERT_TRUE(rbad.ok());
    ASSERT_EQ(rbad->status, RunStatus::Ub);
    ASSERT_EQ(rbad->ub->iteration.size(), 1u);
    EXPECT_EQ(rbad->ub->iteration[0].second, 1);
    auto rb = p.run(b);
    ASSERT_TRUE(rb.ok());
    ASSERT_EQ(rb->status, RunStatus::Ok);
    EXPECT_EQ(ints(rb->outputs.at(0)), (I64s{-12, -2, 1, 0}));  // 12/-5 truncates to -2
  }
  Program moved = std::move(p);
  auto rm = moved.run(a);
  ASSERT_TRUE(rm.ok());
  EXPECT_EQ(ints(rm->outputs.at(0)), (I64s{12, 6, 4, 3}));
}

// ---------------------------------------------------------------------------------
// make_inputs

const char* kInputsKernel = R"(
%out = PARAM slot=0 size=1 out : int32
%a = PARAM slot=1 size=256 in : int32
%f = PARAM slot=2 size=256 in : float32
%u = PARAM slot=3 size=256 in : uint8
%b = PARAM slot=4 size=64 in : bool
%m = PARAM slot=5 size=256 in vmin=3 vmax=9 multiple_of=3 : int64
%k = PARAM slot=6 size=16 in vmin=5 vmax=5 : int16
%h = PARAM slot=7 size=256 in : float16
%a2 = PARAM slot=8 size=256 in : int32
%n = VAR name=n min=0 max=1000 : index
%w = VAR name=w min=-40 max=40 multiple_of=8 : int32
%c0 = CONST 0 : index
%ia = INDEX %a %c0 : int32
%la = LOAD %ia : int32
%if = INDEX %f %c0 : float32
%lf = LOAD %if : float32
%cf = CAST %lf : int32
%iu = INDEX %u %c0 : uint8
%lu = LOAD %iu : uint8
%cu = CAST %lu : int32
%ib = INDEX %b %c0 : bool
%lb = LOAD %ib : bool
%cb = CAST %lb : int32
%im = INDEX %m %c0 : int64
%lm = LOAD %im : int64
%cm = CAST %lm : int32
%ik = INDEX %k %c0 : int16
%lk = LOAD %ik : int16
%ck = CAST %lk : int32
%ih = INDEX %h %c0 : float16
%lh = LOAD %ih : float16
%ch = CAST %lh : int32
%ia2 = INDEX %a2 %c0 : int32
%la2 = LOAD %ia2 : int32
%cn = CAST %n : int32
%s1 = ADD %la %cf : int32
%s2 = ADD %s1 %cu : int32
%s3 = ADD %s2 %cb : int32
%s4 = ADD %s3 %cm : int32
%s5 = ADD %s4 %ck : int32
%s6 = ADD %s5 %ch : int32
%s7 = ADD %s6 %la2 : int32
%s8 = ADD %s7 %cn : int32
%s9 = ADD %s8 %w : int32
%io = INDEX %out %c0 : int32
%st = STORE %io %s9 : void
%s = SINK %st : void
)";

TEST_F(OracleProgram, MakeInputsIsDeterministic) {
  UOp root = parse(kInputsKernel);
  Inputs x = make_inputs(root, 42);
  Inputs y = make_inputs(root, 42);
  EXPECT_EQ(x.buffers, y.buffers);
  EXPECT_EQ(x.vars, y.vars);
  // Only input PARAMs get buffers.
  std::set<int> slots;
  for (const auto& [slot, _] : x.buffers) slots.insert(slot);
  EXPECT_EQ(slots, (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(x.buffers.at(1).dtype(), dtypes::Int32);
  EXPECT_EQ(x.buffers.at(1).size(), 256u);
  EXPECT_EQ(x.buffers.at(4).size(), 64u);
  ASSERT_EQ(x.vars.size(), 2u);
  // A context of its own parses the same text to the same inputs.
  Context other;
  auto again = parse_kernel(other, kInputsKernel);
  ASSERT_TRUE(again.ok());
  Inputs z = make_inputs(again->kernel.root, 42);
  EXPECT_EQ(x.buffers, z.buffers);
  EXPECT_EQ(x.vars, z.vars);
  // And the kernel runs on them.
  EXPECT_EQ(run(kInputsKernel, x).status, RunStatus::Ok);
}

TEST_F(OracleProgram, MakeInputsDiffersAcrossSeedsAndSlots) {
  UOp root = parse(kInputsKernel);
  Inputs s1 = make_inputs(root, 1);
  Inputs s2 = make_inputs(root, 2);
  for (int slot : {1, 2, 3, 4, 7})
    EXPECT_FALSE(s1.buffers.at(slot) == s2.buffers.at(slot)) << "slot " << slot;
  EXPECT_NE(s1.vars.at("n"), s2.vars.at("n")) << "n is uniform in [0, 1000]: equal for seeds 1, 2?";
  // Two buffers of one dtype and size in one kernel are not copies of each other.
  EXPECT_FALSE(s1.buffers.at(1) == s1.buffers.at(8));
}

TEST_F(OracleProgram, MakeInputsRespectsDistributions) {
  UOp root = parse(kInputsKernel);
  for (uint64_t seed : {0ull, 1ull, 7ull, 123456789ull}) {
    Inputs in = make_inputs(root, seed);
    std::set<int64_t> ints_seen, mults_seen;
    for (int64_t v : ints(in.buffers.at(1))) {
      EXPECT_GE(v, -8);
      EXPECT_LE(v, 8);
      ints_seen.insert(v);
    }
    EXPECT_GE(ints_seen.size(), 15u) << "256 draws from 17 values should hit nearly all";
    EXPECT_TRUE(ints_seen.count(-8) || ints_seen.count(8));
    std::set<double> floats_seen;
    for (double v : floats(in.buffers.at(2))) {
      double k = v * 8;
      EXPECT_EQ(k, std::floor(k)) << v << " is not a multiple of 1/8";
      EXPECT_GE(k, -64);
      EXPECT_LE(k, 64);
      floats_seen.insert(v);
    }
    EXPECT_GE(floats_seen.size(), 60u);
    for (double v : floats(in.buffers.at(7))) {
      double k = v * 8;
      EXPECT_EQ(k, std::floor(k));
      EXPECT_GE(k, -64);
      EXPECT_LE(k, 64);
    }
    for (uint64_t v : uints(in.buffers.at(3))) EXPECT_LE(v, 16u);
    std::set<int64_t> bools;
    for (int64_t v : ints(in.buffers.at(4))) bools.insert(v);
    EXPECT_EQ(bools, (std::set<int64_t>{0, 1}));
    for (int64_t v : ints(in.buffers.at(5))) mults_seen.insert(v);
    EXPECT_EQ(mults_seen, (std::set<int64_t>{3, 6, 9}));       // vmin..vmax, multiples of 3
    for (int64_t v : ints(in.buffers.at(6))) EXPECT_EQ(v, 5);  // vmin = vmax fixes it
    EXPECT_GE(in.vars.at("n"), 0);
    EXPECT_LE(in.vars.at("n"), 1000);
    EXPECT_GE(in.vars.at("w"), -40);
    EXPECT_LE(in.vars.at("w"), 40);
    EXPECT_EQ(in.vars.at("w") % 8, 0);
  }
}

TEST_F(OracleProgram, MakeInputsKeepsGivenVars) {
  UOp root = parse(kInputsKernel);
  Inputs in = make_inputs(root, 5, {{"n", 17}});
  EXPECT_EQ(in.vars.at("n"), 17);
  EXPECT_EQ(in.vars.count("w"), 1u);
  // The given VAR does not change the buffers.
  EXPECT_EQ(in.buffers, make_inputs(root, 5).buffers);
}

}  // namespace
}  // namespace uopfuzz::oracle
