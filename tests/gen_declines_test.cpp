// The policy of a campaign whose simplifier always declines some shapes (gen/declines.h):
// each declined shape it knows is never generated (kernels, tensor programs, the range
// mutators' ends), unknown words change nothing, and no declined shape leaves the policy
// and so the generated graphs exactly as they were.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "gen/declines.h"
#include "gen/generator.h"
#include "gen/mutate.h"
#include "gen/tensor_gen.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/printer.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

constexpr uint64_t kSeeds = 400;

bool has_quantized(UOp root) {
  for (UOp u : toposort(root)) {
    if (u.dtype().is_quantized()) return true;
    for (UOp s : u.src())
      if (s.dtype().is_quantized()) return true;
  }
  return false;
}

/// The end of a RANGE of `root` that its bounds pin to 0 or 1, or -1 when none is.
int64_t pinned_small_end(UOp root) {
  Analysis analysis;
  for (UOp u : toposort(root)) {
    if (u.op() != Op::Range) continue;
    const Interval b = analysis.bounds(u.src(0));
    if (b.lo == b.hi && (b.lo == 0 || b.lo == 1)) return int64_t(b.lo);
  }
  return -1;
}

bool range_closed_twice(UOp root) {
  std::map<const void*, int> closers;
  for (UOp u : toposort(root))
    if (u.op() == Op::End)
      for (size_t i = 1; i < u.num_src(); ++i)
        if (++closers[u.src(i).node()] >= 2) return true;
  return false;
}

TEST(GenDeclines, UnknownOrNoShapesLeaveThePolicyAndTheGraphsAsTheyWere) {
  GenPolicy policy;
  EXPECT_TRUE(avoid_declined_shapes(policy, {}).empty());
  EXPECT_TRUE(avoid_declined_shapes(policy, {"a-shape-from-the-future", ""}).empty());
  const GenPolicy plain;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Context a, b;
    EXPECT_EQ(print_kernel(generate(a, policy, seed).kernel),
              print_kernel(generate(b, plain, seed).kernel))
        << "seed " << seed;
    EXPECT_EQ(print_kernel(generate_tensor_program(a, policy, seed).program),
              print_kernel(generate_tensor_program(b, plain, seed).program))
        << "seed " << seed;
  }
}

TEST(GenDeclines, QuantizedOffGeneratesNoQuantizedDtype) {
  // The default policy makes them often (the check that the test can see one).
  int with_default = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Context ctx;
    with_default += has_quantized(generate(ctx, GenPolicy{}, seed).kernel.root);
  }
  ASSERT_GT(with_default, int(kSeeds / 10));

  GenPolicy policy;
  const auto avoided = avoid_declined_shapes(policy, {"quantized", "a-shape-from-the-future"});
  ASSERT_EQ(avoided.size(), 1u);
  EXPECT_EQ(avoided[0].shape, "quantized");
  EXPECT_NE(avoided[0].knobs.find("p_quantized_output"), std::string::npos);
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Context ctx;
    EXPECT_FALSE(has_quantized(generate(ctx, policy, seed).kernel.root)) << "seed " << seed;
    EXPECT_FALSE(has_quantized(generate_tensor_program(ctx, policy, seed).program.root))
        << "tensor seed " << seed;
  }
}

TEST(GenDeclines, FullStageShapesOffGenerateNoneOfThem) {
  const std::set<std::string> full = {"quantized", "range-end-0", "range-end-1",
                                      "range-closed-twice"};
  GenPolicy policy;
  const auto avoided = avoid_declined_shapes(policy, full);
  ASSERT_EQ(avoided.size(), 4u);
  int default_small = 0, default_twice = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Context ctx;
    const Kernel k = generate(ctx, GenPolicy{}, seed).kernel;
    default_small += pinned_small_end(k.root) >= 0;
    default_twice += range_closed_twice(k.root);
  }
  ASSERT_GT(default_small, 0);
  ASSERT_GT(default_twice, 0);
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Context ctx;
    const Kernel k = generate(ctx, policy, seed).kernel;
    EXPECT_EQ(pinned_small_end(k.root), -1) << "seed " << seed << "\n" << print_kernel(k);
    EXPECT_FALSE(range_closed_twice(k.root)) << "seed " << seed << "\n" << print_kernel(k);
    EXPECT_FALSE(has_quantized(k.root)) << "seed " << seed;
    // Mutants too: the range-end and wrap-in-reduce mutators draw ends of 0 and 1.
    for (Mutator m : {Mutator::RangeEnd, Mutator::WrapInReduce})
      for (uint64_t ms = 0; ms < 4; ++ms)
        if (auto mutant = mutate_with(ctx, k, nullptr, m, seed * 16 + ms, policy)) {
          EXPECT_EQ(pinned_small_end(mutant->kernel.root), -1)
              << mutator_name(m) << " of seed " << seed << ": " << mutant->what;
        }
  }
}

}  // namespace
}  // namespace uopfuzz::gen
