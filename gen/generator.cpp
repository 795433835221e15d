// The kernel generator (see generator.h for the contract). A Builder makes one kernel:
// outputs first (each a store nest and a value expression), then the input buffers are
// sized to the addresses used, then the oracle checks the kernel and repairs it locally.
//
// Determinism across compilers: the order in which a function's arguments are evaluated
// is unspecified, so no call here has two arguments that draw entropy or count toward
// the size budget (braced lists are evaluated left to right and may); such calls go to
// named locals first. Node helpers (mk, alu, I, ...) draw nothing and count nothing.
#include "gen/generator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/rewrite.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {

constexpr DType kBufferTypes[] = {dtypes::Bool,   dtypes::Int8,   dtypes::Int16,   dtypes::Int32,
                                  dtypes::Int64,  dtypes::UInt8,  dtypes::UInt16,  dtypes::UInt32,
                                  dtypes::UInt64, dtypes::Float16, dtypes::Float32, dtypes::Float64};
constexpr int64_t kIndexLeafBound = 64;  ///< integers become indexes clamped to [-64, 64]
constexpr int64_t kFloatClamp = 100;     ///< floats reach integer casts clamped to [-100, 100]

/// Every node under `root`, sources before users (in creation order, which is
/// topological). Cheaper than ir::toposort for the generator's whole-graph passes: a flat
/// open-addressing visited set instead of node-allocating hash sets.
std::vector<UOp> nodes_of(UOp root) {
  std::vector<const Node*> slots(64, nullptr);
  size_t used = 0;
  auto insert = [&](const Node* n) {
    if (2 * (used + 1) > slots.size()) {  // grow, keeping the load factor at most 1/2
      std::vector<const Node*> old(slots.size() * 2, nullptr);
      old.swap(slots);
      for (const Node* o : old)
        if (o)
          for (size_t i = (reinterpret_cast<uintptr_t>(o) >> 4) & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1))
            if (!slots[i]) {
              slots[i] = o;
              break;
            }
    }
    for (size_t i = (reinterpret_cast<uintptr_t>(n) >> 4) & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1)) {
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

/// `root` with the nodes `from[i]` replaced by `to[i]` (a few replacements, no rules).
UOp replace(Context& ctx, UOp root, const std::vector<UOp>& from, const std::vector<UOp>& to) {
  const std::vector<UOp> topo = nodes_of(root);
  std::vector<UOp> now(topo.size());
  auto find = [&](UOp u) {  // topo is sorted by id
    return static_cast<size_t>(std::lower_bound(topo.begin(), topo.end(), u, [](UOp a, UOp b) { return a.id() < b.id(); }) - topo.begin());
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

/// The open loops at an expression position.
struct Scope {
  std::vector<UOp> ranges;  ///< open ranges, outermost first
  UOp flat;                 ///< the store nest's flat index (i*Nj + j), if any
  UOp focus;                ///< the range a REDUCE just opened: range leaves prefer it
  int64_t iters = 1;        ///< product of the open ranges' largest trip counts
};

/// An input buffer: built as a size-1 placeholder PARAM, sized at the end to `need`.
struct Input {
  UOp placeholder;
  int64_t need = 1;
  bool index_buffer = false;  ///< holds indexes (its own vmin/vmax); never reused for data
};

class Builder {
 public:
  Builder(Context& ctx, const GenPolicy& p, Entropy& e) : ctx_(ctx), p_(p), e_(e) {}

  Kernel build() {
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

 private:
  struct Nest {
    std::vector<UOp> ranges;  ///< outermost first
    UOp lin;                  ///< the flat index: injective in the ranges
  };

  // ---------------------------------------------------------------- node helpers

  UOp mk(Op op, DType dt, std::vector<UOp> src = {}, Arg arg = {}) { return ctx_.make(op, dt, std::move(src), std::move(arg)); }
  UOp alu(Op op, std::vector<UOp> src) { return ctx_.alu(op, std::move(src)); }
  UOp I(int64_t v) { return ctx_.const_int(dtypes::Index, v); }
  UOp cint(DType dt, int64_t v) { return ctx_.const_int(dt, v); }
  UOp cfloat(DType dt, double v) { return ctx_.const_float(dt, v); }
  UOp zero(DType dt) { return dt.is_float() ? cfloat(dt, 0.0) : cint(dt, 0); }
  UOp cast(DType dt, UOp x) { return x.dtype() == dt ? x : mk(Op::Cast, dt, {x}); }
  UOp where(UOp c, UOp a, UOp b) { return alu(Op::Where, {c, a, b}); }
  UOp lt(UOp a, UOp b) { return alu(Op::CmpLt, {a, b}); }
  UOp band(UOp a, UOp b) { return a && b ? alu(Op::And, {a, b}) : a ? a : b; }
  /// !b in one of the spellings a frontend produces.
  UOp bnot(UOp b) {
    switch (e_.below(3)) {
      case 0: return alu(Op::CmpNe, {b, ctx_.const_bool(true)});
      case 1: return alu(Op::Xor, {b, ctx_.const_bool(true)});
      default: return alu(Op::CmpEq, {b, ctx_.const_bool(false)});
    }
  }

  /// The size budget counts expression positions (value() and index_expr() calls), not
  /// nodes: positions are only filled in sequenced code (they draw entropy), while node
  /// helpers also run inside argument lists, whose evaluation order is unspecified.
  bool budget_left() const { return positions_ < p_.max_positions; }
  Interval bnd(UOp u) { return an_.bounds(u); }
  /// An index value that stays far from overflow.
  bool tame(UOp u) {
    Interval b = bnd(u);
    return b.lo >= -p_.max_index_magnitude && b.hi <= p_.max_index_magnitude;
  }

  DType pick_dtype() {
    double w[std::size(kBufferTypes)];
    for (size_t i = 0; i < std::size(kBufferTypes); ++i) w[i] = p_.dtypes.of(kBufferTypes[i]);
    return kBufferTypes[e_.pick(w)];
  }
  DType pick_other_dtype(DType not_this) {
    double w[std::size(kBufferTypes)];
    for (size_t i = 0; i < std::size(kBufferTypes); ++i) w[i] = kBufferTypes[i] == not_this ? 0 : p_.dtypes.of(kBufferTypes[i]);
    return kBufferTypes[e_.pick(w)];
  }
  Op pick_reduce_op() {
    const auto& w = p_.reduce_ops;
    constexpr Op ops[] = {Op::Add, Op::Mul, Op::Max, Op::Min};
    return ops[e_.pick({w.add, w.mul, w.max, w.min})];
  }

  // ---------------------------------------------------------------- leaves: VARs, ranges, buffers

  /// A VAR in [lo, hi]; its header value is drawn, or `fixed`.
  UOp var(DType dt, int64_t lo, int64_t hi, std::optional<int64_t> mult = std::nullopt,
          std::optional<int64_t> fixed = std::nullopt) {
    VarArg v{fmt::format("v{}", next_var_++), lo, hi, mult};
    int64_t value = fixed ? *fixed : e_.between(lo, hi);
    if (mult) value = std::clamp(value / *mult * *mult, lo, hi);  // lo, hi are multiples
    vars_.emplace_back(v.name, value);
    return mk(Op::Var, dt, {}, std::move(v));
  }

  /// The largest end a new range may have inside `s`; below 1 when no loop fits.
  int64_t end_budget(const Scope& s) const {
    if (static_cast<int>(s.ranges.size()) >= p_.max_loop_nest) return 0;
    return std::min(p_.max_range_end, p_.max_iterations / std::max<int64_t>(1, s.iters));
  }

  /// A range end of at most `max_end` (>= 1): a CONST, or an index VAR.
  UOp range_end(int64_t max_end) {
    max_end = std::max<int64_t>(1, max_end);
    if (e_.chance(p_.p_var_end)) {
      int64_t lo = e_.chance(p_.p_var_end_negative_min) ? -e_.between(1, 3) : e_.chance(p_.p_var_end_zero_min) ? 0 : 1;
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
  UOp range(UOp end, AxisType t) {
    RangeArg a;
    a.axis.push_back(next_axis_++);
    a.type = t;
    return mk(Op::Range, dtypes::Index, {end}, std::move(a));
  }
  int64_t trips(UOp r) { return std::max<int64_t>(1, bnd(r.src(0)).hi); }

  /// A scope with one more (reduce) range.
  Scope inner(const Scope& s, UOp r) {
    Scope in = s;
    in.ranges.push_back(r);
    in.iters *= trips(r);
    in.focus = r;
    return in;
  }

  /// A new (placeholder) input buffer; -1 when the input limit is reached.
  int new_input(DType dt, bool index_buffer, std::optional<int64_t> vmin = std::nullopt,
                std::optional<int64_t> vmax = std::nullopt, std::optional<int64_t> mult = std::nullopt) {
    if (static_cast<int>(inputs_.size()) >= p_.max_inputs) return -1;
    ParamArg a;
    a.slot = next_slot_++;
    a.size = 1;
    a.vmin = vmin, a.vmax = vmax, a.multiple_of = mult;
    inputs_.push_back({mk(Op::Param, dt, {}, std::move(a)), 1, index_buffer});
    return static_cast<int>(inputs_.size()) - 1;
  }
  /// A data buffer of dt: an existing one (p_reuse_input) or a new one; -1 if none can be had.
  int data_input(DType dt) {
    std::vector<int> have;
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (!inputs_[i].index_buffer && inputs_[i].placeholder.dtype() == dt) have.push_back(static_cast<int>(i));
    if (!have.empty() && e_.chance(p_.p_reuse_input)) return have[e_.below(have.size())];
    std::optional<int64_t> vmin, vmax, mult;
    if (dt.is_int() && e_.chance(p_.p_input_bounds)) {
      const bool uns = dt.kind() == DTypeKind::Unsigned;
      switch (e_.below(4)) {
        case 0: vmin = 1, vmax = 8; break;  // a positive divisor
        case 1: vmin = 0, vmax = 15; break;
        case 2: vmin = uns ? 0 : -12, vmax = 12, mult = 4; break;
        default: vmin = uns ? 0 : -3, vmax = 20; break;
      }
    }
    int k = new_input(dt, false, vmin, vmax, mult);
    if (k < 0 && !have.empty()) return have[e_.below(have.size())];
    return k;
  }

  /// The address `idx` into input `k`, made safe: an index whose interval leaves
  /// [0, max_buffer_size) is gated, wrapped or clamped; optionally gated by a
  /// RANGE < CONST guard. Records the size the buffer needs.
  UOp address(int k, UOp idx, const Scope& s) {
    Interval b = bnd(idx);
    UOp valid;
    if (b.lo < 0 || b.hi >= p_.max_buffer_size) {
      const int64_t n = b.hi < 0 ? e_.between(1, 8) : b.hi >= p_.max_buffer_size ? p_.max_buffer_size : b.hi + 1;
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
    return mk(Op::Index, inputs_[k].placeholder.dtype(), {inputs_[k].placeholder, idx});
  }

  UOp load_at(int k, UOp idx, const Scope& s) {
    UOp at = address(k, idx, s);
    const DType dt = at.dtype();
    if (at.src(1).op() == Op::Where && e_.chance(p_.p_load_alt)) return mk(Op::Load, dt, {at, constant(dt)});
    return mk(Op::Load, dt, {at});
  }

  /// The open ranges of `s` that an expression uses, in topological order (not those
  /// of a REDUCE inside it: they are closed there).
  std::vector<UOp> ranges_in(UOp u, const Scope& s) {
    std::vector<UOp> out;
    for (UOp n : toposort(u))
      if (n.op() == Op::Range && std::find(s.ranges.begin(), s.ranges.end(), n) != s.ranges.end()) out.push_back(n);
    return out;
  }

  /// A conjunction of RANGE < CONST guards over some of `rs`, each guard below every
  /// value of the range's end (so the loop may shrink to it); null if no range fits.
  UOp guard(const std::vector<UOp>& rs) {
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

  // ---------------------------------------------------------------- stores

  Nest store_nest() {
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
        if (std::find(n.ranges.begin(), n.ranges.end(), c) == n.ranges.end() && trips(c) <= budget) r = c;
      }
      if (!r) {
        AxisType t = type;
        if (e_.chance(p_.p_warp_axis)) t = AxisType::Warp;
        else if (i > 0 && !e_.chance(p_.p_same_axis_type)) t = type == AxisType::Loop ? AxisType::Global : AxisType::Loop;
        if (i == count - 1 && budget >= 2 && e_.chance(p_.p_upcast_axis))
          r = range(I(e_.between(2, std::min<int64_t>(budget, 8))), AxisType::Upcast);  // an optimizer upcasts by a small CONST factor
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

  /// Row-major flat index of a nest, injective in its ranges (each inner index is below
  /// its end). Strides of CONST ends are folded to one CONST, as a frontend emits them.
  UOp flat_index(const std::vector<UOp>& rs, bool horner) {
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

  UOp store(const Nest& nest, UOp valid) {
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
      src.insert(src.end(), rs.begin() + static_cast<std::ptrdiff_t>(from), rs.begin() + static_cast<std::ptrdiff_t>(to));
      return mk(Op::End, dtypes::Void, std::move(src));
    };
    if (rs.size() >= 2 && e_.chance(p_.p_nested_end)) {
      const size_t split = 1 + e_.below(rs.size() - 1);
      return end(end(st, split, rs.size()), 0, split);
    }
    return end(st, 0, rs.size());
  }

  // ---------------------------------------------------------------- values

  UOp constant(DType dt) {
    if (dt.is_bool()) return ctx_.const_bool(e_.chance(0.5));
    if (dt.is_float()) {
      if (p_.inexact_floats && e_.chance(p_.p_inexact_const)) {
        constexpr double odd[] = {0.1, 1.0 / 3, 1e30, -1e30, 65519.0, 1e-8};
        const double special[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
        if (e_.chance(p_.p_special_const)) return cfloat(dt, special[e_.below(3)]);
        return cfloat(dt, odd[e_.below(std::size(odd))]);
      }
      if (e_.chance(p_.p_float_negative_zero)) return cfloat(dt, -0.0);
      return cfloat(dt, static_cast<double>(e_.between(-64, 64)) / 8.0);
    }
    if (e_.chance(p_.p_int_edge_const)) {
      if (dt.kind() == DTypeKind::Unsigned) return cint(dt, e_.chance(0.5) ? -1 : 0);  // -1 wraps to the max
      return cint(dt, e_.chance(0.5) ? dt.int_min() : dt.int_max());
    }
    if (dt.kind() == DTypeKind::Unsigned) return cint(dt, e_.between(0, 16));
    return cint(dt, e_.between(-8, 8));
  }

  /// An open range (the REDUCE's own range preferred), or the flat store index, maybe
  /// taken % c or // c.
  UOp range_leaf(const Scope& s) {
    if (s.ranges.empty()) return I(e_.between(0, 3));
    UOp r;
    if (s.focus && e_.chance(p_.p_focus_range)) r = s.focus;
    else if (s.flat && s.ranges.size() >= 2 && e_.chance(p_.p_value_uses_flat)) return s.flat;
    else r = s.ranges[e_.below(s.ranges.size())];
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

  /// An index expression (addresses, cuts): ranges, constants, small VARs, loaded
  /// indexes, and +, -, *, max, min, //, % of them, all within max_index_magnitude.
  UOp index_expr(const Scope& s, int depth) {
    ++positions_;
    const bool leafy = depth >= p_.max_expr_depth || !budget_left();
    if (!leafy && e_.chance(p_.p_dynamic_index)) {
      if (UOp d = loaded_index(s, depth, 0, e_.between(1, 15))) return d;
    }
    const auto& w = p_.index;
    switch (e_.pick({s.ranges.empty() ? 0.0 : w.range, w.constant, leafy ? 0.0 : w.compound, w.var, leafy ? 0.0 : w.cast_value})) {
      case 0: return range_leaf(s);
      case 1: return I(e_.between(0, 7));
      case 2: {
        UOp a = index_expr(s, depth + 1);
        UOp b = e_.chance(w.p_const_operand) ? I(e_.between(-3, 4)) : index_expr(s, depth + 1);
        constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min, Op::FloorDiv, Op::FloorMod, Op::Cmod};
        Op op = ops[e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.floordiv, w.floormod, w.cmod})];
        if (op == Op::Mul && e_.chance(w.p_const_operand)) b = I(e_.between(2, 4));
        if (op == Op::FloorDiv || op == Op::FloorMod || op == Op::Cmod) b = I(e_.between(2, 6));
        UOp u = alu(op, {a, b});
        return tame(u) ? u : a;
      }
      case 3: return var(dtypes::Index, 0, e_.between(1, 7));
      default: {  // an integer value, clamped, as an index
        const DType dt = pick_int_dtype();
        return clamp_to_index(value(dt, s, depth + 1));
      }
    }
  }

  DType pick_int_dtype() {
    double w[std::size(kBufferTypes)];
    for (size_t i = 0; i < std::size(kBufferTypes); ++i) w[i] = kBufferTypes[i].is_int() ? p_.dtypes.of(kBufferTypes[i]) : 0;
    DType dt = kBufferTypes[e_.pick(w)];
    return dt.is_int() ? dt : dtypes::Int32;
  }

  /// An integer value as an index in [-64, 64] (clamped in its own dtype first).
  UOp clamp_to_index(UOp x) {
    Interval b = bnd(x);
    if (b.lo < -kIndexLeafBound || b.hi > kIndexLeafBound) {
      const DType dt = x.dtype();
      x = alu(Op::Min, {x, cint(dt, kIndexLeafBound)});
      if (dt.kind() != DTypeKind::Unsigned) x = alu(Op::Max, {x, cint(dt, -kIndexLeafBound)});
    }
    return cast(dtypes::Index, x);
  }

  /// An index loaded from an index buffer whose values lie in [lo, hi] (a dynamic
  /// address, a gather's index); null when no input buffer is left.
  UOp loaded_index(const Scope& s, int depth, int64_t lo, int64_t hi) {
    constexpr DType types[] = {dtypes::Int32, dtypes::Int64, dtypes::Int16, dtypes::UInt8, dtypes::UInt32};
    const auto& w = p_.index_buffers;
    DType dt = types[e_.pick({w.int32, w.int64, w.int16, w.uint8, w.uint32})];
    if (dt.kind() == DTypeKind::Unsigned && lo < 0) dt = dtypes::Int32;
    const int k = new_input(dt, true, lo, hi);
    if (k < 0) return UOp();
    UOp at = index_expr(s, depth + 1);
    return cast(dtypes::Index, load_at(k, at, s));
  }

  UOp load(DType dt, const Scope& s, int depth) {
    const int k = data_input(dt);
    if (k < 0) return constant(dt);
    return load_at(k, index_expr(s, depth + 1), s);
  }

  UOp leaf(DType dt, const Scope& s, int depth) {
    const auto& w = p_.leaves;
    switch (e_.pick({w.constant, w.load, s.ranges.empty() ? 0.0 : w.range, dt.is_int() ? w.var : 0.0})) {
      case 0: return constant(dt);
      case 1: return load(dt, s, depth);
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

  /// Any value of dt over the scope's ranges.
  UOp value(DType dt, const Scope& s, int depth) {
    ++positions_;
    if (depth >= p_.max_expr_depth || !budget_left()) return leaf(dt, s, depth);
    if (!dt.is_bool() && end_budget(s) >= 1)
      if (UOp u = family(dt, s, depth)) return u;
    const auto& w = p_.exprs;
    switch (e_.pick({w.leaf, w.unary, w.binary, w.where, dt.is_bool() || end_budget(s) < 1 ? 0.0 : w.reduce})) {
      case 0: return leaf(dt, s, depth);
      case 1: return unary(dt, s, depth);
      case 2: return binary(dt, s, depth);
      case 3: {
        UOp c = value(dtypes::Bool, s, depth + 1);
        UOp a = value(dt, s, depth + 1);
        return where(c, a, value(dt, s, depth + 1));
      }
      default: return reduce(dt, s, depth);
    }
  }

  /// The rule families, each with its probability; null when none was chosen.
  UOp family(DType dt, const Scope& s, int depth) {
    if (e_.chance(p_.p_gather)) return gather(dt, s, depth);
    if (e_.chance(p_.p_bound_sum)) return bound_sum(dt, s, depth);
    if (e_.chance(p_.p_arange)) return arange(dt, s, depth);
    if (e_.chance(p_.p_window_sum)) return window_sum(dt, s, depth);
    if (e_.chance(p_.p_unparented)) return unparented(dt, s, depth);
    if (dt.is_int() && end_budget(s) >= 2 && static_cast<int>(s.ranges.size()) + 2 <= p_.max_loop_nest &&
        e_.chance(p_.p_shielded_fault))
      return shielded_fault(dt, s, depth);
    return UOp();
  }

  UOp unary(DType dt, const Scope& s, int depth) {
    const bool fl = dt.is_float(), in = dt.is_int();
    const bool bitcast_ok = !dt.is_bool() && (fl ? p_.inexact_floats : true);
    const auto& w = p_.unary;
    switch (e_.pick({fl || in ? w.neg : 0.0, w.cast, bitcast_ok ? w.bitcast : 0.0, fl ? w.trunc : 0.0,
                     fl && p_.inexact_floats ? w.transcendental : 0.0})) {
      case 0: return mk(Op::Neg, dt, {value(dt, s, depth + 1)});
      case 1: return cast_from_other(dt, s, depth);
      case 2: {  // BITCAST from the other type of this size
        DType from = bitcast_partner(dt);
        UOp x = value(from, s, depth + 1);
        if (from.is_float()) x = where(alu(Op::CmpNe, {x, x}), zero(from), x);  // a NaN would be UB
        return mk(Op::Bitcast, dt, {x});
      }
      case 3: return mk(Op::Trunc, dt, {value(dt, s, depth + 1)});
      default: {
        constexpr Op ops[] = {Op::Reciprocal, Op::Sqrt, Op::Exp2, Op::Log2, Op::Sin};
        const Op op = ops[e_.below(5)];
        return mk(op, dt, {value(dt, s, depth + 1)});
      }
    }
  }

  DType bitcast_partner(DType dt) {
    switch (dt.bytes()) {
      case 1: return dt == dtypes::Int8 ? dtypes::UInt8 : dtypes::Int8;
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

  /// dt from a value of another dtype (or an index expression); floats reach integer
  /// types through a NaN guard and a clamp (a float -> int CAST out of range is UB).
  UOp cast_from_other(DType dt, const Scope& s, int depth) {
    if (e_.chance(p_.p_cast_from_index)) {
      UOp i = index_expr(s, depth + 1);
      return dt.is_bool() ? lt(i, I(e_.between(0, 6))) : cast(dt, i);
    }
    const DType from = pick_other_dtype(dt);
    UOp x = value(from, s, depth + 1);
    if (from.is_float() && dt.is_int()) {
      const int64_t lo = dt.kind() == DTypeKind::Unsigned ? 0 : std::max<int64_t>(dt.int_min(), -kFloatClamp);
      const int64_t hi = std::min<int64_t>(dt.int_max(), kFloatClamp);
      UOp clamped = alu(Op::Min, {alu(Op::Max, {x, cfloat(from, static_cast<double>(lo))}), cfloat(from, static_cast<double>(hi))});
      x = where(alu(Op::CmpNe, {x, x}), zero(from), clamped);
    }
    return cast(dt, x);
  }

  /// A divisor of dt that is never 0.
  UOp divisor(DType dt, const Scope& s, int depth) {
    const auto& w = p_.divisors;
    switch (e_.pick({w.constant, w.max_const, w.or_one, w.square_plus_one, s.ranges.empty() ? 0.0 : w.zero_at_an_iteration})) {
      case 0: {
        int64_t c = e_.between(1, 7);
        if (dt.kind() != DTypeKind::Unsigned && e_.chance(w.p_negative)) c = -c;
        return cint(dt, c);
      }
      case 1: return alu(Op::Max, {value(dt, s, depth + 1), cint(dt, e_.between(1, 4))});
      case 2: return alu(Op::Or, {value(dt, s, depth + 1), cint(dt, 1)});
      case 3: {  // x*x + 1: x*x is never -1 modulo 2^bits
        UOp x = value(dt, s, depth + 1);
        return alu(Op::Add, {alu(Op::Mul, {x, x}), cint(dt, 1)});
      }
      default: {  // cast(r) - c: zero when r == c; defined only while that iteration never runs
        UOp r = s.focus && e_.chance(p_.p_focus_range) ? s.focus : s.ranges[e_.below(s.ranges.size())];
        return alu(Op::Sub, {cast(dt, r), cint(dt, e_.between(0, 3))});
      }
    }
  }

  UOp binary(DType dt, const Scope& s, int depth) {
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
          UOp b = e_.chance(p_.index.p_const_operand) ? I(e_.between(0, 8)) : index_expr(s, depth + 1);
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
                          Op::Max, Op::Min, Op::And, Op::Or,  Op::Xor,      Op::Shl,      Op::Shr};
    const auto& w = p_.int_ops;
    const Op op = ops[e_.pick({w.add, w.sub, w.mul, w.cdiv, w.cmod, w.floordiv, w.floormod, w.max, w.min, w.and_, w.or_,
                               w.xor_, w.shl, w.shr})];
    UOp a = sub(dt);
    switch (op) {
      case Op::Cdiv:
      case Op::Cmod:
      case Op::FloorDiv:
      case Op::FloorMod: return alu(op, {a, divisor(dt, s, depth)});
      case Op::Shl:
      case Op::Shr: {
        UOp amount = e_.chance(p_.p_shift_const) ? cint(dt, e_.between(0, dt.bits() - 1))
                                                 : alu(Op::And, {sub(dt), cint(dt, dt.bits() - 1)});
        return alu(op, {a, amount});
      }
      default: return alu(op, {a, sub(dt)});
    }
  }

  // ---------------------------------------------------------------- reduces

  /// A generic REDUCE over one or two fresh ranges (its value may start with another REDUCE).
  UOp reduce(DType dt, const Scope& s, int depth) {
    Op op = pick_reduce_op();
    int64_t budget = end_budget(s);
    if (op == Op::Mul) budget = std::min<int64_t>(budget, p_.max_mul_reduce_end);
    UOp r = range(range_end(budget), AxisType::Reduce);
    std::vector<UOp> rs{r};
    Scope in = inner(s, r);
    if (end_budget(in) >= 2 && e_.chance(p_.p_reduce_two_ranges)) {
      UOp r2 = range(range_end(op == Op::Mul ? std::min<int64_t>(end_budget(in), 2) : end_budget(in)), AxisType::Reduce);
      rs.push_back(r2);
      in = inner(in, r2);
      in.focus = e_.chance(0.5) ? r : r2;  // either range, uniformly
    }
    UOp v;
    if (end_budget(in) >= 1 && e_.chance(p_.p_nested_reduce)) {
      v = reduce(dt, in, depth + 1);
      if (e_.chance(p_.p_nested_reduce_combined)) {
        const Op op = e_.chance(0.5) ? Op::Add : Op::Sub;
        v = alu(op, {v, value(dt, in, depth + 1)});
      }
    } else {
      v = value(dt, in, depth + 1);
    }
    std::vector<UOp> src{v};
    src.insert(src.end(), rs.begin(), rs.end());
    return mk(Op::Reduce, dt, std::move(src), ReduceArg{op});
  }

  /// REDUCE over ranges its value does not use (ADD: x*N, MUL: x^N, MAX/MIN: x).
  UOp unparented(DType dt, const Scope& s, int depth) {
    UOp x = value(dt, s, depth + 1);
    Op op = pick_reduce_op();
    int64_t budget = end_budget(s);
    if (op == Op::Mul) budget = std::min<int64_t>(budget, p_.max_mul_reduce_end);
    std::vector<UOp> src{x, range(range_end(budget), AxisType::Reduce)};
    Scope in = inner(s, src[1]);
    if (end_budget(in) >= 2 && e_.chance(p_.p_reduce_two_ranges))
      src.push_back(range(range_end(op == Op::Mul ? 2 : end_budget(in)), AxisType::Reduce));
    return mk(Op::Reduce, dt, std::move(src), ReduceArg{op});
  }

  /// sum_r cast(r), or arange as rangeify leaves it: sum_r where(!(x + r < K), 1, 0) - 1.
  UOp arange(DType dt, const Scope& s, int depth) {
    UOp n = range_end(end_budget(s));
    UOp r = range(n, AxisType::Reduce);
    if (!e_.chance(p_.p_arange_rangeify)) return mk(Op::Reduce, dt, {cast(dt, r), r}, ReduceArg{Op::Add});
    UOp x = s.ranges.empty() ? I(0) : s.ranges[e_.below(s.ranges.size())];
    const int64_t k = std::max<int64_t>(0, bnd(n).hi - 1);
    UOp c = bnot(lt(alu(Op::Add, {x, r}), I(k)));
    UOp sum = mk(Op::Reduce, dt, {where(c, cint(dt, 1), zero(dt)), r}, ReduceArg{Op::Add});
    return alu(Op::Add, {sum, cint(dt, -1)});
  }

  /// sum_r where(r < U, v, 0), where(r < L, 0, v) or where(!(r < L) & (r < U), v, 0),
  /// with v free of r and the bounds VARs, outer ranges, loaded values or constants.
  UOp bound_sum(DType dt, const Scope& s, int depth) {
    UOp n = range_end(end_budget(s));
    const int64_t nmax = bnd(n).hi;
    UOp r = range(n, AxisType::Reduce);
    UOp v = e_.chance(p_.p_bound_const_value) ? constant(dt) : value(dt, s, depth + 1);
    auto cut = [&]() -> UOp {
      const auto& w = p_.cuts;
      switch (e_.pick({w.var, s.ranges.empty() ? 0.0 : w.outer_range, w.loaded, w.constant})) {
        case 0: {
          const int64_t lo = -e_.between(0, 2);
          return var(dtypes::Index, lo, nmax + e_.between(0, 3));
        }
        case 1: {
          UOp i = s.ranges[e_.below(s.ranges.size())];
          return e_.chance(0.5) ? alu(Op::Add, {i, I(1)}) : i;  // cumulative sums use i + 1
        }
        case 2: {
          if (UOp l = loaded_index(s, depth, -2, nmax + 2)) return l;
          return I(e_.between(-1, nmax + 1));
        }
        default: return I(e_.between(-1, nmax + 1));
      }
    };
    UOp w;
    UOp x = r;  // (r + y) < c and (r * y) < c: the lifts move y across, if its sign allows
    if (e_.chance(p_.p_bound_lift)) {
      UOp y;
      if (e_.chance(0.5)) {
        const int64_t lo = -e_.between(0, 2);
        y = var(dtypes::Index, lo, e_.between(1, 3));
      } else {
        y = I(e_.between(-2, 3));
      }
      x = e_.chance(0.5) ? alu(Op::Add, {r, y}) : alu(Op::Mul, {r, y});
    }
    const auto& forms = p_.bound_forms;
    switch (e_.pick({forms.upper, forms.lower, forms.two_sided})) {
      case 0: w = where(lt(x, cut()), v, zero(dt)); break;
      case 1: w = where(lt(x, cut()), zero(dt), v); break;
      default: {
        UOp lo = bnot(lt(x, cut())), hi = lt(r, cut());
        w = where(e_.chance(0.5) ? alu(Op::And, {lo, hi}) : alu(Op::And, {hi, lo}), v, zero(dt));
        break;
      }
    }
    return mk(Op::Reduce, dt, {w, r}, ReduceArg{Op::Add});
  }

  /// sum_r in[i + r - pad]: a sliding window over an outer range, the padded edges gated.
  UOp window_sum(DType dt, const Scope& s, int depth) {
    const int k = data_input(dt);
    if (k < 0) return UOp();
    UOp r = range(range_end(std::min<int64_t>(end_budget(s), 5)), AxisType::Reduce);
    UOp i = s.ranges.empty() ? I(0) : s.ranges[e_.below(s.ranges.size())];
    UOp idx = alu(Op::Add, {i, r});
    if (const int64_t pad = e_.between(0, 2); pad > 0) idx = alu(Op::Sub, {idx, I(pad)});
    UOp v = load_at(k, idx, inner(s, r));
    if (e_.chance(p_.p_window_scale)) v = alu(Op::Mul, {v, dt.is_float() ? cfloat(dt, 2) : cint(dt, e_.between(-2, 3))});
    return mk(Op::Reduce, dt, {v, r}, ReduceArg{Op::Add});
  }

  /// sum_{r < n, r2 < m} f(r) + x / (cast(r2) - c) with n a VAR whose header value is 0:
  /// the division faults at r2 = c, but no iteration runs, so the kernel is defined for
  /// the header's values. A rewrite that hoists or splits the term out of the r loop
  /// introduces the fault (zero-trip hoisting; collapse keeping a range).
  UOp shielded_fault(DType dt, const Scope& s, int depth) {
    const int64_t nmax = e_.between(1, std::max<int64_t>(1, end_budget(s) / 2));
    UOp r = range(var(dtypes::Index, 0, nmax, std::nullopt, 0), AxisType::Reduce);
    Scope in = inner(s, r);
    if (dt.is_int() && !dt.is_index() && e_.chance(0.5)) {
      // sum_{r<n} where(r < k, x / d, 0) with n = d = 0 in the header: a bound-rule shape
      // whose closed form would evaluate x / 0 (the zero-trip gate of reduce_collapse).
      // Each draw in its own statement: argument evaluation order differs between compilers.
      UOp d = var(dt, 0, 3, std::nullopt, 0);
      UOp k = I(e_.between(1, 4));
      UOp x = value(dt, s, depth + 1);
      UOp g = where(alu(Op::CmpLt, {r, k}), alu(Op::Cdiv, {x, d}), zero(dt));
      return mk(Op::Reduce, dt, {g, r}, ReduceArg{Op::Add});
    }
    UOp r2 = range(I(e_.between(2, std::max<int64_t>(2, std::min<int64_t>(end_budget(in), 6)))), AxisType::Reduce);
    UOp f = e_.chance(0.5) ? alu(Op::Mul, {cast(dt, r), cast(dt, r)}) : value(dt, in, depth + 1);
    UOp x = value(dt, s, depth + 1);
    UOp g = alu(Op::Cdiv, {x, alu(Op::Sub, {cast(dt, r2), cint(dt, e_.between(0, 1))})});
    return mk(Op::Reduce, dt, {alu(Op::Add, {f, g}), r, r2}, ReduceArg{Op::Add});
  }

  /// sum_r where(idx != r, 0, e(r)): a gather written as a sum, idx a loaded index
  /// (maybe outside [0, N)), e using r (often a load at r).
  UOp gather(DType dt, const Scope& s, int depth) {
    UOp n = range_end(end_budget(s));
    const int64_t nmax = std::max<int64_t>(1, bnd(n).hi);
    UOp r = range(n, AxisType::Reduce);
    const bool outside = e_.chance(p_.p_gather_index_outside);
    UOp idx = loaded_index(s, depth, outside ? -2 : 0, outside ? nmax + 1 : nmax - 1);
    if (!idx) idx = var(dtypes::Index, outside ? -2 : 0, outside ? nmax + 1 : nmax - 1);
    Scope in = inner(s, r);
    UOp e;
    if (e_.chance(p_.p_gather_load_term)) {
      const int k = data_input(dt);
      e = k >= 0 ? load_at(k, r, in) : cast(dt, r);
      if (e_.chance(p_.p_gather_extra_term)) e = alu(Op::Add, {e, value(dt, in, depth + 1)});
    } else {
      e = value(dt, in, depth + 1);
    }
    UOp rr = e_.chance(p_.p_gather_offset) ? alu(Op::Add, {r, I(e_.between(1, 2))}) : r;  // (r + k) != idx: lift_add_ne
    UOp ne = e_.chance(0.5) ? alu(Op::CmpNe, {idx, rr}) : alu(Op::CmpNe, {rr, idx});
    return mk(Op::Reduce, dt, {where(ne, zero(dt), e), r}, ReduceArg{Op::Add});
  }

  Context& ctx_;
  const GenPolicy& p_;
  Entropy& e_;
  Analysis an_;
  int positions_ = 0;
  int next_axis_ = 0, next_slot_ = 0, next_var_ = 0;
  std::vector<UOp> effects_;
  std::vector<UOp> store_ranges_;
  std::vector<Input> inputs_;
  std::vector<std::pair<std::string, int64_t>> vars_;
};

// ---------------------------------------------------------------- check and repair

/// The first undefined evaluation the oracle finds over the check runs, if any.
/// Sets stats.oracle_error when the kernel cannot be compiled or run at all.
std::optional<oracle::UbReport> first_ub(const Kernel& k, const GenPolicy& p, GenStats& stats) {
  auto prog = oracle::Program::compile(k.root);
  if (!prog) {
    stats.oracle_error = prog.error().message;
    return std::nullopt;
  }
  std::map<std::string, int64_t> vars(k.header.vars.begin(), k.header.vars.end());
  oracle::RunOptions ro;
  ro.max_steps = p.check_max_steps;
  for (int seed = 0; seed < p.check_seeds; ++seed) {
    ++stats.oracle_runs;
    auto out = prog->run(oracle::make_inputs(k.root, static_cast<uint64_t>(seed), vars), ro);
    if (!out) {
      stats.oracle_error = out.error().message;
      return std::nullopt;
    }
    if (out->status == oracle::RunStatus::Ub) return out->ub;
  }
  return std::nullopt;
}

/// `idx` gated to [0, size) (on top of its own gate, if any).
UOp gate_in_bounds(Context& ctx, UOp idx, int64_t size) {
  UOp inner = idx, valid;
  if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) inner = idx.src(1), valid = idx.src(0);
  UOp ok = ctx.alu(Op::And, {ctx.alu(Op::CmpLt, {ctx.const_int(dtypes::Index, -1), inner}),
                             ctx.alu(Op::CmpLt, {inner, ctx.const_int(dtypes::Index, size)})});
  return ctx.alu(Op::Where, {valid ? ctx.alu(Op::And, {valid, ok}) : ok, inner, ctx.invalid()});
}

/// Replaces the node the oracle found undefined by a defined equivalent: a LOAD or STORE
/// gets a bounds gate, a value node a constant of its dtype. False when that is not
/// possible (a double store) or the result would not verify.
bool repair(Context& ctx, Kernel& k, const oracle::UbReport& ub, GenStats& stats) {
  UOp n = ub.node, rep;
  if (n.op() == Op::Load || n.op() == Op::Store) {
    UOp at = n.src(0);
    if (ub.what.find("twice") != std::string::npos) return false;
    UOp buf = at.src(0);
    UOp gated = ctx.make(Op::Index, at.dtype(), {buf, gate_in_bounds(ctx, at.src(1), buf.arg<ParamArg>().size)});
    std::vector<UOp> src(n.src().begin(), n.src().end());
    src[0] = gated;
    rep = ctx.make(n.op(), n.dtype(), std::move(src), n.arg());
  } else if (op_in(n.op(), Alu) || n.op() == Op::Reduce) {
    rep = ctx.const_int(n.dtype(), n.dtype().is_index() ? 0 : 1);
  } else {
    return false;
  }
  UOp root = replace(ctx, k.root, {n}, {rep});
  if (!verify(root).empty()) return false;
  stats.repair_log.push_back(fmt::format("{}: {} -> {}", describe(n), ub.what, op_name(rep.op())));
  ++stats.repairs;
  k.root = root;
  return true;
}

/// Removes the effect that holds `node` (the last effect if none does).
void drop_effect(Context& ctx, Kernel& k, UOp node, GenStats& stats) {
  std::vector<UOp> effects(k.root.src().begin(), k.root.src().end());
  size_t victim = effects.size() - 1;
  for (size_t i = 0; i < effects.size(); ++i) {
    auto topo = nodes_of(effects[i]);
    if (std::find(topo.begin(), topo.end(), node) != topo.end()) {
      victim = i;
      break;
    }
  }
  stats.repair_log.push_back(fmt::format("dropped effect {} of {} (undefined at {})", victim, effects.size(), describe(node)));
  ++stats.dropped_effects;
  effects.erase(effects.begin() + static_cast<std::ptrdiff_t>(victim));
  k.root = ctx.make(Op::Sink, dtypes::Void, std::move(effects));
}

/// Header @var lines for exactly the VARs left in the graph, in the order of the header.
void prune_vars(Kernel& k, const std::vector<UOp>& nodes) {
  std::vector<std::pair<std::string, int64_t>> kept;
  for (const auto& v : k.header.vars)
    if (std::any_of(nodes.begin(), nodes.end(), [&](UOp u) { return u.op() == Op::Var && u.arg<VarArg>().name == v.first; }))
      kept.push_back(v);
  k.header.vars = std::move(kept);
}

}  // namespace

void check_and_repair(Context& ctx, Kernel& k, const GenPolicy& policy, GenStats& stats) {
  for (int round = 0; policy.check_seeds > 0 && !k.root.src().empty(); ++round) {
    auto ub = first_ub(k, policy, stats);
    if (!ub) break;
    if (round < policy.max_repairs && repair(ctx, k, *ub, stats)) continue;
    drop_effect(ctx, k, ub->node, stats);
  }
  const std::vector<UOp> nodes = nodes_of(k.root);
  prune_vars(k, nodes);
  stats.nodes = static_cast<int>(nodes.size());
}

GenResult generate(Context& ctx, const GenPolicy& policy, Entropy& entropy) {
  GenResult res;
  Kernel& k = res.kernel;
  k = Builder(ctx, policy, entropy).build();
  res.stats.entropy_exhausted = entropy.exhausted();
  k.header.name = "gen";
  k.header.seed = 0;
  k.header.extra.emplace_back("generator", kGeneratorVersion);
  check_and_repair(ctx, k, policy, res.stats);  // evaluate, repair locally
  return res;
}

GenResult generate(Context& ctx, const GenPolicy& policy, uint64_t seed) {
  SeedEntropy e(seed);
  GenResult r = generate(ctx, policy, e);
  r.kernel.header.name = fmt::format("gen-{}", seed);
  r.kernel.header.extra.emplace_back("gen-seed", std::to_string(seed));
  return r;
}

}  // namespace uopfuzz::gen
