#include "ir/loop_plan.h"

#include <fmt/format.h>

namespace uopfuzz::ir {

LoopPlan::LoopPlan(const std::vector<UOp>& topo, Pinning pinning)
    : LoopPlan(topo, open_ranges(topo), pinning) {}

LoopPlan::LoopPlan(const std::vector<UOp>& topo, NodeMap<RangeSet> open, Pinning pinning)
    : open_(std::move(open)) {
  if (pinning == Pinning::Memory)
    for (UOp u : topo) {
      bool p = u.op() == Op::Load || u.op() == Op::Reduce;
      for (UOp s : u.src()) p = p || pinned_.contains(s);
      if (p) pinned_.emplace(u, true);
    }
  enter_guard();  // the kernel's own scope
}

LoopPlan::Suspended LoopPlan::suspend_above(size_t k) {
  Suspended s{{chain_.begin() + static_cast<std::ptrdiff_t>(k) + 1, chain_.end()}};
  chain_.resize(k + 1);
  return s;
}

void LoopPlan::resume(Suspended s) {
  chain_.insert(chain_.end(), s.scopes.begin(), s.scopes.end());
}

size_t LoopPlan::home(UOp u, size_t depth) const {
  if (pinned(u)) return depth - 1;
  const RangeSet& open = open_.at(u);
  if (open.empty()) return 0;
  for (size_t k = depth; k-- > 1;)
    for (UOp o : open)
      if (o == chain_[k].range) return k;
  return 0;
}

std::string unexpected_effect(UOp u) {
  return fmt::format("unexpected {} among the kernel's effects", op_name(u.op()));
}

}  // namespace uopfuzz::ir
