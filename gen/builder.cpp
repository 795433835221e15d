// The Builder's node helpers, leaves and stores (builder.h); its values are in values.cpp.
//
// Determinism across compilers: the order in which a function's arguments are evaluated
// is unspecified, so no call here has two arguments that draw entropy or count toward
// the size budget (braced lists are evaluated left to right and may); such calls go to
// named locals first. Node helpers (mk, alu, I, ...) draw nothing and count nothing.
#include "gen/builder.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>

#include "gen/quant_types.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

namespace uopfuzz::gen {

std::vector<UOp> nodes_of(UOp root) {
  std::vector<const Node*> slots(64, nullptr);
  size_t used = 0;
  auto insert = [&](const Node* n) {
    if (2 * (used + 1) > slots.size()) {  // grow, keeping the load factor at most 1/2
      std::vector<const Node*> old(slots.size() * 2, nullptr);
      old.swap(slots);
      for (const Node* o : old)
        if (o)
          for (size_t i = (reinterpret_cast<uintptr_t>(o) >> 4) & (slots.size() - 1);;
               i = (i + 1) & (slots.size() - 1))
            if (!slots[i]) {
              slots[i] = o;
              break;
            }
    }
    for (size_t i = (reinterpret_cast<uintptr_t>(n) >> 4) & (slots.size() - 1);;
         i = (i + 1) & (slots.size() - 1)) {
      if (slots[i] == n) return false;
      if (!slots[i]) {
        slots[i] = n;
        ++used;
        return true;
      }
    }
  };
  std::vector<UOp> out, stack{root};
  insert(root.node());
  while (!stack.empty()) {
    UOp u = stack.back();
    stack.pop_back();
    out.push_back(u);
    for (UOp s : u.src())
      if (insert(s.node())) stack.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](UOp a, UOp b) { return a.id() < b.id(); });
  return out;
}

UOp replace(Context& ctx, UOp root, const std::vector<UOp>& from, const std::vector<UOp>& to) {
  const std::vector<UOp> topo = nodes_of(root);
  std::vector<UOp> now(topo.size());
  auto find = [&](UOp u) {  // topo is sorted by id
    return static_cast<size_t>(std::lower_bound(topo.begin(), topo.end(), u,
                                                [](UOp a, UOp b) { return a.id() < b.id(); }) -
                               topo.begin());
  };
  for (size_t i = 0; i < topo.size(); ++i) {
    UOp u = topo[i];
    if (auto it = std::find(from.begin(), from.end(), u); it != from.end()) {
      now[i] = to[static_cast<size_t>(it - from.begin())];
      continue;
    }
    std::vector<UOp> src;
    bool changed = false;
    for (UOp s : u.src()) {
      src.push_back(now[find(s)]);
      changed |= src.back() != s;
    }
    now[i] = changed ? ctx.make(u.op(), u.dtype(), std::move(src), u.arg()) : u;
  }
  return now.back();
}

Kernel Builder::build() {
  int outputs = 1;
  while (outputs < p_.max_outputs && e_.chance(p_.p_extra_output)) ++outputs;
  for (int k = 0; k < outputs; ++k) {
    Nest nest = store_nest();
    UOp valid = e_.chance(p_.p_gate_store) ? guard(nest.ranges) : UOp();
    effects_.push_back(store(nest, valid));
    if (valid && k + 1 < p_.max_outputs && e_.chance(p_.p_second_use)) {
      // One range, two stores: ungated (the range keeps its length) or a second guard
      // (the larger guard wins).
      UOp valid2 = e_.chance(p_.p_second_use_ungated) ? UOp() : guard(nest.ranges);
      effects_.push_back(store(nest, valid2));
      ++k;
    }
  }
  UOp root = mk(Op::Sink, dtypes::Void, effects_);
  // Size every input buffer to the largest address its loads use.
  std::vector<UOp> from, to;
  for (const Input& in : inputs_) {
    ParamArg a = in.placeholder.arg<ParamArg>();
    a.size = std::max<int64_t>(1, in.need);
    from.push_back(in.placeholder);
    to.push_back(ctx_.make(Op::Param, in.placeholder.dtype(), {}, a));
  }
  Kernel k;
  k.root = replace(ctx_, root, from, to);
  k.header.vars = vars_;
  return k;
}

UOp Builder::bnot(UOp b) {
  return n_.bnot(b, e_.below(kNotSpellings));
}

bool Builder::tame(UOp u) {
  Interval b = bnd(u);
  return b.lo >= -p_.max_index_magnitude && b.hi <= p_.max_index_magnitude;
}

DType Builder::pick_dtype() {
  double w[std::size(kBufferTypes)];
  for (size_t i = 0; i < std::size(kBufferTypes); ++i) w[i] = p_.dtypes.of(kBufferTypes[i]);
  return kBufferTypes[e_.pick(w)];
}

DType Builder::pick_other_dtype(DType not_this) {
  double w[std::size(kBufferTypes)];
  for (size_t i = 0; i < std::size(kBufferTypes); ++i)
    w[i] = kBufferTypes[i] == not_this ? 0 : p_.dtypes.of(kBufferTypes[i]);
  return kBufferTypes[e_.pick(w)];
}

Op Builder::pick_reduce_op() {
  const auto& w = p_.reduce_ops;
  constexpr Op ops[] = {Op::Add, Op::Mul, Op::Max, Op::Min};
  return ops[e_.pick({w.add, w.mul, w.max, w.min})];
}

UOp Builder::var(DType dt, int64_t lo, int64_t hi, std::optional<int64_t> mult,
                 std::optional<int64_t> fixed) {
  UOp v = n_.var(dt, lo, hi, mult);
  int64_t value = fixed ? *fixed : e_.between(lo, hi);
  if (mult) value = std::clamp(value / *mult * *mult, lo, hi);  // lo, hi are multiples
  vars_.emplace_back(v.arg<VarArg>().name, value);
  return v;
}

int64_t Builder::end_budget(const Scope& s) const {
  if (static_cast<int>(s.ranges.size()) >= p_.max_loop_nest) return 0;
  return std::min(p_.max_range_end, p_.max_iterations / std::max<int64_t>(1, s.iters));
}

int64_t Builder::log_between(int64_t lo, int64_t hi) {
  const int64_t a = std::bit_width(static_cast<uint64_t>(lo)) - 1;
  const int64_t b = std::bit_width(static_cast<uint64_t>(hi)) - 1;
  const int64_t k = e_.between(a, b);
  return std::clamp(e_.between(int64_t{1} << k, (int64_t{2} << k) - 1), lo, hi);
}

UOp Builder::range_end(int64_t max_end) {
  max_end = std::max(min_end(), max_end);
  if (max_end >= p_.large_min_end && e_.chance(p_.p_large_end))  // only large graphs have room
    return I(log_between(p_.large_min_end, max_end));
  if (e_.chance(p_.p_var_end)) {
    int64_t lo = e_.chance(p_.p_var_end_negative_min) ? -e_.between(1, 3)
                 : e_.chance(p_.p_var_end_zero_min)   ? 0
                                                      : 1;
    int64_t hi = e_.between(min_end(), max_end);  // [1, 1] would pin the end to 1
    if (lo >= 0 && hi >= 4 && e_.chance(p_.p_var_multiple_of)) {
      int64_t m = e_.between(2, 4);
      int64_t mlo = (lo + m - 1) / m * m, mhi = hi / m * m;
      if (mlo <= mhi) return var(dtypes::Index, mlo, mhi, m);
    }
    return var(dtypes::Index, lo, hi);
  }
  if (e_.chance(p_.p_const_end_zero)) return I(0);
  if (e_.chance(p_.p_const_end_one)) return I(1);
  return I(e_.between(std::min<int64_t>(2, max_end), max_end));
}

Scope Builder::inner(const Scope& s, UOp r) {
  Scope in = s;
  in.ranges.push_back(r);
  in.iters *= trips(r);
  in.focus = r;
  return in;
}

int Builder::new_input(DType dt, bool index_buffer, std::optional<int64_t> vmin,
                       std::optional<int64_t> vmax, std::optional<int64_t> mult) {
  if (static_cast<int>(inputs_.size()) >= p_.max_inputs) return -1;
  inputs_.push_back({n_.param(dt, 1, false, vmin, vmax, mult), 1, index_buffer});
  return static_cast<int>(inputs_.size()) - 1;
}

int Builder::data_input(DType dt) {
  std::vector<int> have;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (!inputs_[i].index_buffer && inputs_[i].placeholder.dtype() == dt)
      have.push_back(static_cast<int>(i));
  if (!have.empty() && e_.chance(p_.p_reuse_input)) return have[e_.below(have.size())];
  std::optional<int64_t> vmin, vmax, mult;
  if (dt.is_int() && e_.chance(p_.p_edge_input_bounds)) {
    const int64_t k = e_.between(0, 8);  // values at the dtype's max, or at its min
    if (e_.coin() || dt.int_min() == 0)
      vmin = dt.int_max() - k, vmax = dt.int_max();
    else
      vmin = dt.int_min(), vmax = dt.int_min() + k;
  } else if (dt.is_int() && e_.chance(p_.p_input_bounds)) {
    const ValueBounds b =
        value_bounds(e_.below(kValueBoundShapes), dt.kind() == DTypeKind::Unsigned);
    vmin = b.vmin, vmax = b.vmax, mult = b.multiple_of;
  }
  int k = new_input(dt, false, vmin, vmax, mult);
  if (k < 0 && !have.empty()) return have[e_.below(have.size())];
  return k;
}

UOp Builder::address(int k, UOp idx, const Scope& s) {
  Interval b = bnd(idx);
  UOp valid;
  if (b.lo < 0 || b.hi >= p_.max_buffer_size) {
    const int64_t n = b.hi < 0                     ? e_.between(1, 8)
                      : b.hi >= p_.max_buffer_size ? p_.max_buffer_size
                                                   : b.hi + 1;
    const auto& w = p_.address_fix;
    switch (e_.pick({w.gate, w.wrap, w.clamp})) {
      case 0:  // gate: accesses outside [0, n) do not happen
        if (b.lo < 0) valid = lt(I(-1), idx);
        if (b.hi >= n) valid = band(valid, lt(idx, I(n)));
        break;
      case 1: idx = alu(Op::FloorMod, {idx, I(n)}); break;
      default: idx = alu(Op::Min, {alu(Op::Max, {idx, I(0)}), I(n - 1)}); break;
    }
    inputs_[k].need = std::max(inputs_[k].need, n);
  } else {
    inputs_[k].need = std::max(inputs_[k].need, b.hi + 1);
  }
  if (e_.chance(p_.p_gate_load)) valid = band(valid, guard(ranges_in(idx, s)));
  if (valid) idx = where(valid, idx, ctx_.invalid());
  return n_.index(inputs_[k].placeholder, idx);
}

UOp Builder::load_at(int k, UOp idx, const Scope& s) {
  UOp at = address(k, idx, s);
  const DType dt = at.dtype();
  if (at.src(1).op() == Op::Where && e_.chance(p_.p_load_alt))
    return mk(Op::Load, dt, {at, constant(dt)});
  return mk(Op::Load, dt, {at});
}

std::vector<UOp> Builder::ranges_in(UOp u, const Scope& s) {
  std::vector<UOp> out;
  for (UOp n : toposort(u))
    if (n.op() == Op::Range && std::find(s.ranges.begin(), s.ranges.end(), n) != s.ranges.end())
      out.push_back(n);
  return out;
}

UOp Builder::guard(const std::vector<UOp>& rs) {
  std::vector<UOp> ok;
  for (UOp r : rs)
    if (bnd(r.src(0)).lo >= 2) ok.push_back(r);
  if (ok.empty()) return UOp();
  UOp valid;
  const size_t n = ok.size() >= 2 && e_.chance(p_.p_two_guards) ? 2 : 1;
  for (size_t i = 0; i < n; ++i) {
    UOp r = ok[e_.below(ok.size())];
    const Interval end = bnd(r.src(0));
    int64_t g = e_.between(1, end.lo - 1);
    if (e_.chance(p_.p_guard_at_bound)) {
      const int64_t at_gate[] = {end.lo - 1, end.lo, end.lo + 1,
                                 e_.between(end.lo, std::max(end.lo, end.hi))};
      g = at_gate[e_.below(4)];
    }
    valid = band(valid, lt(r, I(g)));
  }
  return valid;
}

Builder::Nest Builder::store_nest() {
  Nest n;
  if (!e_.chance(p_.p_store_in_loop)) {
    n.lin = I(0);
    return n;
  }
  int count = 1;  // a loop is left for REDUCEs
  while (count < p_.max_loop_nest - 1 && e_.chance(p_.p_extra_store_range)) ++count;
  AxisType type = e_.chance(p_.p_global_axis) ? AxisType::Global : AxisType::Loop;
  int64_t iters = 1;
  for (int i = 0; i < count; ++i) {
    const int64_t budget = std::min(p_.max_range_end, p_.max_store_iterations / iters);
    if (budget < min_end()) break;
    UOp r;
    if (!store_ranges_.empty() && e_.chance(p_.p_reuse_range)) {
      UOp c = store_ranges_[e_.below(store_ranges_.size())];
      if (std::find(n.ranges.begin(), n.ranges.end(), c) == n.ranges.end() && trips(c) <= budget)
        r = c;
    }
    if (!r) {
      AxisType t = type;
      if (e_.chance(p_.p_warp_axis))
        t = AxisType::Warp;
      else if (i > 0 && !e_.chance(p_.p_same_axis_type))
        t = type == AxisType::Loop ? AxisType::Global : AxisType::Loop;
      if (i == count - 1 && budget >= 2 && e_.chance(p_.p_upcast_axis))
        r = range(I(e_.between(2, std::min<int64_t>(budget, 8))),
                  AxisType::Upcast);  // an optimizer upcasts by a small CONST factor
      else
        r = range(range_end(budget), t);
      store_ranges_.push_back(r);
    }
    n.ranges.push_back(r);
    iters *= trips(r);
  }
  n.lin = flat_index(n.ranges, e_.chance(p_.p_horner_index));
  return n;
}

UOp Builder::store(const Nest& nest, UOp valid) {
  const bool quantized_output = e_.chance(p_.p_quantized_output);
  const DType dt = quantized_output ? draw_quant_type(e_, p_.quant) : pick_dtype();
  Scope s;
  s.ranges = nest.ranges;
  if (nest.ranges.size() >= 1) s.flat = nest.lin;
  for (UOp r : nest.ranges) s.iters *= trips(r);
  UOp value = quantized_output ? quantized(dt, s, 0) : this->value(dt, s, 0);
  UOp out = n_.param(dt, bnd(nest.lin).hi + 1, true);
  UOp idx = valid ? where(valid, nest.lin, ctx_.invalid()) : nest.lin;
  UOp st = n_.store(out, idx, value);
  const auto& rs = nest.ranges;
  if (rs.empty()) return st;
  auto end = [&](UOp body, size_t from, size_t to) {
    return n_.end(body, std::vector<UOp>(rs.begin() + static_cast<std::ptrdiff_t>(from),
                                         rs.begin() + static_cast<std::ptrdiff_t>(to)));
  };
  if (rs.size() >= 2 && e_.chance(p_.p_nested_end)) {
    const size_t split = 1 + e_.below(rs.size() - 1);
    return end(end(st, split, rs.size()), 0, split);
  }
  return end(st, 0, rs.size());
}

}  // namespace uopfuzz::gen
