// @input lines: a case's own input data. They parse (with errors at the value that is
// wrong), print back canonically, replace the seed's fill of their buffer alone on every
// seed, reach run_case and the differential check, and the reducer moves their values
// toward 0 and 1 while the predicate holds.
#include <gtest/gtest.h>

#include <string>

#include "check/differential.h"
#include "check/expectations.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/run_io.h"
#include "reduce/reducer.h"

namespace uopfuzz {
namespace {

// out[0] = in1[0] + in1[1] + in1[2] + in1[3] (int32), and in2[0] copied to out[1].
std::string sum4(const std::string& header) {
  return header +
         "%0 = PARAM slot=0 size=2 out : int32\n"
         "%1 = PARAM slot=1 size=4 in : int32\n"
         "%2 = CONST 4 : index\n"
         "%3 = RANGE %2 axis=0 REDUCE : index\n"
         "%4 = INDEX %1 %3 : int32\n"
         "%5 = LOAD %4 : int32\n"
         "%6 = REDUCE %5 %3 op=ADD : int32\n"
         "%7 = CONST 0 : index\n"
         "%8 = INDEX %0 %7 : int32\n"
         "%9 = STORE %8 %6 : void\n"
         "%10 = PARAM slot=2 size=1 in : float32\n"
         "%11 = INDEX %10 %7 : float32\n"
         "%12 = LOAD %11 : float32\n"
         "%13 = CAST %12 : int32\n"
         "%14 = CONST 1 : index\n"
         "%15 = INDEX %0 %14 : int32\n"
         "%16 = STORE %15 %13 : void\n"
         "%17 = SINK %9 %16 : void\n";
}

ir::Kernel parse(ir::Context& ctx, const std::string& text) {
  auto r = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->kernel : ir::Kernel{};
}

TEST(GivenInputs, ParseIntoTheHeaderTypedByTheirParam) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, sum4("@input 1 [100, -7, 30, 55]\n@input 2 [2.5]\n"));
  ASSERT_EQ(k.header.inputs.size(), 2u);
  EXPECT_EQ(k.header.inputs[0].slot, 1);
  EXPECT_EQ(k.header.inputs[0].dtype, ir::dtypes::Int32);
  ASSERT_EQ(k.header.inputs[0].values.size(), 4u);
  EXPECT_EQ(k.header.inputs[0].values[1].i, -7);
  EXPECT_EQ(k.header.inputs[1].dtype, ir::dtypes::Float32);
  EXPECT_EQ(k.header.inputs[1].values[0].f, 2.5);
}

TEST(GivenInputs, PrintBackCanonicallyAndParseToTheSameHeader) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, sum4("@input 2 [ -0.0 ]\n@input 1 [+100,-7 , 30,55]\n"));
  ASSERT_FALSE(ir::check_header(k).has_value());
  const std::string printed = ir::print_kernel(k);
  EXPECT_NE(printed.find("@input 2 [-0]\n@input 1 [100, -7, 30, 55]\n"), std::string::npos)
      << printed;
  ir::Kernel again = parse(ctx, printed);
  EXPECT_EQ(again.header, k.header);
  EXPECT_EQ(again.root, k.root);
  EXPECT_EQ(ir::print_kernel(again), printed);
}

TEST(GivenInputs, ErrorsPointAtTheLineAndValue) {
  struct Case {
    std::string header;
    int line, col;
    std::string message;
  } cases[] = {
      {"@input 0 [1, 2]\n", 1, 8, "@input names slot 0, which is not an input PARAM"},
      {"@input 5 [1]\n", 1, 8, "@input names slot 5, which is not an input PARAM"},
      {"# data\n@input 1 [1, 2, 3]\n", 2, 8, "@input 1 lists 3 values; the PARAM has size 4"},
      {"@input 1 [1, 2, 3, 3000000000]\n", 1, 20, "'3000000000' does not fit in int32"},
      {"@input 1 [1, 2, x, 4]\n", 1, 17, "expected an integer literal, got 'x'"},
      {"@input 2 [1.5.2]\n", 1, 11, "expected a float literal"},
      {"@input 1 [1]\n@input 1 [1]\n", 2, 8, "duplicate @input for slot 1"},
      {"@input 1 1, 2\n", 1, 10, "expected a list of values in brackets: @input SLOT"},
      {"@input -1 [1]\n", 1, 8, "expected an input slot number, got '-1'"},
  };
  for (const Case& c : cases) {
    ir::Context ctx;
    auto r = ir::parse_kernel(ctx, sum4(c.header));
    ASSERT_FALSE(r.ok()) << c.header;
    EXPECT_EQ(r.error().loc.line, c.line) << c.header;
    EXPECT_EQ(r.error().loc.col, c.col) << c.header;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.header << " -> " << r.error().message;
  }
}

TEST(GivenInputs, ValuesMustKeepTheParamsValueBounds) {
  // The simplifier may rely on vmin/vmax/multiple_of: data outside them is refused.
  std::string text = sum4("@input 1 [4, 6, 9, 2]\n");
  text.replace(text.find("size=4 in"), 9, "size=4 in vmin=0 vmax=8 multiple_of=2");
  ir::Context ctx;
  auto r = ir::parse_kernel(ctx, text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().loc.col, 17);
  EXPECT_NE(r.error().message.find("9 is above the PARAM's vmax=8"), std::string::npos)
      << r.error().message;
  text.replace(text.find("9, 2]"), 1, "3");
  r = ir::parse_kernel(ctx, text);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("3 is not a multiple of the PARAM's multiple_of=2"),
            std::string::npos)
      << r.error().message;
}

TEST(GivenInputs, ReplaceOnlyTheirOwnBufferOnEverySeed) {
  ir::Context ctx;
  ir::Kernel given = parse(ctx, sum4("@input 1 [100, -7, 30, 55]\n"));
  ir::Kernel plain = parse(ctx, sum4(""));
  for (uint64_t seed : {0u, 1u, 9u}) {
    ir::Inputs a = ir::make_inputs(given, seed);
    ir::Inputs b = ir::make_inputs(plain, seed);
    ASSERT_EQ(a.buffers.at(1).size(), 4u);
    EXPECT_EQ(a.buffers.at(1).get(0).i, 100);
    EXPECT_EQ(a.buffers.at(1).get(3).i, 55);
    EXPECT_FALSE(a.buffers.at(1) == b.buffers.at(1));  // the seed fill is in [-8, 8]
    EXPECT_TRUE(a.buffers.at(2) == b.buffers.at(2)) << "slot 2 is still the seed's";
  }
}

TEST(GivenInputs, RunCaseComputesFromTheGivenData) {
  ir::Context ctx;
  // 100 - 7 + 30 + 55 = 178; int(-3.75) = -3.
  ir::Kernel k = parse(ctx, sum4("@input 1 [100, -7, 30, 55]\n@input 2 [-3.75]\n@output 0 "
                                 "[178, -3]\n"));
  for (uint64_t seed : {0u, 4u}) {
    check::CaseRunOptions o;
    o.seed = seed;
    auto ran = check::run_case(ctx, k, o);
    ASSERT_TRUE(std::holds_alternative<check::CaseRun>(ran));
    EXPECT_TRUE(std::get<check::CaseRun>(ran).verdict.pass) << "seed " << seed;
  }
  // Without the lines the same outputs are not met: the data made them.
  ir::Kernel seeded = k;
  seeded.header.inputs.clear();
  auto ran = check::run_case(ctx, seeded, check::CaseRunOptions{});
  ASSERT_TRUE(std::holds_alternative<check::CaseRun>(ran));
  EXPECT_FALSE(std::get<check::CaseRun>(ran).verdict.pass);
}

TEST(GivenInputs, FitAfterAnEditKeepsOrDropsLines) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, sum4("@input 1 [100, -7, 30, 55]\n@input 2 [1]\n"));
  // The rewrite of the sum no longer reads slot 2 once its store is gone.
  ir::Kernel edited = k;
  ir::UOp sink = k.root;
  edited.root = ctx.make(ir::Op::Sink, sink.dtype(), {sink.src(0)});
  ir::fit_given_inputs(edited);
  ASSERT_EQ(edited.header.inputs.size(), 1u);
  EXPECT_EQ(edited.header.inputs[0].slot, 1);
  EXPECT_FALSE(ir::check_header(edited).has_value());
}

// The reducer: values move toward 0 and 1 while the predicate (here: the oracle's sum of
// the given data stays at least 150, which the seed fill in [-8, 8] never reaches) holds.
TEST(GivenInputs, ReducerShrinksValuesKeepingThePredicate) {
  ir::Context ctx;
  ir::Kernel k = parse(ctx, sum4("@input 1 [100, -7, 30, 55]\n@input 2 [-3.75]\n"));
  auto sum_at_least_150 = [](const ir::Kernel& c) {
    check::CaseRunOptions o;
    ir::Context scratch;
    auto ran = check::run_case(scratch, c, o);
    if (!std::holds_alternative<check::CaseRun>(ran)) return false;
    const auto& run = std::get<check::CaseRun>(ran).run;
    return run.status == oracle::RunStatus::Ok && run.outputs.at(0).get(0).i >= 150;
  };
  ASSERT_TRUE(sum_at_least_150(k));
  reduce::ReduceOptions ro;
  ro.passes = {reduce::Pass::ShrinkInputs};
  ro.max_seconds = 30;
  reduce::ReduceResult r = reduce::reduce(ctx, k, sum_at_least_150, ro);
  ASSERT_TRUE(r.start_interesting);
  EXPECT_TRUE(r.fixed_point);
  EXPECT_TRUE(sum_at_least_150(r.kernel));
  EXPECT_LT(reduce::size_of(r.kernel), reduce::size_of(k));
  // The float line does not matter: dropped. The sum's line stays, smaller.
  ASSERT_EQ(r.kernel.header.inputs.size(), 1u);
  const auto& v = r.kernel.header.inputs[0].values;
  int64_t sum = 0, zeros = 0;
  for (ir::Value x : v) {
    sum += x.i;
    zeros += x.i == 0;
    EXPECT_GE(x.i, 0);
  }
  EXPECT_LT(sum, 100 - 7 + 30 + 55);
  EXPECT_GE(zeros, 1);
  EXPECT_FALSE(ir::check_header(r.kernel).has_value());
}

}  // namespace
}  // namespace uopfuzz
