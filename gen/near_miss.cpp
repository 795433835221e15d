// The near-miss builders of gen/near_miss.h. Each row's shape is built from draws that do not
// depend on `broken`, so the exact match and the near miss differ in the one condition only.
// Dividends are loaded indexes with declared bounds (opaque to the rules, so nothing folds
// them before the rule under test sees its shape) or ranges where the rule reads exact bounds.
#include "gen/near_miss.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "gen/nodes.h"

namespace uopfuzz::gen {

using namespace ir;

const std::vector<NearMissRow>& near_miss_rows() {
  static const std::vector<NearMissRow> rows = {
#define NEAR_MISS(e, rule, condition, breaks) {NearMiss::e, rule, condition, breaks},
#include "gen/near_miss.def"
#undef NEAR_MISS
  };
  return rows;
}

const NearMissRow& near_miss_row(NearMiss m) {
  return near_miss_rows().at(static_cast<size_t>(m));
}

std::string near_miss_name(NearMiss m) {
  const NearMissRow& r = near_miss_row(m);
  return fmt::format("{}:{}", r.rule, r.condition);
}

namespace {

/// One near-miss kernel: a store nest over one or two ranges, its value the row's shape.
class NearMissBuilder {
 public:
  NearMissBuilder(Context& ctx, Entropy& e, bool broken) : n_(ctx), e_(e), broken_(broken) {}

  Kernel build(NearMiss m) {
    UOp v = shape(m);
    Kernel k;
    std::vector<UOp> effects{n_.end(n_.store(out_, store_at_ ? store_at_ : flat_, v), nest_)};
    k.root = n_.ctx().make(Op::Sink, dtypes::Void, std::move(effects));
    return k;
  }

 private:
  // ---- nodes
  UOp I(int64_t v) { return n_.I(v); }
  UOp alu(Op op, UOp a, UOp b) { return n_.alu(op, {a, b}); }
  UOp add(UOp a, UOp b) { return alu(Op::Add, a, b); }
  UOp mul(UOp a, UOp b) { return alu(Op::Mul, a, b); }
  UOp fdiv(UOp a, int64_t c) { return alu(Op::FloorDiv, a, I(c)); }
  UOp fmod(UOp a, int64_t c) { return alu(Op::FloorMod, a, I(c)); }
  UOp i32(UOp x) { return n_.convert(dtypes::Int32, x); }
  UOp idx(UOp x) { return n_.convert(dtypes::Index, x); }
  /// `good` for the exact match, `bad` for the near miss.
  template <class T>
  T pick(T good, T bad) const {
    return broken_ ? bad : good;
  }

  /// The store nest: one range of end `n0` (or two, `n0` x `n1`, the inner one of axis type
  /// `t1`), an output of `out` elements over it.
  void nest(int64_t n0, int64_t n1 = 0, DType out = dtypes::Int32, AxisType t1 = AxisType::Loop) {
    nest_.push_back(n_.range(I(n0), AxisType::Loop));
    if (n1 > 0) nest_.push_back(n_.range(I(n1), t1));
    flat_ = n1 > 0 ? add(mul(nest_[0], I(n1)), nest_[1]) : nest_[0];
    out_ = n_.param(out, n0 * std::max<int64_t>(n1, 1), true);
  }
  UOp r0() const { return nest_[0]; }

  /// A fresh int32 input of `size` elements, its values declared within [lo, hi].
  UOp input(int64_t size, int64_t lo, int64_t hi) {
    return n_.param(dtypes::Int32, size, false, lo, hi);
  }
  /// An index loaded at the store range from an input in [lo, hi]: a dividend the rules
  /// cannot see into, wide enough that no bound folds a division of it.
  UOp loaded(int64_t lo, int64_t hi) { return idx(n_.load(input(n_size_, lo, hi), r0())); }
  /// x and x' = the element after x: the same expression, one operand different.
  std::pair<UOp, UOp> pair_at_r0() {
    UOp buf = input(n_size_ + 1, -50, 50);
    return {n_.load(buf, r0()), n_.load(buf, add(r0(), I(1)))};
  }

  UOp shape(NearMiss m) {
    n_size_ = e_.between(8, 24);
    switch (m) {
      case NearMiss::RecombineDividend:
      case NearMiss::RecombineModDivisor:
      case NearMiss::RecombineMultiplier: {
        nest(n_size_);
        const int64_t c = e_.between(2, 7);
        UOp x = loaded(-40, 60);
        UOp y = m == NearMiss::RecombineDividend ? pick(x, add(x, I(1))) : x;
        const int64_t cm = m == NearMiss::RecombineModDivisor ? pick(c, c + 1) : c;
        const int64_t cq = m == NearMiss::RecombineMultiplier ? pick(c, c + 1) : c;
        return i32(add(mul(fdiv(x, c), I(cq)), fmod(y, cm)));
      }
      case NearMiss::ScaledScale:
      case NearMiss::ScaledDividend: {
        nest(n_size_);
        const int64_t c = e_.between(2, 6), k = e_.between(2, 4);
        UOp mv = loaded(-30, 50), t = loaded(-20, 20);
        UOp md = m == NearMiss::ScaledDividend ? pick(mv, add(mv, I(1))) : mv;
        const int64_t scale = m == NearMiss::ScaledScale ? pick(c * k, c * k + 1) : c * k;
        return i32(add(add(mul(fmod(mv, c), I(k)), mul(fdiv(md, c), I(scale))), t));
      }
      case NearMiss::DivDivPositive: {
        nest(n_size_);
        const int64_t a = e_.between(2, 5), d = e_.between(2, 5);
        return i32(fdiv(fdiv(loaded(-60, 60), pick(a, -a)), d));
      }
      case NearMiss::ModModDivides:
      case NearMiss::ModModPositive: {
        nest(n_size_);
        const int64_t d = e_.between(2, 5), k = e_.between(2, 3);
        const int64_t inner =
            m == NearMiss::ModModDivides ? pick(d * k, d * k + 1) : pick(d * k, -d * k);
        return i32(fmod(fmod(loaded(-60, 60), inner), d));
      }
      case NearMiss::MulDivDivides:
      case NearMiss::MulModDivides: {
        nest(n_size_);
        const int64_t d = e_.between(2, 5), k = e_.between(1, 3);
        UOp p = mul(loaded(-30, 30), I(pick(d * k, d * k + 1)));
        return i32(m == NearMiss::MulDivDivides ? fdiv(p, d) : fmod(p, d));
      }
      case NearMiss::AddDivDivides:
      case NearMiss::AddModDivides: {
        nest(n_size_);
        const int64_t c = e_.between(2, 5), k = e_.between(1, 3);
        UOp a = loaded(-40, 40);  // sequenced: PARAM slots are numbered in creation order
        UOp z = loaded(-10, 10);
        UOp s = add(a, mul(z, I(pick(c * k, c * k + 1))));
        return i32(m == NearMiss::AddDivDivides ? fdiv(s, c) : fmod(s, c));
      }
      case NearMiss::CongruenceOnePeriod: {
        // (c+1)*j + w == j + w (mod c); with 0 <= j + w < c it is j + w.
        const int64_t c = e_.between(3, 8), a = e_.between(2, c - 1);
        nest(a, pick(c + 1 - a, c + 2 - a));
        return i32(fmod(add(mul(nest_[0], I(c + 1)), nest_[1]), c));
      }
      case NearMiss::OnePeriod: {
        const int64_t c = e_.between(3, 8), q = e_.between(-2, 2), s = e_.between(0, c - 2);
        nest(pick(c - s, c - s + 1));
        return i32(fmod(add(r0(), I(q * c + s)), c));
      }
      case NearMiss::CdivNonneg:
      case NearMiss::CmodNonneg: {
        const int64_t c = e_.between(2, 5);
        nest(n_size_);
        UOp x = add(r0(), I(pick(e_.between(1, 3), int64_t{-1})));
        return i32(alu(m == NearMiss::CdivNonneg ? Op::Cdiv : Op::Cmod, x, I(c)));
      }
      case NearMiss::SubSelf:
      case NearMiss::MaxSelf:
      case NearMiss::WhereSame:
      case NearMiss::CmpSelf: {
        nest(n_size_);
        auto [x, x2] = pair_at_r0();
        UOp y = pick(x, x2);
        switch (m) {
          case NearMiss::SubSelf: return alu(Op::Sub, x, y);
          case NearMiss::MaxSelf: return alu(Op::Max, x, y);
          case NearMiss::WhereSame: return n_.where(n_.lt(r0(), I(n_size_ / 2)), x, y);
          default: return i32(n_.lt(x, y));
        }
      }
      case NearMiss::BoundUpperFree:
      case NearMiss::BoundLowerFree:
      case NearMiss::GatherZero:
      case NearMiss::GatherRange:
      case NearMiss::Unparented: return reduce_shape(m);
      case NearMiss::SplitDivides: {
        const int64_t c = e_.between(2, 5), k = e_.between(2, 5);
        nest(pick(c * k, c * k + 1));
        return i32(add(mul(fmod(r0(), c), I(100)), fdiv(r0(), c)));
      }
      case NearMiss::MergeRecombines:
      case NearMiss::MergeAxisType: {
        // Two ranges of one END merge into f when their uses recombine (f//n1*n1 + f%n1 is f)
        // and both ranges are of one axis type.
        const int64_t n0 = e_.between(2, 6), n1 = e_.between(2, 6);
        const bool axis = m == NearMiss::MergeAxisType;
        nest(n0, n1, dtypes::Int32, axis ? pick(AxisType::Loop, AxisType::Global) : AxisType::Loop);
        UOp transposed = add(mul(nest_[1], I(n0)), nest_[0]);
        return n_.load(input(n0 * n1, -50, 50), axis ? flat_ : pick(flat_, transposed));
      }
      case NearMiss::ShrinkUngated: {
        // A load gated by r < g lets r shrink to g when every access of r is gated alike; an
        // ungated store of its value (a nonzero alt where the gate is off, so the iterations
        // a shrink would skip write something a zeroed output does not hold) needs them all.
        nest(n_size_);
        UOp valid = n_.lt(r0(), I(e_.between(1, n_size_ - 1)));
        UOp alt = n_.cint(dtypes::Int32, e_.between(1, 9));
        store_at_ = pick(n_.where(valid, r0(), n_.ctx().invalid()), r0());
        return n_.load_gated(input(n_size_, -50, 50), valid, r0(), alt);
      }
      case NearMiss::CollapseZeroTrip:
      case NearMiss::LoadCollapseZeroTrip: {
        // A closed form evaluates the body's range-free parts even when the loop runs zero
        // times: only for a loop that runs, or a body that cannot fault. Here the part is
        // last[n - 1], in bounds whenever the loop runs and at -1 where n = 0 may.
        nest(n_size_);
        const int64_t rn = e_.between(2, 3);  // n = 0 is one value in three or four
        UOp n = n_.var(dtypes::Index, pick<int64_t>(1, 0), rn);
        UOp r = n_.range(n, AxisType::Reduce);
        UOp last = n_.load(input(rn, -50, 50), alu(Op::Sub, n, I(1)));
        UOp cut = loaded(-2, rn + 2);
        const UOp zero = n_.cint(dtypes::Int32, 0);
        if (m == NearMiss::CollapseZeroTrip)
          return n_.reduce(Op::Add, n_.where(n_.lt(r, cut), last, zero), {r});
        UOp at_r = n_.load(input(rn + 1, -50, 50), r);
        return n_.reduce(Op::Add, n_.where(alu(Op::CmpNe, cut, r), zero, add(at_r, last)), {r});
      }
      case NearMiss::SplitAddExact: {
        // sum(x + y) -> sum(x) + sum(y) regroups a float sum: only where no partial sum of
        // either grouping rounds (casts of small integers).
        nest(n_size_, 0, dtypes::Float32);
        const int64_t rn = e_.between(2, 8);
        UOp r = n_.range(I(rn), AxisType::Reduce);
        const int64_t big = pick<int64_t>(50, int64_t{1} << 30);
        UOp x = n_.convert(dtypes::Float32, n_.load(input(rn, -big, big), r));
        UOp y = n_.convert(dtypes::Float32, n_.load(input(rn, -big, big), r));
        return n_.reduce(Op::Add, add(x, y), {r});
      }
      case NearMiss::LiftAddLtWraps:
      case NearMiss::LiftAddNeWraps: {
        // (x + y) cmp c -> x cmp c - y moves y across the compare: only where x + y cannot
        // wrap in its int32 dtype. Wrapping is defined for int32, so the near miss is too.
        nest(n_size_);
        const int64_t rn = e_.between(2, 8), top = std::numeric_limits<int32_t>::max();
        UOp r = n_.range(I(rn), AxisType::Reduce);
        UOp y = n_.load(input(n_size_, pick<int64_t>(-20, top - 20), pick<int64_t>(20, top)), r0());
        UOp c = n_.load(input(n_size_, -5, 30), r0());
        UOp data = input(std::max(n_size_, rn) + 1, -50, 50);
        UOp s = add(i32(r), y);
        const UOp zero = n_.cint(dtypes::Int32, 0);
        UOp body = m == NearMiss::LiftAddLtWraps
                       ? n_.where(n_.lt(s, c), n_.load(data, r0()), zero)
                       : n_.where(alu(Op::CmpNe, s, c), zero, n_.load(data, r));
        return n_.reduce(Op::Add, body, {r});
      }
      case NearMiss::LiftAddLtLoadFree: {
        // (x + y) < c -> x < c - y keeps an addition off a loaded index x: y must read no
        // memory (the input for the loaded y is made only when it is used: slots stay dense).
        nest(n_size_);
        UOp x = loaded(-20, 20);
        UOp y = broken_ ? loaded(-20, 20) : r0();
        return i32(n_.lt(add(x, y), I(e_.between(-5, 30))));
      }
      case NearMiss::AddConstsFits: {
        // (x + c) + c2 -> x + (c + c2) for index constants only where c + c2 does not
        // overflow; x <= -b keeps the original in range when it does, and an odd d
        // tells a wrapped sum (off by 2^64) from the true one.
        nest(n_size_);
        const int64_t a = e_.between(1, 9), b = e_.between(2, 9), d = 2 * e_.between(1, 3) + 1;
        const int64_t c = pick(a, std::numeric_limits<int64_t>::max() - a);
        return i32(fmod(add(add(loaded(-40, -10), I(c)), I(a + b)), d));
      }
      case NearMiss::RequantizePlain: {
        // Only a REQUANTIZE of a plain integer's bits expands; a quantized value's bits stay.
        const DType qin = DType::quantized(ScalarType::Int8, 0.25, e_.between(-3, 3));
        const DType qout = DType::quantized(ScalarType::Int8, 1.0, e_.between(-3, 3));
        nest(n_size_, 0, qout);
        UOp buf = n_.param(pick(dtypes::Int8, DType::quantized(ScalarType::Int8, 0.5, 0)), n_size_,
                           false);
        return n_.mk(Op::Requantize, qout, {n_.mk(Op::Bitcast, qin, {n_.load(buf, r0())})});
      }
      case NearMiss::LiftMulPositive:
      case NearMiss::BoundTwoSidedFree:
      case NearMiss::AndGateFree: return reduce_shape(m);
    }
    return UOp();
  }

  /// The REDUCE rows: out[i] = sum_{r < M} f(i, r) over a fresh reduce range.
  UOp reduce_shape(NearMiss m) {
    nest(n_size_);
    const int64_t rn = e_.between(2, 8);
    UOp r = n_.range(I(rn), AxisType::Reduce);
    UOp data = input(std::max(n_size_, rn) + 1, -50, 50);
    UOp at_i = n_.load(data, r0()), at_r = n_.load(data, r);
    UOp cut = loaded(-2, rn + 2);  // an index free of ranges, maybe outside [0, M)
    const UOp zero = n_.cint(dtypes::Int32, 0);
    UOp body;
    switch (m) {
      case NearMiss::BoundUpperFree: body = n_.where(n_.lt(r, cut), pick(at_i, at_r), zero); break;
      case NearMiss::BoundLowerFree: body = n_.where(n_.lt(r, cut), zero, pick(at_i, at_r)); break;
      case NearMiss::GatherZero:
        body = n_.where(alu(Op::CmpNe, cut, r), pick(zero, n_.cint(dtypes::Int32, 1)), at_r);
        break;
      case NearMiss::GatherRange:
        body = n_.where(alu(Op::CmpNe, cut, pick(r, r0())), zero, at_r);
        break;
      case NearMiss::LiftMulPositive: {
        UOp y = loaded(pick<int64_t>(1, 0), 4);
        body = n_.where(n_.lt(mul(r, y), cut), at_i, zero);
        break;
      }
      case NearMiss::BoundTwoSidedFree: {
        UOp above = n_.bnot(n_.lt(r, loaded(-2, rn + 2)), e_.below(kNotSpellings));
        body = n_.where(alu(Op::And, above, n_.lt(r, cut)), pick(at_i, at_r), zero);
        break;
      }
      case NearMiss::AndGateFree: {
        UOp gate = n_.lt(pick(at_i, at_r), n_.cint(dtypes::Int32, e_.between(-10, 10)));
        body = n_.where(alu(Op::And, gate, n_.lt(r, cut)), at_r, zero);
        break;
      }
      default: body = pick(at_i, add(at_i, i32(r))); break;
    }
    return n_.reduce(Op::Add, body, {r});
  }

  Nodes n_;
  Entropy& e_;
  const bool broken_;
  std::vector<UOp> nest_;
  UOp flat_, out_;
  UOp store_at_;  // the store's index where it is not flat_ (a gated one)
  int64_t n_size_ = 8;
};

}  // namespace

Kernel build_near_miss(Context& ctx, NearMiss m, Entropy& entropy, bool broken) {
  Kernel k = NearMissBuilder(ctx, entropy, broken).build(m);
  k.header.name = "near-miss";
  k.header.seed = 0;
  if (broken) k.header.extra.emplace_back(std::string(kNearMissKey), near_miss_name(m));
  return k;
}

Kernel draw_near_miss(Context& ctx, Entropy& entropy) {
  const auto& rows = near_miss_rows();
  return build_near_miss(ctx, rows[entropy.below(rows.size())].id, entropy, true);
}

}  // namespace uopfuzz::gen
