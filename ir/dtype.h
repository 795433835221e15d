/** \file Element types of the IR: a scalar type from dtypes.def plus room for quantization. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace uopfuzz::ir {

enum class ScalarType : uint8_t {
#define DTYPE(e, name, bytes, kind) e,
#include "ir/dtypes.def"
#undef DTYPE
};

enum class DTypeKind : uint8_t { Void, Bool, Signed, Unsigned, Float, Index };

namespace detail {
// Kind and size by ScalarType, here rather than in dtype.cpp so that kind() and bytes()
// inline: the oracle and the rules ask them for nearly every node they touch.
inline constexpr DTypeKind kKindOf[] = {
#define DTYPE(e, name, bytes, kind) DTypeKind::kind,
#include "ir/dtypes.def"
#undef DTYPE
};
inline constexpr int kBytesOf[] = {
#define DTYPE(e, name, bytes, kind) bytes,
#include "ir/dtypes.def"
#undef DTYPE
};
}  // namespace detail

/// A value type. Today it is a scalar type; `quant_` is the reserved slot for
/// quantized int8/uint8 types that carry a scale and zero point (a future entry in a
/// quantization table; 0 = plain). Adding them changes this class, the printer and
/// the parser's type spelling, but no node layout: a DType stays a 4-byte value.
class DType {
 public:
  constexpr DType() = default;
  constexpr DType(ScalarType s) : scalar_(s) {}  // NOLINT: implicit by design

  constexpr ScalarType scalar() const { return scalar_; }
  constexpr uint16_t quant() const { return quant_; }

  constexpr DTypeKind kind() const { return detail::kKindOf[static_cast<int>(scalar_)]; }
  /// Storage size of one element (index: 8, void: 0).
  constexpr int bytes() const { return detail::kBytesOf[static_cast<int>(scalar_)]; }
  int bits() const { return bytes() * 8; }
  bool is_void() const { return kind() == DTypeKind::Void; }
  bool is_bool() const { return kind() == DTypeKind::Bool; }
  bool is_float() const { return kind() == DTypeKind::Float; }
  bool is_index() const { return kind() == DTypeKind::Index; }
  /// Signed, unsigned or index.
  bool is_int() const {
    auto k = kind();
    return k == DTypeKind::Signed || k == DTypeKind::Unsigned || k == DTypeKind::Index;
  }
  bool is_signed() const { return kind() == DTypeKind::Signed || kind() == DTypeKind::Index; }
  /// Integer range of the dtype (bool: 0..1). Unsigned 64-bit max is reported as INT64_MAX
  /// here; callers that need the full range use the unsigned view.
  int64_t int_min() const;
  int64_t int_max() const;

  std::string_view name() const;
  static std::optional<DType> parse(std::string_view name);

  friend constexpr bool operator==(DType a, DType b) {
    return a.scalar_ == b.scalar_ && a.quant_ == b.quant_;
  }

 private:
  ScalarType scalar_ = ScalarType::Void;
  uint16_t quant_ = 0;
};

namespace dtypes {
#define DTYPE(e, name, bytes, kind) inline constexpr DType e{ScalarType::e};
#include "ir/dtypes.def"
#undef DTYPE
}  // namespace dtypes

/// Every dtype in registry order (for tests and generators).
const std::vector<DType>& all_dtypes();

}  // namespace uopfuzz::ir
