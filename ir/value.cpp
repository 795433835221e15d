#include "ir/value.h"

#include <fmt/format.h>

#include <cmath>

namespace uopfuzz::ir {

uint16_t half_bits(double v) {
  // Round the double to float first would double-round; instead work from the double.
  uint64_t d;
  std::memcpy(&d, &v, 8);
  uint16_t sign = static_cast<uint16_t>((d >> 48) & 0x8000);
  if (std::isnan(v)) return sign | 0x7e00;
  double a = std::fabs(v);
  if (std::isinf(v) || a >= 65520.0) return sign | 0x7c00;  // 65520 rounds up to inf
  if (a < std::ldexp(1.0, -25)) {
    // Below half the smallest subnormal (2^-24): rounds to zero; exactly 2^-25 ties to even (0).
    return sign;
  }
  int exp;
  std::frexp(a, &exp);  // a = m * 2^exp, m in [0.5, 1)
  int e = exp - 1;      // a = 1.x * 2^e
  if (e < -14) {
    // Subnormal: units of 2^-24.
    double q = a * std::ldexp(1.0, 24);
    double r = std::nearbyint(q);            // default rounding mode: ties to even
    return sign | static_cast<uint16_t>(r);  // r == 1024 becomes the smallest normal, correctly
  }
  double scaled = a * std::ldexp(1.0, 10 - e);  // in [1024, 2048)
  double r = std::nearbyint(scaled);
  uint32_t mant = static_cast<uint32_t>(r);
  int biased = e + 15;
  if (mant == 2048) {
    mant = 1024;
    ++biased;
  }
  if (biased >= 31) return sign | 0x7c00;
  return sign | static_cast<uint16_t>((biased << 10) | (mant - 1024));
}

double half_value(uint16_t bits) {
  int sign = bits >> 15;
  int exp = (bits >> 10) & 0x1f;
  int mant = bits & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);
  } else if (exp == 31) {
    if (mant) return std::nan("");  // every NaN pattern, either sign, is the one canonical NaN
    v = INFINITY;
  } else {
    v = std::ldexp(static_cast<double>(mant + 1024), exp - 25);
  }
  return sign ? -v : v;
}

double round_to_half(double v) {
  return half_value(half_bits(v));
}

Value wrap_int(DType dt, int64_t raw) {
  switch (dt.kind()) {
    case DTypeKind::Bool: return Value::of_int(raw != 0);
    case DTypeKind::Index: return Value::of_int(raw);
    case DTypeKind::Signed: {
      int b = dt.bits();
      if (b == 64) return Value::of_int(raw);
      uint64_t m = (uint64_t{1} << b) - 1;
      uint64_t u = static_cast<uint64_t>(raw) & m;
      if (u >> (b - 1)) u |= ~m;  // sign-extend
      return Value::of_int(static_cast<int64_t>(u));
    }
    case DTypeKind::Unsigned: {
      int b = dt.bits();
      uint64_t u = static_cast<uint64_t>(raw);
      if (b < 64) u &= (uint64_t{1} << b) - 1;
      return Value::of_uint(u);
    }
    case DTypeKind::Quantized: return wrap_int(dt.storage(), raw);  // the stored integer
    case DTypeKind::Void:
    case DTypeKind::Float: return Value::of_int(0);  // not an integer dtype
  }
  return Value::of_int(0);
}

Value round_float(DType dt, double v) {
  if (std::isnan(v)) v = std::nan("");  // one canonical NaN: bit-compare stays meaningful
  switch (dt.scalar()) {
    case ScalarType::Float16: return Value::of_float(round_to_half(v));
    case ScalarType::Float32: return Value::of_float(static_cast<float>(v));
    case ScalarType::Float64: return Value::of_float(v);
    // Not float dtypes: the value is kept as it is.
    case ScalarType::Void:
    case ScalarType::Bool:
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64:
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
    case ScalarType::Index: return Value::of_float(v);
  }
  return Value::of_float(v);
}

Value Buffer::get(size_t i) const {
  const uint8_t* p = bytes_.data() + i * dtype_.bytes();
  switch (dtype_.kind()) {
    case DTypeKind::Float:
      switch (dtype_.bytes()) {
        case 2: {
          uint16_t h;
          std::memcpy(&h, p, 2);
          return Value::of_float(half_value(h));
        }
        case 4: {
          float f;
          std::memcpy(&f, p, 4);
          return round_float(dtype_, f);
        }
        default: {
          double d;
          std::memcpy(&d, p, 8);
          return round_float(dtype_, d);
        }
      }
    case DTypeKind::Void:
    case DTypeKind::Bool:
    case DTypeKind::Signed:
    case DTypeKind::Unsigned:
    case DTypeKind::Index:
    case DTypeKind::Quantized: {
      uint64_t raw = 0;
      std::memcpy(&raw, p, dtype_.bytes());  // little-endian host
      return wrap_int(dtype_, static_cast<int64_t>(raw));
    }
  }
  return Value::of_int(0);
}

void Buffer::set(size_t i, Value v) {
  uint8_t* p = bytes_.data() + i * dtype_.bytes();
  switch (dtype_.kind()) {
    case DTypeKind::Float:
      switch (dtype_.bytes()) {
        case 2: {
          uint16_t h = half_bits(v.f);
          std::memcpy(p, &h, 2);
          return;
        }
        case 4: {
          float f = static_cast<float>(v.f);
          std::memcpy(p, &f, 4);
          return;
        }
        default: std::memcpy(p, &v.f, 8); return;
      }
    case DTypeKind::Void:
    case DTypeKind::Bool:
    case DTypeKind::Signed:
    case DTypeKind::Unsigned:
    case DTypeKind::Index:
    case DTypeKind::Quantized: std::memcpy(p, &v.u, dtype_.bytes()); return;
  }
}

std::string format_value(DType dt, Value v) {
  switch (dt.kind()) {
    case DTypeKind::Bool: return v.i ? "true" : "false";
    case DTypeKind::Unsigned: return fmt::format("{}", v.u);
    case DTypeKind::Float: {
      if (std::isnan(v.f)) return "nan";
      if (std::isinf(v.f)) return v.f > 0 ? "inf" : "-inf";
      // Shortest round-trip form at the dtype's own precision.
      if (dt.bytes() == 8) return fmt::format("{}", v.f);
      return fmt::format("{}", static_cast<float>(v.f));
    }
    case DTypeKind::Quantized: return format_value(dt.storage(), v);  // the stored integer
    case DTypeKind::Void:
    case DTypeKind::Signed:
    case DTypeKind::Index: return fmt::format("{}", v.i);
  }
  return fmt::format("{}", v.i);
}

}  // namespace uopfuzz::ir
