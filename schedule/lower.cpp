#include "schedule/lower.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "ir/scalar_eval.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "schedule/rangeify.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::UOp;

namespace {

/// Kernel splitting: one kernel per realized node, reading the buffers of the realized
/// nodes and inputs below it.
class KernelBuilder {
 public:
  KernelBuilder(IndexSimplifier& simplify, const RangeifyPlan& plan, const LoweringBugSet& bugs,
                const std::unordered_map<UOp, int, ir::UOpHash>& buffer_of,
                const std::map<int, int>& input_buffer, const ir::Program& program)
      : ctx_(simplify.ctx()),
        simplify_(simplify),
        plan_(plan),
        bugs_(bugs),
        buffer_of_(buffer_of),
        input_buffer_(input_buffer),
        program_(program) {}

  /// The kernel storing `node` (at its plan's ranges) into buffer `out`.
  Result<ir::ProgramKernel> build(UOp node, int out) {
    const NodeRanges& nr = plan_.nodes.at(node);
    UOp out_param = param(out, true);
    Result<UOp> v = value(node);
    if (!v) return v.error();
    return finish(out_param, nr.at.idx, *v, node.shape());
  }

  /// A kernel copying buffer `from` into buffer `to` (an output realized twice).
  ir::ProgramKernel copy(RangeifyPlan& plan, int from, int to) {
    const ir::ProgramBuffer& b = program_.buffers[static_cast<size_t>(to)];
    std::vector<UOp> idx;
    for (int64_t d : b.shape) idx.push_back(fresh_range(ctx_, plan, d, ir::AxisType::Loop));
    UOp out_param = param(to, true);
    return finish(out_param, idx, load(from, {idx, UOp()}), b.shape);
  }

 private:
  ir::ProgramKernel finish(UOp out_param, const std::vector<UOp>& idx, UOp v,
                           const ir::Shape& shape) {
    UOp body =
        ctx_.make(Op::Store, ir::dtypes::Void,
                  {ctx_.make(Op::Index, out_param.dtype(), {out_param, linear(idx, shape)}), v});
    std::vector<UOp> ranges;
    for (UOp r : idx)
      if (r.op() == Op::Range) ranges.push_back(r);
    if (!ranges.empty()) {
      ranges.insert(ranges.begin(), body);
      body = ctx_.make(Op::End, ir::dtypes::Void, std::move(ranges));
    }
    ir::ProgramKernel k;
    k.root = ctx_.make(Op::Sink, ir::dtypes::Void, {body});
    k.buffer_of_slot = slots_;
    return k;
  }

  UOp linear(const std::vector<UOp>& idx, const ir::Shape& shape) {
    std::vector<int64_t> strides = ir::row_major_strides(shape);
    UOp sum = ctx_.const_int(ir::dtypes::Index, 0);
    for (size_t i = 0; i < idx.size(); ++i)
      sum = ctx_.alu(
          Op::Add,
          {sum, ctx_.alu(Op::Mul, {idx[i], ctx_.const_int(ir::dtypes::Index, strides[i])})});
    return simplify_(sum);
  }

  UOp param(int buffer, bool output) {
    auto it = param_of_.find(buffer);
    if (it != param_of_.end()) return it->second;
    const ir::ProgramBuffer& b = program_.buffers[static_cast<size_t>(buffer)];
    ir::ParamArg p;
    p.slot = static_cast<int>(slots_.size());
    p.size = b.size;
    p.output = output;
    UOp u = ctx_.make(Op::Param, b.dtype, {}, p);
    slots_[p.slot] = buffer;
    param_of_.emplace(buffer, u);
    return u;
  }

  UOp load(int buffer, const Access& a) {
    UOp par = param(buffer, false);
    UOp idx = linear(a.idx, program_.buffers[static_cast<size_t>(buffer)].shape);
    if (a.valid) idx = ctx_.alu(Op::Where, {a.valid, idx, ctx_.invalid()});
    return ctx_.make(Op::Load, par.dtype(), {ctx_.make(Op::Index, par.dtype(), {par, idx})});
  }

  /// What `consumer` reads of its source `src` at `a`.
  Result<UOp> read(UOp src, const Access& a) {
    if (ir::numel(src.shape()) == 0) return ctx_.const_int(src.dtype(), 0);
    if (src.op() == Op::Const) return ctx_.const_value(src.dtype(), src.const_value());
    if (src.op() == Op::Param) return load(input_buffer_.at(src.arg<ir::ParamArg>().slot), a);
    if (plan_.nodes.at(src).realized) return load(buffer_of_.at(src), a);
    return value(src);
  }

  /// `node`'s value at its plan's index (the kernel's own node included).
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
    switch (node.op()) {
      case Op::Reshape:
      case Op::Permute:
      case Op::Expand:
      case Op::Shrink:
      case Op::Flip:
      case Op::Contiguous: out = src[0]; break;
      case Op::Pad:
        out = src[0];
        // A gated load already reads 0 where the gate is off; anything else is masked.
        if (gate && out.op() != Op::Load)
          out = ctx_.alu(Op::Where, {gate, out, ctx_.const_int(node.dtype(), 0)});
        break;
      case Op::ReduceAxis: {
        std::vector<UOp> rsrc{src[0]};
        for (UOp r : nr.reduce_ranges)
          if (r.op() == Op::Range) rsrc.push_back(r);
        const Op rop = node.arg<ir::ReduceAxisArg>().op;
        if (rsrc.size() > 1) {
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
      case Op::Neg:
      case Op::Cast:
      case Op::Bitcast:
      case Op::Reciprocal:
      case Op::Sqrt:
      case Op::Exp2:
      case Op::Log2:
      case Op::Sin:
      case Op::Trunc:
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Cdiv:
      case Op::Cmod:
      case Op::FloorDiv:
      case Op::FloorMod:
      case Op::Max:
      case Op::Min:
      case Op::CmpLt:
      case Op::CmpNe:
      case Op::CmpEq:
      case Op::And:
      case Op::Or:
      case Op::Xor:
      case Op::Shl:
      case Op::Shr:
      case Op::Where: out = ctx_.make(node.op(), node.dtype(), std::move(src), node.arg()); break;
      case Op::Const:
      case Op::Invalid:
      case Op::Param:
      case Op::Var:
      case Op::Range:
      case Op::Index:
      case Op::Load:
      case Op::Store:
      case Op::End:
      case Op::Reduce:
      case Op::Sink:
      case Op::Realize:
      case Op::Bufferize:
        return Error{
            fmt::format("unsupported: {} inside a tensor program", ir::op_name(node.op()))};
    }
    memo_.emplace(node, out);
    return out;
  }

  ir::Context& ctx_;
  IndexSimplifier& simplify_;
  const RangeifyPlan& plan_;
  const LoweringBugSet& bugs_;
  const std::unordered_map<UOp, int, ir::UOpHash>& buffer_of_;
  const std::map<int, int>& input_buffer_;
  const ir::Program& program_;
  std::map<int, int> slots_;
  std::unordered_map<int, UOp> param_of_;
  std::unordered_map<UOp, UOp, ir::UOpHash> memo_;
};

ir::ProgramBuffer buffer_for(UOp n, ir::ProgramBuffer::Role role, int index) {
  ir::ProgramBuffer b;
  b.role = role;
  b.index = index;
  b.dtype = n.dtype();
  b.size = ir::numel(n.shape());
  b.shape = n.shape();
  return b;
}

}  // namespace

Result<ir::Program> lower(ir::Context& ctx, UOp root, const LowerOptions& options) {
  IndexSimplifier simplify(ctx);
  Result<RangeifyPlan> planned = rangeify(simplify, root, options.bugs);
  if (!planned) return planned.error();
  RangeifyPlan& plan = *planned;
  ir::Program program;

  // Buffers: inputs by slot, outputs by REALIZE index, then the intermediates in
  // dependency order (node ids are a topological order).
  std::map<int, int> input_buffer;
  std::vector<UOp> params;
  for (UOp n : ir::toposort(root))
    if (n.op() == Op::Param) params.push_back(n);
  std::sort(params.begin(), params.end(),
            [](UOp a, UOp b) { return a.arg<ir::ParamArg>().slot < b.arg<ir::ParamArg>().slot; });
  for (UOp p : params) {
    int slot = p.arg<ir::ParamArg>().slot;
    input_buffer[slot] = static_cast<int>(program.buffers.size());
    program.buffers.push_back(buffer_for(p, ir::ProgramBuffer::Role::Input, slot));
  }
  std::unordered_map<UOp, int, ir::UOpHash> buffer_of;
  std::vector<std::pair<int, int>> copies;  // (from, to): an output listed again
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    UOp n = plan.outputs[k];
    int b = static_cast<int>(program.buffers.size());
    program.buffers.push_back(buffer_for(n, ir::ProgramBuffer::Role::Output, static_cast<int>(k)));
    if (ir::numel(n.shape()) == 0) continue;  // no kernel: nothing to write
    auto [it, fresh] = buffer_of.emplace(n, b);
    if (!fresh) copies.emplace_back(it->second, b);
  }
  std::vector<UOp> realized;
  for (const auto& [n, nr] : plan.nodes)
    if (nr.realized) realized.push_back(n);
  std::sort(realized.begin(), realized.end(), [](UOp a, UOp b) { return a.id() < b.id(); });
  for (UOp n : realized) {
    if (buffer_of.contains(n)) continue;
    buffer_of[n] = static_cast<int>(program.buffers.size());
    program.buffers.push_back(buffer_for(n, ir::ProgramBuffer::Role::Intermediate, -1));
  }

  for (UOp n : realized) {
    KernelBuilder kb(simplify, plan, options.bugs, buffer_of, input_buffer, program);
    Result<ir::ProgramKernel> k = kb.build(n, buffer_of.at(n));
    if (!k) return k.error();
    program.kernels.push_back(std::move(*k));
  }
  for (auto [from, to] : copies) {
    KernelBuilder kb(simplify, plan, options.bugs, buffer_of, input_buffer, program);
    program.kernels.push_back(kb.copy(plan, from, to));
  }
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    std::vector<ir::VerifyError> errors = ir::verify(program.kernels[i].root);
    if (!errors.empty())
      return Error{fmt::format("unsupported: kernel {} of the lowering does not verify: {}", i,
                               errors.front().message)};
  }
  return program;
}

}  // namespace uopfuzz::schedule
