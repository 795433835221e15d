// Gate coverage and the rewrite trace: each gate's verdicts are counted for the rule that
// asked, nested rewrites included; a trace replays to the same graph step by step.
#include <gtest/gtest.h>

#include <algorithm>

#include "bug_examples.h"
#include "ir/parser.h"
#include "ir/rewrite.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::ir {
namespace {

Pat::Pred positive(std::string_view name) {
  return [name](const Bindings& b) { return b[name].const_value().i > 0; };
}

// x*c with c > 0 -> x: a rule with one gate, which the test graphs meet on both sides.
RuleSet drop_positive_factor() {
  Pat x = Pat::var("x"), c = Pat::cvar("c");
  RuleSet r;
  r.add("drop_factor", (x * c).when(positive("c")),
        [](RewriteCtx&, const Bindings& b) { return b["x"]; });
  return r;
}

TEST(GateCounts, EachVerdictIsCountedForItsRuleAndGate) {
  Context ctx;
  UOp a = ctx.make(Op::Var, dtypes::Index, {}, VarArg{"a", 0, 9, std::nullopt});
  UOp kept = ctx.alu(Op::Mul, {a, ctx.const_int(dtypes::Index, -2)});
  UOp dropped = ctx.alu(Op::Mul, {a, ctx.const_int(dtypes::Index, 3)});
  UOp root = ctx.alu(Op::Add, {kept, dropped});
  RewriteResult r = graph_rewrite(ctx, root, drop_positive_factor());
  EXPECT_EQ(r.root, ctx.alu(Op::Add, {kept, a}));
  ASSERT_EQ(r.gates.count("drop_factor"), 1u);
  ASSERT_EQ(r.gates["drop_factor"].size(), 1u);
  EXPECT_EQ(r.gates["drop_factor"][0].accepted, 1u);
  EXPECT_EQ(r.gates["drop_factor"][0].declined, 1u);
  EXPECT_EQ(r.hits["drop_factor"], 1u);
}

TEST(GateCounts, GatesAreNumberedInTheOrderAMatchAsksThem) {
  Pat x = Pat::var("x"), c = Pat::cvar("c");
  auto never = [](const Bindings&) { return false; };
  Pat inner = Pat::op(Op::Neg, {x}).when(never);
  Pat p = (inner + c).when(positive("c")).when(never);
  auto gates = p.gates();
  ASSERT_EQ(gates.size(), 3u);
  // The source's gate first, then the root's in the order written.
  EXPECT_EQ(gates[0].pred, 0u);
  EXPECT_EQ(gates[1].pred, 0u);
  EXPECT_EQ(gates[2].pred, 1u);
  EXPECT_NE(gates[0].node, gates[1].node);
  EXPECT_EQ(gates[1].node, gates[2].node);
}

TEST(GateCounts, AScopeCollectsNestedRewritesToo) {
  Context ctx;
  UOp a = ctx.make(Op::Var, dtypes::Index, {}, VarArg{"a", 0, 9, std::nullopt});
  UOp inner_graph = ctx.alu(Op::Mul, {a, ctx.const_int(dtypes::Index, 5)});
  // A rule that runs a rewrite of its own and keeps its result to itself.
  RuleSet outer;
  outer.add("nested", Pat::op(Op::Neg, {Pat::var("x")}), [&](RewriteCtx& rc, const Bindings& b) {
    graph_rewrite(rc.ctx, inner_graph, drop_positive_factor());
    return b["x"];
  });
  GateCounts seen;
  {
    GateCountScope scope(seen);
    RewriteResult r = graph_rewrite(ctx, ctx.alu(Op::Neg, {a}), outer);
    EXPECT_EQ(r.gates.count("drop_factor"), 0u);  // not the outer rewrite's own
  }
  ASSERT_EQ(seen.count("drop_factor"), 1u);
  EXPECT_EQ(seen["drop_factor"][0].accepted, 1u);
  // Outside the scope nothing is added.
  graph_rewrite(ctx, inner_graph, drop_positive_factor());
  EXPECT_EQ(seen["drop_factor"][0].accepted, 1u);
}

// The pipeline's rules name their gates, and a check of a real kernel asks some of them.
TEST(GateCounts, SimplifyReportsThePipelinesGates) {
  auto gated = simplifier::rule_gate_counts();
  EXPECT_EQ(gated.count("fold_const"), 0u);  // no gate
  EXPECT_EQ(gated.at("reduce_and_gate"), 2u);
  EXPECT_EQ(gated.at("bound_upper"), 1u);
  Context ctx;
  auto k = parse_kernel(ctx, test_support::read_example("window_sum"));
  ASSERT_TRUE(k.ok());
  auto r = simplifier::simplify(ctx, k->kernel.root);
  ASSERT_EQ(r.gates.count("bound_upper"), 1u);  // asked inside reduce_collapse
  EXPECT_GT(r.gates["bound_upper"][0].accepted, 0u);
  auto gaps = simplifier::gate_gaps(r.gates);
  size_t all = 0;
  for (const auto& [rule, n] : gated) all += n;
  EXPECT_EQ(gaps.gates, all);
  auto in = [](const std::vector<std::string>& list, const std::string& gate) {
    return std::find(list.begin(), list.end(), gate) != list.end();
  };
  for (const auto& [rule, n] : gated)
    for (size_t g = 0; g < n; ++g) {
      const std::string name = rule + "#" + std::to_string(g);
      GateCount c;
      if (auto it = r.gates.find(rule); it != r.gates.end()) c = it->second.at(g);
      EXPECT_EQ(in(gaps.never_accepted, name), c.accepted == 0) << name;
      EXPECT_EQ(in(gaps.never_declined, name), c.declined == 0) << name;
    }
  EXPECT_FALSE(in(gaps.never_accepted, "bound_upper#0"));
}

// Replaying a trace's first k steps gives the graph the trace reached after k steps: all
// of them the full result, none the original.
TEST(Trace, ReplayStopsAfterEachStep) {
  Context ctx;
  auto k = parse_kernel(ctx, test_support::read_example("range_mod_split"));
  ASSERT_TRUE(k.ok());
  simplifier::SimplifyOptions o;
  o.trace = true;
  auto full = simplifier::simplify(ctx, k->kernel.root, o);
  ASSERT_GT(full.trace.size(), 2u);
  EXPECT_EQ(full.trace.size(), full.steps);
  simplifier::SimplifyOptions replay;
  replay.stop_after = 0;
  EXPECT_EQ(simplifier::simplify(ctx, k->kernel.root, replay).root, k->kernel.root);
  replay.stop_after = full.steps;
  EXPECT_EQ(simplifier::simplify(ctx, k->kernel.root, replay).root, full.root);
  // Each prefix applies exactly its steps, in the trace's order.
  for (uint64_t s = 1; s <= full.steps; ++s) {
    simplifier::SimplifyOptions prefix;
    prefix.trace = true;
    prefix.stop_after = s;
    auto r = simplifier::simplify(ctx, k->kernel.root, prefix);
    ASSERT_EQ(r.trace.size(), s);
    EXPECT_EQ(r.trace.back().rule, full.trace[s - 1].rule);
    EXPECT_EQ(r.trace.back().after, full.trace[s - 1].after);
  }
}

}  // namespace
}  // namespace uopfuzz::ir
