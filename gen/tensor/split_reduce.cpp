// Split reduce's shapes (schedule/split_reduce.h): the split-candidate family, a
// REDUCE_AXIS of large reduced dims next to its output (dims that factor, primes that do
// not, broadcast ones), and the large reduction a program may start with (32,768+ elements
// into each output element).
#include <algorithm>

#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

UOp TensorBuilder::split_candidate(DType dt, const Shape& s, int depth) {
  if (static_cast<int>(s.size()) >= p_.max_rank) return {};
  const int want = static_cast<int>(e_.between(1, std::max(p_.split_max_reduced, 1)));
  Shape from = s;
  std::vector<int64_t> axes;
  int64_t combined = 1;
  for (int k = 0; k < want && static_cast<int>(from.size()) < p_.max_rank; ++k) {
    const int64_t extent = split_extent();
    if (numel(from) * extent > std::max(p_.split_max_numel, numel(s))) break;
    const auto at = static_cast<int64_t>(e_.below(from.size() + 1));
    from.insert(from.begin() + at, extent);
    for (int64_t& a : axes)
      if (a >= at) ++a;
    axes.push_back(at);
    combined *= extent;
  }
  if (axes.empty()) return {};
  std::sort(axes.begin(), axes.end());
  UOp x;
  if (e_.chance(p_.p_split_broadcast)) {
    Shape narrow = from;
    narrow[static_cast<size_t>(axes[e_.below(axes.size())])] = 1;
    x = tensor::expand(ctx_, fill(dt, narrow, depth), from);
  } else {
    x = fill(dt, from, depth);
  }
  UOp r = tensor::reduce_axis(ctx_, x, reduce_op(dt, combined), std::move(axes));
  return tensor::reshape(ctx_, r, s);
}

/// An extent of a reduced dim (SplitDimWeights): split reduce looks for a divisor in [8, 256].
int64_t TensorBuilder::split_extent() {
  static constexpr int64_t kFactorable[] = {16, 24, 32, 48, 64, 96, 128, 256};
  static constexpr int64_t kPrime[] = {17, 31, 37, 61};
  const SplitDimWeights& w = p_.split_dims;
  switch (e_.pick({w.factorable, w.prime, w.small})) {
    case 0: return option(kFactorable);
    case 1: return option(kPrime);
    default: return e_.between(2, p_.split_small_max);
  }
}

/// One output reducing 32,768+ elements into each element (split reduce's threshold).
UOp TensorBuilder::large_reduce() {
  static constexpr int64_t kLengths[] = {32768, 40000, 49152, 65536, 32771};
  // tinygrad's held-out sizes: 10^4..10^5
  static constexpr int64_t kRealistic[] = {10000, 12288, 20000, 50000, 99991, 100000};
  /// Where the reduced elements lie: after the kept rows, before them, or (a length that
  /// 16 divides) in two axes after them.
  enum class Layout : uint8_t { RowsFirst, RowsLast, RowsFirstTwoAxes };
  static constexpr Layout kLayouts[] = {Layout::RowsFirst, Layout::RowsLast,
                                        Layout::RowsFirstTwoAxes};
  const DType dt = draw_dtype();
  const int64_t n = e_.chance(p_.p_large_realistic) ? option(kRealistic) : option(kLengths);
  const int64_t rows = e_.between(1, p_.large_max_rows);
  Shape from;
  std::vector<int64_t> axes;
  switch (option(kLayouts)) {
    case Layout::RowsFirst: from = {rows, n}, axes = {1}; break;
    case Layout::RowsLast: from = {n, rows}, axes = {0}; break;
    case Layout::RowsFirstTwoAxes:
      if (n % 16 == 0)
        from = {rows, 16, n / 16}, axes = {1, 2};
      else
        from = {rows, n}, axes = {1};
      break;
  }
  // Only ops defined for every operand: the oracle check never has to run over this output.
  UOp x = fill_total(dt, from, p_.large_max_nodes);
  return tensor::reduce_axis(ctx_, x, reduce_op(dt, n), std::move(axes));
}

}  // namespace uopfuzz::gen
