#include "schedule/bufferize.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/tensor.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::UOp;

namespace {

/// Builds the BUFFERIZE graph node by node: every node computed at its plan's index, every
/// realized one once, as a BUFFERIZE its readers INDEX.
class GraphBuilder {
 public:
  GraphBuilder(IndexSimplifier& simplify, const RangeifyPlan& plan, const LoweringBugSet& bugs)
      : ctx_(simplify.ctx()), simplify_(simplify), plan_(plan), bugs_(bugs) {}

  /// The BUFFERIZE of the realized `node`: an output's (at its first REALIZE index) or an
  /// intermediate's.
  Result<UOp> bufferize(UOp node) {
    auto memo = buffers_.find(node);
    if (memo != buffers_.end()) return memo->second;
    const NodeRanges& nr = plan_.nodes.at(node);
    int output = -1;
    for (size_t k = 0; k < plan_.outputs.size() && output < 0; ++k)
      if (plan_.outputs[k] == node) output = static_cast<int>(k);
    Result<UOp> v = value(node);
    if (!v) return v.error();
    ir::BufferizeArg arg;
    arg.output = output;
    arg.removable = output < 0 && node.op() != Op::Contiguous;
    std::vector<UOp> src{*v};
    src.insert(src.end(), nr.at.idx.begin(), nr.at.idx.end());
    UOp b = ctx_.make(Op::Bufferize, node.dtype(), std::move(src), arg);
    buffers_.emplace(node, b);
    return b;
  }

  /// Output `output` again: a copy of `first`'s buffer at fresh ranges.
  UOp copy(RangeifyPlan& plan, UOp first, int output) {
    std::vector<UOp> idx;
    for (size_t i = 1; i < first.num_src(); ++i) {
      UOp r = first.src(i);
      idx.push_back(r.op() == Op::Range
                        ? fresh_range(ctx_, plan, r.src(0).const_value().i, ir::AxisType::Loop)
                        : r);
    }
    std::vector<UOp> read{first};
    read.insert(read.end(), idx.begin(), idx.end());
    std::vector<UOp> src{ctx_.make(Op::Index, first.dtype(), std::move(read))};
    src.insert(src.end(), idx.begin(), idx.end());
    return ctx_.make(Op::Bufferize, first.dtype(), std::move(src), ir::BufferizeArg{output, false});
  }

 private:
  UOp load_input(UOp param, const Access& a) {
    UOp idx = linear_index(simplify_, a.idx, param.shape());
    if (a.valid) idx = ctx_.alu(Op::Where, {a.valid, idx, ctx_.invalid()});
    return ctx_.make(Op::Load, param.dtype(), {ctx_.make(Op::Index, param.dtype(), {param, idx})});
  }

  Result<UOp> index_buffer(UOp src, const Access& a) {
    Result<UOp> b = bufferize(src);
    if (!b) return b.error();
    std::vector<UOp> read{*b};
    // A gate the symbolic rules proved false leaves the read nothing to read: INVALID.
    const bool never = a.valid && a.valid.is_const() && a.valid.const_value().u == 0;
    for (UOp i : a.idx)
      read.push_back(never     ? ctx_.invalid()
                     : a.valid ? ctx_.alu(Op::Where, {a.valid, i, ctx_.invalid()})
                               : i);
    return ctx_.make(Op::Index, src.dtype(), std::move(read));
  }

  /// What a reader computed at `a` reads of its source `src`.
  Result<UOp> read(UOp src, const Access& a) {
    if (ir::numel(src.shape()) == 0) return ctx_.const_int(src.dtype(), 0);
    if (src.op() == Op::Const) return ctx_.const_value(src.dtype(), src.const_value());
    if (src.op() == Op::Param) return load_input(src, a);
    if (plan_.nodes.at(src).realized) return index_buffer(src, a);
    return value(src);
  }

  /// A read that is already 0 where its gate is off: a gated load, or a gated INDEX.
  static bool reads_zero_when_gated(UOp v) {
    return v.op() == Op::Load || (v.op() == Op::Index && v.num_src() > 1);
  }

  /// A quantized REDUCE_AXIS of `value` (SEMANTICS.md, "REDUCE_AXIS") in its kernel form:
  /// the centered integers q - z_in reduced in int32 over the reduce ranges in `rsrc` (after
  /// `value`), then REQUANTIZE of the accumulator read as qint32<s_in,0>. With no range left
  /// (size-1 axes, or axes=[]) that is REQUANTIZE of the element itself, or the element when
  /// the types are equal.
  Result<UOp> quantized_reduce(UOp node, UOp value, std::vector<UOp> rsrc) {
    const ir::DType in = node.src(0).dtype(), out = node.dtype();
    const Op rop = node.arg<ir::ReduceAxisArg>().op;
    if (!out.is_quantized() || rop == Op::Mul)
      return Error{fmt::format("unsupported: REDUCE_AXIS op={} of {} to {}", ir::op_name(rop),
                               in.name(), out.name())};
    if (rsrc.size() == 1) return in == out ? value : ctx_.make(Op::Requantize, out, {value});
    const ir::QuantParams& q = ir::quant_params(in);
    const ir::DType acc_dt = ir::dtypes::Int32;
    UOp stored = ctx_.make(Op::Bitcast, in.storage(), {value});
    UOp centered = ctx_.alu(
        Op::Sub, {ctx_.make(Op::Cast, acc_dt, {stored}), ctx_.const_int(acc_dt, q.zero_point)});
    rsrc[0] = centered;
    UOp acc = ctx_.make(Op::Reduce, acc_dt, std::move(rsrc), ir::ReduceArg{rop});
    const ir::DType wide = ir::DType::quantized(ir::ScalarType::Int32, q.scale, 0);
    return ctx_.make(Op::Requantize, out, {ctx_.make(Op::Bitcast, wide, {acc})});
  }

  /// `node`'s value at its plan's index.
  Result<UOp> value(UOp node) {
    auto memo = memo_.find(node);
    if (memo != memo_.end()) return memo->second;
    const NodeRanges& nr = plan_.nodes.at(node);
    if (node.op() == Op::Param || node.op() == Op::Const) return read(node, nr.at);
    UOp gate;
    Access a = source_access(simplify_, node, nr, bugs_, &gate);
    std::vector<UOp> src;
    for (UOp s : node.src()) {
      Result<UOp> v = read(s, a);
      if (!v) return v.error();
      src.push_back(*v);
    }
    UOp out;
    switch (ir::op_kind(node.op())) {
      case ir::OpKind::Leaf:
      case ir::OpKind::Structural:
      case ir::OpKind::Schedule:
        return Error{
            fmt::format("unsupported: {} inside a tensor program", ir::op_name(node.op()))};
      case ir::OpKind::Alu:
        out = ctx_.make(node.op(), node.dtype(), std::move(src), node.arg());
        break;
      case ir::OpKind::Tensor:
        switch (ir::tensor_op(node.op())) {
          case ir::TensorOp::Reshape:
          case ir::TensorOp::Permute:
          case ir::TensorOp::Expand:
          case ir::TensorOp::Shrink:
          case ir::TensorOp::Flip:
          case ir::TensorOp::Contiguous: out = src[0]; break;
          case ir::TensorOp::Pad:
            out = src[0];
            if (gate && !reads_zero_when_gated(out))
              out = ctx_.alu(Op::Where, {gate, out, ctx_.const_int(node.dtype(), 0)});
            break;
          case ir::TensorOp::ReduceAxis: {
            std::vector<UOp> rsrc{src[0]};
            for (UOp r : nr.reduce_ranges)
              if (r.op() == Op::Range) rsrc.push_back(r);
            const Op rop = node.arg<ir::ReduceAxisArg>().op;
            if (node.src(0).dtype().is_quantized()) {
              Result<UOp> q = quantized_reduce(node, src[0], std::move(rsrc));
              if (!q) return q.error();
              out = *q;
            } else if (node.arg<ir::ReduceAxisArg>().axes.empty()) {
              out = src[0];  // reduces nothing: the value itself, not a fold of one element
            } else if (rsrc.size() > 1) {
              out = ctx_.make(Op::Reduce, node.dtype(), std::move(rsrc), ir::ReduceArg{rop});
            } else if (node.dtype().is_float()) {
              // Every reduced dim has size 1: one step from the identity, as REDUCE_AXIS is
              // defined; for floats that step is not a no-op (0.0 + -0.0 is +0.0).
              out = ctx_.alu(
                  rop,
                  {ctx_.const_value(node.dtype(), ir::reduce_identity(rop, node.dtype())), src[0]});
            } else {
              out = src[0];  // the identity step is exact on integers and bools
            }
            break;
          }
          case ir::TensorOp::Realize:
            return Error{
                fmt::format("unsupported: {} inside a tensor program", ir::op_name(node.op()))};
        }
        break;
    }
    memo_.emplace(node, out);
    return out;
  }

  ir::Context& ctx_;
  IndexSimplifier& simplify_;
  const RangeifyPlan& plan_;
  const LoweringBugSet& bugs_;
  std::unordered_map<UOp, UOp, ir::UOpHash> memo_;
  std::unordered_map<UOp, UOp, ir::UOpHash> buffers_;
};

}  // namespace

UOp linear_index(IndexSimplifier& simplify, const std::vector<UOp>& idx, const ir::Shape& shape) {
  ir::Context& ctx = simplify.ctx();
  std::vector<int64_t> strides = ir::row_major_strides(shape);
  UOp sum = ctx.const_int(ir::dtypes::Index, 0);
  for (size_t i = 0; i < idx.size(); ++i)
    sum = ctx.alu(Op::Add,
                  {sum, ctx.alu(Op::Mul, {idx[i], ctx.const_int(ir::dtypes::Index, strides[i])})});
  return simplify(sum);
}

Result<ir::Shape> bufferize_shape(UOp b) {
  ir::Shape shape;
  for (size_t i = 1; i < b.num_src(); ++i) {
    UOp r = b.src(i);
    if (r.op() == Op::Const) {
      shape.push_back(1);
    } else if (r.op() == Op::Range && r.src(0).is_const()) {
      shape.push_back(r.src(0).const_value().i);
    } else {
      return Error{
          fmt::format("BUFFERIZE range {} is neither a RANGE of constant end nor a CONST", i - 1)};
    }
  }
  return shape;
}

Result<UOp> bufferize(IndexSimplifier& simplify, const RangeifyPlan& plan,
                      const LoweringBugSet& bugs) {
  ir::Context& ctx = simplify.ctx();
  RangeifyPlan copies = plan;  // fresh axis ids for the copies of an output listed twice
  GraphBuilder g(simplify, plan, bugs);
  std::vector<UOp> outputs;
  std::unordered_map<UOp, UOp, ir::UOpHash> first;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    UOp n = plan.outputs[k];
    if (ir::numel(n.shape()) == 0) continue;  // no kernel: nothing to write
    if (auto it = first.find(n); it != first.end()) {
      outputs.push_back(g.copy(copies, it->second, static_cast<int>(k)));
      continue;
    }
    Result<UOp> b = g.bufferize(n);
    if (!b) return b.error();
    first.emplace(n, *b);
    outputs.push_back(*b);
  }
  return ctx.make(Op::Sink, ir::dtypes::Void, std::move(outputs));
}

}  // namespace uopfuzz::schedule
