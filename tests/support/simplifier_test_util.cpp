#include "tests/support/simplifier_test_util.h"

namespace uopfuzz::simplifier::testing {

ir::Kernel parse_or_die(ir::Context& ctx, const std::string& text) {
  auto p = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? p->kernel : ir::Kernel{};
}

std::vector<ir::UOp> ranges_of(ir::UOp root) {
  std::vector<ir::UOp> out;
  for (ir::UOp u : ir::toposort(root))
    if (u.op() == ir::Op::Range) out.push_back(u);
  return out;
}

int count_op(ir::UOp root, ir::Op op) {
  int n = 0;
  for (ir::UOp u : ir::toposort(root)) n += u.op() == op;
  return n;
}

int64_t end_of(ir::UOp range) {
  EXPECT_TRUE(range.src(0).is_const()) << "range end is not a constant";
  return range.src(0).is_const() ? range.src(0).const_value().i : -1;
}

void expect_same_results(ir::UOp original, ir::UOp rewritten,
                         const std::map<std::string, int64_t>& vars) {
  auto errors = ir::verify(rewritten);
  ASSERT_TRUE(errors.empty()) << "rewrite does not verify: " << errors[0].message << "\n"
                              << ir::print_graph(rewritten);
  for (uint64_t seed = 0; seed < 3; ++seed) {
    auto in = oracle::make_inputs(original, seed, vars);
    auto a = oracle::run(original, in);
    auto b = oracle::run(rewritten, in);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->status, oracle::RunStatus::Ok);
    ASSERT_EQ(b->status, oracle::RunStatus::Ok) << (b->ub ? b->ub->what : "step limit");
    for (const auto& [slot, buf] : a->outputs) {
      ASSERT_TRUE(b->outputs.count(slot)) << "output " << slot << " vanished";
      EXPECT_TRUE(buf == b->outputs.at(slot)) << "output " << slot << " differs at seed " << seed;
    }
  }
}

}  // namespace uopfuzz::simplifier::testing
