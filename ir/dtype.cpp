#include "ir/dtype.h"

#include <charconv>
#include <limits>

namespace uopfuzz::ir {
namespace {

// Names by ScalarType (kinds and sizes are in dtype.h, to inline).
constexpr std::string_view kNames[] = {
#define DTYPE(e, name, bytes, kind) name,
#include "ir/dtypes.def"
#undef DTYPE
};

}  // namespace

std::string_view DType::name() const {
  return quant_ ? detail::quant_name(quant_) : kNames[static_cast<int>(scalar_)];
}

int64_t DType::int_min() const {
  switch (kind()) {
    case DTypeKind::Bool:
    case DTypeKind::Unsigned: return 0;
    case DTypeKind::Signed:
      return bits() == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits() - 1));
    case DTypeKind::Index: return std::numeric_limits<int64_t>::min();
    case DTypeKind::Quantized: return storage().int_min();
    case DTypeKind::Void:
    case DTypeKind::Float: return 0;  // no integer range
  }
  return 0;
}

int64_t DType::int_max() const {
  switch (kind()) {
    case DTypeKind::Bool: return 1;
    case DTypeKind::Unsigned:
      return bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << bits()) - 1;
    case DTypeKind::Signed:
      return bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits() - 1)) - 1;
    case DTypeKind::Index: return std::numeric_limits<int64_t>::max();
    case DTypeKind::Quantized: return storage().int_max();
    case DTypeKind::Void:
    case DTypeKind::Float: return 0;  // no integer range
  }
  return 0;
}

std::optional<DType> DType::parse(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == name) return DType(static_cast<ScalarType>(i));
  // q<storage><scale,zero_point>: any storage name parses here, the verifier says which
  // storage types, scales and zero points are valid (quant_type_error).
  const size_t open = name.find('<'), comma = name.find(','), close = name.size() - 1;
  if (name.size() < 2 || name[0] != 'q' || open == std::string_view::npos ||
      comma == std::string_view::npos || comma < open || name[close] != '>')
    return std::nullopt;
  auto storage = parse(name.substr(1, open - 1));
  if (!storage || storage->quant_) return std::nullopt;
  std::string_view scale_text = name.substr(open + 1, comma - open - 1);
  std::string_view zero_text = name.substr(comma + 1, close - comma - 1);
  double scale = 0;
  int64_t zero_point = 0;
  auto [sp, se] = std::from_chars(scale_text.data(), scale_text.data() + scale_text.size(), scale);
  if (se != std::errc() || sp != scale_text.data() + scale_text.size()) return std::nullopt;
  auto [zp, ze] =
      std::from_chars(zero_text.data(), zero_text.data() + zero_text.size(), zero_point);
  if (ze != std::errc() || zp != zero_text.data() + zero_text.size()) return std::nullopt;
  return quantized(storage->scalar_, scale, zero_point);
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> all = {
#define DTYPE(e, name, bytes, kind) dtypes::e,
#include "ir/dtypes.def"
#undef DTYPE
  };
  return all;
}

}  // namespace uopfuzz::ir
