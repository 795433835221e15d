// The movement family: a movement op (MovementWeights) of a tensor whose shape is derived
// backwards from the position's: RESHAPE from another factorisation, PERMUTE from the
// inverse order, EXPAND from 1s, PAD from a smaller shape, SHRINK from a larger one, FLIP.
// Quantized positions draw it too (never a PAD).
#include <algorithm>

#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

UOp TensorBuilder::movement(DType dt, const Shape& s, int depth) {
  const MovementWeights& w = p_.movement;
  const bool any_dim = !s.empty();
  const bool two_dims = s.size() >= 2;  // a PERMUTE that is not the identity
  const bool any_wide = std::any_of(s.begin(), s.end(), [](int64_t d) { return d != 1; });
  const bool any_nonempty = std::any_of(s.begin(), s.end(), [](int64_t d) { return d > 0; });
  switch (e_.pick({w.reshape, two_dims ? w.permute : 0.0, any_wide ? w.expand : 0.0,
                   any_nonempty && !dt.is_quantized() ? w.pad : 0.0, any_dim ? w.shrink : 0.0,
                   any_dim ? w.flip : 0.0})) {
    case 0: {
      Shape from = refactor(numel(s));
      if (from == s) from = refactor(numel(s));
      return tensor::reshape(ctx_, fill(dt, from, depth), s);
    }
    case 1: {
      std::vector<int64_t> order = permutation(s.size());
      Shape from(s.size());
      for (size_t i = 0; i < s.size(); ++i) from[static_cast<size_t>(order[i])] = s[i];
      return tensor::permute(ctx_, fill(dt, from, depth), std::move(order));
    }
    case 2: {
      Shape from = s;
      std::vector<size_t> wide;
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] != 1) wide.push_back(i);
      from[wide[e_.below(wide.size())]] = 1;
      for (size_t i : wide)
        if (e_.chance(p_.p_expand_more_dims)) from[i] = 1;
      return tensor::expand(ctx_, fill(dt, from, depth), s);
    }
    case 3: {
      // A padded dim keeps a source element unless an empty source is drawn (p_zero_dim).
      const int64_t keep = e_.chance(zero_dim()) ? 0 : 1;
      Pads pads(s.size(), {0, 0});
      Shape from = s;
      std::vector<size_t> paddable;
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] > keep) paddable.push_back(i);
      if (paddable.empty()) return {};
      const size_t must = paddable[e_.below(paddable.size())];
      for (size_t i : paddable) {
        if (i != must && !e_.chance(p_.p_pad_more_dims)) continue;
        const int64_t total = e_.between(1, std::min<int64_t>(s[i] - keep, p_.max_pad));
        int64_t before = coin() ? total : 0;
        if (e_.chance(p_.p_pad_both)) before = e_.between(0, total);
        pads[i] = {before, total - before};
        from[i] = s[i] - total;
      }
      return tensor::pad(ctx_, fill(dt, from, depth), std::move(pads));
    }
    case 4: {
      Pads cuts(s.size());
      Shape from = s;
      const size_t must = e_.below(s.size());
      for (size_t i = 0; i < s.size(); ++i) {
        const int64_t extra =
            i == must || e_.chance(p_.p_shrink_more_dims) ? e_.between(1, p_.max_shrink) : 0;
        const int64_t begin = e_.between(0, extra);
        from[i] = s[i] + extra;
        cuts[i] = {begin, begin + s[i]};
      }
      if (!fits(from, s)) return {};
      return tensor::shrink(ctx_, fill(dt, from, depth), std::move(cuts));
    }
    default: return tensor::flip(ctx_, fill(dt, s, depth), some_axes(s.size()));
  }
}

}  // namespace uopfuzz::gen
