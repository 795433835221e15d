/** \file Quantized types and the one definition of QUANTIZE, DEQUANTIZE and REQUANTIZE.
 *
 * A quantized dtype is a storage integer (int8, uint8, int16, int32) with a scale s > 0
 * and a zero point z inside the storage range; the stored integer q means the real
 * s * (q - z). SEMANTICS.md ("Quantized types") is the definition in words, with the
 * seed's examples worked through; these functions are that definition in code. The
 * oracle, the constant folder and the backends' own tests use them, and every backend
 * computes the same integers: the fixed-point multiplier is decided at compile time from
 * the two scales, so a backend needs only int64 arithmetic. The multiplier is gemmlowp's
 * (a Q31 m0 and a power of two); the rounding is one rounding of the exact fixed-point
 * product, ties away from zero (gemmlowp rounds twice, so 1 * 0.25 gives 1 there).
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/dtype.h"

namespace uopfuzz::ir {

/// What a quantized DType carries besides its storage type.
struct QuantParams {
  ScalarType storage = ScalarType::Int8;
  double scale = 1.0;
  int64_t zero_point = 0;
};

/// The parameters of quantized `dt` (dt.is_quantized() must hold).
const QuantParams& quant_params(DType dt);

/// Why `dt` is not a valid quantized type (scale <= 0, NaN or inf; a zero point outside
/// the storage range; a storage type other than int8/uint8/int16/int32), or nullopt.
std::optional<std::string> quant_type_error(DType dt);

/// The fixed-point form of the real multiplier M = s_in / s_out (computed in double):
/// M ~ m0 * 2^-31 * 2^(left - right), m0 in [2^30, 2^31) (SEMANTICS.md, "REQUANTIZE").
/// The product x * m0 is divided by 2^(31 - left + right), never shifted left first, so
/// it fits int64 for every int32 x.
struct Requantizer {
  int32_t m0 = 0;
  int left = 0;   ///< max(e, 0), at most 31
  int right = 0;  ///< max(-e, 0), at most 31
  /// The rounding shift: x * m0 is divided by 2^shift() (0..62).
  int shift() const { return 31 - left + right; }
};

/// The requantizer from scale `s_in` to `s_out`, or why none exists ("unsupported: ...":
/// the ratio is not finite, or its exponent is outside [-31, 31]).
std::optional<Requantizer> requantizer(double s_in, double s_out, std::string* why = nullptr);

/// Whether REQUANTIZE `from` -> `to` is defined for every input, where a centered input is
/// a sum of `terms` values q - z_from (1 for the op itself; the element count for a
/// quantized REDUCE_AXIS ADD, which accumulates in int32). Returns "unsupported: ..." when
/// the centered value could leave int32 (e.g. qint32 with z != 0), or no requantizer
/// exists, or nullopt when the definition holds for every input.
std::optional<std::string> requantize_unsupported(DType from, DType to, int64_t terms = 1);

/// p / 2^n rounded to the nearest integer, ties away from zero (0 <= n <= 62, |p| < 2^62).
int64_t rounding_shift_right(int64_t p, int n);

/// The requantize of a centered value x (= q_in - z_in, or a sum of them), which must fit
/// int32 (requantize_unsupported says when it might not): with p = x * m0 (exact in
/// int64), returns clamp(rounding_shift_right(p, r.shift()) + z_out, qmin, qmax) for
/// output type `to`.
int64_t requantize_centered(int64_t x, const Requantizer& r, DType to);

/// QUANTIZE of the float `x` to `to`: NaN gives z; otherwise clamp(round(x / s) + z) with
/// x / s one IEEE double division and round() half away from zero.
int64_t quantize_value(double x, DType to);

/// DEQUANTIZE of stored integer `q` of type `from` to float dtype `to`: the double product
/// s * (q - z) (one IEEE rounding), then rounded to `to` (nearest, ties to even).
double dequantize_value(int64_t q, DType from, DType to);

}  // namespace uopfuzz::ir
