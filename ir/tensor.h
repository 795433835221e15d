/** \file Tensor programs: shapes, the shape each tensor op gives, and builders that fill
 * the shape in. Semantics of every op: SEMANTICS.md, "Tensor programs".
 *
 * A tensor program is a graph rooted at REALIZE (its sources are the outputs, in order).
 * Every node of it is a tensor with the shape on its node: PARAM (an input buffer whose
 * size is the shape's element count), CONST (the same value at every element), the
 * movement ops, REDUCE_AXIS, CONTIGUOUS, and the ALU ops elementwise on equal shapes.
 */
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::ir {

/// Element count of a shape (1 for rank 0); saturates at INT64_MAX instead of overflowing.
int64_t numel(const Shape& s);
/// Row-major strides (the last dim has stride 1).
std::vector<int64_t> row_major_strides(const Shape& s);
/// "[3,4]".
std::string shape_text(const Shape& s);

/// True when `root` roots a tensor program (a REALIZE), not a kernel (a SINK).
inline bool is_tensor_program(UOp root) {
  return root.op() == Op::Realize;
}

/// The shape the tensor op `op` gives for these sources and arg, or why it gives none (one
/// line, for the verifier's messages). `declared` is the node's own shape: RESHAPE and
/// EXPAND take their target from it (checked against the source here), and PARAM and
/// CONST have whatever shape they declare. ALU ops need equal operand shapes (WHERE too).
std::variant<Shape, std::string> infer_shape(Op op, std::span<const UOp> src, const Arg& arg,
                                             const Shape& declared);

/// Builders: each makes the node with its inferred shape. They do not check the
/// arguments (ir::verify does); a wrong one gives a node the verifier rejects.
namespace tensor {
UOp input(Context& ctx, DType dt, Shape shape, int slot);
UOp constant(Context& ctx, DType dt, double v, Shape shape = {});
UOp constant_value(Context& ctx, DType dt, Value v, Shape shape = {});
UOp reshape(Context& ctx, UOp x, Shape shape);
UOp permute(Context& ctx, UOp x, std::vector<int64_t> order);
UOp expand(Context& ctx, UOp x, Shape shape);
UOp pad(Context& ctx, UOp x, std::vector<std::pair<int64_t, int64_t>> before_after);
UOp shrink(Context& ctx, UOp x, std::vector<std::pair<int64_t, int64_t>> begin_end);
UOp flip(Context& ctx, UOp x, std::vector<int64_t> axes);
UOp reduce_axis(Context& ctx, UOp x, Op op, std::vector<int64_t> axes);
UOp contiguous(Context& ctx, UOp x);
/// An elementwise ALU op (operands of equal shape); CAST and BITCAST take `dt`.
UOp alu(Context& ctx, Op op, std::vector<UOp> src);
UOp cast(Context& ctx, UOp x, DType dt);
UOp realize(Context& ctx, std::vector<UOp> outputs);
}  // namespace tensor

}  // namespace uopfuzz::ir
