// TensorBuilder's dtypes and shapes: fresh ones for a position, and the shapes a family
// derives from a position's (another factorisation, a permutation, axes to flip).
#include <algorithm>
#include <numeric>

#include "gen/tensor/builder.h"

namespace uopfuzz::gen {

using namespace ir;

DType TensorBuilder::draw_dtype_except(DType not_this, bool floats) {
  std::vector<double> w;
  for (DType d : all_dtypes())
    w.push_back(d == not_this || (d.is_float() && !floats) ? 0.0 : p_.dtypes.of(d));
  return all_dtypes()[e_.pick(w)];
}

int64_t TensorBuilder::draw_extent() {
  if (e_.chance(zero_dim())) return 0;
  if (degenerate_ && e_.chance(p_.degenerate_one_dim)) return 1;
  const ExtentWeights& w = p_.extents;
  constexpr std::array<int64_t, 9> extents = {1, 2, 3, 4, 5, 6, 7, 11, 13};
  return extents[e_.pick(
      {w.one, w.two, w.three, w.four, w.five, w.six, w.seven, w.eleven, w.thirteen})];
}

int64_t TensorBuilder::reduce_extent() {
  const int64_t d = draw_extent();
  // A degenerate program reduces size-0 (the identity) and size-1 dims too.
  if (degenerate_ && d <= 1) return d;
  return d > 1 ? d : e_.between(2, p_.max_small_reduce_extent);
}

int64_t TensorBuilder::draw_rank() {
  return static_cast<int64_t>(
      std::min<size_t>(e_.pick({p_.rank0, p_.rank1, p_.rank2, p_.rank3, p_.rank4}),
                       static_cast<size_t>(std::max(p_.max_rank, 0))));
}

Shape TensorBuilder::draw_shape() {
  Shape s(static_cast<size_t>(draw_rank()));
  for (int64_t& d : s) d = draw_extent();
  for (size_t i = s.size(); i-- > 0 && numel(s) > p_.max_numel;) s[i] = 1;
  return s;
}

Shape TensorBuilder::refactor(int64_t n) {
  auto rank = static_cast<size_t>(draw_rank());
  if (n != 1 && rank == 0) rank = 1;
  Shape s(rank, 1);
  if (n == 0) {
    for (int64_t& d : s) d = std::max<int64_t>(draw_extent(), 1);
    s[e_.below(rank)] = 0;
    return s;
  }
  int64_t m = n;
  for (int64_t f = 2; f * f <= m; ++f)
    while (m % f == 0) {
      s[e_.below(rank)] *= f;
      m /= f;
    }
  if (m > 1) s[e_.below(rank)] *= m;
  return s;
}

std::vector<int64_t> TensorBuilder::permutation(size_t n) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = n; i-- > 1;) std::swap(order[i], order[e_.below(i + 1)]);
  if (n >= 2 && std::is_sorted(order.begin(), order.end())) std::swap(order[0], order[1]);
  return order;
}

std::vector<int64_t> TensorBuilder::some_axes(size_t rank) {
  const size_t must = e_.below(rank);
  std::vector<int64_t> axes;
  for (size_t i = 0; i < rank; ++i)
    if (i == must || e_.chance(p_.p_flip_more_axes)) axes.push_back(static_cast<int64_t>(i));
  return axes;
}

bool TensorBuilder::fits(const Shape& source, const Shape& given) const {
  return numel(source) <= std::max(p_.max_numel, numel(given));
}

bool TensorBuilder::is_all_ones(const Shape& s) {
  return std::all_of(s.begin(), s.end(), [](int64_t d) { return d == 1; });
}

size_t TensorBuilder::first_wide(const Shape& s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1) return i;
  return 0;
}

}  // namespace uopfuzz::gen
