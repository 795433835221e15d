#include "gen/quant_types.h"

#include <array>
#include <vector>

#include "ir/quant.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {

// Scales of a few int8 models (0.03, 0.12 as in the seed), and powers of two. A tie partner
// multiplies one by 2^k, exact in double, so the menu stays finite (13 * 5 scales).
constexpr std::array<double, 13> kScales = {0.0078125, 0.015625, 0.03, 0.04, 0.05, 0.06, 0.08,
                                            0.1,       0.12,     0.25, 0.5,  1.0,  2.0};
constexpr std::array<double, 4> kTieFactors = {0.25, 0.5, 2.0, 4.0};

// Zero points: small ones and the storage range's ends (q - z then spans the whole width).
constexpr std::array<int64_t, 9> kInt8Zeros = {1, -1, 3, 7, -5, 10, -128, 127, 100};
constexpr std::array<int64_t, 6> kUInt8Zeros = {3, 128, 127, 255, 10, 1};
constexpr std::array<int64_t, 6> kInt16Zeros = {7, -300, 1000, -32768, 32767, 1};

ScalarType draw_storage(Entropy& e, const QuantWeights& w) {
  constexpr std::array<ScalarType, 4> s = {ScalarType::Int8, ScalarType::UInt8, ScalarType::Int16,
                                           ScalarType::Int32};
  return s[e.pick({w.int8, w.uint8, w.int16, w.int32})];
}

int64_t draw_zero(Entropy& e, const QuantWeights& w, ScalarType storage) {
  if (storage == ScalarType::Int32 || !e.chance(w.p_zero_point)) return 0;
  switch (storage) {
    case ScalarType::Int8: return kInt8Zeros[e.below(kInt8Zeros.size())];
    case ScalarType::UInt8: return kUInt8Zeros[e.below(kUInt8Zeros.size())];
    case ScalarType::Int16: return kInt16Zeros[e.below(kInt16Zeros.size())];
    case ScalarType::Void:
    case ScalarType::Index:
    case ScalarType::Bool:
    case ScalarType::Int32:
    case ScalarType::Int64:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64: return 0;  // not storage types (int32: zero point 0)
  }
  return 0;
}

double draw_scale(Entropy& e) {
  return kScales[e.below(kScales.size())];
}

}  // namespace

DType draw_quant_type_of(Entropy& e, const QuantWeights& w, DType storage_like) {
  const ScalarType storage = storage_like.scalar();
  const double scale = draw_scale(e);
  return DType::quantized(storage, scale, draw_zero(e, w, storage));
}

DType draw_quant_type(Entropy& e, const QuantWeights& w) {
  return draw_quant_type_of(e, w, DType(draw_storage(e, w)));
}

DType draw_quant_partner(Entropy& e, const QuantWeights& w, DType first) {
  const double s = quant_params(first).scale;
  std::vector<double> smaller, larger;
  for (double c : kScales) {
    if (c < s) smaller.push_back(c);
    if (c > s) larger.push_back(c);
  }
  const size_t how = e.pick({w.tie, smaller.empty() ? 0.0 : w.below, larger.empty() ? 0.0 : w.above,
                             w.same_scale, w.identical});
  if (how == 4) return first;
  const ScalarType storage = draw_storage(e, w);
  double scale = s;
  switch (how) {
    case 0: scale = s * kTieFactors[e.below(kTieFactors.size())]; break;
    case 1: scale = smaller[e.below(smaller.size())]; break;
    case 2: scale = larger[e.below(larger.size())]; break;
    default: break;  // the same scale
  }
  return DType::quantized(storage, scale, draw_zero(e, w, storage));
}

DType draw_requantize_source(Entropy& e, const QuantWeights& w, DType to, int64_t terms) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const DType from = draw_quant_partner(e, w, to);
    if (!requantize_unsupported(from, to, terms)) return from;
  }
  // The same scale with int8 storage: M = 1 and |q - z| <= 255 per term.
  const DType narrow = DType::quantized(ScalarType::Int8, quant_params(to).scale, 0);
  return requantize_unsupported(narrow, to, terms) ? to : narrow;
}

}  // namespace uopfuzz::gen
