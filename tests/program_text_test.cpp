// A Program's text: print_program writes the buffer table and each kernel block, and
// parse_program reads it back to the same Program; every mistake is reported at a line and
// column, and a kernel block cut out of the text is a .uop kernel on its own.

#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"
#include "ir/program.h"

namespace uopfuzz::ir {
namespace {

// out[i] = sum over j < 4 of in[i*4 + j], for i < 3: the rows' sums of a 3x4 input.
constexpr std::string_view kRowSums = R"(%0 = PARAM slot=0 size=12 in : int32
%1 = PARAM slot=1 size=3 out : int32
%2 = CONST 3 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %1 %3 : int32
%5 = CONST 4 : index
%6 = RANGE %5 axis=1 REDUCE : index
%7 = MUL %3 %5 : index
%8 = ADD %7 %6 : index
%9 = INDEX %0 %8 : int32
%10 = LOAD %9 : int32
%11 = REDUCE %10 %6 op=ADD : int32
%12 = STORE %4 %11 : void
%13 = END %12 %3 : void
%14 = SINK %13 : void
)";

// out[i] = in[i] + 1 for i < 3 (its slots are numbered the other way round).
constexpr std::string_view kPlusOne = R"(%0 = PARAM slot=0 size=3 out : int32
%1 = PARAM slot=1 size=3 in : int32
%2 = CONST 3 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %0 %3 : int32
%5 = INDEX %1 %3 : int32
%6 = LOAD %5 : int32
%7 = CONST 1 : int32
%8 = ADD %6 %7 : int32
%9 = STORE %4 %8 : void
%10 = END %9 %3 : void
%11 = SINK %10 : void
)";

UOp kernel_root(Context& ctx, std::string_view text) {
  auto k = parse_kernel(ctx, text);
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message);
  return k.ok() ? k->kernel.root : UOp{};
}

/// x.reshape(3,4).sum(1) + 1 as two kernels through an intermediate of 3 elements.
Program row_sums_plus_one(Context& ctx) {
  Program p;
  p.buffers.push_back({ProgramBuffer::Role::Input, 0, dtypes::Int32, 12, {3, 4}});
  p.buffers.push_back({ProgramBuffer::Role::Intermediate, -1, dtypes::Int32, 3, {3}});
  p.buffers.push_back({ProgramBuffer::Role::Output, 0, dtypes::Int32, 3, {3}});
  p.kernels.push_back({kernel_root(ctx, kRowSums), {{0, 0}, {1, 1}}});
  p.kernels.push_back({kernel_root(ctx, kPlusOne), {{0, 2}, {1, 1}}});
  return p;
}

void expect_same(const Program& want, const Program& got) {
  EXPECT_EQ(want.buffers, got.buffers);
  ASSERT_EQ(want.kernels.size(), got.kernels.size());
  for (size_t k = 0; k < want.kernels.size(); ++k) {
    // Nodes are interned: the same graph is the same root.
    EXPECT_EQ(want.kernels[k].root, got.kernels[k].root) << "kernel " << k;
    EXPECT_EQ(want.kernels[k].buffer_of_slot, got.kernels[k].buffer_of_slot) << "kernel " << k;
  }
}

TEST(ProgramText, PrintsTheBufferTableThenEachKernelWithItsSlots) {
  Context ctx;
  const std::string text = print_program(row_sums_plus_one(ctx));
  const std::string want_head =
      "# Program: 3 buffers, 2 kernels\n"
      "@buffer 0 input 0 : int32[3,4]\n"
      "@buffer 1 intermediate : int32[3]\n"
      "@buffer 2 output 0 : int32[3]\n"
      "\n"
      "@kernel 0\n"
      "@slot 0 buffer=0  # input 0\n"
      "@slot 1 buffer=1  # intermediate\n";
  EXPECT_EQ(text.substr(0, want_head.size()), want_head);
  EXPECT_NE(text.find("\n@kernel 1\n@slot 0 buffer=2  # output 0\n@slot 1 buffer=1  # "
                      "intermediate\n%0 = PARAM slot=0 size=3 out : int32\n"),
            std::string::npos)
      << text;
}

TEST(ProgramText, ParsesBackToTheSameProgram) {
  Context ctx;
  const Program p = row_sums_plus_one(ctx);
  auto back = parse_program(ctx, print_program(p));
  ASSERT_TRUE(back.ok()) << back.error().message << " at line " << back.error().loc.line;
  expect_same(p, *back);
}

TEST(ProgramText, ASizeThatIsNotTheShapesElementCountIsKept) {
  Context ctx;
  Program p = row_sums_plus_one(ctx);
  p.buffers[1].shape = {};  // a flat scratch buffer: 3 elements, no shape
  const std::string text = print_program(p);
  EXPECT_NE(text.find("@buffer 1 intermediate size=3 : int32[]\n"), std::string::npos) << text;
  auto back = parse_program(ctx, text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same(p, *back);
}

TEST(ProgramText, AnEmptyProgramRoundTrips) {
  Context ctx;
  auto back = parse_program(ctx, print_program(Program{}));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->buffers.empty());
  EXPECT_TRUE(back->kernels.empty());
}

TEST(ProgramText, AKernelBlockCutOutIsAKernelFile) {
  Context ctx;
  const Program p = row_sums_plus_one(ctx);
  const std::string text = print_program(p);
  const std::string block = text.substr(text.find("@kernel 1\n"));
  auto k = parse_kernel(ctx, block);
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->kernel.root, p.kernels[1].root);
  ASSERT_EQ(k->kernel.header.extra.size(), 3u);
  EXPECT_EQ(k->kernel.header.extra[0], (std::pair<std::string, std::string>{"kernel", "1"}));
  EXPECT_EQ(k->kernel.header.extra[1], (std::pair<std::string, std::string>{"slot", "0 buffer=2"}));
}

/// Parses `text`, which must fail, and checks where and what.
void expect_error(std::string_view text, int line, int col, std::string_view substr) {
  Context ctx;
  auto r = parse_program(ctx, text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().loc.line, line) << r.error().message;
  EXPECT_EQ(r.error().loc.col, col) << r.error().message;
  EXPECT_NE(r.error().message.find(substr), std::string::npos) << r.error().message;
}

/// The two-kernel program's text with `from` replaced by `to` (which must be there).
std::string edited(std::string_view from, std::string_view to) {
  Context ctx;
  std::string text = print_program(row_sums_plus_one(ctx));
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ProgramText, BufferLineMistakesAreReportedWhereTheyAre) {
  expect_error(edited("@buffer 1 intermediate : int32[3]", "@buffer 1 scratch : int32[3]"), 3, 11,
               "role");
  expect_error(edited("@buffer 1 intermediate : int32[3]", "@buffer 1 intermediate : int33[3]"), 3,
               26, "unknown dtype 'int33'");
  expect_error(edited("@buffer 1 intermediate : int32[3]", "@buffer 1 intermediate : int32[3,x]"),
               3, 26, "'x'");
  expect_error(edited("@buffer 2 output 0", "@buffer 5 output 0"), 4, 9, "expected buffer 2");
  expect_error(edited("@buffer 2 output 0", "@buffer 2 input 0"), 4, 17,
               "a second buffer for input 0");
  expect_error(edited("@buffer 2 output 0 :", "@buffer 2 output 0 size=-1 :"), 4, 20, "size=N");
  expect_error(edited("@buffer 2 output 0 :", "@buffer 2 output 0"), 4, 20, "': dtype[shape]'");
  expect_error(edited("@buffer 0", "%0 = CONST 1 : int32\n@buffer 0"), 2, 1,
               "expected a @buffer line or a @kernel block");
}

TEST(ProgramText, KernelBlockMistakesAreReportedAtTheirLineInTheFile) {
  // The printed text: buffers on lines 2-4, kernel 0 on lines 6-23 (its @slot lines 7-8, its
  // nodes from line 9), kernel 1 from line 25 (@slot lines 26-27, PARAM slot=1 on line 32).
  expect_error(edited("%1 = CONST 3 : index", "%1 = CONSTANT 3 : index"), 10, 6,
               "unknown op 'CONSTANT'");
  expect_error(edited("@kernel 1", "@kernel 2"), 25, 9, "expected kernel 1");
  expect_error(edited("@slot 1 buffer=1", "@slot 1 buffer=7"), 8, 9, "no buffer 7");
  expect_error(edited("@slot 0 buffer=2", "@slot 0 buffer=2\n@slot 0 buffer=2"), 27, 7,
               "duplicate @slot 0");
  expect_error(edited("@slot 0 buffer=2", "@name k1\n@slot 0 buffer=2"), 26, 1,
               "only @slot header lines");
  expect_error(edited("@slot 0 buffer=2", "@slot 0 buffer=2\n@output 0 [1, 2, 3]"), 27, 1,
               "got '@output'");
  // Kernel 1's output PARAM (slot 0, 3 elements) pointed at the 12-element input.
  expect_error(edited("@slot 0 buffer=2", "@slot 0 buffer=0"), 26, 7,
               "the PARAM is 3 x int32, buffer 0 is 12 x int32");
  expect_error(edited("@buffer 0 input 0 : int32[3,4]", "@buffer 0 input 0 : float32[3,4]"), 7, 7,
               "the PARAM is 12 x int32, buffer 0 is 12 x float32");
  expect_error(edited("@buffer 1 intermediate : int32[3]", "@buffer 1 intermediate : int32[4]"), 8,
               7, "the PARAM is 3 x int32, buffer 1 is 4 x int32");
  expect_error(edited("@slot 1 buffer=1  # intermediate\n%0 = PARAM slot=0 size=3",
                      "\n%0 = PARAM slot=0 size=3"),
               32, 6, "PARAM slot 1 has no @slot line");
  expect_error(edited("@slot 1 buffer=1  # intermediate\n%0 = PARAM slot=0 size=3",
                      "@slot 1 buffer=1\n@slot 2 buffer=1\n%0 = PARAM slot=0 size=3"),
               28, 7, "@slot 2: the kernel has no PARAM slot=2");
  // A kernel that parses but does not verify: the verifier's rule and message, at the node.
  expect_error(edited("%12 = STORE %3 %11 : void", "%12 = STORE %3 %11 : int32"), 21, 7, "] STORE");
  // A node after the kernel's SINK: the kernel parser's message, at the file's line.
  expect_error(edited("%14 = SINK %13 : void\n", "%14 = SINK %13 : void\n%15 = CONST 1 : int32\n"),
               24, 7, "the last node must be the root");
}

TEST(ProgramText, DataFlowMistakesAreReported) {
  Context ctx;
  Program p = row_sums_plus_one(ctx);
  std::swap(p.kernels[0], p.kernels[1]);  // the second kernel now reads before the first writes
  auto r = parse_program(ctx, print_program(p));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().loc.line, 8);
  EXPECT_NE(r.error().message.find("reads buffer 1, which no earlier kernel writes"),
            std::string::npos)
      << r.error().message;

  // A one-kernel program whose kernel writes its own input buffer.
  Program q;
  q.buffers.push_back({ProgramBuffer::Role::Input, 0, dtypes::Int32, 3, {3}});
  q.kernels.push_back({kernel_root(ctx, kPlusOne), {{0, 0}, {1, 0}}});
  auto w = parse_program(ctx, print_program(q));
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("writes buffer 0, an input"), std::string::npos)
      << w.error().message;

  Program s = row_sums_plus_one(ctx);
  s.kernels[1].root = kernel_root(ctx, "%0 = CONST 1 : int32[]\n%1 = REALIZE %0 : void\n");
  s.kernels[1].buffer_of_slot.clear();
  auto realize = parse_program(ctx, print_program(s));
  ASSERT_FALSE(realize.ok());
  EXPECT_NE(realize.error().message.find("rooted at a SINK"), std::string::npos)
      << realize.error().message;
}

}  // namespace
}  // namespace uopfuzz::ir
