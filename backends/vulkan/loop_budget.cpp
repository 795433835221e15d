// The loop-pass bound of loop_budget.h, over the loop structure render.cpp emits.
#include "backends/vulkan/loop_budget.h"

#include <algorithm>
#include <limits>
#include <unordered_set>
#include <vector>

#include "ir/analysis.h"

namespace uopfuzz::backends::vulkan {

using namespace ir;

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > kMax - b ? kMax : a + b;
}
uint64_t sat_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > kMax / b ? kMax : a * b;
}

class LoopBudget {
 public:
  uint64_t effect(UOp u, bool top, uint32_t threads) {
    if (u.op() != Op::End) return reduces_in(u);
    std::vector<uint64_t> trips;
    for (size_t i = 1; i < u.num_src(); ++i) trips.push_back(this->trips(u.src(i)));
    if (top && !trips.empty())  // invocations share the outermost loop, each a strided part
      trips[0] = (trips[0] + threads - 1) / std::max<uint32_t>(threads, 1);
    return nest(trips, effect(u.src(0), false, threads));
  }

 private:
  uint64_t trips(UOp range) {
    return static_cast<uint64_t>(std::max<int64_t>(0, analysis_.vmax(range.src(0))));
  }

  // Loops with these trip counts, outermost first, around a body of `body` passes.
  static uint64_t nest(const std::vector<uint64_t>& trips, uint64_t body) {
    uint64_t passes = body;
    for (auto t = trips.rbegin(); t != trips.rend(); ++t)
      passes = sat_add(sat_mul(*t, sat_add(passes, 1)), 1);
    return passes;
  }

  // The passes of the REDUCEs that one evaluation of `u` runs (those inside a REDUCE's
  // value count with that REDUCE, once per iteration of its loops).
  uint64_t reduces_in(UOp u) {
    std::unordered_set<const Node*> seen{u.node()};
    std::vector<UOp> stack{u};
    uint64_t passes = 0;
    while (!stack.empty()) {
      UOp n = stack.back();
      stack.pop_back();
      if (n.op() == Op::Reduce) {
        std::vector<uint64_t> trips;
        for (size_t i = 1; i < n.num_src(); ++i) trips.push_back(this->trips(n.src(i)));
        passes = sat_add(passes, nest(trips, reduces_in(n.src(0))));
        continue;
      }
      for (UOp s : n.src())
        if (seen.insert(s.node()).second) stack.push_back(s);
    }
    return passes;
  }

  Analysis analysis_;
};

}  // namespace

uint64_t loop_passes_per_invocation(UOp root, uint32_t threads) {
  LoopBudget budget;
  uint64_t passes = 0;
  for (UOp s : root.src()) passes = sat_add(passes, budget.effect(s, /*top=*/true, threads));
  return passes;
}

}  // namespace uopfuzz::backends::vulkan
