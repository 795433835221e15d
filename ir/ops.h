/** \file The op enum and its registry queries, all generated from ops.def. */
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace uopfuzz::ir {

enum class Op : uint8_t {
#define OP(e, name, min_src, max_src, groups) e,
#include "ir/ops.def"
#undef OP
};

/// Op groups (bit flags) as named in ops.def.
enum OpGroup : uint32_t {
  Leaf = 1u << 0,
  Structural = 1u << 1,
  Alu = 1u << 2,
  Unary = 1u << 3,
  Binary = 1u << 4,
  Ternary = 1u << 5,
  Commutative = 1u << 6,
  Comparison = 1u << 7,
  IntOnly = 1u << 8,
  FloatOnly = 1u << 9,
  Tensor = 1u << 10,
  Schedule = 1u << 11,
};

inline constexpr int kOpCount = 0
#define OP(e, name, min_src, max_src, groups) +1
#include "ir/ops.def"
#undef OP
    ;

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);
int op_min_src(Op op);
int op_max_src(Op op);  ///< -1: unbounded
uint32_t op_groups(Op op);
inline bool op_in(Op op, uint32_t group) {
  return (op_groups(op) & group) != 0;
}

/// RANGE axis types (axis_types.def).
enum class AxisType : uint8_t {
#define AXIS(e, name) e,
#include "ir/axis_types.def"
#undef AXIS
};
std::string_view axis_type_name(AxisType t);
std::optional<AxisType> parse_axis_type(std::string_view name);

}  // namespace uopfuzz::ir
