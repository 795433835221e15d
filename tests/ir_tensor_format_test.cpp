// The tensor-program text format: builder-made programs print to text that parses back to
// the identical graph, hand-written text prints in its canonical form, every mistake is
// reported at its line and column, and the hand-written tensor examples are well formed.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "ir/verify.h"

namespace uopfuzz::ir {
namespace {

namespace t = tensor;

std::string errors_text(UOp root) {
  std::string s;
  for (const VerifyError& e : verify(root))
    s += "[" + std::string(verify_rule_name(e.rule)) + "] " + e.message + "\n";
  return s;
}

/// Prints `k`, parses it back into the same context and expects the very same nodes.
void expect_round_trip(Context& ctx, const Kernel& k) {
  ASSERT_EQ(errors_text(k.root), "") << print_kernel(k);
  const std::string text = print_kernel(k);
  const size_t nodes = ctx.size();
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << r.error().loc.line << ":" << r.error().loc.col << " " << r.error().message
                      << "\n"
                      << text;
  EXPECT_EQ(r->kernel.root, k.root) << text << "\nreparsed:\n" << print_graph(r->kernel.root);
  EXPECT_EQ(ctx.size(), nodes) << "parsing made new nodes:\n" << text;
  EXPECT_TRUE(r->kernel.header == k.header) << text;
  EXPECT_EQ(print_kernel(r->kernel), text);
}

TEST(TensorFormat, MovementOpsRoundTrip) {
  Context ctx;
  UOp x = t::input(ctx, dtypes::Int32, {3, 4}, 0);
  UOp flat = t::reshape(ctx, x, {12});
  UOp back = t::reshape(ctx, flat, {3, 4});
  UOp tr = t::permute(ctx, back, {1, 0});                 // [4,3]
  UOp padded = t::pad(ctx, tr, {{1, 0}, {0, 2}});         // [5,5]
  UOp window = t::shrink(ctx, padded, {{0, 2}, {1, 3}});  // [2,2]
  UOp flipped = t::flip(ctx, window, {0, 1});
  UOp peak = t::reduce_axis(ctx, flipped, Op::Max, {0, 1});  // [1,1]
  UOp wide = t::expand(ctx, peak, {3, 5});
  UOp plus = t::alu(ctx, Op::Add, {wide, t::constant(ctx, dtypes::Int32, 1, {3, 5})});
  UOp rows = t::reduce_axis(ctx, t::contiguous(ctx, x), Op::Add, {1});  // [3,1]
  Kernel k{{}, t::realize(ctx, {t::cast(ctx, plus, dtypes::Float32), rows, flat})};
  ASSERT_EQ(wide.shape(), (Shape{3, 5}));
  k.header.name = "movement";
  k.header.inputs.push_back({0, dtypes::Int32, {}});
  for (int i = 0; i < 12; ++i) k.header.inputs[0].values.push_back(Value::of_int(i - 6));
  k.header.outputs.push_back({1, {Value::of_int(-18), Value::of_int(-2), Value::of_int(14)}});
  expect_round_trip(ctx, k);
}

TEST(TensorFormat, AluOpsAndDtypesRoundTrip) {
  Context ctx;
  UOp f = t::input(ctx, dtypes::Float32, {2, 3}, 0);
  UOp small = t::input(ctx, dtypes::Int8, {2, 3}, 1);
  UOp half = t::constant(ctx, dtypes::Float32, 0.5, {2, 3});
  UOp lt = t::alu(ctx, Op::CmpLt, {f, half});  // bool [2,3]
  UOp picked = t::alu(ctx, Op::Where, {lt, f, t::alu(ctx, Op::Neg, {f})});
  UOp scaled = t::alu(ctx, Op::Mul, {picked, t::cast(ctx, small, dtypes::Float32)});
  UOp same = t::reduce_axis(ctx, scaled, Op::Min, {});  // reduces nothing
  UOp any = t::reduce_axis(ctx, lt, Op::Max, {0, 1});
  UOp bits = t::alu(ctx, Op::Bitcast, {small});  // int8 -> int8 keeps the bits
  UOp shifted = t::alu(ctx, Op::Shl, {bits, t::constant(ctx, dtypes::Int8, 1, {2, 3})});
  UOp scalar = t::input(ctx, dtypes::Float64, {}, 2);    // rank 0
  UOp empty = t::input(ctx, dtypes::UInt16, {0, 3}, 3);  // no elements
  UOp col = t::reduce_axis(ctx, empty, Op::Add, {0});    // [1,3] of zeros
  Kernel k{{},
           t::realize(ctx, {same, any, shifted, t::alu(ctx, Op::Sqrt, {scalar}), col,
                            t::constant(ctx, dtypes::Bool, 1, {})})};
  k.header.outputs.push_back({1, {Value::of_int(1)}});
  k.header.outputs.push_back({4, {Value::of_uint(0), Value::of_uint(0), Value::of_uint(0)}});
  expect_round_trip(ctx, k);
}

TEST(TensorFormat, PrintIsCanonical) {
  // Sizes of tensor inputs, `axes=all` and spacing are spelling; the printed form is one.
  const std::string text =
      "# a comment\n"
      "@output 0 [6, 22, 38]\n"
      "%x   = PARAM slot=0 size=12 in : int32[12]  # arange\n"
      "%m = RESHAPE %x : int32[ 3 , 4 ]\n"
      "%s = REDUCE_AXIS %m op=ADD axes=[1] : int32[3,1]\n"
      "%all = REDUCE_AXIS %m op=MAX axes=all : int32[1,1]\n"
      "%v = RESHAPE %s : int32[3]\n"
      "%r = REALIZE %v %all : void\n";
  Context ctx;
  auto r = parse_kernel(ctx, text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(print_kernel(r->kernel),
            "@output 0 [6, 22, 38]\n"
            "%0 = PARAM slot=0 in : int32[12]\n"
            "%1 = RESHAPE %0 : int32[3,4]\n"
            "%2 = REDUCE_AXIS %1 op=ADD axes=[1] : int32[3,1]\n"
            "%3 = RESHAPE %2 : int32[3]\n"
            "%4 = REDUCE_AXIS %1 op=MAX axes=[0,1] : int32[1,1]\n"
            "%5 = REALIZE %3 %4 : void\n");
}

TEST(TensorFormat, AxesAllOnRankZeroIsTheEmptyList) {
  Context ctx;
  auto r = parse_kernel(ctx,
                        "%x = CONST 2.5 : float32[]\n%s = REDUCE_AXIS %x op=ADD axes=all : "
                        "float32[]\n%r = REALIZE %s : void\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  UOp s = r->kernel.root.src(0);
  ASSERT_EQ(s.op(), Op::ReduceAxis);
  EXPECT_TRUE(s.arg<ReduceAxisArg>().axes.empty());
  EXPECT_TRUE(s.shape().empty());
  EXPECT_EQ(errors_text(r->kernel.root), "");
  EXPECT_NE(print_kernel(r->kernel).find("REDUCE_AXIS %0 op=ADD axes=[] : float32[]"),
            std::string::npos);
}

TEST(TensorFormat, ConstTensorKeepsItsShape) {
  Context ctx;
  auto r = parse_kernel(ctx, "%c = CONST -3 : int8[2,1,0]\n%r = REALIZE %c : void\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  UOp c = r->kernel.root.src(0);
  EXPECT_EQ(c.shape(), (Shape{2, 1, 0}));
  EXPECT_EQ(c.const_value().i, -3);
  EXPECT_EQ(errors_text(r->kernel.root), "");
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
}

/// A tensor program whose second line is `line`, reading %x (int32[3,4]) and realizing %y.
std::string with_line(std::string_view line) {
  return "%x = PARAM slot=0 in : int32[3,4]\n" + std::string(line) + "\n%r = REALIZE %y : void\n";
}

TEST(TensorFormat, ShapeSyntaxErrors) {
  expect_error(with_line("%y = RESHAPE %x : int32[12"), 2, 24, "'[' without its ']'");
  expect_error(with_line("%y = RESHAPE %x : int32[12,-1]"), 2, 28,
               "expected a size in 0..2^31 in the shape, got '-1'");
  expect_error(with_line("%y = RESHAPE %x : int32[2147483649]"), 2, 25, "in 0..2^31");
  expect_error(with_line("%y = RESHAPE %x : int32[12] x"), 2, 29,
               "expected nothing after the shape");
  expect_error(with_line("%y = RESHAPE %x : int32[12,,1]"), 2, 28, "expected a list item");
  expect_error(with_line("%y = RESHAPE %x : int32[12,]"), 2, 28, "expected a list item before ']'");
  expect_error(with_line("%y = RESHAPE %x : int32 [12] x"), 2, 30,
               "expected nothing after the shape");
  expect_error(with_line("%y = RESHAPE %x : int32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]"), 2, 24,
               "a shape has at most 16 dims");
  // A shape is only after the dtype.
  expect_error(with_line("%y = RESHAPE %x : [12] int32"), 2, 19,
               "expected exactly one dtype after ':'");
}

TEST(TensorFormat, TensorNodesNeedAShape) {
  expect_error(with_line("%y = NEG %x : int32"), 2, 20, "needs a shape after its dtype");
  expect_error("%x = CONST 1 : int32\n%r = REALIZE %x : void\n", 1, 21, "(: int32[] for rank 0)");
  expect_error(with_line("%y = RESHAPE %x : int32"), 2, 6,
               "RESHAPE takes its target from the shape after ':'");
  expect_error(with_line("%y = EXPAND %x : int32"), 2, 6, "EXPAND takes its target");
  expect_error("%x = PARAM slot=0 in : int32\n%r = REALIZE %x : void\n", 1, 6,
               "PARAM needs size=<integer>");
}

TEST(TensorFormat, KernelNodesHaveNoShape) {
  const std::string kernel =
      "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n"
      "%3 = CONST 7 : int32[]\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n";
  expect_error(kernel, 4, 21, "a kernel's node has no shape");
  expect_error(
      "%0 = PARAM slot=0 size=4 out : int32[4]\n%1 = CONST 0 : index\n"
      "%2 = INDEX %0 %1 : int32\n%3 = CONST 7 : int32\n%4 = STORE %2 %3 : void\n"
      "%5 = SINK %4 : void\n",
      1, 37, "(shapes are for tensor programs, rooted at REALIZE)");
}

TEST(TensorFormat, ArgumentErrors) {
  expect_error(with_line("%y = PERMUTE %x : int32[4,3]"), 2, 6, "PERMUTE needs order=[...]");
  expect_error(with_line("%y = PERMUTE %x order=[1,a] : int32[4,3]"), 2, 26,
               "expected an integer in order, got 'a'");
  expect_error(with_line("%y = PERMUTE %x order=[1,0] order=[0,1] : int32[4,3]"), 2, 29,
               "duplicate argument 'order'");
  expect_error(with_line("%y = FLIP %x : int32[3,4]"), 2, 6, "FLIP needs axes=[...]");
  expect_error(with_line("%y = FLIP %x axes=all : int32[3,4]"), 2, 6, "FLIP needs axes=[...]");
  expect_error(with_line("%y = PAD %x pad=[1,2] : int32[3,4]"), 2, 18,
               "expected a pair like 1:2 in pad, got '1'");
  expect_error(with_line("%y = PAD %x pad=[1:x,0:0] : int32[3,4]"), 2, 18, "got '1:x'");
  expect_error(with_line("%y = SHRINK %x pad=[0:1,0:1] : int32[1,1]"), 2, 6,
               "SHRINK needs shrink=[a:b,...] (one pair per dim)");
  expect_error(with_line("%y = PAD %x pad=[0:0,0:0] axes=[0] : int32[3,4]"), 2, 27,
               "PAD takes no argument 'axes'");
  expect_error(with_line("%y = PAD %x pad=[0:0,0:0 : int32[3,4]"), 2, 26, "expected ',' or ']'");
  expect_error(with_line("%y = REDUCE_AXIS %x axes=[1] : int32[3,1]"), 2, 6,
               "REDUCE_AXIS needs op=ADD|MUL|MAX|MIN");
  expect_error(with_line("%y = REDUCE_AXIS %x op=SUB axes=[1] : int32[3,1]"), 2, 24,
               "REDUCE_AXIS op must be ADD, MUL, MAX or MIN, got 'SUB'");
  expect_error(with_line("%y = REDUCE_AXIS %x op=ADD : int32[3,1]"), 2, 6,
               "REDUCE_AXIS needs axes=[...]");
  expect_error(with_line("%y = REDUCE_AXIS %x op=ADD axes=some : int32[1,1]"), 2, 33,
               "expected axes=[...] or axes=all, got 'some'");
  expect_error(with_line("%y = CONTIGUOUS %x order=[0] : int32[3,4]"), 2, 20,
               "CONTIGUOUS takes no argument 'order'");
  expect_error(with_line("%y = RESHAPE %x 12 : int32[12]"), 2, 17, "unexpected '12' in RESHAPE");
}

TEST(TensorFormat, OutputLinesNameRealizedOutputs) {
  const std::string body = "%x = CONST 1 : int32[3]\n%r = REALIZE %x : void\n";
  expect_error("@output 1 [1, 1, 1]\n" + body, 1, 9, "@output names output 1; REALIZE lists 1");
  expect_error("@output 0 [1, 1]\n" + body, 1, 9, "@output 0 lists 2 values; the output [3] has 3");
  expect_error("@output 0 []\n" + body, 1, 9, "@output 0 lists 0 values");
  expect_error("@output 0 [1, 1.5, 1]\n" + body, 1, 15, "expected an integer literal, got '1.5'");
  // An output's values are in its dtype: a bool output takes true/false.
  expect_error("@output 0 [2]\n%x = CONST true : bool[]\n%r = REALIZE %x : void\n", 1, 12,
               "expected true or false");
  // An empty output has no values.
  Context ctx;
  auto r = parse_kernel(ctx, "@output 0 []\n%x = CONST 1 : int32[0,2]\n%r = REALIZE %x : void\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->kernel.header.outputs.size(), 1u);
  EXPECT_TRUE(r->kernel.header.outputs[0].values.empty());
}

TEST(TensorFormat, InputLinesNameInputParams) {
  const std::string body = "%x = PARAM slot=2 in : int8[2]\n%r = REALIZE %x : void\n";
  expect_error("@input 0 [1, 2]\n" + body, 1, 8,
               "@input names slot 0, which is not an input PARAM");
  expect_error("@input 2 [1, 2, 3]\n" + body, 1, 8,
               "@input 2 lists 3 values; the PARAM has size 2");
  expect_error("@input 2 [1, 200]\n" + body, 1, 14, "'200' does not fit in int8");
  Context ctx;
  auto r = parse_kernel(ctx, "@input 2 [-1, 127]\n" + body);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->kernel.header.inputs.size(), 1u);
  EXPECT_EQ(r->kernel.header.inputs[0].values[0].i, -1);
}

TEST(TensorFormat, KernelOutputLinesStillNamePARAMSlots) {
  expect_error(
      "@output 0 [7]\n%0 = PARAM slot=1 size=1 out : int32\n%1 = CONST 0 : index\n"
      "%2 = INDEX %0 %1 : int32\n%3 = CONST 7 : int32\n%4 = STORE %2 %3 : void\n"
      "%5 = SINK %4 : void\n",
      1, 9, "@output names slot 0, which is not an output PARAM");
}

std::vector<std::filesystem::path> tensor_examples() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(UOPFUZZ_SOURCE_DIR) / "corpus/examples/tensor"))
    if (e.path().extension() == ".uop") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(TensorFormat, ExamplesAreWellFormedAndStateEveryOutput) {
  const auto files = tensor_examples();
  EXPECT_GE(files.size(), 12u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    Context ctx;
    auto r = parse_kernel(ctx, ss.str());
    ASSERT_TRUE(r.ok()) << r.error().loc.line << ":" << r.error().loc.col << " "
                        << r.error().message;
    const Kernel& k = r->kernel;
    ASSERT_TRUE(is_tensor_program(k.root));
    EXPECT_EQ(errors_text(k.root), "");
    // Every output has its expected values, and every input is given.
    EXPECT_EQ(k.header.outputs.size(), k.root.num_src());
    size_t params = 0;
    for (UOp u : toposort(k.root)) params += u.op() == Op::Param;
    EXPECT_EQ(k.header.inputs.size(), params);
    expect_round_trip(ctx, k);
  }
}

TEST(TensorFormat, ArangeReshapeSumStatesItsRowSums) {
  std::ifstream in(std::filesystem::path(UOPFUZZ_SOURCE_DIR) /
                   "corpus/examples/tensor/arange_reshape_sum.uop");
  std::stringstream ss;
  ss << in.rdbuf();
  Context ctx;
  auto r = parse_kernel(ctx, ss.str());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->kernel.header.outputs.size(), 1u);
  std::vector<int64_t> got;
  for (Value v : r->kernel.header.outputs[0].values) got.push_back(v.i);
  EXPECT_EQ(got, (std::vector<int64_t>{6, 22, 38}));
  EXPECT_EQ(r->kernel.root.src(0).shape(), (Shape{3}));
}

}  // namespace
}  // namespace uopfuzz::ir
