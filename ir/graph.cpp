#include "ir/graph.h"

#include <algorithm>
#include <unordered_set>

namespace uopfuzz::ir {

std::vector<UOp> toposort(UOp root) {
  std::vector<UOp> order;
  if (!root) return order;
  std::unordered_set<UOp, UOpHash> done;
  // (node, index of the next source to visit)
  std::vector<std::pair<UOp, size_t>> stack{{root, 0}};
  std::unordered_set<UOp, UOpHash> on_stack{root};
  while (!stack.empty()) {
    auto& [u, next] = stack.back();
    if (next < u.num_src()) {
      UOp s = u.src(next++);
      if (!done.count(s) && !on_stack.count(s)) {
        on_stack.insert(s);
        stack.emplace_back(s, 0);
      }
      continue;
    }
    order.push_back(u);
    done.insert(u);
    on_stack.erase(u);
    stack.pop_back();
  }
  return order;
}

UOp copy_graph(Context& to, UOp root) {
  if (!root) return root;
  std::unordered_map<UOp, UOp, UOpHash> copy;
  for (UOp u : toposort(root)) {
    std::vector<UOp> src;
    src.reserve(u.num_src());
    for (UOp s : u.src()) src.push_back(copy.at(s));
    copy.emplace(u, to.make(u.op(), u.dtype(), std::move(src), u.arg()));
  }
  return copy.at(root);
}

std::unordered_map<UOp, RangeSet, UOpHash> open_ranges(const std::vector<UOp>& topo) {
  std::unordered_map<UOp, RangeSet, UOpHash> open;
  open.reserve(topo.size());
  auto by_id = [](UOp a, UOp b) { return a.id() < b.id(); };
  for (UOp u : topo) {
    RangeSet set;
    for (UOp s : u.src()) {
      const RangeSet& child = open[s];
      RangeSet merged;
      std::set_union(set.begin(), set.end(), child.begin(), child.end(), std::back_inserter(merged), by_id);
      set.swap(merged);
    }
    if (u.op() == Op::Range) {
      RangeSet self{u};
      RangeSet merged;
      std::set_union(set.begin(), set.end(), self.begin(), self.end(), std::back_inserter(merged), by_id);
      set.swap(merged);
    } else if (u.op() == Op::Reduce || u.op() == Op::End) {
      for (size_t i = 1; i < u.num_src(); ++i) {
        // A closed range stays open only through its own end expression (never: ends
        // hold no ranges), so drop it.
        auto it = std::lower_bound(set.begin(), set.end(), u.src(i), by_id);
        if (it != set.end() && *it == u.src(i)) set.erase(it);
      }
    }
    open[u] = std::move(set);
  }
  return open;
}

}  // namespace uopfuzz::ir
