#include "ir/graph.h"

#include <algorithm>

namespace uopfuzz::ir {

namespace {

// Visit marks for toposort, indexed by node id: a node is marked when mark[id] == epoch.
// Starting a walk bumps the epoch, which unmarks every node at once, so a walk costs the
// size of the subgraph it visits, not of its Context (many walks are over small
// subgraphs of big graphs), and it allocates nothing once the vector has grown. Node ids
// of different Contexts overlap, but one walk only meets nodes of one Context. Per thread
// because Contexts are (uop.h); toposort calls nothing that could start another walk.
struct VisitMarks {
  std::vector<uint32_t> mark;
  uint32_t epoch = 0;

  /// Starts a walk whose nodes all have ids <= max_id.
  void start(uint32_t max_id) {
    if (++epoch == 0) {  // wrapped: old marks could equal the new epoch
      std::fill(mark.begin(), mark.end(), 0);
      epoch = 1;
    }
    if (mark.size() <= max_id) mark.resize(size_t{max_id} + 1, 0);
  }
  /// Marks u; false if it was already marked in this walk.
  bool visit(UOp u) {
    uint32_t& m = mark[u.id()];
    if (m == epoch) return false;
    m = epoch;
    return true;
  }
};

thread_local VisitMarks visit_marks;

}  // namespace

std::vector<UOp> toposort(UOp root) {
  std::vector<UOp> order;
  if (!root) return order;
  // Sources are created before their users, so no node below root has a larger id.
  VisitMarks& marks = visit_marks;
  marks.start(root.id());
  // A node is marked when pushed. In a DAG a node on the stack is never a source of a
  // node above it, so "marked" means done or on the stack, and either way it is skipped.
  marks.visit(root);
  // (node, index of the next source to visit)
  std::vector<std::pair<UOp, size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto& [u, next] = stack.back();
    if (next < u.num_src()) {
      UOp s = u.src(next++);
      if (marks.visit(s)) stack.emplace_back(s, 0);
      continue;
    }
    order.push_back(u);
    stack.pop_back();
  }
  return order;
}

UOp copy_graph(Context& to, UOp root) {
  if (!root) return root;
  const std::vector<UOp> topo = toposort(root);
  NodeMap<UOp> copy(topo.size());
  for (UOp u : topo) {
    std::vector<UOp> src;
    src.reserve(u.num_src());
    for (UOp s : u.src()) src.push_back(copy.at(s));
    copy.emplace(u, to.make(u.op(), u.dtype(), std::move(src), u.arg(), u.shape()));
  }
  return copy.at(root);
}

NodeMap<RangeSet> open_ranges(const std::vector<UOp>& topo) {
  NodeMap<RangeSet> open(topo.size());
  auto by_id = [](UOp a, UOp b) { return a.id() < b.id(); };
  for (UOp u : topo) {
    RangeSet set;
    for (UOp s : u.src()) {
      const RangeSet& child = open[s];
      if (child.empty()) continue;  // most nodes: nothing to merge, nothing to allocate
      RangeSet merged;
      std::set_union(set.begin(), set.end(), child.begin(), child.end(), std::back_inserter(merged),
                     by_id);
      set.swap(merged);
    }
    if (u.op() == Op::Range) {
      RangeSet self{u};
      RangeSet merged;
      std::set_union(set.begin(), set.end(), self.begin(), self.end(), std::back_inserter(merged),
                     by_id);
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
