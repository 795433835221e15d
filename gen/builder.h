/** \file The Builder behind generate(): it makes one kernel, outputs first (each a store nest and a
 * value expression), then sizes the input buffers to the addresses used. Its node helpers are in
 * builder.cpp, the rule families in families.cpp. */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gen/entropy.h"
#include "gen/nodes.h"
#include "gen/policy.h"
#include "ir/analysis.h"
#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::gen {

using namespace ir;

inline constexpr DType kBufferTypes[] = {dtypes::Bool,    dtypes::Int8,    dtypes::Int16,
                                         dtypes::Int32,   dtypes::Int64,   dtypes::UInt8,
                                         dtypes::UInt16,  dtypes::UInt32,  dtypes::UInt64,
                                         dtypes::Float16, dtypes::Float32, dtypes::Float64};
inline constexpr int64_t kIndexLeafBound = 64;  ///< integers become indexes clamped to [-64, 64]
inline constexpr int64_t kFloatClamp = 100;  ///< floats reach integer casts clamped to [-100, 100]

/// Every node under `root`, sources before users (in creation order, which is
/// topological). Cheaper than ir::toposort for the generator's whole-graph passes: a flat
/// open-addressing visited set instead of node-allocating hash sets.
std::vector<UOp> nodes_of(UOp root);

/// `root` with the nodes `from[i]` replaced by `to[i]` (a few replacements, no rules).
UOp replace(Context& ctx, UOp root, const std::vector<UOp>& from, const std::vector<UOp>& to);

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
  Builder(Context& ctx, const GenPolicy& p, Entropy& e) : ctx_(ctx), p_(p), e_(e), n_(ctx) {}

  Kernel build();

 private:
  struct Nest {
    std::vector<UOp> ranges;  ///< outermost first
    UOp lin;                  ///< the flat index: injective in the ranges
  };

  // ---------------------------------------------------------------- node helpers

  UOp mk(Op op, DType dt, std::vector<UOp> src = {}, Arg arg = {}) {
    return n_.mk(op, dt, std::move(src), std::move(arg));
  }
  UOp alu(Op op, std::vector<UOp> src) { return n_.alu(op, std::move(src)); }
  UOp I(int64_t v) { return n_.I(v); }
  UOp cint(DType dt, int64_t v) { return n_.cint(dt, v); }
  UOp cfloat(DType dt, double v) { return n_.cfloat(dt, v); }
  UOp zero(DType dt) { return n_.zero(dt); }
  UOp cast(DType dt, UOp x) { return n_.convert(dt, x); }
  UOp where(UOp c, UOp a, UOp b) { return n_.where(c, a, b); }
  UOp lt(UOp a, UOp b) { return n_.lt(a, b); }
  UOp band(UOp a, UOp b) { return a && b ? alu(Op::And, {a, b}) : a ? a : b; }
  /// !b in one of the spellings a frontend produces.
  UOp bnot(UOp b);

  /// The size budget counts expression positions (value() and index_expr() calls), not
  /// nodes: positions are only filled in sequenced code (they draw entropy), while node
  /// helpers also run inside argument lists, whose evaluation order is unspecified.
  bool budget_left() const { return positions_ < p_.max_positions; }
  Interval bnd(UOp u) { return an_.bounds(u); }
  /// An index value that stays far from overflow.
  bool tame(UOp u);

  DType pick_dtype();
  DType pick_other_dtype(DType not_this);
  Op pick_reduce_op();

  // ---------------------------------------------------------------- leaves: VARs, ranges, buffers

  /// A VAR in [lo, hi]; its header value is drawn, or `fixed`.
  UOp var(DType dt, int64_t lo, int64_t hi, std::optional<int64_t> mult = std::nullopt,
          std::optional<int64_t> fixed = std::nullopt);

  /// The largest end a new range may have inside `s`; below 1 when no loop fits.
  int64_t end_budget(const Scope& s) const;

  /// Log-uniform in [lo, hi] (1 <= lo <= hi): a power-of-two octave, then a value in it.
  int64_t log_between(int64_t lo, int64_t hi);

  /// The smallest end a new range may have: 1, or 2 where the policy makes no range of end 1
  /// (p_const_end_one = 0: a simplifier declines them, gen/declines.h). A loop position whose
  /// budget is below it stays free of a new range.
  int64_t min_end() const { return p_.p_const_end_one > 0 ? 1 : 2; }

  /// A range end of at most `max_end` (>= min_end()): a CONST, or an index VAR; in a large
  /// graph (room for GenPolicy::large_min_end) usually a big CONST.
  UOp range_end(int64_t max_end);
  UOp range(UOp end, AxisType t) { return n_.range(end, t); }
  int64_t trips(UOp r) { return std::max<int64_t>(1, bnd(r.src(0)).hi); }

  /// `s` for a value that does not use `r` but runs inside r's loop: r's trips count
  /// toward the loop budget of what it opens (a backend need not hoist it).
  Scope under(const Scope& s, UOp r) {
    Scope in = s;
    in.iters *= trips(r);
    return in;
  }

  /// A scope with one more (reduce) range.
  Scope inner(const Scope& s, UOp r);

  /// A new (placeholder) input buffer; -1 when the input limit is reached.
  int new_input(DType dt, bool index_buffer, std::optional<int64_t> vmin = std::nullopt,
                std::optional<int64_t> vmax = std::nullopt,
                std::optional<int64_t> mult = std::nullopt);
  /// A data buffer of dt: an existing one (p_reuse_input) or a new one; -1 if none can be had.
  int data_input(DType dt);

  /// The address `idx` into input `k`, made safe: an index whose interval leaves
  /// [0, max_buffer_size) is gated, wrapped or clamped; optionally gated by a
  /// RANGE < CONST guard. Records the size the buffer needs.
  UOp address(int k, UOp idx, const Scope& s);

  UOp load_at(int k, UOp idx, const Scope& s);

  /// The open ranges of `s` that an expression uses, in topological order (not those
  /// of a REDUCE inside it: they are closed there).
  std::vector<UOp> ranges_in(UOp u, const Scope& s);

  /// A conjunction of RANGE < CONST guards over some of `rs`, each guard below every
  /// value of the range's end (so the loop may shrink to it); null if no range fits.
  UOp guard(const std::vector<UOp>& rs);

  // ---------------------------------------------------------------- stores

  Nest store_nest();

  UOp flat_index(const std::vector<UOp>& rs, bool horner) { return n_.flat_index(rs, horner); }

  UOp store(const Nest& nest, UOp valid);

  // ---------------------------------------------------------------- values

  UOp constant(DType dt);

  /// An edge integer of dt (edge_values.h) as CONST bits; pairs with the last edge value of dt.
  int64_t edge_int_of(DType dt);
  /// The CONST operand of an index compound: small, or an edge index value; `edge` says which.
  UOp index_operand(bool& edge);
  /// (x + c1) + c2 with x = a made one-signed, c1 at an int64 limit and c2 such that c1 + c2
  /// is one past it while every value of the sum stays in range: folding the two constants
  /// first overflows.
  UOp overflowing_pair(UOp a);
  /// Bounds [lo, hi] for a VAR of dt at an edge: at a limit of dt, or strictly one side of 0.
  std::pair<int64_t, int64_t> edge_bounds(DType dt);

  /// An open range (the REDUCE's own range preferred), or the flat store index, maybe
  /// taken % c or // c.
  UOp range_leaf(const Scope& s);

  /// An index expression (addresses, cuts): ranges, constants, small VARs, loaded
  /// indexes, and +, -, *, max, min, //, % of them, all within max_index_magnitude.
  UOp index_expr(const Scope& s, int depth);

  DType pick_int_dtype();

  /// An integer value as an index in [-64, 64] (clamped in its own dtype first).
  UOp clamp_to_index(UOp x);

  /// An index loaded from an index buffer whose values lie in [lo, hi] (a dynamic
  /// address, a gather's index); null when no input buffer is left.
  UOp loaded_index(const Scope& s, int depth, int64_t lo, int64_t hi);

  UOp load(DType dt, const Scope& s, int depth);

  UOp leaf(DType dt, const Scope& s, int depth);

  /// Any value of dt over the scope's ranges.
  UOp value(DType dt, const Scope& s, int depth);

  // ---- quantized values (quantized.cpp)

  /// A value of quantized type `qt` (QuantExprWeights).
  UOp quantized(DType qt, const Scope& s, int depth);
  /// REQUANTIZE(BITCAST(a op b -> q<s,z>)) -> qt with a, b integers of q's storage.
  UOp fixed_point(DType qt, const Scope& s, int depth);
  /// An integer of quantized `q`'s storage: a load, a BITCAST of a quantized value of that
  /// storage (the full range, its edges included) or any value.
  UOp storage_operand(DType q, const Scope& s, int depth);
  /// DEQUANTIZE of a quantized value to float `dt`.
  UOp dequantize(DType dt, const Scope& s, int depth);

  /// The rule families (gen/kernel_families.def), each with its probability; null when none
  /// was chosen or the chosen one found no room.
  UOp family(DType dt, const Scope& s, int depth);
  /// What a kernel family's null result does (kernel_families.def's if_null column).
  enum class FamilyIfNull : uint8_t { GiveUp, TryNext };
  /// kernel_families.def's fits column: checked before the row draws its probability.
  bool anywhere(DType /*dt*/, const Scope& /*s*/) { return true; }
  bool shielded_fault_fits(DType dt, const Scope& s);

  UOp unary(DType dt, const Scope& s, int depth);

  DType bitcast_partner(DType dt);

  /// dt from a value of another dtype (or an index expression); floats reach integer
  /// types through a NaN guard and a clamp (a float -> int CAST out of range is UB).
  UOp cast_from_other(DType dt, const Scope& s, int depth);

  /// A divisor of dt that is never 0.
  UOp divisor(DType dt, const Scope& s, int depth);

  // ---- edge pairs (edge_pairs.cpp; GenPolicy::p_edge_pair, p_nested_divmod, p_index_multiple)

  /// A float x as integer dt through the NaN guard and the clamp to [-kFloatClamp, kFloatClamp]
  /// (a float -> int CAST of NaN or out of range is UB).
  UOp guarded_int_cast(DType dt, UOp x);
  /// x as dt by a defined conversion (a CAST; from a float to an integer, guarded).
  UOp as_dtype(DType dt, UOp x);
  /// A value of dt (a sized integer or index) in [lo, hi]: a VAR, or (p_from_load) a LOAD of
  /// an input declaring the window as vmin/vmax.
  UOp window_value(DType dt, int64_t lo, int64_t hi, const Scope& s, int depth);
  /// An edge pair of EdgePairWeights' kind as a value of dt; null when the drawn pair does
  /// not fit (the position is then filled as usual).
  UOp edge_pair(DType dt, const Scope& s, int depth);
  UOp rounding_pair(DType dt, const Scope& s, int depth);
  UOp limit_pair(DType dt, const Scope& s, int depth);
  UOp multiple_pair(DType dt, const Scope& s, int depth);
  UOp special_unary(DType dt);
  /// (x//a)//b, (x%a)%b, ... of index x (NestedDivmodWeights); at a `leafy` position x is
  /// always a window VAR.
  UOp nested_divmod(const Scope& s, int depth, bool leafy);
  /// x // c or x % c of an index x whose window straddles a multiple of c.
  UOp index_multiple(const Scope& s, int depth);

  UOp binary(DType dt, const Scope& s, int depth);

  // ---------------------------------------------------------------- reduces (gen/families/)

  /// A generic REDUCE over one or two fresh ranges (its value may start with another REDUCE).
  UOp reduce(DType dt, const Scope& s, int depth);

  /// REDUCE over ranges its value does not use (ADD: x*N, MUL: x^N, MAX/MIN: x).
  UOp unparented(DType dt, const Scope& s, int depth);

  /// sum_r cast(r), or arange as rangeify leaves it: sum_r where(!(x + r < K), 1, 0) - 1.
  UOp arange(DType dt, const Scope& s, int depth);

  /// sum_r where(r < U, v, 0), where(r < L, 0, v) or where(!(r < L) & (r < U), v, 0),
  /// with v free of r and the bounds VARs, outer ranges, loaded values or constants.
  UOp bound_sum(DType dt, const Scope& s, int depth);

  /// sum_r in[i + r - pad]: a sliding window over an outer range, the padded edges gated.
  UOp window_sum(DType dt, const Scope& s, int depth);

  /// sum_{r < n, r2 < m} f(r) + x / (cast(r2) - c) with n a VAR whose header value is 0:
  /// the division faults at r2 = c, but no iteration runs, so the kernel is defined for
  /// the header's values. A rewrite that hoists or splits the term out of the r loop
  /// introduces the fault (zero-trip hoisting; collapse keeping a range).
  UOp shielded_fault(DType dt, const Scope& s, int depth);

  /// sum_r where(idx != r, 0, e(r)): a gather written as a sum, idx a loaded index
  /// (maybe outside [0, N)), e using r (often a load at r).
  UOp gather(DType dt, const Scope& s, int depth);

  /// sum_{r0 < a, r1 < b} x[r0*(b*k) + r1*k + j]: merging the ranges leaves the scaled pair
  /// (r//b)*(b*k) + (r%b)*k, which must recombine for the merge to be kept; or a sum over r
  /// of x[(m%c)*k + (m//c)*(c*k)] with m = r + o. Null without an input buffer or budget.
  UOp strided_sum(DType dt, const Scope& s, int depth);

  Context& ctx_;
  const GenPolicy& p_;
  Entropy& e_;
  Nodes n_;
  Analysis an_;
  int positions_ = 0;
  std::vector<UOp> effects_;
  std::vector<UOp> store_ranges_;
  std::vector<Input> inputs_;
  std::vector<std::pair<std::string, int64_t>> vars_;
  std::map<ScalarType, __int128> last_edge_;  ///< the latest edge integer of each dtype (pairs)
};

}  // namespace uopfuzz::gen
