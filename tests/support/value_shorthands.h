/** \file Value shorthands for the scalar semantics tables (tests/oracle_semantics*_test.cpp):
 * I/U/F/B, the canonical NaN, infinity, each integer type's limits and exact powers of two. */
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/value.h"

namespace uopfuzz::ir::semantics_test {

// ---------------------------------------------------------------------------------
// Value shorthands. Float arguments are always exactly representable in their dtype.

inline Value I(int64_t v) {
  return Value::of_int(v);
}
inline Value U(uint64_t v) {
  return Value::of_uint(v);
}
inline Value F(double v) {
  return Value::of_float(v);
}
inline Value B(bool v) {
  return Value::of_int(v ? 1 : 0);
}

// The one canonical NaN: the default positive quiet NaN of a double.
inline constexpr uint64_t kCanonicalNanBits = 0x7ff8000000000000ull;
inline Value nan_v() {
  return Value::of_uint(kCanonicalNanBits);
}
inline const Value kNaN = nan_v();
inline const double kInf = std::numeric_limits<double>::infinity();

inline constexpr int64_t I8MIN = -128, I8MAX = 127;
inline constexpr int64_t I16MIN = -32768, I16MAX = 32767;
inline constexpr int64_t I32MIN = -2147483648LL, I32MAX = 2147483647LL;
inline constexpr int64_t I64MIN = std::numeric_limits<int64_t>::min();
inline constexpr int64_t I64MAX = std::numeric_limits<int64_t>::max();
inline constexpr uint64_t U8MAX = 255, U16MAX = 65535, U32MAX = 4294967295ull;
inline constexpr uint64_t U64MAX = std::numeric_limits<uint64_t>::max();

inline double p2(int e) {
  return std::ldexp(1.0, e);
}  // 2^e, exact

}  // namespace uopfuzz::ir::semantics_test
