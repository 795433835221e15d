#include "check/strength.h"

#include <algorithm>
#include <limits>

#include "ir/analysis.h"
#include "ir/graph.h"

namespace uopfuzz::check {
namespace {

uint64_t saturating_mul(uint64_t x, uint64_t y) {
  if (x != 0 && y > std::numeric_limits<uint64_t>::max() / x)
    return std::numeric_limits<uint64_t>::max();
  return x * y;
}

uint64_t saturating_add(uint64_t x, uint64_t y) {
  return y > std::numeric_limits<uint64_t>::max() - x ? std::numeric_limits<uint64_t>::max()
                                                      : x + y;
}

/// The most iterations a RANGE runs: its end's upper bound (a RANGE runs 0 .. end-1).
uint64_t trips(ir::Analysis& an, ir::UOp range) {
  return uint64_t(std::max<int64_t>(an.vmax(range.src(0)), 0));
}

uint64_t product_of_trips(ir::Analysis& an, const std::vector<ir::UOp>& ranges) {
  uint64_t p = 1;
  for (ir::UOp r : ranges) p = saturating_mul(p, trips(an, r));
  return p;
}

/// Adds the store iterations under `u`, whose enclosing ENDs loop over `around`: a store
/// runs once per iteration of every loop that ends around it, whether or not it reads
/// that loop's range, and of every range it reads that is still open.
void count_store_trips(ir::Analysis& an, const ir::NodeMap<ir::RangeSet>& open, ir::UOp u,
                       std::vector<ir::UOp> around, uint64_t& total) {
  if (u.op() == ir::Op::Sink) {
    for (ir::UOp s : u.src()) count_store_trips(an, open, s, around, total);
  } else if (u.op() == ir::Op::End) {
    for (size_t i = 1; i < u.num_src(); ++i)
      if (u.src(i).op() == ir::Op::Range &&
          std::find(around.begin(), around.end(), u.src(i)) == around.end())
        around.push_back(u.src(i));
    count_store_trips(an, open, u.src(0), around, total);
  } else if (u.op() == ir::Op::Store) {
    for (ir::UOp r : open.at(u))
      if (std::find(around.begin(), around.end(), r) == around.end()) around.push_back(r);
    total = saturating_add(total, product_of_trips(an, around));
  }
}

}  // namespace

std::string_view strength_family_name(StrengthFamily f) {
  switch (f) {
    case StrengthFamily::ReduceCollapse: return "reduce-collapse";
    case StrengthFamily::Range: return "range-split-merge-flatten";
    case StrengthFamily::GatedShrink: return "gated-shrink";
    case StrengthFamily::Symbolic: return "symbolic";
    case StrengthFamily::LoadCollapse: return "load-collapse";
  }
  return "?";
}

std::array<StrengthFamily, kStrengthFamilies> all_strength_families() {
  return {StrengthFamily::ReduceCollapse, StrengthFamily::Range, StrengthFamily::GatedShrink,
          StrengthFamily::Symbolic, StrengthFamily::LoadCollapse};
}

Leftover leftover(ir::UOp root) {
  Leftover l;
  const std::vector<ir::UOp> topo = ir::toposort(root);
  const ir::NodeMap<ir::RangeSet> open = ir::open_ranges(topo);
  ir::Analysis an;
  l.nodes = topo.size();
  for (ir::UOp u : topo) {
    if (ir::op_in(u.op(), ir::Alu)) ++l.alus;
    if (u.op() == ir::Op::Reduce) {
      ++l.reduces;
      std::vector<ir::UOp> ranges;
      for (size_t i = 1; i < u.num_src(); ++i)
        if (u.src(i).op() == ir::Op::Range) ranges.push_back(u.src(i));
      l.reduce_trips = saturating_add(l.reduce_trips, product_of_trips(an, ranges));
    }
    if (u.op() == ir::Op::Range) ++l.ranges;
    if (u.op() == ir::Op::Load) ++l.loads;
  }
  count_store_trips(an, open, root, {}, l.store_trips);
  return l;
}

uint64_t family_figure(StrengthFamily f, const Leftover& l) {
  switch (f) {
    case StrengthFamily::ReduceCollapse: return l.reduces;
    case StrengthFamily::Range: return l.ranges;
    case StrengthFamily::GatedShrink: return l.store_trips;
    case StrengthFamily::Symbolic: return l.alus;
    case StrengthFamily::LoadCollapse: return l.loads;
  }
  return 0;
}

int stronger_in(StrengthFamily f, const Leftover& a, const Leftover& b) {
  auto cmp = [](uint64_t x, uint64_t y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (f == StrengthFamily::ReduceCollapse) {
    // The same number of reduces may still loop less (a range bounded by a gate).
    const int by_count = cmp(a.reduces, b.reduces);
    return by_count != 0 ? by_count : cmp(a.reduce_trips, b.reduce_trips);
  }
  return cmp(family_figure(f, a), family_figure(f, b));
}

bool StrengthComparison::differs() const {
  return std::any_of(stronger.begin(), stronger.end(), [](int s) { return s != 0; });
}

StrengthComparison compare_strength(ir::UOp a_root, ir::UOp b_root) {
  StrengthComparison c{leftover(a_root), leftover(b_root)};
  for (StrengthFamily f : all_strength_families()) c.stronger[size_t(f)] = stronger_in(f, c.a, c.b);
  return c;
}

void StrengthTally::add(const StrengthComparison& c, const std::string& label) {
  ++compared;
  if (c.differs()) ++differences;
  for (StrengthFamily f : all_strength_families()) {
    Family& fam = families[size_t(f)];
    fam.a_left = saturating_add(fam.a_left, family_figure(f, c.a));
    fam.b_left = saturating_add(fam.b_left, family_figure(f, c.b));
    const int s = c.stronger[size_t(f)];
    if (s < 0) {
      ++fam.a_stronger;
      if (fam.a_examples.size() < kExamples) fam.a_examples.push_back(label);
    } else if (s > 0) {
      ++fam.b_stronger;
      if (fam.b_examples.size() < kExamples) fam.b_examples.push_back(label);
    }
  }
}

}  // namespace uopfuzz::check
