/** \file The quantized types both generators draw: a storage integer, a scale from a finite
 * menu (the quantized type table is per process and bounded, ir/quant.cpp) and a zero point,
 * and a second type against a first so that REQUANTIZE between them is "not too normal":
 * scale ratios below and above 1, ratios that are powers of two (the definition's rounding
 * then meets exact ties), and identical types only rarely (QuantWeights). */
#pragma once

#include <cstdint>

#include "gen/entropy.h"
#include "gen/policy.h"
#include "ir/dtype.h"

namespace uopfuzz::gen {

/// A quantized type: storage by QuantWeights, a menu scale, a menu zero point (int32: 0,
/// so that q - z never leaves int32).
ir::DType draw_quant_type(Entropy& e, const QuantWeights& w);

/// A quantized type with the storage of `storage_like` (a quantized type or its storage
/// integer), any menu scale and zero point.
ir::DType draw_quant_type_of(Entropy& e, const QuantWeights& w, ir::DType storage_like);

/// A second type to pair with `first` (either side of a REQUANTIZE): its scale is `first`'s
/// times a power of two (tie), a smaller or larger menu scale, the same scale with another
/// zero point, or `first` itself, by QuantWeights.
ir::DType draw_quant_partner(Entropy& e, const QuantWeights& w, ir::DType first);

/// A REQUANTIZE source type for output `to` that the definition supports (with `terms`
/// centered values summed; ir::requantize_unsupported): a few partners are drawn, then `to`
/// itself (always supported for one term).
ir::DType draw_requantize_source(Entropy& e, const QuantWeights& w, ir::DType to,
                                 int64_t terms = 1);

}  // namespace uopfuzz::gen
