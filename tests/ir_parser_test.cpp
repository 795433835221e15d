// The .uop parser: every kind of mistake is reported at an exact line and column with a
// message that names the problem; header lines are parsed into KernelHeader.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ir/parser.h"

namespace uopfuzz::ir {
namespace {

std::string lines(std::initializer_list<std::string_view> ls) {
  std::string s;
  for (auto l : ls) (s += l) += '\n';
  return s;
}

// A small valid kernel; tests replace one line of it.
constexpr std::string_view kL0 = "%0 = PARAM slot=0 size=1 out : int32";
constexpr std::string_view kL1 = "%1 = CONST 0 : index";
constexpr std::string_view kL2 = "%2 = INDEX %0 %1 : int32";
constexpr std::string_view kL3 = "%3 = CONST 7 : int32";
constexpr std::string_view kL4 = "%4 = STORE %2 %3 : void";
constexpr std::string_view kL5 = "%5 = SINK %4 : void";

/// The base kernel with line `which` (0-based over kL0..kL5) replaced by `repl`.
std::string base_with(int which, std::string_view repl) {
  std::vector<std::string_view> ls = {kL0, kL1, kL2, kL3, kL4, kL5};
  ls[which] = repl;
  std::string s;
  for (auto l : ls) (s += l) += '\n';
  return s;
}

/// Parses `text`, which must fail, and checks where and what.
void expect_error(std::string_view text, int line, int col, std::string_view substr) {
  Context ctx;
  auto r = parse_kernel(ctx, text);
  ASSERT_FALSE(r.ok()) << "parsed without error:\n" << text;
  const Error& e = r.error();
  EXPECT_EQ(e.loc.line, line) << e.message << "\n" << text;
  EXPECT_EQ(e.loc.col, col) << e.message << "\n" << text;
  EXPECT_NE(e.message.find(substr), std::string::npos)
      << "message '" << e.message << "' lacks '" << substr << "'";
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << "messages are one line";
}

TEST(Parser, BaseKernelParses) {
  Context ctx;
  auto r = parse_kernel(ctx, base_with(3, kL3));
  ASSERT_TRUE(r.ok()) << r.error().message;
  UOp root = r->kernel.root;
  EXPECT_EQ(root.op(), Op::Sink);
  ASSERT_EQ(root.num_src(), 1u);
  UOp store = root.src(0);
  EXPECT_EQ(store.op(), Op::Store);
  EXPECT_EQ(store.src(1), ctx.const_int(dtypes::Int32, 7));
  EXPECT_EQ(store.src(0).src(1), ctx.const_int(dtypes::Index, 0));
  const ParamArg& p = store.src(0).src(0).arg<ParamArg>();
  EXPECT_EQ(p.slot, 0);
  EXPECT_EQ(p.size, 1);
  EXPECT_TRUE(p.output);
  // Each node's location is its op name.
  EXPECT_EQ(r->where.at(root).line, 6);
  EXPECT_EQ(r->where.at(root).col, 6);
  EXPECT_EQ(r->where.at(store.src(1)).line, 4);
  EXPECT_EQ(r->kernel.header, KernelHeader{});
}

TEST(Parser, TruncatedLineReportsMissingDtypeAfterLastToken) {
  expect_error(base_with(2, "%2 = INDEX %0"), 3, 14, "expected ': dtype' at the end of the node");
  expect_error(base_with(2, "%2 = INDEX %0 %1 :"), 3, 19, "expected a dtype after ':'");
  expect_error(base_with(2, "%2 ="), 3, 5, "expected an op name after '='");
  expect_error(base_with(2, "%2"), 3, 3, "expected '=' after the node name");
  expect_error(base_with(2, "%2 INDEX %0 %1 : int32"), 3, 4, "expected '=' after the node name");
  // A file cut in the middle of its last line.
  std::string text = base_with(5, kL5);
  expect_error(text.substr(0, text.size() - 8), 6, 13, "expected ': dtype'");
}

TEST(Parser, UnknownOpReportsLineAndColumn) {
  expect_error(base_with(3, "%3 = CONSTANT 7 : int32"), 4, 6, "unknown op 'CONSTANT'");
  expect_error(base_with(3, "%3 = add %1 %1 : index"), 4, 6, "unknown op 'add'");
  expect_error(base_with(3, "   %3   =   FOO : int32"), 4, 13, "unknown op 'FOO'");
}

TEST(Parser, UnknownDtypeReportsLineAndColumn) {
  expect_error(base_with(3, "%3 = CONST 7 : int33"), 4, 16, "unknown dtype 'int33'");
  expect_error(base_with(3, "%3 = CONST 7 : Int32"), 4, 16, "unknown dtype 'Int32'");
  expect_error(base_with(3, "%3 = CONST 7 : int32 int64"), 4, 16,
               "expected exactly one dtype after ':'");
}

TEST(Parser, UndefinedReferenceReportsTheOperand) {
  expect_error(base_with(4, "%4 = STORE %2 %9 : void"), 5, 15, "use of undefined node '%9'");
  // A forward reference is undefined too: nodes are defined before use.
  expect_error(base_with(2, "%2 = INDEX %0 %3 : int32"), 3, 15, "use of undefined node '%3'");
  expect_error(base_with(2, "%2 = INDEX %0 % : int32"), 3, 15, "use of undefined node '%'");
  // A node cannot use itself.
  expect_error(base_with(3, "%3 = NEG %3 : int32"), 4, 10, "use of undefined node '%3'");
}

TEST(Parser, RedefinitionReportsBothLines) {
  expect_error(base_with(3, "%1 = CONST 7 : int32"), 4, 1,
               "redefinition of %1 (first defined on line 2)");
  // Even when the definition is identical.
  expect_error(base_with(3, "  %1 = CONST 0 : index"), 4, 3,
               "redefinition of %1 (first defined on line 2)");
}

TEST(Parser, MissingDtypeIsReportedAfterTheLastToken) {
  expect_error(base_with(3, "%3 = CONST 7"), 4, 13, "expected ': dtype' at the end of the node");
  expect_error(base_with(3, "%3 = CONST 7 int32"), 4, 19, "expected ': dtype'");
  // The comment hides the dtype.
  expect_error(base_with(3, "%3 = CONST 7 # : int32"), 4, 13, "expected ': dtype'");
  expect_error(base_with(3, "%3 = CONST 7 :int32"), 4, 20, "expected ': dtype'");
}

TEST(Parser, WrongArityNamesTheExpectedCount) {
  expect_error(base_with(2, "%2 = INDEX %0 : int32"), 3, 6,
               "INDEX takes at least 2 operand(s), got 1");
  expect_error(base_with(4, "%4 = STORE %2 %3 %3 : void"), 5, 6, "STORE takes 2 operand(s), got 3");
  expect_error(base_with(3, "%3 = CONST %1 7 : int32"), 4, 6, "CONST takes 0 operand(s), got 1");
  expect_error(base_with(3, "%3 = LOAD %2 %1 %1 : int32"), 4, 6,
               "LOAD takes 1 to 2 operand(s), got 3");
  expect_error(base_with(3, "%3 = END %2 : void"), 4, 6, "END takes at least 2 operand(s), got 1");
  expect_error(base_with(3, "%3 = WHERE %1 %1 : index"), 4, 6, "WHERE takes 3 operand(s), got 2");
  // Operands must come first.
  expect_error(base_with(3, "%3 = REDUCE %1 %1 op=ADD %1 : index"), 4, 26,
               "operands (%...) must come before");
}

TEST(Parser, BadConstLiteralReportsTheLiteral) {
  expect_error(base_with(3, "%3 = CONST seven : int32"), 4, 12,
               "expected an integer literal, got 'seven'");
  expect_error(base_with(3, "%3 = CONST 7.5 : int32"), 4, 12,
               "expected an integer literal, got '7.5'");
  expect_error(base_with(3, "%3 = CONST 0x10 : int32"), 4, 12, "expected an integer literal");
  expect_error(base_with(3, "%3 = CONST -1 : uint8"), 4, 12,
               "expected an unsigned integer literal, got '-1'");
  expect_error(base_with(3, "%3 = CONST 2 : bool"), 4, 12, "expected true or false");
  expect_error(base_with(3, "%3 = CONST 1.5x : float32"), 4, 12,
               "expected a float literal, got '1.5x'");
  expect_error(base_with(3, "%3 = CONST --5 : float64"), 4, 12,
               "expected a float literal, got '--5'");
  expect_error(base_with(3, "%3 = CONST +-5 : int32"), 4, 12,
               "expected an integer literal, got '+-5'");
  expect_error(base_with(3, "%3 = CONST 0 : void"), 4, 12, "no literal has dtype void");
  expect_error(base_with(3, "%3 = CONST : int32"), 4, 6, "CONST takes exactly one literal value");
  expect_error(base_with(3, "%3 = CONST 1 2 : int32"), 4, 6,
               "CONST takes exactly one literal value");
  expect_error(base_with(3, "%3 = CONST v=1 : int32"), 4, 6,
               "CONST takes exactly one literal value");
}

TEST(Parser, OutOfRangeLiteralSaysItDoesNotFit) {
  expect_error(base_with(3, "%3 = CONST 128 : int8"), 4, 12, "'128' does not fit in int8");
  expect_error(base_with(3, "%3 = CONST -129 : int8"), 4, 12, "'-129' does not fit in int8");
  expect_error(base_with(3, "%3 = CONST 256 : uint8"), 4, 12, "'256' does not fit in uint8");
  expect_error(base_with(3, "%3 = CONST 65536 : uint16"), 4, 12, "does not fit in uint16");
  expect_error(base_with(3, "%3 = CONST 2147483648 : int32"), 4, 12, "does not fit in int32");
  expect_error(base_with(3, "%3 = CONST 4294967296 : uint32"), 4, 12, "does not fit in uint32");
  // Beyond 64 bits.
  expect_error(base_with(3, "%3 = CONST 9223372036854775808 : int64"), 4, 12,
               "does not fit in int64");
  expect_error(base_with(3, "%3 = CONST -9223372036854775809 : index"), 4, 12,
               "does not fit in index");
  expect_error(base_with(3, "%3 = CONST 18446744073709551616 : uint64"), 4, 12,
               "does not fit in uint64");
}

TEST(Parser, LiteralsAtTheEdgesOfTheirDtypeParse) {
  Context ctx;
  auto one = [&](std::string_view lit, DType dt) -> Value {
    std::string text =
        lines({"%0 = PARAM slot=0 size=1 out : " + std::string(dt.name()), "%1 = CONST 0 : index",
               "%2 = INDEX %0 %1 : " + std::string(dt.name()),
               "%3 = CONST " + std::string(lit) + " : " + std::string(dt.name()),
               "%4 = STORE %2 %3 : void", "%5 = SINK %4 : void"});
    auto r = parse_kernel(ctx, text);
    EXPECT_TRUE(r.ok()) << lit << ": " << r.error().message;
    if (!r.ok()) return Value::of_int(0);
    return r->kernel.root.src(0).src(1).const_value();
  };
  EXPECT_EQ(one("-128", dtypes::Int8).i, -128);
  EXPECT_EQ(one("+127", dtypes::Int8).i, 127);
  EXPECT_EQ(one("255", dtypes::UInt8).u, 255u);
  EXPECT_EQ(one("18446744073709551615", dtypes::UInt64).u, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(one("-9223372036854775808", dtypes::Int64).i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(one("true", dtypes::Bool).i, 1);
  EXPECT_EQ(one("0", dtypes::Bool).i, 0);
  EXPECT_TRUE(std::signbit(one("-0", dtypes::Float32).f));
  EXPECT_EQ(one("-0", dtypes::Float32).f, 0.0);
  EXPECT_TRUE(std::isnan(one("nan", dtypes::Float16).f));
  EXPECT_TRUE(std::isnan(one("-nan", dtypes::Float64).f));
  EXPECT_EQ(one("-inf", dtypes::Float64).f, -INFINITY);
  EXPECT_EQ(one("+inf", dtypes::Float32).f, INFINITY);
  EXPECT_EQ(one("0.1", dtypes::Float32).f, static_cast<double>(0.1f));
  EXPECT_EQ(one("0.1", dtypes::Float16).f, 0.0999755859375);
  EXPECT_EQ(one("65504", dtypes::Float16).f, 65504.0);
  EXPECT_EQ(one("1e-45", dtypes::Float32).f,
            static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(one("5e-324", dtypes::Float64).f, std::numeric_limits<double>::denorm_min());
  // Out-of-range float literals round like any other value: overflow to inf, underflow to 0.
  EXPECT_EQ(one("1e39", dtypes::Float32).f, INFINITY);
  EXPECT_EQ(one("-1e39", dtypes::Float32).f, -INFINITY);
  EXPECT_EQ(one("1e400", dtypes::Float64).f, INFINITY);
  EXPECT_EQ(one("1e-50", dtypes::Float32).f, 0.0);
  EXPECT_FALSE(std::signbit(one("1e-50", dtypes::Float32).f));
  EXPECT_TRUE(std::signbit(one("-1e-50", dtypes::Float16).f));
  EXPECT_EQ(one("-1e-50", dtypes::Float16).f, 0.0);
  EXPECT_EQ(one("1e-400", dtypes::Float64).f, 0.0);
  EXPECT_EQ(one("1e5", dtypes::Float16).f, INFINITY);
}

TEST(Parser, HeaderAfterNodesIsAnError) {
  expect_error(base_with(2, "@name late"), 3, 1,
               "header lines (@...) must come before the first node");
  expect_error(lines({kL0, "  @seed 3", kL1}), 2, 3, "must come before the first node");
}

TEST(Parser, BadExpectNamesTheValue) {
  expect_error("@expect maybe\n" + base_with(0, kL0), 1, 9,
               "expected 'ok' or 'ub' after @expect, got 'maybe'");
  expect_error("@expect OK\n" + base_with(0, kL0), 1, 9, "got 'OK'");
  expect_error("@expect ok ub\n" + base_with(0, kL0), 1, 9, "got 'ok ub'");
  expect_error("@expect\n" + base_with(0, kL0), 1, 8, "expected a value after @expect");
  expect_error("@expect ok\n@expect ub\n" + base_with(0, kL0), 2, 1, "duplicate @expect");
}

TEST(Parser, OutputSizeMismatchIsReportedAtTheOutputLine) {
  expect_error("# c\n@output 0 [1, 2]\n" + base_with(0, kL0), 2, 9,
               "@output 0 lists 2 values; the PARAM has size 1");
  expect_error("@output 0 []\n" + base_with(0, kL0), 1, 9,
               "@output 0 lists 0 values; the PARAM has size 1");
}

TEST(Parser, BadOutputLinesAreReportedPrecisely) {
  const std::string body = base_with(0, kL0);
  expect_error("@output 1 [7]\n" + body, 1, 9,
               "@output names slot 1, which is not an output PARAM");
  expect_error("@output 0 [x]\n" + body, 1, 12, "expected an integer literal, got 'x'");
  expect_error("@output 0 [3000000000]\n" + body, 1, 12, "does not fit in int32");
  expect_error("@output 0 1\n" + body, 1, 11, "expected a list of values in brackets");
  expect_error("@output 0\n" + body, 1, 9, "expected a list of values in brackets");
  expect_error("@output x [1]\n" + body, 1, 9, "expected an output slot number, got 'x'");
  expect_error("@output -1 [1]\n" + body, 1, 9, "expected an output slot number, got '-1'");
  expect_error("@output 0 [1 2]\n" + body, 1, 14, "expected ',' or ']'");
  expect_error("@output 0 [1,]\n" + body, 1, 14, "expected a value before ']'");
  expect_error("@output 0 [,1]\n" + body, 1, 12, "expected a value");
  expect_error("@output 0 [1]\n@output 0 [2]\n" + body, 2, 9, "duplicate @output for slot 0");
  // An input PARAM is not an output.
  expect_error("@output 0 [1]\n" + base_with(0, "%0 = PARAM slot=0 size=1 in : int32"), 1, 9,
               "not an output PARAM");
}

TEST(Parser, LastNodeMustBeTheSink) {
  std::string text = lines({kL0, kL1, kL2, kL3, kL4, "# trailing comment", ""});
  expect_error(text, 5, 6,
               "the last node must be the root: a SINK (a kernel) or a REALIZE (a tensor "
               "program), got STORE");
  expect_error(lines({"%0 = SINK : void", "%1 = CONST 1 : int32"}), 2, 6, "got CONST");
}

TEST(Parser, EmptyFileIsReportedAtItsEnd) {
  expect_error("", 1, 1, "expected at least one node (the file has no SINK)");
  expect_error("# only a comment", 1, 1, "expected at least one node");
  // A final newline ends the last line; it does not open another one.
  expect_error("# a\n# b\n", 2, 1, "expected at least one node");
  expect_error("@name nothing\n\n", 2, 1, "expected at least one node");
}

TEST(Parser, ParamNeedsADirectionSlotAndSize) {
  expect_error(base_with(0, "%0 = PARAM slot=0 size=1 : int32"), 1, 6,
               "PARAM needs exactly one of 'in' or 'out'");
  expect_error(base_with(0, "%0 = PARAM slot=0 size=1 inout : int32"), 1, 26,
               "PARAM needs exactly one of 'in' or 'out'");
  expect_error(base_with(0, "%0 = PARAM slot=0 size=1 in out : int32"), 1, 26,
               "exactly one of 'in' or 'out'");
  expect_error(base_with(0, "%0 = PARAM size=1 out : int32"), 1, 6, "PARAM needs slot=<integer>");
  expect_error(base_with(0, "%0 = PARAM slot=0 out : int32"), 1, 6, "PARAM needs size=<integer>");
  expect_error(base_with(0, "%0 = PARAM slot=x size=1 out : int32"), 1, 17,
               "expected an integer for slot, got 'x'");
  expect_error(base_with(0, "%0 = PARAM slot=-1 size=1 out : int32"), 1, 6,
               "PARAM slot -1 is outside 0..4096");
  expect_error(base_with(0, "%0 = PARAM slot=0 size=1 out foo=1 : int32"), 1, 30,
               "PARAM takes no argument 'foo'");
  expect_error(base_with(0, "%0 = PARAM slot=0 slot=1 size=1 out : int32"), 1, 19,
               "duplicate argument 'slot'");
  expect_error(base_with(0, "%0 = PARAM slot=0 size=1 out vmin=a : int32"), 1, 35,
               "expected an integer for vmin, got 'a'");
}

TEST(Parser, BadAxisIsReportedAtTheAxis) {
  auto range_kernel = [](std::string_view range_line) {
    return lines({"%0 = PARAM slot=0 size=4 out : int32", "%1 = CONST 4 : index", range_line,
                  "%3 = INDEX %0 %2 : int32", "%4 = CONST 1 : int32", "%5 = STORE %3 %4 : void",
                  "%6 = END %5 %2 : void", "%7 = SINK %6 : void"});
  };
  {
    Context ctx;
    auto ok = parse_kernel(ctx, range_kernel("%2 = RANGE %1 axis=3.1 GLOBAL : index"));
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    const RangeArg& r = ok->kernel.root.src(0).src(1).arg<RangeArg>();
    EXPECT_EQ(r.axis, (std::vector<int32_t>{3, 1}));
    EXPECT_EQ(r.type, AxisType::Global);
  }
  expect_error(range_kernel("%2 = RANGE %1 axis=x LOOP : index"), 3, 20,
               "expected axis ids like 0 or 3.1, got 'x'");
  expect_error(range_kernel("%2 = RANGE %1 axis=1..2 LOOP : index"), 3, 20,
               "expected axis ids like 0 or 3.1");
  expect_error(range_kernel("%2 = RANGE %1 axis=1. LOOP : index"), 3, 20, "expected axis ids");
  expect_error(range_kernel("%2 = RANGE %1 axis=-1 LOOP : index"), 3, 20, "got '-1'");
  expect_error(range_kernel("%2 = RANGE %1 axis= LOOP : index"), 3, 20, "expected axis ids");
  expect_error(
      range_kernel("%2 = RANGE %1 axis=0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16 LOOP : index"), 3,
      20, "expected axis ids");
  expect_error(range_kernel("%2 = RANGE %1 LOOP : index"), 3, 6, "RANGE needs axis=<id>");
  expect_error(range_kernel("%2 = RANGE %1 axis=0 : index"), 3, 6,
               "RANGE needs exactly one axis type");
  expect_error(range_kernel("%2 = RANGE %1 axis=0 LOOP REDUCE : index"), 3, 27,
               "RANGE needs exactly one axis type");
  expect_error(range_kernel("%2 = RANGE %1 axis=0 LOOPY : index"), 3, 22,
               "unknown axis type 'LOOPY'");
  expect_error(range_kernel("%2 = RANGE %1 axis=0 loop : index"), 3, 22,
               "unknown axis type 'loop'");
}

TEST(Parser, BadReduceAndVarArguments) {
  auto with = [](std::string_view l3) {
    return lines({"%0 = PARAM slot=0 size=1 out : index", "%1 = CONST 0 : index",
                  "%2 = INDEX %0 %1 : index", l3, "%4 = STORE %2 %3 : void",
                  "%5 = SINK %4 : void"});
  };
  expect_error(with("%3 = REDUCE %1 %1 : index"), 4, 6, "REDUCE needs op=ADD|MUL|MAX|MIN");
  expect_error(with("%3 = REDUCE %1 %1 op=SUB : index"), 4, 22,
               "REDUCE op must be ADD, MUL, MAX or MIN, got 'SUB'");
  expect_error(with("%3 = REDUCE %1 %1 op=add : index"), 4, 22, "got 'add'");
  expect_error(with("%3 = VAR min=0 max=3 : index"), 4, 6, "VAR needs name=<identifier>");
  expect_error(with("%3 = VAR name=a/b min=0 max=3 : index"), 4, 15, "bad VAR name 'a/b'");
  expect_error(with("%3 = VAR name=n max=3 : index"), 4, 6, "VAR needs min=<integer>");
  expect_error(with("%3 = VAR name=n min=0 max=z : index"), 4, 27,
               "expected an integer for max, got 'z'");
  expect_error(with("%3 = VAR name=n min=0 max=3 step=1 : index"), 4, 29,
               "VAR takes no argument 'step'");
  expect_error(with("%3 = ADD %1 %1 extra : index"), 4, 16, "unexpected 'extra' in ADD");
  expect_error(with("%3 = ADD %1 %1 k=v : index"), 4, 16, "ADD takes no argument 'k'");
}

TEST(Parser, BadNodeNamesAndHeaderKeys) {
  expect_error(base_with(3, "x = CONST 7 : int32"), 4, 1,
               "expected a node name like %3 or a header line, got 'x'");
  expect_error(base_with(3, "%a/b = CONST 7 : int32"), 4, 1, "expected a node name like %3");
  expect_error("@ name\n" + base_with(0, kL0), 1, 1, "expected a header key after '@'");
  expect_error("@na!me x\n" + base_with(0, kL0), 1, 1,
               "expected a header key after '@', got 'na!me'");
  expect_error("@name\n" + base_with(0, kL0), 1, 6, "expected a value after @name");
  expect_error("@name a\n@name b\n" + base_with(0, kL0), 2, 1, "duplicate @name");
  expect_error("@seed x\n" + base_with(0, kL0), 1, 7, "expected an unsigned integer seed, got 'x'");
  expect_error("@seed -1\n" + base_with(0, kL0), 1, 7, "expected an unsigned integer seed");
  expect_error("@seed 1 2\n" + base_with(0, kL0), 1, 7,
               "expected an unsigned integer seed, got '1 2'");
  expect_error("@seed 1\n@seed 1\n" + base_with(0, kL0), 2, 1, "duplicate @seed");
  expect_error("@var n\n" + base_with(0, kL0), 1, 6, "expected NAME=INTEGER after @var, got 'n'");
  expect_error("@var =3\n" + base_with(0, kL0), 1, 6, "expected NAME=INTEGER after @var");
  expect_error("@var n=x\n" + base_with(0, kL0), 1, 6, "expected NAME=INTEGER after @var");
  expect_error("@var n=1\n@var n=2\n" + base_with(0, kL0), 2, 6, "duplicate @var n");
}

TEST(Parser, ColumnsCountBytesAndIgnoreCarriageReturns) {
  std::string crlf;
  for (std::string_view l : {kL0, kL1, std::string_view("%2 = FOO %0 %1 : int32")})
    (crlf += l) += "\r\n";
  expect_error(crlf, 3, 6, "unknown op 'FOO'");
  expect_error(base_with(3, "\t%3 = CONST 7 : int33"), 4, 17, "unknown dtype 'int33'");
  // CRLF files parse like LF files.
  std::string good;
  for (std::string_view l : {kL0, kL1, kL2, kL3, kL4, kL5}) (good += l) += "\r\n";
  Context ctx;
  auto r = parse_kernel(ctx, good);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->kernel.root.src(0).src(1), ctx.const_int(dtypes::Int32, 7));
}

TEST(Parser, ErrorMessagesEchoInputAsOnePrintableLine) {
  std::string junk = "%3 = CONST 7 : in\x01t\x7f" + std::string(100, 'x');
  Context ctx;
  auto r = parse_kernel(ctx, base_with(3, junk));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().loc.line, 4);
  EXPECT_EQ(r.error().loc.col, 16);
  for (char c : r.error().message) EXPECT_TRUE(c >= 32 && c < 127) << int(c);
  EXPECT_NE(r.error().message.find("'in?t?xxx"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("...'"), std::string::npos) << r.error().message;  // truncated
  EXPECT_LT(r.error().message.size(), 80u);
}

TEST(Parser, HeaderFieldsAndExtraKeysInOrder) {
  const std::string text = lines({
      "# leading comment",
      "@name my kernel",
      "@seed 18446744073709551615",
      "@zz first extra",
      "@expect ub",
      "@var n=5",
      "@var m_2=-3",
      "@output 1 [1.5, -0, nan]",
      "@signature abc  def   # the comment is not part of the value",
      "@found-by fuzz:seed=3 [x]",
      "%0 = PARAM slot=0 size=3 in : float32",
      "%1 = PARAM slot=1 size=3 out : float32",
      "%2 = CONST 0 : index",
      "%3 = INDEX %0 %2 : float32",
      "%4 = LOAD %3 : float32",
      "%5 = INDEX %1 %2 : float32",
      "%6 = STORE %5 %4 : void",
      "%7 = SINK %6 : void",
  });
  Context ctx;
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << r.error().message << " at " << r.error().loc.line << ":"
                      << r.error().loc.col;
  const KernelHeader& h = r->kernel.header;
  EXPECT_EQ(h.name, "my kernel");
  ASSERT_TRUE(h.seed.has_value());
  EXPECT_EQ(*h.seed, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(h.expect, Expect::Ub);
  EXPECT_TRUE(h.expect_given);
  EXPECT_EQ(h.vars, (std::vector<std::pair<std::string, int64_t>>{{"n", 5}, {"m_2", -3}}));
  ASSERT_EQ(h.outputs.size(), 1u);
  EXPECT_EQ(h.outputs[0].slot, 1);
  ASSERT_EQ(h.outputs[0].values.size(), 3u);
  EXPECT_EQ(h.outputs[0].values[0].f, 1.5);
  EXPECT_TRUE(std::signbit(h.outputs[0].values[1].f));
  EXPECT_TRUE(std::isnan(h.outputs[0].values[2].f));
  EXPECT_EQ(
      h.extra,
      (std::vector<std::pair<std::string, std::string>>{
          {"zz", "first extra"}, {"signature", "abc  def"}, {"found-by", "fuzz:seed=3 [x]"}}));
  EXPECT_EQ(r->where.at(r->kernel.root).line, 18);
}

TEST(Parser, OutputValuesAreTypedByTheirParam) {
  const std::string text = lines({
      "@output 0 [255, 0]",
      "@output 2 [true, false]",
      "%0 = PARAM slot=0 size=2 out : uint8",
      "%1 = PARAM slot=2 size=2 out : bool",
      "%2 = CONST 0 : index",
      "%3 = INDEX %0 %2 : uint8",
      "%4 = CONST 1 : uint8",
      "%5 = STORE %3 %4 : void",
      "%6 = INDEX %1 %2 : bool",
      "%7 = CONST true : bool",
      "%8 = STORE %6 %7 : void",
      "%9 = SINK %5 %8 : void",
  });
  Context ctx;
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& outs = r->kernel.header.outputs;
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].slot, 0);
  EXPECT_EQ(outs[0].values[0].u, 255u);
  EXPECT_EQ(outs[1].slot, 2);
  EXPECT_EQ(outs[1].values[0].i, 1);
  EXPECT_EQ(outs[1].values[1].i, 0);
  // 256 does not fit the uint8 output.
  std::string bad = text;
  bad.replace(bad.find("255"), 3, "256");
  expect_error(bad, 1, 12, "'256' does not fit in uint8");
}

TEST(Parser, NamesMayBeIdentifiersAndSharedNodesIntern) {
  const std::string text = lines({
      "%out = PARAM slot=0 size=1 out : int32",
      "%zero = CONST 0 : index",
      "%also_zero = CONST 0 : index",
      "%i = INDEX %out %also_zero : int32",
      "%v = CONST 1 : int32",
      "%s = STORE %i %v : void",
      "%root = SINK %s : void",
  });
  Context ctx;
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  UOp idx = r->kernel.root.src(0).src(0);
  EXPECT_EQ(idx.src(1), ctx.const_int(dtypes::Index, 0));
  // The node's location is where it was first defined.
  EXPECT_EQ(r->where.at(idx.src(1)).line, 2);
  EXPECT_EQ(r->where.at(idx.src(1)).col, 9);
}

}  // namespace
}  // namespace uopfuzz::ir
