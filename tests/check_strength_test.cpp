// The strength comparison: what a rewrite leaves (counted by hand on small kernels), which
// side each family calls stronger, and the tally over several kernels.
#include <gtest/gtest.h>

#include <string>

#include "check/strength.h"
#include "ir/parser.h"

namespace uopfuzz::check {
namespace {

ir::UOp parse(ir::Context& ctx, const std::string& text) {
  auto r = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->kernel.root : ir::UOp();
}

// arange(10).sum(): one REDUCE over a range of 10, one CAST.
const char* kArangeSum =
    "%0 = PARAM slot=0 size=1 out : int32\n"
    "%1 = CONST 0 : index\n"
    "%2 = INDEX %0 %1 : int32\n"
    "%3 = CONST 10 : index\n"
    "%4 = RANGE %3 axis=0 REDUCE : index\n"
    "%5 = CAST %4 : int32\n"
    "%6 = REDUCE %5 %4 op=ADD : int32\n"
    "%7 = STORE %2 %6 : void\n"
    "%8 = SINK %7 : void\n";

// The same kernel with the reduce folded to its value.
const char* kArangeFolded =
    "%0 = PARAM slot=0 size=1 out : int32\n"
    "%1 = CONST 0 : index\n"
    "%2 = INDEX %0 %1 : int32\n"
    "%3 = CONST 45 : int32\n"
    "%4 = STORE %2 %3 : void\n"
    "%5 = SINK %4 : void\n";

// A range of 204 whose store is gated by r < 4, and the same kernel with the range shrunk.
const char* kGated =
    "%0 = PARAM slot=0 size=4 out : int32\n"
    "%1 = CONST 204 : index\n"
    "%2 = RANGE %1 axis=0 LOOP : index\n"
    "%3 = CONST 4 : index\n"
    "%4 = CMPLT %2 %3 : bool\n"
    "%5 = INVALID : index\n"
    "%6 = WHERE %4 %2 %5 : index\n"
    "%7 = INDEX %0 %6 : int32\n"
    "%8 = CAST %2 : int32\n"
    "%9 = CONST 1 : int32\n"
    "%10 = ADD %8 %9 : int32\n"
    "%11 = STORE %7 %10 : void\n"
    "%12 = END %11 %2 : void\n"
    "%13 = SINK %12 : void\n";
const char* kShrunk =
    "%0 = PARAM slot=0 size=4 out : int32\n"
    "%1 = CONST 4 : index\n"
    "%2 = RANGE %1 axis=0 LOOP : index\n"
    "%3 = INDEX %0 %2 : int32\n"
    "%4 = CAST %2 : int32\n"
    "%5 = CONST 1 : int32\n"
    "%6 = ADD %4 %5 : int32\n"
    "%7 = STORE %3 %6 : void\n"
    "%8 = END %7 %2 : void\n"
    "%9 = SINK %8 : void\n";

TEST(Strength, LeftoverCountsWhatTheKernelHolds) {
  ir::Context ctx;
  const Leftover l = leftover(parse(ctx, kArangeSum));
  EXPECT_EQ(l.nodes, 9u);
  EXPECT_EQ(l.reduces, 1u);
  EXPECT_EQ(l.reduce_trips, 10u);
  EXPECT_EQ(l.ranges, 1u);
  EXPECT_EQ(l.store_trips, 1u);  // the reduce closes its range: the store runs once
  EXPECT_EQ(l.alus, 1u);         // the CAST
  EXPECT_EQ(l.loads, 0u);

  const Leftover g = leftover(parse(ctx, kGated));
  EXPECT_EQ(g.store_trips, 204u);
  EXPECT_EQ(g.alus, 4u);  // CMPLT, WHERE, CAST, ADD
  EXPECT_EQ(g.reduces, 0u);
}

TEST(Strength, AStoreRunsForEveryLoopThatEndsAroundIt) {
  // out[0] = 1 inside loops of 8 and 3 that the store does not read: 24 stores.
  ir::Context ctx;
  const Leftover l = leftover(parse(ctx,
                                    "%0 = PARAM slot=0 size=1 out : int32\n"
                                    "%1 = CONST 0 : index\n"
                                    "%2 = INDEX %0 %1 : int32\n"
                                    "%3 = CONST 1 : int32\n"
                                    "%4 = STORE %2 %3 : void\n"
                                    "%5 = CONST 8 : index\n"
                                    "%6 = RANGE %5 axis=0 LOOP : index\n"
                                    "%7 = CONST 3 : index\n"
                                    "%8 = RANGE %7 axis=1 LOOP : index\n"
                                    "%9 = END %4 %6 %8 : void\n"
                                    "%10 = SINK %9 : void\n"));
  EXPECT_EQ(l.store_trips, 24u);
  EXPECT_EQ(l.ranges, 2u);
}

TEST(Strength, AVarEndCountsItsMaximum) {
  ir::Context ctx;
  const Leftover l = leftover(parse(ctx,
                                    "%0 = PARAM slot=0 size=1 out : int32\n"
                                    "%1 = CONST 0 : index\n"
                                    "%2 = INDEX %0 %1 : int32\n"
                                    "%3 = VAR name=n min=1 max=7 : index\n"
                                    "%4 = RANGE %3 axis=0 REDUCE : index\n"
                                    "%5 = CAST %4 : int32\n"
                                    "%6 = REDUCE %5 %4 op=ADD : int32\n"
                                    "%7 = STORE %2 %6 : void\n"
                                    "%8 = SINK %7 : void\n"));
  EXPECT_EQ(l.reduce_trips, 7u);
}

TEST(Strength, TheSideThatLeavesLessIsStrongerPerFamily) {
  ir::Context ctx;
  const StrengthComparison c = compare_strength(parse(ctx, kArangeSum), parse(ctx, kArangeFolded));
  EXPECT_TRUE(c.differs());
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::ReduceCollapse)], 1);
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::Range)], 1);
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::GatedShrink)], 0);  // one store on each side
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::Symbolic)], 1);
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::LoadCollapse)], 0);

  const StrengthComparison g = compare_strength(parse(ctx, kShrunk), parse(ctx, kGated));
  EXPECT_EQ(g.stronger[size_t(StrengthFamily::GatedShrink)], -1);  // 4 stores against 204
  EXPECT_EQ(g.stronger[size_t(StrengthFamily::Symbolic)], -1);     // 2 ALU ops against 4
  EXPECT_EQ(g.stronger[size_t(StrengthFamily::Range)], 0);

  const StrengthComparison same =
      compare_strength(parse(ctx, kArangeFolded), parse(ctx, kArangeFolded));
  EXPECT_FALSE(same.differs());
}

TEST(Strength, EqualReduceCountsAreToldApartByTripCount) {
  ir::Context ctx;
  const std::string with_end_5 =
      "%0 = PARAM slot=0 size=1 out : int32\n"
      "%1 = CONST 0 : index\n"
      "%2 = INDEX %0 %1 : int32\n"
      "%3 = CONST 5 : index\n"
      "%4 = RANGE %3 axis=0 REDUCE : index\n"
      "%5 = CAST %4 : int32\n"
      "%6 = REDUCE %5 %4 op=ADD : int32\n"
      "%7 = STORE %2 %6 : void\n"
      "%8 = SINK %7 : void\n";
  const StrengthComparison c = compare_strength(parse(ctx, with_end_5), parse(ctx, kArangeSum));
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::ReduceCollapse)], -1);
  EXPECT_EQ(c.stronger[size_t(StrengthFamily::Symbolic)], 0);
}

TEST(Strength, TheTallyCountsKernelsAndKeepsTheFirstExamples) {
  ir::Context ctx;
  StrengthTally t;
  t.add(compare_strength(parse(ctx, kArangeSum), parse(ctx, kArangeFolded)), "k1");
  t.add(compare_strength(parse(ctx, kArangeFolded), parse(ctx, kArangeFolded)), "k2");
  t.add(compare_strength(parse(ctx, kShrunk), parse(ctx, kGated)), "k3");
  EXPECT_EQ(t.compared, 3u);
  EXPECT_EQ(t.differences, 2u);
  const auto& reduce = t.families[size_t(StrengthFamily::ReduceCollapse)];
  EXPECT_EQ(reduce.a_stronger, 0u);
  EXPECT_EQ(reduce.b_stronger, 1u);
  EXPECT_EQ(reduce.a_left, 1u);  // one REDUCE, in k1's first rewrite
  EXPECT_EQ(reduce.b_left, 0u);
  EXPECT_EQ(reduce.b_examples, std::vector<std::string>{"k1"});
  const auto& gated = t.families[size_t(StrengthFamily::GatedShrink)];
  EXPECT_EQ(gated.a_stronger, 1u);
  EXPECT_EQ(gated.a_examples, std::vector<std::string>{"k3"});
  EXPECT_EQ(gated.a_left, 1u + 1u + 4u);
  EXPECT_EQ(gated.b_left, 1u + 1u + 204u);
}

}  // namespace
}  // namespace uopfuzz::check
