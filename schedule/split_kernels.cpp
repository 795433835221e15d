// Kernel splitting: the BUFFERIZE graph (bufferize.h) to a Program.

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "schedule/bufferize.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::UOp;

namespace {

ir::ProgramBuffer make_buffer(ir::ProgramBuffer::Role role, int index, ir::DType dtype,
                              ir::Shape shape) {
  ir::ProgramBuffer b;
  b.role = role;
  b.index = index;
  b.dtype = dtype;
  b.size = ir::numel(shape);
  b.shape = std::move(shape);
  return b;
}

/// One kernel: a BUFFERIZE's value stored into its buffer, every INDEX of another
/// BUFFERIZE a LOAD of that one's buffer, every input PARAM the kernel's own.
class KernelSplitter {
 public:
  KernelSplitter(IndexSimplifier& simplify, const ir::Program& program,
                 const std::unordered_map<UOp, int, ir::UOpHash>& buffer_of)
      : ctx_(simplify.ctx()), simplify_(simplify), program_(program), buffer_of_(buffer_of) {}

  Result<ir::ProgramKernel> build(UOp b) {
    UOp out = param(buffer_of_.at(b), true);
    Result<UOp> v = lower(b.src(0));
    if (!v) return v.error();
    std::vector<UOp> idx(b.src().begin() + 1, b.src().end());
    // The BUFFERIZE's own shape, not the buffer's: a flattened output has one range.
    Result<ir::Shape> shape = bufferize_shape(b);
    if (!shape) return shape.error();
    UOp body = ctx_.make(
        Op::Store, ir::dtypes::Void,
        {ctx_.make(Op::Index, out.dtype(), {out, linear_index(simplify_, idx, *shape)}), *v});
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

 private:
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

  /// LOAD of the buffer of `b` at the INDEX sources `idx` (gated as bufferize.h says).
  Result<UOp> load(UOp b, std::span<const UOp> idx) {
    Result<ir::Shape> shape = bufferize_shape(b);
    if (!shape) return shape.error();
    if (idx.size() != shape->size())
      return Error{fmt::format("an INDEX of a BUFFERIZE has {} indices for {} ranges", idx.size(),
                               shape->size())};
    std::vector<UOp> exprs, gates;
    bool invalid = false;
    for (UOp i : idx) {
      if (i.op() == Op::Invalid) {
        invalid = true;
      } else if (i.op() == Op::Where && i.src(2).op() == Op::Invalid) {
        if (std::find(gates.begin(), gates.end(), i.src(0)) == gates.end())
          gates.push_back(i.src(0));
        exprs.push_back(i.src(1));
      } else {
        exprs.push_back(i);
      }
    }
    // An INVALID index reads nothing: 0, as a load of it would (index_invalid switched off).
    if (invalid) return ctx_.const_int(b.dtype(), 0);
    UOp at;
    {
      at = linear_index(simplify_, exprs, *shape);
      UOp gate;
      for (UOp g : gates) gate = gate ? ctx_.alu(Op::And, {gate, g}) : g;
      if (gate) at = ctx_.alu(Op::Where, {gate, at, ctx_.invalid()});
    }
    UOp p = param(buffer_of_.at(b), false);
    return ctx_.make(Op::Load, p.dtype(), {ctx_.make(Op::Index, p.dtype(), {p, at})});
  }

  /// `u` with its buffer reads made LOADs of the kernel's PARAMs.
  Result<UOp> lower(UOp u) {
    if (auto memo = memo_.find(u); memo != memo_.end()) return memo->second;
    UOp out;
    if (u.op() == Op::Bufferize) {
      return Error{"a BUFFERIZE is used other than through an INDEX"};
    } else if (u.op() == Op::Index && u.src(0).op() == Op::Bufferize) {
      std::vector<UOp> idx;
      for (size_t i = 1; i < u.num_src(); ++i) {
        Result<UOp> x = lower(u.src(i));
        if (!x) return x.error();
        idx.push_back(*x);
      }
      Result<UOp> l = load(u.src(0), idx);
      if (!l) return l.error();
      out = *l;
    } else if (u.op() == Op::Index && u.src(0).op() == Op::Const) {
      // A folded buffer's read (index_const switched off): the constant, 0 where gated off.
      out = u.src(0);
      for (size_t i = 1; i < u.num_src(); ++i) {
        UOp x = u.src(i);
        if (x.op() == Op::Invalid) {
          out = ctx_.const_int(u.dtype(), 0);
        } else if (x.op() == Op::Where && x.src(2).op() == Op::Invalid) {
          Result<UOp> g = lower(x.src(0));
          if (!g) return g.error();
          out = ctx_.alu(Op::Where, {*g, out, ctx_.const_int(u.dtype(), 0)});
        }
      }
    } else if (u.op() == Op::Param) {
      auto in = buffer_of_.find(u);
      if (in == buffer_of_.end()) return Error{"a PARAM that is not an input of the program"};
      out = param(in->second, false);
    } else {
      std::vector<UOp> src;
      for (UOp s : u.src()) {
        Result<UOp> x = lower(s);
        if (!x) return x.error();
        src.push_back(*x);
      }
      out = src == std::vector<UOp>(u.src().begin(), u.src().end())
                ? u
                : ctx_.make(u.op(), u.dtype(), std::move(src), u.arg());
    }
    memo_.emplace(u, out);
    return out;
  }

  ir::Context& ctx_;
  IndexSimplifier& simplify_;
  const ir::Program& program_;
  const std::unordered_map<UOp, int, ir::UOpHash>& buffer_of_;
  std::map<int, int> slots_;
  std::unordered_map<int, UOp> param_of_;
  std::unordered_map<UOp, UOp, ir::UOpHash> memo_;
};

}  // namespace

Result<ir::Program> split_kernels(IndexSimplifier& simplify, UOp root, UOp graph) {
  ir::Program program;
  // Input PARAMs and BUFFERIZEs share one map: both are buffers, distinct nodes.
  std::unordered_map<UOp, int, ir::UOpHash> buffer_of;
  std::vector<UOp> params;
  for (UOp n : ir::toposort(root))
    if (n.op() == Op::Param) params.push_back(n);
  std::sort(params.begin(), params.end(),
            [](UOp a, UOp b) { return a.arg<ir::ParamArg>().slot < b.arg<ir::ParamArg>().slot; });
  for (UOp p : params) {
    buffer_of[p] = static_cast<int>(program.buffers.size());
    program.buffers.push_back(make_buffer(ir::ProgramBuffer::Role::Input,
                                          p.arg<ir::ParamArg>().slot, p.dtype(), p.shape()));
  }
  const int first_output = static_cast<int>(program.buffers.size());
  for (size_t k = 0; k < root.num_src(); ++k)
    program.buffers.push_back(make_buffer(ir::ProgramBuffer::Role::Output, static_cast<int>(k),
                                          root.src(k).dtype(), root.src(k).shape()));

  // Sources come first in a toposort: a kernel reads only buffers written before it.
  std::vector<UOp> order;
  for (UOp n : ir::toposort(graph))
    if (n.op() == Op::Bufferize) order.push_back(n);
  for (UOp b : order) {
    Result<ir::Shape> shape = bufferize_shape(b);
    if (!shape) return shape.error();
    const ir::BufferizeArg& arg = b.arg<ir::BufferizeArg>();
    if (arg.output >= 0) {
      if (static_cast<size_t>(arg.output) >= root.num_src())
        return Error{
            fmt::format("BUFFERIZE output={} is not an output of the program", arg.output)};
      const ir::ProgramBuffer& out =
          program.buffers[static_cast<size_t>(first_output + arg.output)];
      if (ir::numel(*shape) != out.size)
        return Error{fmt::format("BUFFERIZE output={} stores {} elements into a buffer of {}",
                                 arg.output, ir::numel(*shape), out.size)};
      buffer_of[b] = first_output + arg.output;
    } else {
      buffer_of[b] = static_cast<int>(program.buffers.size());
      program.buffers.push_back(
          make_buffer(ir::ProgramBuffer::Role::Intermediate, -1, b.dtype(), *shape));
    }
  }
  for (UOp b : order) {
    KernelSplitter ks(simplify, program, buffer_of);
    Result<ir::ProgramKernel> k = ks.build(b);
    if (!k) return k.error();
    program.kernels.push_back(std::move(*k));
  }
  return program;
}

}  // namespace uopfuzz::schedule
