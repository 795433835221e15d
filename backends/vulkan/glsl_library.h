/** \file The GLSL helper library the Vulkan renderer pastes into shaders: double-precision TRUNC,
 * EXP2, LOG2, SIN and 64-bit compares. */
#pragma once

namespace uopfuzz::backends::vulkan {

/// u_trunc(double): TRUNC of a double in integer arithmetic (lavapipe's builtin can be wrong);
/// the other double routines call it, so it is pasted before them.
extern const char* const kTruncMath;
/// u_round_to_bits(uint64_t, int p): an integer rounded to p significant bits (ties to even),
/// as an exact double: integer -> float conversions that lavapipe cannot fold wrongly.
extern const char* const kRoundToBits;
/// u_exp2(double) (and u_scale2): EXP2 in double, about 1 ulp.
extern const char* const kExp2Math;
/// u_log2(double): LOG2 in double, about 1 ulp.
extern const char* const kLog2Math;
/// u_sin(double): SIN in double, Cody-Waite below 2^31 and Payne-Hanek above.
extern const char* const kSinMath;
/// u_lt_s64, u_lt_u64, u_eq_s64, u_eq_u64: 64-bit compares through 32-bit halves (every shader has
/// them).
extern const char* const kCompare64;

}  // namespace uopfuzz::backends::vulkan
