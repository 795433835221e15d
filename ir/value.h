/** \file Scalar values and typed buffers, in the canonical form SEMANTICS.md defines. */
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace uopfuzz::ir {

/// One scalar in canonical form for its dtype:
///  - signed ints and index: the value, sign-extended to 64 bits (`i`);
///  - unsigned ints: the value, zero-extended (`u`);
///  - quantized types: the stored integer, as its storage type holds it;
///  - bool: 0 or 1 (`i`);
///  - floats (float16/32/64): the value as a double (`f`), always exactly representable
///    in the dtype (a float16 or float32 result is rounded to its dtype before stored).
union Value {
  int64_t i;
  uint64_t u;
  double f;
  static Value of_int(int64_t v) {
    Value x;
    x.i = v;
    return x;
  }
  static Value of_uint(uint64_t v) {
    Value x;
    x.u = v;
    return x;
  }
  static Value of_float(double v) {
    Value x;
    x.f = v;
    return x;
  }
};

/// Bitwise identity of two canonical values (floats compare by bits, so NaN == NaN
/// and -0 != +0): the comparison the differential check and expected outputs use.
inline bool same_bits(Value a, Value b) {
  return a.u == b.u;
}

/// Round a double to the nearest float16 value (ties to even), returned as a double.
double round_to_half(double v);
/// float16 storage bits <-> value.
uint16_t half_bits(double v);
double half_value(uint16_t bits);

/// Canonicalize a raw integer for `dt`: wrap to its width and extend (bool: != 0).
Value wrap_int(DType dt, int64_t raw);
/// Canonicalize a double for float dtype `dt` (round to its precision).
Value round_float(DType dt, double v);

/// A kernel buffer: `count` elements of `dtype`, stored in the natural little-endian
/// binary layout (bool: one byte 0/1; index: 8 bytes), so backends can share it as is.
class Buffer {
 public:
  Buffer() = default;
  Buffer(DType dtype, size_t count) : dtype_(dtype), bytes_(count * dtype.bytes(), 0) {}

  DType dtype() const { return dtype_; }
  size_t size() const { return dtype_.bytes() ? bytes_.size() / dtype_.bytes() : 0; }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }
  size_t byte_size() const { return bytes_.size(); }

  Value get(size_t i) const;
  void set(size_t i, Value v);

  friend bool operator==(const Buffer& a, const Buffer& b) {
    return a.dtype_ == b.dtype_ && a.bytes_ == b.bytes_;
  }

 private:
  DType dtype_;
  std::vector<uint8_t> bytes_;
};

/// Printed form of a value, as the .uop format and JSON spell it: integers in decimal,
/// floats in the shortest form that reads back to the same value, `nan`, `inf`, `-inf`,
/// bools `true`/`false`.
std::string format_value(DType dt, Value v);

}  // namespace uopfuzz::ir
