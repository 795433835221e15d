// Gather: sum_r where(idx != r, 0, e(r)) with idx a loaded index, maybe outside [0, N)
// (gather_ne and the lifts of its compare).
#include <cstdint>
#include <vector>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
/// The values the index buffer declares against [0, N).
enum class IndexRange : uint8_t {
  Inside,    ///< [0, N - 1]: always inside
  OneValue,  ///< one value in [-2, N + 2]
  Around,    ///< [-3, N + 3]
};
constexpr IndexRange kIndexRanges[] = {IndexRange::Inside, IndexRange::OneValue,
                                       IndexRange::Around};
/// The gathered e(r).
enum class Gathered : uint8_t {
  Load,           ///< e[r]
  StridedLoad,    ///< e[2r + 1]
  ScaledRange,    ///< cast(r) * c
  LoadPlusValue,  ///< e[r] + a value free of r
};
constexpr Gathered kGathered[] = {Gathered::Load, Gathered::StridedLoad, Gathered::ScaledRange,
                                  Gathered::LoadPlusValue};
/// The compare of the loaded index with r.
enum class GatherCond : uint8_t {
  IndexNe,        ///< idx != r
  RangeNe,        ///< r != idx
  OffsetIndexNe,  ///< (idx + k) != r: the (x+y) != c lift
  OffsetRangeNe,  ///< (r + k) != idx
  OffsetIndexLt,  ///< (idx + k) < r: an addition on a loaded index, not a gather
};
constexpr GatherCond kGatherConds[] = {GatherCond::IndexNe, GatherCond::RangeNe,
                                       GatherCond::OffsetIndexNe, GatherCond::OffsetRangeNe,
                                       GatherCond::OffsetIndexLt};
}  // namespace

void InstanceBuilder::gather() {
  const DType dt = one_of<DType>({ir::dtypes::Int32, ir::dtypes::Float32});
  const int64_t n = between(1, 10);
  int64_t lo = -3, hi = n + 3;
  switch (option(kIndexRanges)) {
    case IndexRange::Inside: lo = 0, hi = n - 1; break;
    case IndexRange::OneValue: lo = hi = between(-2, n + 2); break;
    case IndexRange::Around: break;
  }
  UOp idxbuf = buffer(ir::dtypes::Int32, kInSize, false, lo, hi);
  UOp ebuf = buffer(dt, 2 * n + 2, false);
  store_per_outer(dt, [&](UOp i) {
    UOp r = range(I(n), ir::AxisType::Reduce);
    UOp idx = to_index(load(idxbuf, i));
    UOp e;
    switch (option(kGathered)) {
      case Gathered::Load: e = load(ebuf, r); break;
      case Gathered::StridedLoad: e = load(ebuf, add(mul(r, I(2)), I(1))); break;
      case Gathered::ScaledRange: e = mul(cast(dt, r), exact_const(dt)); break;
      case Gathered::LoadPlusValue: e = add(load(ebuf, r), range_free(dt, i)); break;
    }
    UOp cond;
    const int64_t k = between(-2, 2);
    switch (option(kGatherConds)) {
      case GatherCond::IndexNe: cond = ne(idx, r); break;
      case GatherCond::RangeNe: cond = ne(r, idx); break;
      case GatherCond::OffsetIndexNe: cond = ne(add(idx, I(k)), r); break;
      case GatherCond::OffsetRangeNe: cond = ne(add(r, I(k)), idx); break;
      case GatherCond::OffsetIndexLt: cond = lt(add(idx, I(k)), r); break;
    }
    UOp v =
        chance(w_.p_gather_ne_where) ? where(cond, zero(dt), e) : where(bnot(cond), e, zero(dt));
    std::vector<UOp> rs{r};
    if (chance(w_.p_gather_second_range))
      rs.push_back(range(I(between(1, 3)), ir::AxisType::Reduce));
    return reduce(Op::Add, v, rs);
  });
}

}  // namespace uopfuzz::gen
