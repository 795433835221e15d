// The graph walks and tables the passes share: toposort (visit marks by node id),
// NodeMap (a flat node -> value table) and Analysis::bounds (memoized, walks only what
// it has not seen), each against a plain reference.

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/uop.h"

namespace uopfuzz::ir {
namespace {

// A random DAG of index arithmetic over a few leaves, shared sub-graphs included.
std::vector<UOp> random_dag(Context& ctx, uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::vector<UOp> made;
  for (int i = 0; i < 6; ++i) made.push_back(ctx.const_int(dtypes::Index, i - 2));
  made.push_back(ctx.make(Op::Var, dtypes::Index, {}, VarArg{"v", -5, 40, std::nullopt}));
  static constexpr Op kOps[] = {Op::Add, Op::Mul,      Op::Sub,     Op::Max,
                                Op::Min, Op::FloorDiv, Op::FloorMod};
  for (int i = 0; i < n; ++i) {
    UOp a = made[rng() % made.size()], b = made[rng() % made.size()];
    made.push_back(ctx.make(kOps[rng() % 7], dtypes::Index, {a, b}));
  }
  return made;
}

// The order toposort promises, written the obvious way: depth first, sources in order.
std::vector<UOp> reference_toposort(UOp root) {
  std::vector<UOp> order;
  std::unordered_set<UOp, UOpHash> done;
  std::function<void(UOp)> visit = [&](UOp u) {
    if (done.count(u)) return;
    done.insert(u);
    for (UOp s : u.src()) visit(s);
    order.push_back(u);
  };
  visit(root);
  return order;
}

TEST(Graph, ToposortMatchesAPlainDepthFirstWalk) {
  Context ctx;
  std::vector<UOp> made = random_dag(ctx, 7, 400);
  for (size_t i = 0; i < made.size(); i += 13)
    EXPECT_EQ(toposort(made[i]), reference_toposort(made[i])) << "node " << i;
  EXPECT_EQ(toposort(made.back()), reference_toposort(made.back()));
  EXPECT_TRUE(toposort(UOp()).empty());
}

// The visit marks are per thread and indexed by node id, which two Contexts share:
// walks that alternate between a big and a small Context must not see each other's marks.
TEST(Graph, ToposortWalksOfTwoContextsDoNotInterfere) {
  Context big, small;
  std::vector<UOp> a = random_dag(big, 1, 3000), b = random_dag(small, 2, 50);
  for (int round = 0; round < 20; ++round) {
    UOp x = a[a.size() - 1 - static_cast<size_t>(round) * 7],
        y = b[b.size() - 1 - static_cast<size_t>(round)];
    EXPECT_EQ(toposort(x), reference_toposort(x));
    EXPECT_EQ(toposort(y), reference_toposort(y));
  }
}

TEST(NodeMapTest, BehavesLikeAnUnorderedMapThroughGrowth) {
  Context ctx;
  std::vector<UOp> made = random_dag(ctx, 3, 5000);
  NodeMap<int> map;  // starts empty: grows many times
  std::unordered_map<UOp, int, UOpHash> ref;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    UOp u = made[rng() % made.size()];
    switch (rng() % 3) {
      case 0:
        map[u] += i;
        ref[u] += i;
        break;
      case 1: {
        auto [held, fresh] = map.emplace(u, i);
        auto [it, ref_fresh] = ref.emplace(u, i);
        EXPECT_EQ(fresh, ref_fresh);
        EXPECT_EQ(held, it->second);
        break;
      }
      default: {
        const int* v = map.find(u);
        auto it = ref.find(u);
        ASSERT_EQ(v != nullptr, it != ref.end());
        if (v) {
          EXPECT_EQ(*v, it->second);
        }
        EXPECT_EQ(map.contains(u), it != ref.end());
      }
    }
  }
  EXPECT_EQ(map.size(), ref.size());
  for (const auto& [u, v] : ref) EXPECT_EQ(map.at(u), v);
}

TEST(NodeMapTest, LookupsOfPresentNodesNeverMoveValues) {
  Context ctx;
  std::vector<UOp> made = random_dag(ctx, 4, 100);
  NodeMap<std::vector<int>> map(made.size());
  for (UOp u : made) map[u].push_back(static_cast<int>(u.id()));
  const std::vector<int>* first = &map[made.front()];
  for (UOp u : made) EXPECT_EQ(map[u], std::vector<int>{static_cast<int>(u.id())});
  EXPECT_EQ(first, &map[made.front()]);
  EXPECT_EQ(map.size(), made.size());
  const NodeMap<std::vector<int>>& read_only = map;
  EXPECT_THROW(read_only.at(ctx.const_int(dtypes::Index, 12345)), std::out_of_range);
  EXPECT_EQ(read_only.find(ctx.const_int(dtypes::Index, 12345)), nullptr);
}

// bounds() stops at nodes it has already analysed; the facts must not depend on the
// order in which nodes are asked about.
TEST(AnalysisTest, BoundsDoNotDependOnTheOrderOfQuestions) {
  Context ctx;
  std::vector<UOp> made = random_dag(ctx, 6, 600);
  Analysis bottom_up, top_down, root_only;
  std::vector<Interval> up;
  for (UOp u : made) up.push_back(bottom_up.bounds(u));
  root_only.bounds(made.back());
  for (size_t i = made.size(); i-- > 0;) EXPECT_EQ(top_down.bounds(made[i]), up[i]) << "node " << i;
  for (size_t i = 0; i < made.size(); ++i)
    EXPECT_EQ(root_only.bounds(made[i]), up[i]) << "node " << i;
}

}  // namespace
}  // namespace uopfuzz::ir
