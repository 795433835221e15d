// The near-miss builders of gen/near_miss.h. Each row's shape is built from draws that do not
// depend on `broken`, so the exact match and the near miss differ in the one condition only.
// Dividends are loaded indexes with declared bounds (opaque to the rules, so nothing folds
// them before the rule under test sees its shape) or ranges where the rule reads exact bounds.
#include "gen/near_miss.h"

#include <fmt/format.h>

#include <algorithm>

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
    std::vector<UOp> effects{n_.end(n_.store(out_, flat_, v), nest_)};
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

  /// The store nest: one range of end `n0` (or two, `n0` x `n1`), an int32 output over it.
  void nest(int64_t n0, int64_t n1 = 0) {
    nest_.push_back(n_.range(I(n0), AxisType::Loop));
    if (n1 > 0) nest_.push_back(n_.range(I(n1), AxisType::Loop));
    flat_ = n1 > 0 ? add(mul(nest_[0], I(n1)), nest_[1]) : nest_[0];
    out_ = n_.param(dtypes::Int32, n0 * std::max<int64_t>(n1, 1), true);
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
      default: body = pick(at_i, add(at_i, i32(r))); break;
    }
    return n_.reduce(Op::Add, body, {r});
  }

  Nodes n_;
  Entropy& e_;
  const bool broken_;
  std::vector<UOp> nest_;
  UOp flat_, out_;
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
