#include "ir/dtype.h"

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
  return kNames[static_cast<int>(scalar_)];
}

int64_t DType::int_min() const {
  switch (kind()) {
    case DTypeKind::Bool:
    case DTypeKind::Unsigned: return 0;
    case DTypeKind::Signed:
      return bits() == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits() - 1));
    case DTypeKind::Index: return std::numeric_limits<int64_t>::min();
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
    case DTypeKind::Void:
    case DTypeKind::Float: return 0;  // no integer range
  }
  return 0;
}

std::optional<DType> DType::parse(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == name) return DType(static_cast<ScalarType>(i));
  return std::nullopt;
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
