#include "ir/tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

namespace uopfuzz::ir {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d == 0) return 0;
    if (d < 0) return 0;
  }
  for (int64_t d : s) {
    if (n > std::numeric_limits<int64_t>::max() / d) return std::numeric_limits<int64_t>::max();
    n *= d;
  }
  return n;
}

std::vector<int64_t> row_major_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * std::max<int64_t>(s[i], 1);
  return st;
}

std::string shape_text(const Shape& s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

namespace {

/// Ascending, distinct and below `rank`: the form every axis list takes in the graph.
bool valid_axis_list(const std::vector<int64_t>& axes, size_t rank) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(rank)) return false;
    if (i && axes[i] <= axes[i - 1]) return false;
  }
  return true;
}

}  // namespace

std::variant<Shape, std::string> infer_shape(Op op, std::span<const UOp> src, const Arg& arg,
                                             const Shape& declared) {
  for (int64_t d : declared)
    if (d < 0) return fmt::format("negative size in shape {}", shape_text(declared));
  const Shape empty;
  const Shape& in = src.empty() ? empty : src[0].shape();
  switch (op_kind(op)) {
    case OpKind::Leaf:
      switch (leaf_op(op)) {
        case LeafOp::Param:
        case LeafOp::Const: return declared;
        case LeafOp::Invalid:
        case LeafOp::Var: return fmt::format("{} is a kernel op, not a tensor op", op_name(op));
      }
      break;
    case OpKind::Structural: return fmt::format("{} is a kernel op, not a tensor op", op_name(op));
    case OpKind::Alu:
      for (UOp s : src)
        if (s.shape() != in)
          return fmt::format(
              "{} operands have different shapes ({} and {}); broadcast with "
              "RESHAPE and EXPAND first",
              op_name(op), shape_text(in), shape_text(s.shape()));
      return in;
    case OpKind::Tensor:
      switch (tensor_op(op)) {
        case TensorOp::Reshape:
          if (numel(declared) != numel(in))
            return fmt::format("RESHAPE from {} to {} changes the element count ({} vs {})",
                               shape_text(in), shape_text(declared), numel(in), numel(declared));
          return declared;
        case TensorOp::Expand:
          if (declared.size() != in.size())
            return fmt::format("EXPAND from {} to {} changes the rank", shape_text(in),
                               shape_text(declared));
          for (size_t i = 0; i < in.size(); ++i)
            if (in[i] != declared[i] && in[i] != 1)
              return fmt::format("EXPAND from {} to {}: dim {} has size {}, neither equal nor 1",
                                 shape_text(in), shape_text(declared), i, in[i]);
          return declared;
        case TensorOp::Permute: {
          const auto* a = std::get_if<AxesArg>(&arg);
          if (!a) return "PERMUTE needs order=[...]";
          std::vector<int64_t> sorted = a->axes;
          std::sort(sorted.begin(), sorted.end());
          bool ok = sorted.size() == in.size();
          for (size_t i = 0; ok && i < sorted.size(); ++i)
            ok = sorted[i] == static_cast<int64_t>(i);
          if (!ok)
            return fmt::format("PERMUTE order [{}] is not a permutation of the {} dims of {}",
                               fmt::join(a->axes, ","), in.size(), shape_text(in));
          Shape out;
          for (int64_t i : a->axes) out.push_back(in[static_cast<size_t>(i)]);
          return out;
        }
        case TensorOp::Pad:
        case TensorOp::Shrink: {
          const auto* p = std::get_if<PadArg>(&arg);
          const char* name = op == Op::Pad ? "PAD" : "SHRINK";
          if (!p) return fmt::format("{} needs one pair per dim", name);
          if (p->pairs.size() != in.size())
            return fmt::format("{} lists {} pairs for the {} dims of {}", name, p->pairs.size(),
                               in.size(), shape_text(in));
          Shape out;
          for (size_t i = 0; i < in.size(); ++i) {
            auto [a, b] = p->pairs[i];
            if (op == Op::Pad) {
              if (a < 0 || b < 0 || a > (int64_t{1} << 31) || b > (int64_t{1} << 31))
                return fmt::format("PAD dim {}: ({},{}) is not a pair of sizes in 0..2^31", i, a,
                                   b);
              out.push_back(in[i] + a + b);
            } else {
              if (a < 0 || a > b || b > in[i])
                return fmt::format("SHRINK dim {}: {}:{} is not within 0 <= begin <= end <= {}", i,
                                   a, b, in[i]);
              out.push_back(b - a);
            }
          }
          return out;
        }
        case TensorOp::Flip: {
          const auto* a = std::get_if<AxesArg>(&arg);
          if (!a || !valid_axis_list(a->axes, in.size()))
            return fmt::format("FLIP axes [{}] are not ascending, distinct dims of {}",
                               a ? fmt::format("{}", fmt::join(a->axes, ",")) : "", shape_text(in));
          return in;
        }
        case TensorOp::ReduceAxis: {
          const auto* r = std::get_if<ReduceAxisArg>(&arg);
          if (!r || !valid_axis_list(r->axes, in.size()))
            return fmt::format("REDUCE_AXIS axes [{}] are not ascending, distinct dims of {}",
                               r ? fmt::format("{}", fmt::join(r->axes, ",")) : "", shape_text(in));
          if (r->op != Op::Add && r->op != Op::Mul && r->op != Op::Max && r->op != Op::Min)
            return fmt::format("REDUCE_AXIS op must be ADD, MUL, MAX or MIN, got {}",
                               op_name(r->op));
          Shape out = in;
          for (int64_t ax : r->axes) out[static_cast<size_t>(ax)] = 1;
          return out;
        }
        case TensorOp::Contiguous: return in;
        case TensorOp::Realize: return Shape{};
      }
      break;
    case OpKind::Schedule:
      return fmt::format("{} is a scheduling op, not a tensor op", op_name(op));
  }
  return fmt::format("{} is not a tensor op", op_name(op));
}

namespace tensor {
namespace {

UOp make_inferred(Context& ctx, Op op, DType dt, std::vector<UOp> src, Arg arg,
                  Shape declared = {}) {
  auto shape = infer_shape(op, src, arg, declared);
  Shape s = std::holds_alternative<Shape>(shape) ? std::get<Shape>(shape) : declared;
  return ctx.make(op, dt, std::move(src), std::move(arg), std::move(s));
}

}  // namespace

UOp input(Context& ctx, DType dt, Shape shape, int slot) {
  ParamArg p;
  p.slot = slot;
  p.size = numel(shape);
  return ctx.make(Op::Param, dt, {}, p, std::move(shape));
}

UOp constant(Context& ctx, DType dt, double v, Shape shape) {
  UOp c = dt.is_float() ? ctx.const_float(dt, v) : ctx.const_int(dt, static_cast<int64_t>(v));
  return ctx.make(Op::Const, dt, {}, c.arg(), std::move(shape));
}

UOp constant_value(Context& ctx, DType dt, Value v, Shape shape) {
  UOp c = ctx.const_value(dt, v);
  return ctx.make(Op::Const, dt, {}, c.arg(), std::move(shape));
}

UOp reshape(Context& ctx, UOp x, Shape shape) {
  return make_inferred(ctx, Op::Reshape, x.dtype(), {x}, {}, std::move(shape));
}
UOp permute(Context& ctx, UOp x, std::vector<int64_t> order) {
  return make_inferred(ctx, Op::Permute, x.dtype(), {x}, AxesArg{std::move(order)});
}
UOp expand(Context& ctx, UOp x, Shape shape) {
  return make_inferred(ctx, Op::Expand, x.dtype(), {x}, {}, std::move(shape));
}
UOp pad(Context& ctx, UOp x, std::vector<std::pair<int64_t, int64_t>> before_after) {
  return make_inferred(ctx, Op::Pad, x.dtype(), {x}, PadArg{std::move(before_after)});
}
UOp shrink(Context& ctx, UOp x, std::vector<std::pair<int64_t, int64_t>> begin_end) {
  return make_inferred(ctx, Op::Shrink, x.dtype(), {x}, PadArg{std::move(begin_end)});
}
UOp flip(Context& ctx, UOp x, std::vector<int64_t> axes) {
  return make_inferred(ctx, Op::Flip, x.dtype(), {x}, AxesArg{std::move(axes)});
}
UOp reduce_axis(Context& ctx, UOp x, Op op, std::vector<int64_t> axes) {
  return make_inferred(ctx, Op::ReduceAxis, x.dtype(), {x}, ReduceAxisArg{op, std::move(axes)});
}
UOp contiguous(Context& ctx, UOp x) {
  return make_inferred(ctx, Op::Contiguous, x.dtype(), {x}, {});
}
UOp alu(Context& ctx, Op op, std::vector<UOp> src) {
  DType dt = op_in(op, Comparison) ? dtypes::Bool : src.at(operand_source(op)).dtype();
  return make_inferred(ctx, op, dt, std::move(src), {});
}
UOp cast(Context& ctx, UOp x, DType dt) {
  return make_inferred(ctx, Op::Cast, dt, {x}, {});
}
UOp realize(Context& ctx, std::vector<UOp> outputs) {
  return ctx.make(Op::Realize, dtypes::Void, std::move(outputs));
}

}  // namespace tensor
}  // namespace uopfuzz::ir
