// The Builder's node helpers, leaves, stores and values (builder.h).
//
// Determinism across compilers: the order in which a function's arguments are evaluated
// is unspecified, so no call here has two arguments that draw entropy or count toward
// the size budget (braced lists are evaluated left to right and may); such calls go to
// named locals first. Node helpers (mk, alu, I, ...) draw nothing and count nothing.
#include "gen/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>

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
  switch (e_.below(3)) {
    case 0:
      return alu(Op::CmpNe, {b, ctx_.const_bool(true)});
    case 1:
      return alu(Op::Xor, {b, ctx_.const_bool(true)});
    default:
      return alu(Op::CmpEq, {b, ctx_.const_bool(false)});
  }
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
  VarArg v{fmt::format("v{}", next_var_++), lo, hi, mult};
  int64_t value = fixed ? *fixed : e_.between(lo, hi);
  if (mult) value = std::clamp(value / *mult * *mult, lo, hi);  // lo, hi are multiples
  vars_.emplace_back(v.name, value);
  return mk(Op::Var, dt, {}, std::move(v));
}

int64_t Builder::end_budget(const Scope& s) const {
  if (static_cast<int>(s.ranges.size()) >= p_.max_loop_nest) return 0;
  return std::min(p_.max_range_end, p_.max_iterations / std::max<int64_t>(1, s.iters));
}

UOp Builder::range_end(int64_t max_end) {
  max_end = std::max<int64_t>(1, max_end);
  if (e_.chance(p_.p_var_end)) {
    int64_t lo = e_.chance(p_.p_var_end_negative_min) ? -e_.between(1, 3)
                 : e_.chance(p_.p_var_end_zero_min)   ? 0
                                                      : 1;
    int64_t hi = e_.between(1, max_end);
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

UOp Builder::range(UOp end, AxisType t) {
  RangeArg a;
  a.axis.push_back(next_axis_++);
  a.type = t;
  return mk(Op::Range, dtypes::Index, {end}, std::move(a));
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
  ParamArg a;
  a.slot = next_slot_++;
  a.size = 1;
  a.vmin = vmin, a.vmax = vmax, a.multiple_of = mult;
  inputs_.push_back({mk(Op::Param, dt, {}, std::move(a)), 1, index_buffer});
  return static_cast<int>(inputs_.size()) - 1;
}

int Builder::data_input(DType dt) {
  std::vector<int> have;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (!inputs_[i].index_buffer && inputs_[i].placeholder.dtype() == dt)
      have.push_back(static_cast<int>(i));
  if (!have.empty() && e_.chance(p_.p_reuse_input)) return have[e_.below(have.size())];
  std::optional<int64_t> vmin, vmax, mult;
  if (dt.is_int() && e_.chance(p_.p_input_bounds)) {
    const bool uns = dt.kind() == DTypeKind::Unsigned;
    switch (e_.below(4)) {
      case 0:
        vmin = 1, vmax = 8;
        break;  // a positive divisor
      case 1:
        vmin = 0, vmax = 15;
        break;
      case 2:
        vmin = uns ? 0 : -12, vmax = 12, mult = 4;
        break;
      default:
        vmin = uns ? 0 : -3, vmax = 20;
        break;
    }
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
      case 1:
        idx = alu(Op::FloorMod, {idx, I(n)});
        break;
      default:
        idx = alu(Op::Min, {alu(Op::Max, {idx, I(0)}), I(n - 1)});
        break;
    }
    inputs_[k].need = std::max(inputs_[k].need, n);
  } else {
    inputs_[k].need = std::max(inputs_[k].need, b.hi + 1);
  }
  if (e_.chance(p_.p_gate_load)) valid = band(valid, guard(ranges_in(idx, s)));
  if (valid) idx = where(valid, idx, ctx_.invalid());
  return mk(Op::Index, inputs_[k].placeholder.dtype(), {inputs_[k].placeholder, idx});
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
    const int64_t g = e_.between(1, bnd(r.src(0)).lo - 1);
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
    if (budget < 1) break;
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

UOp Builder::flat_index(const std::vector<UOp>& rs, bool horner) {
  if (rs.empty()) return I(0);
  auto times = [&](UOp a, UOp b) {
    if (a.is_const() && b.is_const()) return I(a.const_value().i * b.const_value().i);
    return alu(Op::Mul, {a, b});
  };
  if (horner) {  // (i*Nj + j)*Nk + k
    UOp acc = rs[0];
    for (size_t k = 1; k < rs.size(); ++k) acc = alu(Op::Add, {times(acc, rs[k].src(0)), rs[k]});
    return acc;
  }
  // i*(Nj*Nk) + (j*Nk + k)
  UOp acc = rs.back(), stride;
  for (size_t k = rs.size() - 1; k-- > 0;) {
    stride = stride ? times(rs[k + 1].src(0), stride) : rs[k + 1].src(0);
    acc = alu(Op::Add, {times(rs[k], stride), acc});
  }
  return acc;
}

UOp Builder::store(const Nest& nest, UOp valid) {
  const DType dt = pick_dtype();
  Scope s;
  s.ranges = nest.ranges;
  if (nest.ranges.size() >= 1) s.flat = nest.lin;
  for (UOp r : nest.ranges) s.iters *= trips(r);
  UOp value = this->value(dt, s, 0);
  ParamArg a;
  a.slot = next_slot_++;
  a.size = std::max<int64_t>(1, bnd(nest.lin).hi + 1);
  a.output = true;
  UOp out = mk(Op::Param, dt, {}, std::move(a));
  UOp idx = valid ? where(valid, nest.lin, ctx_.invalid()) : nest.lin;
  UOp st = mk(Op::Store, dtypes::Void, {mk(Op::Index, dt, {out, idx}), value});
  const auto& rs = nest.ranges;
  if (rs.empty()) return st;
  auto end = [&](UOp body, size_t from, size_t to) {
    std::vector<UOp> src{body};
    src.insert(src.end(), rs.begin() + static_cast<std::ptrdiff_t>(from),
               rs.begin() + static_cast<std::ptrdiff_t>(to));
    return mk(Op::End, dtypes::Void, std::move(src));
  };
  if (rs.size() >= 2 && e_.chance(p_.p_nested_end)) {
    const size_t split = 1 + e_.below(rs.size() - 1);
    return end(end(st, split, rs.size()), 0, split);
  }
  return end(st, 0, rs.size());
}

UOp Builder::constant(DType dt) {
  if (dt.is_bool()) return ctx_.const_bool(e_.chance(0.5));
  if (dt.is_float()) {
    if (p_.inexact_floats && e_.chance(p_.p_inexact_const)) {
      constexpr double odd[] = {0.1, 1.0 / 3, 1e30, -1e30, 65519.0, 1e-8};
      const double special[] = {std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
      if (e_.chance(p_.p_special_const)) return cfloat(dt, special[e_.below(3)]);
      return cfloat(dt, odd[e_.below(std::size(odd))]);
    }
    if (e_.chance(p_.p_float_negative_zero)) return cfloat(dt, -0.0);
    return cfloat(dt, static_cast<double>(e_.between(-64, 64)) / 8.0);
  }
  if (e_.chance(p_.p_int_edge_const)) {
    if (dt.kind() == DTypeKind::Unsigned)
      return cint(dt, e_.chance(0.5) ? -1 : 0);  // -1 wraps to the max
    return cint(dt, e_.chance(0.5) ? dt.int_min() : dt.int_max());
  }
  if (dt.kind() == DTypeKind::Unsigned) return cint(dt, e_.between(0, 16));
  return cint(dt, e_.between(-8, 8));
}

UOp Builder::range_leaf(const Scope& s) {
  if (s.ranges.empty()) return I(e_.between(0, 3));
  UOp r;
  if (s.focus && e_.chance(p_.p_focus_range))
    r = s.focus;
  else if (s.flat && s.ranges.size() >= 2 && e_.chance(p_.p_value_uses_flat))
    return s.flat;
  else
    r = s.ranges[e_.below(s.ranges.size())];
  if (!e_.chance(p_.p_range_mod)) return r;
  UOp end = r.src(0);
  int64_t c = e_.between(2, 5);
  if (end.is_const() && end.const_value().i >= 2 && e_.chance(p_.p_mod_divisible)) {
    const int64_t n = end.const_value().i;
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d <= n; ++d)
      if (n % d == 0) divisors.push_back(d);
    c = divisors[e_.below(divisors.size())];
  }
  constexpr Op ops[] = {Op::FloorMod, Op::Cmod, Op::FloorDiv};
  const auto& w = p_.range_ops;
  return alu(ops[e_.pick({w.floormod, w.cmod, w.floordiv})], {r, I(c)});
}

UOp Builder::index_expr(const Scope& s, int depth) {
  ++positions_;
  const bool leafy = depth >= p_.max_expr_depth || !budget_left();
  if (!leafy && e_.chance(p_.p_dynamic_index)) {
    if (UOp d = loaded_index(s, depth, 0, e_.between(1, 15))) return d;
  }
  const auto& w = p_.index;
  switch (e_.pick({s.ranges.empty() ? 0.0 : w.range, w.constant, leafy ? 0.0 : w.compound, w.var,
                   leafy ? 0.0 : w.cast_value})) {
    case 0:
      return range_leaf(s);
    case 1:
      return I(e_.between(0, 7));
    case 2: {
      UOp a = index_expr(s, depth + 1);
      UOp b = e_.chance(w.p_const_operand) ? I(e_.between(-3, 4)) : index_expr(s, depth + 1);
      constexpr Op ops[] = {Op::Add, Op::Sub,      Op::Mul,      Op::Max,
                            Op::Min, Op::FloorDiv, Op::FloorMod, Op::Cmod};
      Op op = ops[e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.floordiv, w.floormod, w.cmod})];
      if (op == Op::Mul && e_.chance(w.p_const_operand)) b = I(e_.between(2, 4));
      if (op == Op::FloorDiv || op == Op::FloorMod || op == Op::Cmod) b = I(e_.between(2, 6));
      UOp u = alu(op, {a, b});
      return tame(u) ? u : a;
    }
    case 3:
      return var(dtypes::Index, 0, e_.between(1, 7));
    default: {  // an integer value, clamped, as an index
      const DType dt = pick_int_dtype();
      return clamp_to_index(value(dt, s, depth + 1));
    }
  }
}

DType Builder::pick_int_dtype() {
  double w[std::size(kBufferTypes)];
  for (size_t i = 0; i < std::size(kBufferTypes); ++i)
    w[i] = kBufferTypes[i].is_int() ? p_.dtypes.of(kBufferTypes[i]) : 0;
  DType dt = kBufferTypes[e_.pick(w)];
  return dt.is_int() ? dt : dtypes::Int32;
}

UOp Builder::clamp_to_index(UOp x) {
  Interval b = bnd(x);
  if (b.lo < -kIndexLeafBound || b.hi > kIndexLeafBound) {
    const DType dt = x.dtype();
    x = alu(Op::Min, {x, cint(dt, kIndexLeafBound)});
    if (dt.kind() != DTypeKind::Unsigned) x = alu(Op::Max, {x, cint(dt, -kIndexLeafBound)});
  }
  return cast(dtypes::Index, x);
}

UOp Builder::loaded_index(const Scope& s, int depth, int64_t lo, int64_t hi) {
  constexpr DType types[] = {dtypes::Int32, dtypes::Int64, dtypes::Int16, dtypes::UInt8,
                             dtypes::UInt32};
  const auto& w = p_.index_buffers;
  DType dt = types[e_.pick({w.int32, w.int64, w.int16, w.uint8, w.uint32})];
  if (dt.kind() == DTypeKind::Unsigned && lo < 0) dt = dtypes::Int32;
  const int k = new_input(dt, true, lo, hi);
  if (k < 0) return UOp();
  UOp at = index_expr(s, depth + 1);
  return cast(dtypes::Index, load_at(k, at, s));
}

UOp Builder::load(DType dt, const Scope& s, int depth) {
  const int k = data_input(dt);
  if (k < 0) return constant(dt);
  return load_at(k, index_expr(s, depth + 1), s);
}

UOp Builder::leaf(DType dt, const Scope& s, int depth) {
  const auto& w = p_.leaves;
  switch (
      e_.pick({w.constant, w.load, s.ranges.empty() ? 0.0 : w.range, dt.is_int() ? w.var : 0.0})) {
    case 0:
      return constant(dt);
    case 1:
      return load(dt, s, depth);
    case 2: {
      UOp r = range_leaf(s);
      if (dt.is_bool()) return lt(r, I(e_.between(0, 6)));
      return cast(dt, r);
    }
    default: {
      if (dt.kind() == DTypeKind::Unsigned) return var(dt, 0, e_.between(0, 16));
      const int64_t lo = -e_.between(0, 8);
      return var(dt, lo, e_.between(0, 8));
    }
  }
}

UOp Builder::value(DType dt, const Scope& s, int depth) {
  ++positions_;
  if (depth >= p_.max_expr_depth || !budget_left()) return leaf(dt, s, depth);
  if (!dt.is_bool() && end_budget(s) >= 1)
    if (UOp u = family(dt, s, depth)) return u;
  const auto& w = p_.exprs;
  switch (e_.pick(
      {w.leaf, w.unary, w.binary, w.where, dt.is_bool() || end_budget(s) < 1 ? 0.0 : w.reduce})) {
    case 0:
      return leaf(dt, s, depth);
    case 1:
      return unary(dt, s, depth);
    case 2:
      return binary(dt, s, depth);
    case 3: {
      UOp c = value(dtypes::Bool, s, depth + 1);
      UOp a = value(dt, s, depth + 1);
      return where(c, a, value(dt, s, depth + 1));
    }
    default:
      return reduce(dt, s, depth);
  }
}

UOp Builder::unary(DType dt, const Scope& s, int depth) {
  const bool fl = dt.is_float(), in = dt.is_int();
  const bool bitcast_ok = !dt.is_bool() && (fl ? p_.inexact_floats : true);
  const auto& w = p_.unary;
  switch (e_.pick({fl || in ? w.neg : 0.0, w.cast, bitcast_ok ? w.bitcast : 0.0, fl ? w.trunc : 0.0,
                   fl && p_.inexact_floats ? w.transcendental : 0.0})) {
    case 0:
      return mk(Op::Neg, dt, {value(dt, s, depth + 1)});
    case 1:
      return cast_from_other(dt, s, depth);
    case 2: {  // BITCAST from the other type of this size
      DType from = bitcast_partner(dt);
      UOp x = value(from, s, depth + 1);
      if (from.is_float()) x = where(alu(Op::CmpNe, {x, x}), zero(from), x);  // a NaN would be UB
      return mk(Op::Bitcast, dt, {x});
    }
    case 3:
      return mk(Op::Trunc, dt, {value(dt, s, depth + 1)});
    default: {
      constexpr Op ops[] = {Op::Reciprocal, Op::Sqrt, Op::Exp2, Op::Log2, Op::Sin};
      const Op op = ops[e_.below(5)];
      return mk(op, dt, {value(dt, s, depth + 1)});
    }
  }
}

DType Builder::bitcast_partner(DType dt) {
  switch (dt.bytes()) {
    case 1:
      return dt == dtypes::Int8 ? dtypes::UInt8 : dtypes::Int8;
    case 2: {
      constexpr DType c[] = {dtypes::Int16, dtypes::UInt16, dtypes::Float16};
      DType o = c[e_.below(3)];
      return o == dt ? (dt == dtypes::Int16 ? dtypes::UInt16 : dtypes::Int16) : o;
    }
    case 4: {
      constexpr DType c[] = {dtypes::Int32, dtypes::UInt32, dtypes::Float32};
      DType o = c[e_.below(3)];
      return o == dt ? (dt == dtypes::Int32 ? dtypes::UInt32 : dtypes::Int32) : o;
    }
    default: {
      constexpr DType c[] = {dtypes::Int64, dtypes::UInt64, dtypes::Float64};
      DType o = c[e_.below(3)];
      return o == dt ? (dt == dtypes::Int64 ? dtypes::UInt64 : dtypes::Int64) : o;
    }
  }
}

UOp Builder::cast_from_other(DType dt, const Scope& s, int depth) {
  if (e_.chance(p_.p_cast_from_index)) {
    UOp i = index_expr(s, depth + 1);
    return dt.is_bool() ? lt(i, I(e_.between(0, 6))) : cast(dt, i);
  }
  const DType from = pick_other_dtype(dt);
  UOp x = value(from, s, depth + 1);
  if (from.is_float() && dt.is_int()) {
    const int64_t lo =
        dt.kind() == DTypeKind::Unsigned ? 0 : std::max<int64_t>(dt.int_min(), -kFloatClamp);
    const int64_t hi = std::min<int64_t>(dt.int_max(), kFloatClamp);
    UOp clamped = alu(Op::Min, {alu(Op::Max, {x, cfloat(from, static_cast<double>(lo))}),
                                cfloat(from, static_cast<double>(hi))});
    x = where(alu(Op::CmpNe, {x, x}), zero(from), clamped);
  }
  return cast(dt, x);
}

UOp Builder::divisor(DType dt, const Scope& s, int depth) {
  const auto& w = p_.divisors;
  switch (e_.pick({w.constant, w.max_const, w.or_one, w.square_plus_one,
                   s.ranges.empty() ? 0.0 : w.zero_at_an_iteration})) {
    case 0: {
      int64_t c = e_.between(1, 7);
      if (dt.kind() != DTypeKind::Unsigned && e_.chance(w.p_negative)) c = -c;
      return cint(dt, c);
    }
    case 1:
      return alu(Op::Max, {value(dt, s, depth + 1), cint(dt, e_.between(1, 4))});
    case 2:
      return alu(Op::Or, {value(dt, s, depth + 1), cint(dt, 1)});
    case 3: {  // x*x + 1: x*x is never -1 modulo 2^bits
      UOp x = value(dt, s, depth + 1);
      return alu(Op::Add, {alu(Op::Mul, {x, x}), cint(dt, 1)});
    }
    default: {  // cast(r) - c: zero when r == c; defined only while that iteration never runs
      UOp r =
          s.focus && e_.chance(p_.p_focus_range) ? s.focus : s.ranges[e_.below(s.ranges.size())];
      return alu(Op::Sub, {cast(dt, r), cint(dt, e_.between(0, 3))});
    }
  }
}

UOp Builder::binary(DType dt, const Scope& s, int depth) {
  auto sub = [&](DType t) { return value(t, s, depth + 1); };
  if (dt.is_bool()) {
    const auto& w = p_.bool_ops;
    constexpr Op cmps[] = {Op::CmpLt, Op::CmpNe, Op::CmpEq};
    switch (e_.pick({w.logic, w.index_compare, w.value_compare})) {
      case 0: {
        constexpr Op ops[] = {Op::And, Op::Or, Op::Xor};
        const Op op = ops[e_.below(3)];
        return alu(op, {sub(dt), sub(dt)});
      }
      case 1: {  // an index comparison (a RANGE < x guard when the left side is a range)
        UOp a = index_expr(s, depth + 1);
        UOp b =
            e_.chance(p_.index.p_const_operand) ? I(e_.between(0, 8)) : index_expr(s, depth + 1);
        return alu(cmps[e_.pick({w.lt, w.ne, w.eq})], {a, b});
      }
      default: {
        const DType t = pick_dtype();
        const Op op = cmps[e_.pick({w.lt, w.ne, w.eq})];
        return alu(op, {sub(t), sub(t)});
      }
    }
  }
  if (dt.is_float()) {
    constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min};
    const auto& w = p_.float_ops;
    const Op op = ops[e_.pick({w.add, w.sub, w.mul, w.max, w.min})];
    if (op == Op::Mul && !p_.inexact_floats) {  // exact: scale by a small power of two or 3
      constexpr double k[] = {2, 0.5, -1, 3, 0.25, -2};
      return alu(Op::Mul, {sub(dt), cfloat(dt, k[e_.below(std::size(k))])});
    }
    return alu(op, {sub(dt), sub(dt)});
  }
  // sized integers: everything wraps; divisors and shift amounts are made safe
  constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod,
                        Op::Max, Op::Min, Op::And, Op::Or,   Op::Xor,  Op::Shl,      Op::Shr};
  const auto& w = p_.int_ops;
  const Op op = ops[e_.pick({w.add, w.sub, w.mul, w.cdiv, w.cmod, w.floordiv, w.floormod, w.max,
                             w.min, w.and_, w.or_, w.xor_, w.shl, w.shr})];
  UOp a = sub(dt);
  switch (op) {
    case Op::Cdiv:
    case Op::Cmod:
    case Op::FloorDiv:
    case Op::FloorMod:
      return alu(op, {a, divisor(dt, s, depth)});
    case Op::Shl:
    case Op::Shr: {
      UOp amount = e_.chance(p_.p_shift_const) ? cint(dt, e_.between(0, dt.bits() - 1))
                                               : alu(Op::And, {sub(dt), cint(dt, dt.bits() - 1)});
      return alu(op, {a, amount});
    }
    default:
      return alu(op, {a, sub(dt)});
  }
}

}  // namespace uopfuzz::gen
