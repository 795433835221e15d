/** \file Element types of the IR: a scalar type from dtypes.def, or a quantized type (a
 * storage integer with a scale and zero point; ir/quant.h). */
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

/// Quantized: a storage integer that means scale * (q - zero_point) (ir/quant.h). It is not
/// an integer kind: ALU ops other than the conversions do not take it (SEMANTICS.md).
enum class DTypeKind : uint8_t { Void, Bool, Signed, Unsigned, Float, Index, Quantized };

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
/// A quantized type's printed name, by table entry (ir/quant.cpp).
std::string_view quant_name(uint32_t id);
}  // namespace detail

/// A value type: a scalar type, or a quantized type. `quant_` is the quantized type's entry
/// in the process-wide table of quantized types (ir/quant.cpp; 0 = plain), so a DType
/// stays a 4-byte value (3 bytes of entry number) and two DTypes are equal exactly when storage,
/// scale and zero point are. The entry number is per process: print a type by name(), never by
/// number.
class DType {
 public:
  constexpr DType() = default;
  constexpr DType(ScalarType s) : scalar_(s) {}  // NOLINT: implicit by design

  /// The quantized type storage<scale, zero_point>, interned. Any values are accepted
  /// here (the parser and builders make them); quant_type_error says which are valid and
  /// the verifier refuses the rest.
  static DType quantized(ScalarType storage, double scale, int64_t zero_point);

  /// The storage scalar type (for a quantized type, its integer; else the type itself).
  constexpr ScalarType scalar() const { return scalar_; }
  constexpr uint32_t quant() const { return quant_; }
  constexpr bool is_quantized() const { return quant_ != 0; }
  /// The plain type a value is stored as: the storage integer of a quantized type.
  constexpr DType storage() const { return DType(scalar_); }

  constexpr DTypeKind kind() const {
    return quant_ ? DTypeKind::Quantized : detail::kKindOf[static_cast<int>(scalar_)];
  }
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
  /// Integer range of the dtype (bool: 0..1; quantized: its storage's). Unsigned 64-bit max
  /// is reported as INT64_MAX here; callers that need the full range use the unsigned view.
  int64_t int_min() const;
  int64_t int_max() const;

  /// "int8", or a quantized type as the .uop format spells it: "qint8<0.03,0>".
  std::string_view name() const;
  /// A name as name() prints it; quantized types are q<storage><scale,zero_point> with the
  /// scale any decimal or exponent form.
  static std::optional<DType> parse(std::string_view name);

  friend constexpr bool operator==(DType a, DType b) {
    return a.scalar_ == b.scalar_ && a.quant_ == b.quant_;
  }

 private:
  constexpr DType(ScalarType s, uint32_t quant) : scalar_(s), quant_(quant) {}
  ScalarType scalar_ : 8 = ScalarType::Void;
  uint32_t quant_ : 24 = 0;  // 2^24 quantized types per process (ir/quant.cpp)
};
static_assert(sizeof(DType) == 4);

namespace dtypes {
#define DTYPE(e, name, bytes, kind) inline constexpr DType e{ScalarType::e};
#include "ir/dtypes.def"
#undef DTYPE
}  // namespace dtypes

/// Every plain dtype in registry order (for tests and generators; no quantized types).
const std::vector<DType>& all_dtypes();

}  // namespace uopfuzz::ir
