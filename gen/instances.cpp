// The rule instances' family builders (instances.h). They keep their own random stream
// (std::mt19937_64, a draw per choice) and call each binary node helper with its operands
// as arguments, as they were written: the self-check's instance streams depend on both.
#include "gen/instances.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "gen/nodes.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/quant.h"
#include "ir/rewrite.h"

namespace uopfuzz::gen {

std::string_view family_name(InstanceFamily f) {
  static constexpr std::string_view names[] = {
#define FAMILY(e, name) name,
      UOPFUZZ_INSTANCE_FAMILIES(FAMILY)
#undef FAMILY
  };
  return names[static_cast<int>(f)];
}

struct InstanceGen::Impl {
  Impl(ir::Context& ctx, uint64_t seed, InstancePolicy policy)
      : ctx_(ctx), n_(ctx), rng_(seed), policy_(policy) {}

  ir::Kernel make(InstanceFamily f) {
    effects_.clear();
    vars_.clear();
    n_.restart();
    in_i32_ = in_f32_ = in_bool_ = ir::UOp();
    switch (f) {
      case InstanceFamily::Symbolic: gen_symbolic(false); break;
      case InstanceFamily::Divmod: gen_symbolic(true); break;
      case InstanceFamily::Split: gen_split(); break;
      case InstanceFamily::Merge: gen_merge(); break;
      case InstanceFamily::Shrink: gen_shrink(); break;
      case InstanceFamily::Unparented: gen_unparented(); break;
      case InstanceFamily::Bound: gen_bound(); break;
      case InstanceFamily::Lift: gen_lift(); break;
      case InstanceFamily::Collapse: gen_collapse(); break;
      case InstanceFamily::Gather: gen_gather(); break;
      case InstanceFamily::Requantize: gen_requantize(); break;
      case InstanceFamily::kCount: break;
    }
    ir::Kernel k;
    k.header.name = std::string(family_name(f));
    k.root = ctx_.make(ir::Op::Sink, ir::dtypes::Void, effects_);
    return k;
  }

  using UOp = ir::UOp;
  using Op = ir::Op;
  using DType = ir::DType;
  static constexpr int64_t kInSize = 128;  ///< every input buffer; loop nests stay below 64

  // ---- randomness
  uint64_t below(uint64_t n) { return n ? rng_() % n : 0; }
  int64_t between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(below(hi - lo + 1)); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  T pick(std::initializer_list<T> v) {
    return *(v.begin() + below(v.size()));
  }
  template <class T>
  T pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

  // ---- nodes: generate()'s constructors, with the binary spellings the builders below use
  UOp I(int64_t v) { return n_.I(v); }
  UOp C(DType dt, int64_t v) { return n_.cint(dt, v); }
  UOp F(DType dt, double v) { return n_.cfloat(dt, v); }
  UOp zero(DType dt) { return n_.zero(dt); }
  UOp alu(Op op, UOp a, UOp b) { return n_.alu(op, {a, b}); }
  UOp add(UOp a, UOp b) { return alu(Op::Add, a, b); }
  UOp sub(UOp a, UOp b) { return alu(Op::Sub, a, b); }
  UOp mul(UOp a, UOp b) { return alu(Op::Mul, a, b); }
  UOp lt(UOp a, UOp b) { return n_.lt(a, b); }
  UOp ne(UOp a, UOp b) { return alu(Op::CmpNe, a, b); }
  UOp band(UOp a, UOp b) { return alu(Op::And, a, b); }
  UOp where(UOp c, UOp a, UOp b) { return n_.where(c, a, b); }
  UOp neg(UOp a) { return n_.mk(Op::Neg, a.dtype(), {a}); }
  UOp cast(DType dt, UOp a) { return n_.cast(dt, a); }
  UOp to_index(UOp a) { return n_.convert(ir::dtypes::Index, a); }
  UOp bnot(UOp b) { return n_.bnot(b, below(kNotSpellings)); }

  UOp range(UOp end, ir::AxisType t = ir::AxisType::Loop) { return n_.range(end, t); }
  UOp var(int64_t lo, int64_t hi, std::optional<int64_t> mult = std::nullopt,
          DType dt = ir::dtypes::Index) {
    UOp u = n_.var(dt, lo, hi, mult);
    vars_.push_back(u);
    return u;
  }
  UOp buffer(DType dt, int64_t size, bool out, std::optional<int64_t> vmin = std::nullopt,
             std::optional<int64_t> vmax = std::nullopt,
             std::optional<int64_t> mult = std::nullopt) {
    return n_.param(dt, size, out, vmin, vmax, mult);
  }
  UOp load(UOp buf, UOp idx) { return n_.load(buf, idx); }
  UOp load_gated(UOp buf, UOp valid, UOp idx, UOp alt = UOp()) {
    return n_.load_gated(buf, valid, idx, alt);
  }
  UOp store(UOp buf, UOp idx, UOp value) { return n_.store(buf, idx, value); }
  /// A closer of several ranges (a merge candidate) gets no CONST end <= 0 and no end
  /// that can be negative (see InstancePolicy::zero_trip_merges).
  void tame_closer(UOp& body, std::vector<UOp>& ranges) {
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
  UOp end(UOp body, std::vector<UOp> ranges) {
    if (ranges.empty()) return body;
    tame_closer(body, ranges);
    return n_.end(body, ranges);
  }
  UOp reduce(Op op, UOp value, std::vector<UOp> ranges) {
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

  // Shared input buffers (created on first use), all kInSize elements.
  UOp in_i32() {
    if (!in_i32_) {
      // Shape 0 declares nothing here: the oracle's default [-8, 8], values of both signs.
      const uint64_t shape = below(kValueBoundShapes);
      const ValueBounds b = shape == 0 ? ValueBounds{} : value_bounds(shape, false);
      in_i32_ = buffer(ir::dtypes::Int32, kInSize, false, b.vmin, b.vmax, b.multiple_of);
    }
    return in_i32_;
  }
  UOp in_f32() {
    if (!in_f32_) in_f32_ = buffer(ir::dtypes::Float32, kInSize, false);
    return in_f32_;
  }
  UOp in_bool() {
    if (!in_bool_) in_bool_ = buffer(ir::dtypes::Bool, kInSize, false);
    return in_bool_;
  }

  /// A range end: a CONST in [lo, hi], or an index VAR with those bounds, or VAR + CONST.
  /// `hi` is returned so callers can size buffers; ends below zero only by policy.
  struct End {
    UOp node;
    int64_t hi;
  };
  End make_end(int64_t lo, int64_t hi, double p_var = 0.25) {
    if (!policy_.negative_range_ends)
      lo = std::max<int64_t>(lo, 0);
    else if (chance(0.15))
      lo = std::min<int64_t>(lo, -between(1, 3));
    hi = std::max(hi, lo);
    if (chance(p_var)) {
      if (chance(0.2) && hi - lo >= 2) {  // VAR + CONST, in [lo + k, hi]
        const int64_t k = between(1, 2);
        return {add(var(lo, hi - k), I(k)), hi};
      }
      return {var(lo, hi), hi};
    }
    int64_t v = between(lo, hi);
    return {I(v), std::max<int64_t>(v, 0)};
  }
  static int64_t hi_of(int64_t v) { return std::max<int64_t>(v, 0); }

  // ============================================================================
  // Symbolic / divmod: random typed expressions, biased to the rules' left-hand sides.
  // ============================================================================
  struct Scope {
    std::vector<UOp> ranges;  ///< index leaves that vary per iteration
    UOp lin;                  ///< an in-bounds index for the input buffers
    bool may_be_empty;        ///< some range's end can be <= 0
  };
  /// May this expression use operations that can fault (see InstancePolicy)?
  bool faulting_ok(const Scope& s) const { return policy_.zero_trip_hoisting || !s.may_be_empty; }

  UOp small_const(DType dt, bool huge_ok = true) {
    if (dt.is_bool()) return ctx_.const_bool(chance(0.5));
    if (dt.is_float()) return float_const(dt);
    if (chance(0.3)) return C(dt, pick<int64_t>({0, 1, -1, 2}));
    if (chance(0.04) && dt.is_index() && huge_ok)
      return C(dt, pick<int64_t>({std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), int64_t{1} << 40}));
    if (chance(0.05) && !dt.is_index()) return C(dt, pick<int64_t>({dt.int_min(), dt.int_max()}));
    return C(dt, between(-9, 12));
  }
  UOp float_const(DType dt) {
    if (chance(0.35))
      return F(dt, pick<double>({-0.0, 0.0, INFINITY, -INFINITY, NAN, 0.1, 1e30, -1.5}));
    return F(dt, static_cast<double>(between(-64, 64)) / 8.0);
  }
  UOp divisor(DType dt) {
    if (chance(0.75)) return C(dt, between(1, 9));
    if (chance(0.5)) return C(dt, -between(1, 5));
    return C(dt, pick<int64_t>({16, 32, 64}));
  }
  /// Huge index constants and divisors that are expressions (unknown bounds) can fault.
  bool wild_ok(const Scope& s) const { return faulting_ok(s); }

  UOp leaf(DType dt, const Scope& s, bool divmod) {
    if (dt.is_index()) {
      switch (below(divmod ? 6 : 5)) {
        case 0:
        case 1:
          if (!s.ranges.empty()) return pick(s.ranges);
          break;
        case 2:
          if (!vars_.empty()) return pick(vars_);
          break;
        case 3: return to_index(load(in_i32(), s.lin));
        case 5:  // a range shifted so that it can be negative
          if (!s.ranges.empty()) return add(pick(s.ranges), I(-between(0, 9)));
          break;
        default: break;
      }
      return small_const(dt, wild_ok(s));
    }
    if (dt.is_float()) {
      switch (below(4)) {
        case 0: return load(in_f32(), s.lin);
        case 1:
          return cast(dt, leaf(chance(0.5) ? ir::dtypes::Index : ir::dtypes::Int32, s, divmod));
        case 2:
          return mul(load(in_f32(), s.lin), F(dt, -0.0));  // a zero whose sign depends on the input
        default: return float_const(dt);
      }
    }
    if (dt.is_bool()) {
      switch (below(3)) {
        case 0: return load(in_bool(), s.lin);
        case 1: return lt(leaf(ir::dtypes::Index, s, divmod), leaf(ir::dtypes::Index, s, divmod));
        default: return ctx_.const_bool(chance(0.5));
      }
    }
    switch (below(3)) {  // int32
      case 0: return load(in_i32(), s.lin);
      case 1: return cast(dt, leaf(ir::dtypes::Index, s, divmod));
      default: return small_const(dt, wild_ok(s));
    }
  }

  UOp expr(DType dt, int depth, const Scope& s, bool divmod) {
    if (depth <= 0 || chance(0.2)) return leaf(dt, s, divmod);
    const int d = depth - 1;
    if (chance(divmod ? 0.6 : 0.45)) {
      if (UOp t = shape(dt, d, s, divmod)) return t;
    }
    auto sub_e = [&](DType t) { return expr(t, d, s, divmod); };
    if (dt.is_bool()) {
      switch (below(5)) {
        case 0: {
          DType in = pick<DType>({ir::dtypes::Index, ir::dtypes::Int32, ir::dtypes::Float32});
          return alu(pick<Op>({Op::CmpLt, Op::CmpNe, Op::CmpEq}), sub_e(in), sub_e(in));
        }
        case 1: return alu(pick<Op>({Op::And, Op::Or, Op::Xor}), sub_e(dt), sub_e(dt));
        case 2: return where(sub_e(dt), sub_e(dt), sub_e(dt));
        case 3: return cast(dt, sub_e(ir::dtypes::Int32));
        default: return leaf(dt, s, divmod);
      }
    }
    if (dt.is_float()) {
      switch (below(6)) {
        case 0: {
          const Op op = pick<Op>({Op::Add, Op::Sub, Op::Mul});
          return op == Op::Sub ? sub(sub_e(dt), sub_e(dt)) : alu(op, sub_e(dt), sub_e(dt));
        }
        case 1: return alu(pick<Op>({Op::Max, Op::Min}), sub_e(dt), sub_e(dt));
        case 2: return neg(sub_e(dt));
        case 3: return where(sub_e(ir::dtypes::Bool), sub_e(dt), sub_e(dt));
        case 4: return cast(dt, sub_e(pick<DType>({ir::dtypes::Index, ir::dtypes::Int32})));
        default: return leaf(dt, s, divmod);
      }
    }
    // index and int32
    switch (below(divmod ? 9 : 8)) {
      case 0:
      case 1: return alu(pick<Op>({Op::Add, Op::Sub, Op::Mul}), sub_e(dt), sub_e(dt));
      case 2: return alu(pick<Op>({Op::Max, Op::Min}), sub_e(dt), sub_e(dt));
      case 3: return neg(sub_e(dt));
      case 4:
      case 8:
        return alu(pick<Op>({Op::FloorDiv, Op::FloorMod, Op::Cdiv, Op::Cmod}), sub_e(dt),
                   chance(0.9) || !wild_ok(s) ? divisor(dt) : sub_e(dt));
      case 5: return where(sub_e(ir::dtypes::Bool), sub_e(dt), sub_e(dt));
      case 6:
        if (dt.is_index()) return to_index(sub_e(ir::dtypes::Int32));
        if (chance(0.5)) return alu(pick<Op>({Op::Shl, Op::Shr}), sub_e(dt), C(dt, between(0, 31)));
        return alu(pick<Op>({Op::And, Op::Or, Op::Xor}), sub_e(dt), sub_e(dt));
      default: return cast(dt, sub_e(dt.is_index() ? ir::dtypes::Int32 : ir::dtypes::Index));
    }
  }

  /// A node shaped like the left-hand side of a symbolic rule (a null UOp: none fits dt).
  UOp shape(DType dt, int d, const Scope& s, bool divmod) {
    auto e = [&](DType t) { return expr(t, d, s, divmod); };
    const bool is_int = dt.is_int();
    if (is_int && (divmod || chance(0.25))) {
      UOp a = e(dt);
      UOp c = divisor(dt), c2 = divisor(dt);
      auto fdiv = [&](UOp x, UOp y) { return alu(Op::FloorDiv, x, y); };
      auto fmod = [&](UOp x, UOp y) { return alu(Op::FloorMod, x, y); };
      switch (below(12)) {
        case 0: return alu(pick<Op>({Op::Cdiv, Op::Cmod}), a, c);
        case 1: return fmod(a, c);
        case 2: return fdiv(a, c);
        case 3: {  // (x*k) // d, (x*k) % d, d | k half the time
          UOp k = chance(0.5) ? C(dt, c.const_value().i * between(1, 4)) : c2;
          return alu(pick<Op>({Op::FloorDiv, Op::FloorMod}), mul(a, k), c);
        }
        case 4: {  // (x + y*k) // d, (x + y*k) % d
          int64_t dv = c.const_value().i;
          UOp k = C(dt, chance(0.6) ? dv * between(-2, 3) : between(-5, 9));
          return alu(pick<Op>({Op::FloorDiv, Op::FloorMod}), add(a, mul(e(dt), k)), c);
        }
        case 5: return fdiv(fdiv(a, c2), c);  // (x//a)//d
        case 6: {  // (x%a)%d, d | a half the time; x scaled up so x%a does not fold by bounds
          UOp a2 = chance(0.5) ? C(dt, c.const_value().i * between(1, 4)) : c2;
          return fmod(fmod(mul(a, C(dt, between(5, 13))), a2), c);
        }
        case 7: return add(mul(fdiv(a, c), c), fmod(a, c));  // (x//c)*c + x%c
        case 8: {  // (r*c1 + r2) // c, % c over two ranges
          if (!dt.is_index() || s.ranges.size() < 2) break;
          UOp r = s.ranges[0], r2 = s.ranges[1];
          UOp c1 = I(between(1, 8));
          return alu(pick<Op>({Op::FloorDiv, Op::FloorMod, Op::Cdiv, Op::Cmod}),
                     add(mul(r, c1), r2), chance(0.5) ? c1 : c);
        }
        case 9:
          return alu(pick<Op>({Op::FloorDiv, Op::FloorMod}), add(a, C(dt, between(-12, 12))), c);
        case 10: return fdiv(a, C(dt, 1));
        default: return alu(pick<Op>({Op::Cdiv, Op::Cmod}), a, C(dt, 1));
      }
    }
    if (dt.is_bool()) {
      UOp b = e(dt);
      switch (below(7)) {
        case 0: {
          DType in = pick<DType>(
              {ir::dtypes::Index, ir::dtypes::Int32, ir::dtypes::Bool, ir::dtypes::Float32});
          UOp x = e(in);
          return alu(pick<Op>({Op::CmpLt, Op::CmpNe, Op::CmpEq}), x, x);  // x<x, x!=x, x==x
        }
        case 1: return band(b, ctx_.const_bool(true));
        case 2: return band(ctx_.const_bool(false), b);
        case 3: return alu(Op::Or, b, ctx_.const_bool(chance(0.5)));
        case 4: return where(e(dt), b, b);
        case 5: return cast(dt, b);
        default: return where(ctx_.const_bool(chance(0.5)), b, e(dt));
      }
    }
    UOp a = e(dt);
    const UOp z = dt.is_float() ? F(dt, chance(0.5) ? 0.0 : -0.0) : C(dt, 0);
    const UOp one = dt.is_float() ? F(dt, 1.0) : C(dt, 1);
    switch (below(16)) {
      case 0: return chance(0.5) ? add(a, z) : add(z, a);            // x+0
      case 1: return sub(a, z);                                      // x-0
      case 2: return chance(0.5) ? mul(a, one) : mul(one, a);        // x*1
      case 3: return mul(a, z);                                      // x*0
      case 4: return sub(a, a);                                      // x-x
      case 5: return neg(neg(a));                                    // -(-x)
      case 6: return alu(pick<Op>({Op::Max, Op::Min}), a, a);        // max(x,x)
      case 7: return where(e(ir::dtypes::Bool), a, a);               // c ? x : x
      case 8: return where(ctx_.const_bool(chance(0.5)), a, e(dt));  // true ? x : y
      case 9: return cast(dt, a);                                    // cast to own dtype
      case 10:
        return add(add(a, small_const(dt, wild_ok(s))), small_const(dt, wild_ok(s)));  // (x+c)+c2
      case 11:
        return mul(mul(a, small_const(dt, wild_ok(s))), small_const(dt, wild_ok(s)));  // (x*c)*c2
      case 12: return sub(a, small_const(dt, wild_ok(s)));                             // x-c
      case 13:
        return alu(pick<Op>({Op::Add, Op::Mul, Op::Max, Op::Min}), small_const(dt, wild_ok(s)), a);
      case 14:
        if (is_int) return alu(pick<Op>({Op::And, Op::Or}), a, C(dt, 0));  // x&0, x|0
        return add(a, F(dt, -0.0));  // x + (-0.0): an identity, but not one the int rule may take
      default:  // x//1 (integers), x - (-0.0) (floats: not an identity at x = -0)
        if (is_int) return alu(Op::FloorDiv, a, C(dt, 1));
        return sub(a, F(dt, -0.0));
    }
  }

  /// A loop nest of 0..2 ranges over at most kInSize iterations, its linear index.
  struct Nest {
    std::vector<UOp> ranges;
    UOp lin;
    int64_t size;
  };
  Nest make_nest(int max_ranges, int64_t max_end, ir::AxisType t = ir::AxisType::Loop) {
    Nest n;
    n.lin = I(0);
    n.size = 1;
    const int k = static_cast<int>(below(max_ranges + 1));
    for (int i = 0; i < k; ++i) {
      End e = make_end(0, std::min<int64_t>(max_end, 64 / std::max<int64_t>(n.size, 1)));
      UOp r = range(e.node, t);
      n.lin = i == 0 ? r : add(mul(n.lin, I(std::max<int64_t>(e.hi, 1))), r);
      n.size *= std::max<int64_t>(e.hi, 1);
      n.ranges.push_back(r);
    }
    return n;
  }

  void gen_symbolic(bool divmod) {
    if (chance(0.6))
      var(between(-4, 2), between(3, 9),
          chance(0.2) ? std::optional<int64_t>(pick<int64_t>({2, 4})) : std::nullopt);
    const int stores = 1 + static_cast<int>(below(2));
    for (int i = 0; i < stores; ++i) {
      Nest n = make_nest(2, divmod ? 12 : 8);
      bool may_be_empty = false;
      for (UOp r : n.ranges) may_be_empty |= !r.src(0).is_const() || r.src(0).const_value().i <= 0;
      Scope s{n.ranges, n.lin, may_be_empty};
      const int depth = 2 + static_cast<int>(below(3));
      DType dt = divmod ? pick<DType>({ir::dtypes::Index, ir::dtypes::Index, ir::dtypes::Int32})
                        : pick<DType>({ir::dtypes::Index, ir::dtypes::Int32, ir::dtypes::Float32,
                                       ir::dtypes::Bool});
      UOp v = expr(dt, depth, s, divmod);
      if (dt.is_int() && s.may_be_empty && policy_.zero_trip_hoisting && chance(0.4)) {
        // A division by an expression that can be 0, at the top (nothing reads its bounds),
        // with a range-dependent term that folds away (r // 64, r - r, r * 0, min(r, 0)).
        Scope tame = s;
        tame.may_be_empty = false;
        UOp r = pick(s.ranges);
        UOp vanish = pick<UOp>(
            {alu(Op::FloorDiv, r, I(64)), sub(r, r), mul(r, I(0)), alu(Op::Min, r, I(0))});
        if (!dt.is_index()) vanish = cast(dt, vanish);
        UOp d0 = add(vanish, chance(0.5) && !vars_.empty() ? cast(dt, pick(vars_))
                                                           : expr(dt, 1, tame, divmod));
        v = alu(pick<Op>({Op::Cdiv, Op::Cmod, Op::FloorDiv}), v, d0);
      }
      DType out_dt = dt.is_index() ? ir::dtypes::Int64 : dt;
      if (dt.is_index()) v = cast(out_dt, v);
      UOp out = buffer(out_dt, n.size, true);
      effects_.push_back(end(store(out, n.lin, v), n.ranges));
    }
  }

  // ============================================================================
  // Split: RANGE(N) % c with c | N or not, VAR ends, axis types the rule refuses.
  // ============================================================================
  void gen_split() {
    const int64_t c = pick<int64_t>({1, 2, 2, 3, 4, 4, 5, 6, 8});
    End e;
    switch (below(5)) {
      case 0:
      case 1: e = {I(c * between(1, 5)), 0}; break;  // divisible
      case 2: e = make_end(1, 24, 0.0); break;       // usually not
      case 3: {                                      // VAR end, maybe a multiple of c
        int64_t m = chance(0.3) ? c : 1;
        e = {var(policy_.negative_range_ends ? -2 : 0, 24, m), 24};
        break;
      }
      default: e = make_end(0, 24, 0.8); break;
    }
    if (e.node.is_const()) e.hi = hi_of(e.node.const_value().i);
    const ir::AxisType t =
        pick<ir::AxisType>({ir::AxisType::Loop, ir::AxisType::Loop, ir::AxisType::Global,
                            ir::AxisType::Warp, ir::AxisType::Device, ir::AxisType::Upcast});
    const bool in_reduce = chance(0.3);
    UOp r = range(e.node, in_reduce ? ir::AxisType::Reduce : t);
    auto mod = [&](int64_t m) { return alu(chance(0.7) ? Op::FloorMod : Op::Cmod, r, I(m)); };
    UOp m1 = mod(c);
    UOp use = m1;
    switch (below(5)) {
      case 0: break;
      case 1: use = add(m1, mul(alu(Op::FloorDiv, r, I(c)), I(10))); break;  // r%c + (r//c)*10
      case 2: use = add(m1, mod(pick<int64_t>({2, 3, 4}))); break;           // two moduli
      case 3: use = add(m1, r); break;
      default: use = mul(m1, I(between(-3, 3))); break;
    }
    if (in_reduce) {
      // out[0] = sum_r int(use) (+ load(in[r % c]))
      UOp v = cast(ir::dtypes::Int32, use);
      if (chance(0.4)) v = add(v, load(in_i32(), m1));
      Op rop = pick<Op>({Op::Add, Op::Add, Op::Max, Op::Min});
      UOp out = buffer(ir::dtypes::Int32, 1, true);
      effects_.push_back(store(out, I(0), reduce(rop, v, {r})));
      return;
    }
    UOp out = buffer(ir::dtypes::Int32, std::max<int64_t>(e.hi, 1), true);
    UOp v = cast(ir::dtypes::Int32, use);
    if (chance(0.3)) v = load(in_i32(), chance(0.5) ? m1 : r);
    effects_.push_back(end(store(out, r, v), {r}));
  }

  // ============================================================================
  // Merge: adjacent END ranges addressed as i*N + j (and other combinations), REDUCE
  // range pairs, inner REDUCEs that hold one range or both.
  // ============================================================================
  void gen_merge() {
    const int n = chance(0.3) ? 3 : 2;
    std::vector<End> ends;
    std::vector<UOp> rs;
    int64_t total = 1;
    const ir::AxisType t = chance(0.5) ? ir::AxisType::Loop : ir::AxisType::Global;
    for (int i = 0; i < n; ++i) {
      End e = make_end(policy_.negative_range_ends ? -2 : 1, 4, 0.2);
      ends.push_back(e);
      total *= std::max<int64_t>(e.hi, 1);
      ir::AxisType ti = chance(0.1) ? ir::AxisType::Local : t;
      rs.push_back(range(e.node, ti));
    }
    auto stride = [&](int i) { return std::max<int64_t>(ends[i].hi, 1); };
    // Row-major or column-major linear index: injective either way.
    UOp lin;
    const bool row_major = chance(0.7);
    if (row_major) {
      lin = rs[0];
      for (int i = 1; i < n; ++i) lin = add(mul(lin, I(stride(i))), rs[i]);
    } else {
      lin = rs[n - 1];
      for (int i = n - 2; i >= 0; --i) lin = add(mul(lin, I(stride(i))), rs[i]);
    }
    if (chance(0.5)) {
      // A REDUCE over all the ranges (every ordered pair may merge), stored per outer i.
      End oe = make_end(1, 3, 0.0);
      UOp i = range(oe.node);
      UOp v = load(in_f32(), chance(0.8) ? lin : rs[0]);
      if (chance(0.3)) v = mul(v, cast(ir::dtypes::Float32, i));
      std::vector<UOp> order = rs;
      std::shuffle(order.begin(), order.end(), rng_);
      UOp red = reduce(pick<Op>({Op::Add, Op::Add, Op::Max}), v, order);
      UOp out = buffer(ir::dtypes::Float32, oe.hi, true);
      effects_.push_back(end(store(out, i, red), {i}));
      return;
    }
    UOp v;
    switch (below(4)) {
      case 0: {  // 10*r0 + r1 (+ 100*r2)
        UOp acc = I(0);
        for (int i = 0; i < n; ++i) acc = add(mul(acc, I(10)), rs[i]);
        v = cast(ir::dtypes::Int32, acc);
        break;
      }
      case 1: v = add(load(in_i32(), rs[0]), load(in_i32(), rs[n - 1])); break;
      case 2: {  // an inner REDUCE holding one of the ranges (or both)
        End ke = make_end(1, 4, 0.0);
        UOp k = range(ke.node, ir::AxisType::Reduce);
        UOp term = chance(0.5) ? add(mul(rs[0], I(4)), k) : add(lin, k);
        UOp inner = reduce(Op::Add, load(in_i32(), term), {k});
        v = add(inner, cast(ir::dtypes::Int32, rs[n - 1]));
        break;
      }
      default: v = cast(ir::dtypes::Int32, lin); break;
    }
    UOp out = buffer(ir::dtypes::Int32, total, true);
    UOp st = store(out, lin, v);
    if (n == 3 && chance(0.3)) {
      effects_.push_back(end(end(st, {rs[2]}), {rs[0], rs[1]}));  // nested: merge within a list
    } else {
      effects_.push_back(end(st, rs));
    }
  }

  // ============================================================================
  // Shrink (mark_gated): WHERE(r < g, idx, INVALID) with g below / at / above the end,
  // ungated second uses, REDUCE uses, two guards.
  // ============================================================================
  void gen_shrink() {
    End e = make_end(1, 20, 0.2);
    if (chance(0.1)) e = {I(204), 204};
    UOp r = range(e.node);
    auto guard = [&]() -> int64_t {
      const int64_t lo = policy_.always_false_gates ? 0 : 1;  // r < 0 is statically false
      switch (below(5)) {
        case 0: return between(lo, 3);
        case 1: return between(1, std::max<int64_t>(e.hi, 1) + 3);
        case 2: return std::max(e.hi, lo);
        default: return between(1, std::max<int64_t>(e.hi - 1, 1));  // a real shrink
      }
    };
    const int64_t g = guard(), g2 = guard();
    UOp valid = lt(r, I(g));
    switch (below(6)) {
      case 0: break;
      case 1: {  // plus a clause k < r (statically false when k >= the end - 1)
        // k < r < g is unsatisfiable for k >= g - 1: statically false once r shrinks to g.
        const int64_t kmax =
            policy_.always_false_gates ? 2 : std::min<int64_t>({2, e.hi - 2, g - 2});
        valid = band(valid, lt(I(between(-1, std::max<int64_t>(kmax, -1))), r));
        break;
      }
      case 2: valid = band(lt(r, I(g2)), valid); break;         // two guards, one gate
      case 3: valid = alu(Op::Or, valid, lt(r, I(g2))); break;  // not an AND
      case 4:
        if (!vars_.empty() || chance(0.5)) valid = lt(r, var(0, 24));
        break;  // not a CONST
      default: valid = band(valid, load(in_bool(), r)); break;
    }
    const int64_t size = std::max<int64_t>({e.hi, g, g2, 1});
    UOp out = buffer(ir::dtypes::Int32, size, true);
    UOp value = add(cast(ir::dtypes::Int32, r), C(ir::dtypes::Int32, 1));
    switch (below(5)) {
      case 0: break;
      case 1: value = load(in_i32(), r); break;  // an ungated use of r in an INDEX
      case 2:                                    // a gated load with a second guard, alt != 0
        value = load_gated(in_i32(), lt(r, I(g2)), r, C(ir::dtypes::Int32, between(1, 5)));
        break;
      case 3: {  // a REDUCE over a gated load: its range keeps the full length
        End ke = make_end(1, 12, 0.2);
        UOp k = range(ke.node, ir::AxisType::Reduce);
        UOp gl = load_gated(in_i32(), lt(k, I(between(policy_.always_false_gates ? 0 : 1, 8))), k,
                            C(ir::dtypes::Int32, between(-2, 3)));
        value = add(
            reduce(pick<Op>({Op::Add, Op::Max, Op::Mul}), add(gl, C(ir::dtypes::Int32, 1)), {k}),
            cast(ir::dtypes::Int32, r));
        break;
      }
      default: value = mul(cast(ir::dtypes::Int32, r), C(ir::dtypes::Int32, 3)); break;
    }
    UOp idx = chance(0.8) ? r : add(r, I(0));
    effects_.push_back(end(store(out, where(valid, idx, ctx_.invalid()), value), {r}));
    if (chance(0.35)) {  // a second store through the same range, gated by g2 or ungated
      UOp out2 = buffer(ir::dtypes::Int32, size, true);
      UOp idx2 = chance(0.6) ? where(lt(r, I(g2)), r, ctx_.invalid()) : r;
      effects_.push_back(end(store(out2, idx2, cast(ir::dtypes::Int32, mul(r, I(2)))), {r}));
    }
    if (chance(0.25)) {  // a 2-D gate (r0 < g0) & (r1 < g1) on one index
      End e0 = make_end(1, 6, 0.0), e1 = make_end(1, 6, 0.0);
      UOp r0 = range(e0.node), r1 = range(e1.node);
      int64_t s1 = std::max<int64_t>(e1.hi, 1);
      const int64_t g0 = policy_.always_false_gates ? 0 : 1;
      UOp v2 = band(lt(r0, I(between(g0, e0.hi + 1))), lt(r1, I(between(g0, e1.hi + 1))));
      UOp out3 = buffer(ir::dtypes::Int32, std::max<int64_t>(e0.hi, 1) * s1, true);
      UOp lin = add(mul(r0, I(s1)), r1);
      effects_.push_back(
          end(store(out3, where(v2, lin, ctx_.invalid()), cast(ir::dtypes::Int32, lin)), {r0, r1}));
    }
    if (chance(0.15)) {  // the gated range is also a REDUCE range elsewhere
      UOp out4 = buffer(ir::dtypes::Int32, 1, true);
      UOp gl = load_gated(in_i32(), lt(r, I(g)), r, C(ir::dtypes::Int32, 1));
      effects_.push_back(store(out4, I(0), reduce(Op::Add, gl, {r})));
    }
  }

  // ============================================================================
  // Reduce families: values that hold no range, windows, lifts, gathers.
  // ============================================================================
  DType reduce_dtype() {
    return pick<DType>(
        {ir::dtypes::Int32, ir::dtypes::Int32, ir::dtypes::Float32, ir::dtypes::Int64});
  }
  UOp exact_const(DType dt) {
    if (dt.is_float()) {
      if (policy_.float_inexact_sums && chance(0.15)) return F(dt, pick<double>({0.1, 1e30, 0.3}));
      if (policy_.float_edge_values && chance(0.3))
        return F(dt, pick<double>({-0.0, INFINITY, -INFINITY, NAN, 3e38, -1.5e38}));
      return F(dt, static_cast<double>(between(-24, 24)) / 8.0);
    }
    return C(dt, between(-6, 9));
  }
  /// A value of `dt` that holds no reduce range: outer range i, VARs, loads, constants.
  UOp range_free(DType dt, UOp i) {
    switch (below(5)) {
      case 0: return exact_const(dt);
      case 1: return dt.is_float() ? load(in_f32(), i) : cast(dt, load(in_i32(), i));
      case 2: return add(cast(dt, i), exact_const(dt));
      case 3:
        if (!vars_.empty() && !dt.is_float()) return cast(dt, pick(vars_));
        return mul(cast(dt, add(i, I(1))), exact_const(dt));
      default: return dt.is_float() ? load(in_f32(), I(0)) : cast(dt, load(in_i32(), I(0)));
    }
  }
  /// An index bound that holds no range: CONST, VAR or a loaded value, any of them
  /// possibly below 0 or above the end.
  UOp bound(int64_t n, UOp i) {
    switch (below(4)) {
      case 0:
      case 1: return I(between(-2, n + 3));
      case 2: return var(between(-3, 0), n + between(0, 4));
      default: {
        UOp b = buffer(ir::dtypes::Int32, kInSize, false, -3, n + 3);
        return to_index(load(b, i));
      }
    }
  }
  /// The store around a reduction: out[i] over an outer loop of 1..3, or out[0].
  void store_per_outer(DType dt, const std::function<UOp(UOp i)>& make_value) {
    if (chance(0.35)) {
      UOp out = buffer(dt, 1, true);
      effects_.push_back(store(out, I(0), make_value(I(0))));
      return;
    }
    End oe = make_end(1, 3, 0.0);
    UOp i = range(oe.node);
    UOp out = buffer(dt, oe.hi, true);
    effects_.push_back(end(store(out, i, make_value(i)), {i}));
  }
  End reduce_end(int64_t hi) {
    End e = make_end(0, hi, 0.25);
    return e;
  }

  void gen_unparented() {
    if (chance(0.4)) var(-3, 6);
    const DType dt = reduce_dtype();
    const Op rop = pick<Op>({Op::Add, Op::Mul, Op::Max, Op::Min});
    store_per_outer(dt, [&](UOp i) {
      std::vector<UOp> rs;
      const bool partial_ok = !(dt.is_float() && rop == Op::Mul) || policy_.float_partial_products;
      const int k = partial_ok ? 1 + static_cast<int>(below(2)) : 1;
      for (int j = 0; j < k; ++j)
        rs.push_back(range(reduce_end(rop == Op::Mul ? 4 : 7).node, ir::AxisType::Reduce));
      UOp v = range_free(dt, i);
      if (dt.is_float() && rop == Op::Mul && k == 2 && chance(0.5)) {
        // Products that round: several factors of 7-bit numerators (k/8, k up to 64).
        rs = {range(I(between(2, 3)), ir::AxisType::Reduce),
              range(I(between(2, 4)), ir::AxisType::Reduce)};
        v = chance(0.5) ? load(in_f32(), i) : F(dt, pick<double>({5.875, 7.625, 2.9, 1.3}));
      }
      if (partial_ok && chance(0.3)) {  // one parented range next to the unparented ones
        UOp p = range(I(between(1, 4)), ir::AxisType::Reduce);
        v = add(v, dt.is_float() ? load(in_f32(), p) : cast(dt, p));
        rs.insert(rs.begin() + static_cast<long>(below(rs.size() + 1)), p);
      }
      return reduce(rop, v, rs);
    });
  }

  UOp window_cond(UOp r, int64_t n, UOp i) {
    UOp U = bound(n, i), L = bound(n, i);
    switch (below(6)) {
      case 0:
      case 1: return lt(r, U);
      case 2: return bnot(lt(r, L));
      case 3: return band(bnot(lt(r, L)), lt(r, U));
      case 4: return band(lt(r, U), bnot(lt(r, L)));
      default: return lt(L, r);  // not one of the bound forms
    }
  }
  UOp window_value(UOp cond, UOp v) {
    const DType dt = v.dtype();
    switch (below(5)) {
      case 0:
      case 1: return where(cond, v, zero(dt));
      case 2: return where(cond, zero(dt), v);
      case 3: return mul(v, cast(dt, cond));  // x * gate.cast()
      default: return mul(cast(dt, cond), v);
    }
  }

  void gen_bound() {
    const DType dt = reduce_dtype();
    store_per_outer(dt, [&](UOp i) {
      End e = reduce_end(12);
      UOp r = range(e.node, ir::AxisType::Reduce);
      UOp v = chance(0.85) ? range_free(dt, i) : add(cast(dt, r), exact_const(dt));
      UOp body = window_value(window_cond(r, std::max<int64_t>(e.hi, 1), i), v);
      std::vector<UOp> rs{r};
      const Op rop = chance(0.9) ? Op::Add : pick<Op>({Op::Max, Op::Mul});
      const bool partial_ok = !(dt.is_float() && rop == Op::Mul) || policy_.float_partial_products;
      if (partial_ok && chance(0.15)) rs.push_back(range(I(between(1, 3)), ir::AxisType::Reduce));
      return reduce(rop, body, rs);
    });
  }

  void gen_lift() {
    const DType dt = pick<DType>({ir::dtypes::Int32, ir::dtypes::Float32});
    store_per_outer(dt, [&](UOp i) {
      End e = reduce_end(12);
      const int64_t n = std::max<int64_t>(e.hi, 1);
      UOp r = range(e.node, ir::AxisType::Reduce);
      UOp y, c = bound(2 * n, i);
      switch (below(4)) {  // y of either sign: x*y < c may only be lifted for y > 0
        case 0: y = I(between(-4, 4)); break;
        case 1: y = var(pick<int64_t>({-3, -1, 0, 1}), between(1, 4)); break;
        case 2:
          y = to_index(
              load(buffer(ir::dtypes::Int32, kInSize, false, pick<int64_t>({-2, 1}), 4), i));
          break;
        default: y = I(pick<int64_t>({1, 2, 3, -1, -2})); break;
      }
      UOp cond;
      switch (below(6)) {
        case 5: cond = lt(mul(r, y), c); break;
        case 0: cond = lt(add(r, y), c); break;  // (x+y) < c
        case 1: cond = lt(add(y, r), c); break;
        case 2: cond = lt(mul(r, y), c); break;  // x*y < c
        case 3: cond = lt(mul(y, r), c); break;
        default: {  // through a cast
          UOp x = cast(ir::dtypes::Int32, r);
          cond = lt(add(x, cast(ir::dtypes::Int32, y)), cast(ir::dtypes::Int32, c));
          break;
        }
      }
      if (chance(0.15)) cond = band(cond, lt(r, bound(n, i)));
      UOp v = chance(0.85) ? range_free(dt, i) : cast(dt, r);
      return reduce(Op::Add, chance(0.5) ? where(cond, v, zero(dt)) : window_value(cond, v), {r});
    });
  }

  void gen_collapse() {
    const DType dt = chance(0.3) ? ir::dtypes::Float32 : reduce_dtype();
    store_per_outer(dt, [&](UOp i) {
      End e = reduce_end(10);
      const int64_t n = std::max<int64_t>(e.hi, 1);
      UOp r = range(e.node, ir::AxisType::Reduce);
      auto term = [&]() -> UOp {
        switch (below(4)) {
          case 0: return window_value(window_cond(r, n, i), range_free(dt, i));
          case 1: return cast(dt, r);
          case 2: return range_free(dt, i);
          default: return dt.is_float() ? load(in_f32(), r) : mul(cast(dt, r), exact_const(dt));
        }
      };
      switch (below(10)) {
        case 9: {  // sum_{r<n} where(r < k, 12 / d, 0), n and d may be 0: a zero-trip loop
                   // over a faulting body must not get a closed form (collapse-zero-trip)
          UOp rz = range(var(0, 3), ir::AxisType::Reduce);
          UOp k = I(between(1, 3));
          UOp d = cast(ir::dtypes::Int32, var(0, 2));
          UOp q = alu(Op::Cdiv, C(ir::dtypes::Int32, 12), d);
          UOp red = reduce(Op::Add, where(lt(rz, k), q, C(ir::dtypes::Int32, 0)), {rz});
          return dt == ir::dtypes::Int32 ? red : cast(dt, red);
        }
        case 8: {  // sum over r (may run zero times), r2 of f(r) + 12 / (r2 - k): f has no
                   // closed form, so the collapse must give up rather than run the division
          UOp rz = range(var(0, 3), ir::AxisType::Reduce);
          const int64_t m = between(2, 5);
          UOp r2 = range(I(m), ir::AxisType::Reduce);
          UOp f = mul(cast(ir::dtypes::Int32, rz), cast(ir::dtypes::Int32, rz));
          UOp g = alu(Op::Cdiv, C(ir::dtypes::Int32, 12),
                      sub(cast(ir::dtypes::Int32, r2), C(ir::dtypes::Int32, between(0, m - 1))));
          UOp v = chance(0.5) ? add(f, g) : add(g, f);
          UOp red =
              reduce(Op::Add, v, chance(0.5) ? std::vector<UOp>{rz, r2} : std::vector<UOp>{r2, rz});
          return dt == ir::dtypes::Int32 ? red : cast(dt, red);
        }
        case 7:
        case 6: {  // sum_r (r*B + r*-B): every term is 0, each half alone overflows
          const int64_t m = between(3, 7);
          UOp rm = range(I(m), ir::AxisType::Reduce);
          UOp x = cast(dt, rm);
          UOp big = dt.is_float() ? F(dt, 3e38 / static_cast<double>(m - 1))
                                  : C(dt, pick<int64_t>({dt.int_max(), 1 << 30, 7}));
          return reduce(Op::Add, add(mul(x, big), mul(x, neg(big))), {rm});
        }
        case 0: return reduce(Op::Add, add(term(), term()), {r});  // sum(x+y)
        case 1: {  // sum of (PARAM x & y).where(c, 0)
          UOp x = load(in_bool(), i);
          UOp y = window_cond(r, n, i);
          UOp g = chance(0.5) ? band(x, y) : band(y, x);
          return reduce(Op::Add, where(g, range_free(dt, i), zero(dt)), {r});
        }
        case 2:  // x * gate.cast()
          return reduce(Op::Add, mul(range_free(dt, i), cast(dt, window_cond(r, n, i))), {r});
        case 3: {  // a nested REDUCE inside the value: over r (give up) or not
          UOp k = range(I(between(1, 4)), ir::AxisType::Reduce);
          UOp inner_v = chance(0.5) ? add(cast(dt, k), cast(dt, r)) : cast(dt, k);
          UOp inner = reduce(Op::Add, inner_v, {k});
          return reduce(Op::Add, where(window_cond(r, n, i), inner, zero(dt)), {r});
        }
        case 4: {  // sum over two ranges of f(r1) + g(r2) (the upstream multi-range case)
          UOp r2 = range(reduce_end(5).node, ir::AxisType::Reduce);
          return reduce(Op::Add, add(cast(dt, r), cast(dt, r2)), {r, r2});
        }
        default: {  // arange: sum_r0 (sum_r1 where(!((r0+r1) < n-1), 1, 0) - 1)
          UOp r1 = range(e.node, ir::AxisType::Reduce);
          UOp c = bnot(lt(add(r, r1), I(n - 1)));
          UOp inner =
              reduce(Op::Add, where(c, C(ir::dtypes::Int32, 1), C(ir::dtypes::Int32, 0)), {r1});
          UOp v = sub(inner, C(ir::dtypes::Int32, 1));
          return cast(dt, reduce(Op::Add, v, {r}));
        }
      }
    });
  }

  void gen_gather() {
    const DType dt = pick<DType>({ir::dtypes::Int32, ir::dtypes::Float32});
    const int64_t n = between(1, 10);
    int64_t lo = -3, hi = n + 3;
    switch (below(3)) {
      case 0: lo = 0, hi = n - 1; break;  // always inside [0, N)
      case 1: lo = hi = between(-2, n + 2); break;
      default: break;
    }
    UOp idxbuf = buffer(ir::dtypes::Int32, kInSize, false, lo, hi);
    UOp ebuf = buffer(dt, 2 * n + 2, false);
    store_per_outer(dt, [&](UOp i) {
      UOp r = range(I(n), ir::AxisType::Reduce);
      UOp idx = to_index(load(idxbuf, i));
      UOp e;
      switch (below(4)) {
        case 0: e = load(ebuf, r); break;
        case 1: e = load(ebuf, add(mul(r, I(2)), I(1))); break;
        case 2: e = mul(cast(dt, r), exact_const(dt)); break;
        default: e = add(load(ebuf, r), range_free(dt, i)); break;
      }
      UOp cond;
      const int64_t k = between(-2, 2);
      switch (below(5)) {
        case 0: cond = ne(idx, r); break;
        case 1: cond = ne(r, idx); break;
        case 2: cond = ne(add(idx, I(k)), r); break;  // (x+y) != c lift
        case 3: cond = ne(add(r, I(k)), idx); break;
        default: cond = lt(add(idx, I(k)), r); break;  // an addition on a loaded index
      }
      UOp v = chance(0.8) ? where(cond, zero(dt), e) : where(bnot(cond), e, zero(dt));
      std::vector<UOp> rs{r};
      if (chance(0.1)) rs.push_back(range(I(between(1, 3)), ir::AxisType::Reduce));
      return reduce(Op::Add, v, rs);
    });
  }

  /// REQUANTIZE of a reinterpreted integer (requantize_fixed_point's left-hand side): ratios
  /// whose products land on exact ties (powers of two, with odd and even centered values),
  /// integers pushed to both storage ends (saturation), and zero points on both sides.
  void gen_requantize() {
    using S = ir::ScalarType;
    auto zero_point = [&](S s) -> int64_t {
      if (s == S::Int32) return 0;  // q - z must stay in int32
      const DType st(s);
      return pick<int64_t>({st.int_min(), st.int_max(), between(-3, 3), between(1, 9)});
    };
    auto clamp_z = [](S s, int64_t z) {
      return std::clamp(z, DType(s).int_min(), DType(s).int_max());
    };
    const S in_s = pick<S>({S::Int8, S::UInt8, S::Int16, S::Int32});
    const S out_s = pick<S>({S::Int8, S::UInt8, S::Int16, S::Int32});
    const double s_in = pick<double>({0.25, 0.5, 1.0, 0.03, 3.0});
    const double ratio = pick<double>({0.25, 0.5, 0.125, 2.0, 4.0, 0.25, 0.03 / 0.12, 1.0 / 3});
    DType qin = DType::quantized(in_s, s_in, clamp_z(in_s, zero_point(in_s)));
    DType qout = DType::quantized(out_s, s_in / ratio, clamp_z(out_s, zero_point(out_s)));
    if (ir::requantize_unsupported(qin, qout)) {
      qin = DType::quantized(S::Int8, 0.25, 3);
      qout = DType::quantized(S::Int8, 1.0, -2);
    }
    const DType st = qin.storage();
    auto c = [&](int64_t v) { return ctx_.const_int(st, v); };
    UOp ints = buffer(st, kInSize, false);
    UOp quants = buffer(qin, kInSize, false);
    store_per_outer(qout, [&](UOp i) {
      UOp v = load(ints, i);
      switch (below(5)) {
        case 0: break;  // small: ties
        case 1: v = alu(Op::Add, v, c(pick<int64_t>({st.int_max() - 4, st.int_min() + 4}))); break;
        case 2: v = alu(Op::Mul, v, c(between(2, 40))); break;         // spread, both signs
        case 3: v = n_.mk(Op::Bitcast, st, {load(quants, i)}); break;  // the filler's edges
        default: v = alu(Op::Sub, v, c(between(-9, 9))); break;
      }
      return n_.mk(Op::Requantize, qout, {n_.mk(Op::Bitcast, qin, {v})});
    });
  }

  ir::Context& ctx_;
  Nodes n_;
  std::mt19937_64 rng_;
  InstancePolicy policy_;
  std::vector<UOp> effects_, vars_;
  UOp in_i32_, in_f32_, in_bool_;
};

InstanceGen::InstanceGen(ir::Context& ctx, uint64_t seed, InstancePolicy policy)
    : impl_(std::make_unique<Impl>(ctx, seed, policy)) {}
InstanceGen::InstanceGen(InstanceGen&&) noexcept = default;
InstanceGen& InstanceGen::operator=(InstanceGen&&) noexcept = default;
InstanceGen::~InstanceGen() = default;

ir::Kernel InstanceGen::make(InstanceFamily f) {
  return impl_->make(f);
}

}  // namespace uopfuzz::gen
