/** \file InstanceBuilder: the state and the shared helpers of the rule-instance families
 * (gen/instances.h). Each family's builder is a member defined in a file of its own under
 * gen/instances/ and registered in gen/instance_families.def; the helpers shared by the
 * reduce families (values free of a range, bounds, windows) are in reduce_values.cpp.
 *
 * The builders keep their own random stream (std::mt19937_64, a draw per choice) and call
 * each binary node helper with its operands as arguments, as they were written: the
 * self-check's instance streams depend on both. */
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <vector>

#include "gen/instance_weights.h"
#include "gen/instances.h"
#include "gen/nodes.h"

namespace uopfuzz::gen {

class InstanceBuilder {
 public:
  InstanceBuilder(ir::Context& ctx, uint64_t seed, InstancePolicy policy, InstanceWeights weights)
      : ctx_(ctx), n_(ctx), rng_(seed), policy_(policy), w_(weights) {}

  ir::Kernel make(InstanceFamily f);

 private:
  using UOp = ir::UOp;
  using Op = ir::Op;
  using DType = ir::DType;
  static constexpr int64_t kInSize = 128;  ///< every input buffer; loop nests stay below 64
  /// A make_end() whose end is never a VAR: the draw is still taken (the stream keeps it).
  static constexpr double kNeverVar = 0.0;

  // ---- the families (gen/instance_families.def)
#define FAMILY(e, name, builder, what) void builder();
#include "gen/instance_families.def"
#undef FAMILY

  // ---- randomness
  uint64_t below(uint64_t n) {
    return n ? rng_() % n : 0;
  }
  int64_t between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(hi - lo + 1));
  }
  bool chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
  }
  /// A fair choice between equivalent spellings (operand order, which of two ranges, a
  /// bool constant's value): not a knob.
  bool coin() {
    return chance(0.5);
  }
  /// One of `v`, uniformly (a value repeated in `v` is drawn as often as it appears).
  template <class T>
  T one_of(std::initializer_list<T> v) {
    return *(v.begin() + below(v.size()));
  }
  template <class T>
  T one_of(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  /// One of a table of named options, uniformly: the names say what each draw builds.
  template <class T, size_t N>
  T option(const T (&table)[N], size_t n = N) {
    return table[below(n)];
  }

  // ---- nodes: generate()'s constructors, with the binary spellings the builders use
  UOp I(int64_t v) {
    return n_.I(v);
  }
  UOp C(DType dt, int64_t v) {
    return n_.cint(dt, v);
  }
  UOp F(DType dt, double v) {
    return n_.cfloat(dt, v);
  }
  UOp zero(DType dt) {
    return n_.zero(dt);
  }
  UOp alu(Op op, UOp a, UOp b) {
    return n_.alu(op, {a, b});
  }
  UOp add(UOp a, UOp b) {
    return alu(Op::Add, a, b);
  }
  UOp sub(UOp a, UOp b) {
    return alu(Op::Sub, a, b);
  }
  UOp mul(UOp a, UOp b) {
    return alu(Op::Mul, a, b);
  }
  UOp lt(UOp a, UOp b) {
    return n_.lt(a, b);
  }
  UOp ne(UOp a, UOp b) {
    return alu(Op::CmpNe, a, b);
  }
  UOp band(UOp a, UOp b) {
    return alu(Op::And, a, b);
  }
  UOp where(UOp c, UOp a, UOp b) {
    return n_.where(c, a, b);
  }
  UOp neg(UOp a) {
    return n_.mk(Op::Neg, a.dtype(), {a});
  }
  UOp cast(DType dt, UOp a) {
    return n_.cast(dt, a);
  }
  UOp to_index(UOp a) {
    return n_.convert(ir::dtypes::Index, a);
  }
  UOp bnot(UOp b) {
    return n_.bnot(b, below(kNotSpellings));
  }

  UOp range(UOp end, ir::AxisType t = ir::AxisType::Loop) {
    return n_.range(end, t);
  }
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
  UOp load(UOp buf, UOp idx) {
    return n_.load(buf, idx);
  }
  UOp load_gated(UOp buf, UOp valid, UOp idx, UOp alt = UOp()) {
    return n_.load_gated(buf, valid, idx, alt);
  }
  UOp store(UOp buf, UOp idx, UOp value) {
    return n_.store(buf, idx, value);
  }
  /// A closer of several ranges (a merge candidate) gets no CONST end <= 0 and no end
  /// that can be negative (see InstancePolicy::zero_trip_merges).
  void tame_closer(UOp& body, std::vector<UOp>& ranges);
  UOp end(UOp body, std::vector<UOp> ranges);
  UOp reduce(Op op, UOp value, std::vector<UOp> ranges);

  // Shared input buffers (created on first use), all kInSize elements.
  UOp in_i32();
  UOp in_f32();
  UOp in_bool();

  /// A range end: a CONST in [lo, hi], or an index VAR with those bounds, or VAR + CONST.
  /// `hi` is returned so callers can size buffers; ends below zero only by policy.
  struct End {
    UOp node;
    int64_t hi;
  };
  End make_end(int64_t lo, int64_t hi, double p_var);
  static int64_t hi_of(int64_t v) {
    return std::max<int64_t>(v, 0);
  }

  // ---- symbolic and divmod (symbolic.cpp; shape() in symbolic_shapes.cpp)
  struct Scope {
    std::vector<UOp> ranges;  ///< index leaves that vary per iteration
    UOp lin;                  ///< an in-bounds index for the input buffers
    bool may_be_empty;        ///< some range's end can be <= 0
  };
  /// May this expression use operations that can fault (see InstancePolicy)?
  bool faulting_ok(const Scope& s) const {
    return policy_.zero_trip_hoisting || !s.may_be_empty;
  }
  /// Huge index constants and divisors that are expressions (unknown bounds) can fault.
  bool wild_ok(const Scope& s) const {
    return faulting_ok(s);
  }
  UOp small_const(DType dt, bool huge_ok = true);
  UOp float_const(DType dt);
  UOp divisor(DType dt);
  UOp leaf(DType dt, const Scope& s, bool divmod);
  UOp expr(DType dt, int depth, const Scope& s, bool divmod);
  UOp shape(DType dt, int d, const Scope& s, bool divmod);
  /// A loop nest of 0..2 ranges over at most kInSize iterations, its linear index.
  struct Nest {
    std::vector<UOp> ranges;
    UOp lin;
    int64_t size;
  };
  Nest make_nest(int max_ranges, int64_t max_end, ir::AxisType t = ir::AxisType::Loop);
  void symbolic_kernel(bool divmod);

  // ---- the reduce families' values (reduce_values.cpp)
  DType reduce_dtype();
  UOp exact_const(DType dt);
  UOp range_free(DType dt, UOp i);
  UOp bound(int64_t n, UOp i);
  void store_per_outer(DType dt, const std::function<UOp(UOp i)>& make_value);
  End reduce_end(int64_t hi);
  UOp window_cond(UOp r, int64_t n, UOp i);
  UOp window_value(UOp cond, UOp v);

  ir::Context& ctx_;
  Nodes n_;
  std::mt19937_64 rng_;
  InstancePolicy policy_;
  InstanceWeights w_;
  std::vector<UOp> effects_, vars_;
  UOp in_i32_, in_f32_, in_bool_;
};

}  // namespace uopfuzz::gen
