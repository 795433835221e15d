/** \file The op enum and its registry queries, all generated from ops.def. */
#pragma once

#include <bit>
#include <cassert>
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

/// An op's kind: the row macro that declares it in ops.def. Every op has exactly one, so
/// a switch over op_kind() lists five cases and stays exhaustive under -Werror=switch; a
/// function that treats a kind alike says so once, and switches over the per-kind enums
/// below where each op of a kind means something different.
enum class OpKind : uint8_t { Leaf, Structural, Alu, Tensor, Schedule };

/// The ops of each kind, in ops.def order (leaf_op(), alu_op(), ... convert).
enum class LeafOp : uint8_t {
#define OP(e, name, min_src, max_src, groups)
#define LEAF_OP(e, name, min_src, max_src, groups) e,
#include "ir/ops.def"
#undef LEAF_OP
#undef OP
};
enum class StructuralOp : uint8_t {
#define OP(e, name, min_src, max_src, groups)
#define STRUCTURAL_OP(e, name, min_src, max_src, groups) e,
#include "ir/ops.def"
#undef STRUCTURAL_OP
#undef OP
};
enum class AluOp : uint8_t {
#define OP(e, name, min_src, max_src, groups)
#define ALU_OP(e, name, min_src, max_src, fault, groups) e,
#include "ir/ops.def"
#undef ALU_OP
#undef OP
};
enum class TensorOp : uint8_t {
#define OP(e, name, min_src, max_src, groups)
#define TENSOR_OP(e, name, min_src, max_src, groups) e,
#include "ir/ops.def"
#undef TENSOR_OP
#undef OP
};
enum class ScheduleOp : uint8_t {
#define OP(e, name, min_src, max_src, groups)
#define SCHEDULE_OP(e, name, min_src, max_src, groups) e,
#include "ir/ops.def"
#undef SCHEDULE_OP
#undef OP
};

/// Whether an ALU op can trap, stated for every ALU op in ops.def (its fault column).
enum class AluFault : uint8_t { Total, DivByZero, Faults, IndexOverflow, CastRange };

namespace detail {
inline constexpr uint32_t kOpGroupBits[] = {
#define OP(e, name, min_src, max_src, groups) static_cast<uint32_t>(groups),
#include "ir/ops.def"
#undef OP
};
inline constexpr uint32_t kKindBits = Leaf | Structural | Alu | Tensor | Schedule;

constexpr OpKind kind_of_bits(uint32_t g) {
  return (g & Leaf)         ? OpKind::Leaf
         : (g & Structural) ? OpKind::Structural
         : (g & Alu)        ? OpKind::Alu
         : (g & Tensor)     ? OpKind::Tensor
                            : OpKind::Schedule;
}

constexpr bool every_op_has_one_kind() {
  for (uint32_t g : kOpGroupBits)
    if (std::popcount(g & kKindBits) != 1) return false;
  return true;
}
// A row whose groups name a kind bit besides its macro's would have two kinds.
static_assert(every_op_has_one_kind(), "ops.def: every op is of exactly one kind");

struct KindTable {
  OpKind kind[kOpCount];
  uint8_t index[kOpCount];  ///< position among the ops of its kind
  int count[5];             ///< ops per kind
};
constexpr KindTable make_kind_table() {
  KindTable t{};
  for (int i = 0; i < kOpCount; ++i) {
    t.kind[i] = kind_of_bits(kOpGroupBits[i]);
    t.index[i] = static_cast<uint8_t>(t.count[static_cast<int>(t.kind[i])]++);
  }
  return t;
}
inline constexpr KindTable kKinds = make_kind_table();

// The per-kind enums are generated from the same rows as the table, so their sizes agree;
// checked so a hand edit to either cannot make alu_op() and friends index past an enum.
static_assert(kKinds.count[static_cast<int>(OpKind::Leaf)] == 0
#define OP(e, name, min_src, max_src, groups)
#define LEAF_OP(e, name, min_src, max_src, groups) +1
#include "ir/ops.def"
#undef LEAF_OP
#undef OP
);
static_assert(kKinds.count[static_cast<int>(OpKind::Structural)] == 0
#define OP(e, name, min_src, max_src, groups)
#define STRUCTURAL_OP(e, name, min_src, max_src, groups) +1
#include "ir/ops.def"
#undef STRUCTURAL_OP
#undef OP
);
static_assert(kKinds.count[static_cast<int>(OpKind::Alu)] == 0
#define OP(e, name, min_src, max_src, groups)
#define ALU_OP(e, name, min_src, max_src, fault, groups) +1
#include "ir/ops.def"
#undef ALU_OP
#undef OP
);
static_assert(kKinds.count[static_cast<int>(OpKind::Tensor)] == 0
#define OP(e, name, min_src, max_src, groups)
#define TENSOR_OP(e, name, min_src, max_src, groups) +1
#include "ir/ops.def"
#undef TENSOR_OP
#undef OP
);
static_assert(kKinds.count[static_cast<int>(OpKind::Schedule)] == 0
#define OP(e, name, min_src, max_src, groups)
#define SCHEDULE_OP(e, name, min_src, max_src, groups) +1
#include "ir/ops.def"
#undef SCHEDULE_OP
#undef OP
);

inline constexpr AluFault kAluFault[] = {
#define OP(e, name, min_src, max_src, groups)
#define ALU_OP(e, name, min_src, max_src, fault, groups) AluFault::fault,
#include "ir/ops.def"
#undef ALU_OP
#undef OP
};
}  // namespace detail

constexpr OpKind op_kind(Op op) {
  return detail::kKinds.kind[static_cast<int>(op)];
}
/// The op as its kind's enum; op_kind(op) must be that kind.
constexpr LeafOp leaf_op(Op op) {
  assert(op_kind(op) == OpKind::Leaf);
  return static_cast<LeafOp>(detail::kKinds.index[static_cast<int>(op)]);
}
constexpr StructuralOp structural_op(Op op) {
  assert(op_kind(op) == OpKind::Structural);
  return static_cast<StructuralOp>(detail::kKinds.index[static_cast<int>(op)]);
}
constexpr AluOp alu_op(Op op) {
  assert(op_kind(op) == OpKind::Alu);
  return static_cast<AluOp>(detail::kKinds.index[static_cast<int>(op)]);
}
constexpr TensorOp tensor_op(Op op) {
  assert(op_kind(op) == OpKind::Tensor);
  return static_cast<TensorOp>(detail::kKinds.index[static_cast<int>(op)]);
}
constexpr ScheduleOp schedule_op(Op op) {
  assert(op_kind(op) == OpKind::Schedule);
  return static_cast<ScheduleOp>(detail::kKinds.index[static_cast<int>(op)]);
}
/// An ALU op's fault class (ops.def's fault column).
constexpr AluFault alu_fault(Op op) {
  return detail::kAluFault[static_cast<int>(alu_op(op))];
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
