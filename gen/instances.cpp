// The rule-instance generator (instances.h): the family table, the dispatch to each
// family's builder (gen/instance_families.def, gen/instances/<family>.cpp), and the helpers
// every family uses: range ends, closers of ranges, shared input buffers.
#include "gen/instances.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "gen/instances/builder.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

namespace uopfuzz::gen {

std::string_view family_name(InstanceFamily f) {
  static constexpr std::string_view names[] = {
#define FAMILY(e, name, builder, what) name,
#include "gen/instance_families.def"
#undef FAMILY
  };
  return names[static_cast<int>(f)];
}

ir::Kernel InstanceBuilder::make(InstanceFamily f) {
  effects_.clear();
  vars_.clear();
  n_.restart();
  in_i32_ = in_f32_ = in_bool_ = ir::UOp();
  switch (f) {
#define FAMILY(e, name, builder, what) \
  case InstanceFamily::e:              \
    builder();                         \
    break;
#include "gen/instance_families.def"
#undef FAMILY
    case InstanceFamily::kCount: break;
  }
  ir::Kernel k;
  k.header.name = std::string(family_name(f));
  k.root = ctx_.make(ir::Op::Sink, ir::dtypes::Void, effects_);
  return k;
}

void InstanceBuilder::tame_closer(UOp& body, std::vector<UOp>& ranges) {
  if (ranges.size() < 2 || policy_.zero_trip_merges) return;
  std::unordered_map<UOp, UOp, ir::UOpHash> with;
  for (UOp& r : ranges) {
    UOp end = r.src(0);
    if (end.is_const()) {
      if (end.const_value().i > 0) continue;
      end = I(1);
    } else {
      if (ir::Analysis().vmin(end) >= 0) continue;
      end = alu(Op::Max, end, I(0));  // zero trips stay possible, negative ends do not
    }
    UOp r1 = n_.mk(Op::Range, ir::dtypes::Index, {end}, r.arg());
    with.emplace(r, r1);
    r = r1;
  }
  if (!with.empty()) body = ir::substitute(ctx_, body, with);
}
ir::UOp InstanceBuilder::end(UOp body, std::vector<UOp> ranges) {
  if (ranges.empty()) return body;
  tame_closer(body, ranges);
  return n_.end(body, ranges);
}
ir::UOp InstanceBuilder::reduce(Op op, UOp value, std::vector<UOp> ranges) {
  tame_closer(value, ranges);
  if (!policy_.reduce_range_of_one) {  // see InstancePolicy: RANGE(1) -> RANGE(2) here
    std::unordered_map<UOp, UOp, ir::UOpHash> with;
    for (UOp& r : ranges) {
      if (!r.src(0).is_const() || r.src(0).const_value().i != 1) continue;
      UOp r2 = n_.mk(Op::Range, ir::dtypes::Index, {I(2)}, r.arg());
      with.emplace(r, r2);
      r = r2;
    }
    if (!with.empty()) value = ir::substitute(ctx_, value, with);
  }
  return n_.reduce(op, value, ranges);
}

ir::UOp InstanceBuilder::in_i32() {
  if (!in_i32_) {
    // Shape 0 declares nothing here: the oracle's default [-8, 8], values of both signs.
    const uint64_t shape = below(kValueBoundShapes);
    const ValueBounds b = shape == 0 ? ValueBounds{} : value_bounds(shape, false);
    in_i32_ = buffer(ir::dtypes::Int32, kInSize, false, b.vmin, b.vmax, b.multiple_of);
  }
  return in_i32_;
}
ir::UOp InstanceBuilder::in_f32() {
  if (!in_f32_) in_f32_ = buffer(ir::dtypes::Float32, kInSize, false);
  return in_f32_;
}
ir::UOp InstanceBuilder::in_bool() {
  if (!in_bool_) in_bool_ = buffer(ir::dtypes::Bool, kInSize, false);
  return in_bool_;
}

InstanceBuilder::End InstanceBuilder::make_end(int64_t lo, int64_t hi, double p_var) {
  if (!policy_.negative_range_ends)
    lo = std::max<int64_t>(lo, 0);
  else if (chance(w_.p_negative_end_min))
    lo = std::min<int64_t>(lo, -between(1, 3));
  hi = std::max(hi, lo);
  if (chance(p_var)) {
    if (chance(w_.p_var_plus_const_end) && hi - lo >= 2) {  // VAR + CONST, in [lo + k, hi]
      const int64_t k = between(1, 2);
      return {add(var(lo, hi - k), I(k)), hi};
    }
    return {var(lo, hi), hi};
  }
  int64_t v = between(lo, hi);
  return {I(v), std::max<int64_t>(v, 0)};
}

struct InstanceGen::Impl : InstanceBuilder {
  using InstanceBuilder::InstanceBuilder;
};

InstanceGen::InstanceGen(ir::Context& ctx, uint64_t seed, InstancePolicy policy,
                         InstanceWeights weights)
    : impl_(std::make_unique<Impl>(ctx, seed, policy, weights)) {}
InstanceGen::InstanceGen(InstanceGen&&) noexcept = default;
InstanceGen& InstanceGen::operator=(InstanceGen&&) noexcept = default;
InstanceGen::~InstanceGen() = default;

ir::Kernel InstanceGen::make(InstanceFamily f) {
  return impl_->make(f);
}

}  // namespace uopfuzz::gen
