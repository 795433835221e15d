/** \file The node constructors both kernel builders share (generate()'s Builder and the rule
 * instances): constants, ALUs, the spellings of !b, and the numbered leaves and closers of a kernel
 * (RANGE axes, VARs, PARAM slots, INDEX/LOAD/STORE, END, REDUCE). */
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::gen {

using namespace ir;

/// How many spellings bnot() knows.
inline constexpr uint64_t kNotSpellings = 3;

/// Declared bounds of an integer input's values (PARAM vmin, vmax, multiple_of).
struct ValueBounds {
  std::optional<int64_t> vmin, vmax, multiple_of;
};
/// How many shapes value_bounds() knows.
inline constexpr uint64_t kValueBoundShapes = 4;
/// The declared bounds the rules' gates read (shape < kValueBoundShapes): a positive
/// divisor [1, 8], [0, 15], multiples of 4 in [-12, 12], or [-3, 20]; lower bounds below
/// zero become 0 for unsigned values.
ValueBounds value_bounds(uint64_t shape, bool is_unsigned);

/// Makes nodes in one kernel, numbering its range axes, VARs and PARAM slots in order of
/// creation. Draws no randomness: the callers choose, so each keeps its own stream.
class Nodes {
 public:
  explicit Nodes(Context& ctx) : ctx_(ctx) {}

  Context& ctx() const { return ctx_; }
  /// Numbering starts again (a new kernel in the same Context).
  void restart() { next_axis_ = next_slot_ = next_var_ = 0; }

  UOp mk(Op op, DType dt, std::vector<UOp> src = {}, Arg arg = {}) const {
    return ctx_.make(op, dt, std::move(src), std::move(arg));
  }
  UOp alu(Op op, std::vector<UOp> src) const { return ctx_.alu(op, std::move(src)); }
  UOp I(int64_t v) const { return ctx_.const_int(dtypes::Index, v); }
  UOp cint(DType dt, int64_t v) const { return ctx_.const_int(dt, v); }
  UOp cfloat(DType dt, double v) const { return ctx_.const_float(dt, v); }
  UOp zero(DType dt) const { return dt.is_float() ? cfloat(dt, 0.0) : cint(dt, 0); }
  /// A CAST, also to x's own dtype (a rule's left-hand side).
  UOp cast(DType dt, UOp x) const { return mk(Op::Cast, dt, {x}); }
  /// x as dt: a CAST only where the dtypes differ.
  UOp convert(DType dt, UOp x) const { return x.dtype() == dt ? x : cast(dt, x); }
  UOp where(UOp c, UOp a, UOp b) const { return alu(Op::Where, {c, a, b}); }
  UOp lt(UOp a, UOp b) const { return alu(Op::CmpLt, {a, b}); }
  /// !b in one of the spellings a frontend produces (spelling < kNotSpellings).
  UOp bnot(UOp b, uint64_t spelling) const;

  /// A RANGE over [0, end) on the next axis.
  UOp range(UOp end, AxisType t);
  /// The next VAR ("v0", "v1", ...) in [lo, hi], a multiple of `mult` if given.
  UOp var(DType dt, int64_t lo, int64_t hi, std::optional<int64_t> mult = std::nullopt);
  /// A buffer in the next PARAM slot, at least one element long; an input may declare
  /// the bounds and the stride of its values.
  UOp param(DType dt, int64_t size, bool output, std::optional<int64_t> vmin = std::nullopt,
            std::optional<int64_t> vmax = std::nullopt, std::optional<int64_t> mult = std::nullopt);

  UOp index(UOp buf, UOp idx) const { return mk(Op::Index, buf.dtype(), {buf, idx}); }
  UOp load(UOp buf, UOp idx) const { return mk(Op::Load, buf.dtype(), {index(buf, idx)}); }
  /// A load of buf[idx] where `valid` holds; elsewhere it reads `alt` (or nothing).
  UOp load_gated(UOp buf, UOp valid, UOp idx, UOp alt = UOp()) const;
  UOp store(UOp buf, UOp idx, UOp value) const {
    return mk(Op::Store, dtypes::Void, {index(buf, idx), value});
  }
  /// `body` closed over `ranges` (itself when there are none).
  UOp end(UOp body, const std::vector<UOp>& ranges) const;
  UOp reduce(Op op, UOp value, const std::vector<UOp>& ranges) const;

  /// Row-major flat index of a nest, injective in its ranges (each inner index is below
  /// its end): (i*Nj + j)*Nk + k with `horner`, else i*(Nj*Nk) + (j*Nk + k). Strides of
  /// CONST ends are folded to one CONST, as a frontend emits them.
  UOp flat_index(const std::vector<UOp>& rs, bool horner) const;

 private:
  Context& ctx_;
  int next_axis_ = 0, next_slot_ = 0, next_var_ = 0;
};

}  // namespace uopfuzz::gen
