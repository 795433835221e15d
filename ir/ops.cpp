#include "ir/ops.h"

#include <iterator>

namespace uopfuzz::ir {
namespace {

struct OpInfo {
  std::string_view name;
  int min_src, max_src;
  uint32_t groups;
};

constexpr OpInfo kOps[] = {
#define OP(e, name, min_src, max_src, groups) {name, min_src, max_src, groups},
#include "ir/ops.def"
#undef OP
};

constexpr std::string_view kAxisNames[] = {
#define AXIS(e, name) name,
#include "ir/axis_types.def"
#undef AXIS
};

}  // namespace

std::string_view op_name(Op op) {
  return kOps[static_cast<int>(op)].name;
}
int op_min_src(Op op) {
  return kOps[static_cast<int>(op)].min_src;
}
int op_max_src(Op op) {
  return kOps[static_cast<int>(op)].max_src;
}
uint32_t op_groups(Op op) {
  return kOps[static_cast<int>(op)].groups;
}

std::optional<Op> parse_op(std::string_view name) {
  for (size_t i = 0; i < std::size(kOps); ++i)
    if (kOps[i].name == name) return static_cast<Op>(i);
  return std::nullopt;
}

std::string_view axis_type_name(AxisType t) {
  return kAxisNames[static_cast<int>(t)];
}

std::optional<AxisType> parse_axis_type(std::string_view name) {
  for (size_t i = 0; i < std::size(kAxisNames); ++i)
    if (kAxisNames[i] == name) return static_cast<AxisType>(i);
  return std::nullopt;
}

}  // namespace uopfuzz::ir
