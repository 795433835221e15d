#include "backends/program_runner.h"

#include <fmt/format.h>

#include "ir/graph.h"

namespace uopfuzz::backends {

Result<ProgramRunOutput> run_program(Backend& backend, const ir::Program& program,
                                     const ir::Inputs& inputs, const RunOptions& options) {
  std::vector<ir::Buffer> storage(program.buffers.size());
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const ir::ProgramBuffer& b = program.buffers[i];
    if (b.role != ir::ProgramBuffer::Role::Input) {
      storage[i] = ir::Buffer(b.dtype, static_cast<size_t>(b.size));
      continue;
    }
    auto it = inputs.buffers.find(b.index);
    if (it == inputs.buffers.end())
      return Error{fmt::format("no input buffer for the tensor program's PARAM slot {}", b.index)};
    storage[i] = it->second;
  }

  ProgramRunOutput out;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const ir::ProgramKernel& kernel = program.kernels[k];
    Result<std::shared_ptr<Kernel>> compiled = backend.compile(kernel.root);
    if (!compiled) return compiled.error();
    ir::Inputs bound;
    bound.vars = inputs.vars;
    std::map<int, int> written;  // output slot -> buffer
    for (ir::UOp n : ir::toposort(kernel.root)) {
      if (n.op() != ir::Op::Param) continue;
      const ir::ParamArg& p = n.arg<ir::ParamArg>();
      auto slot = kernel.buffer_of_slot.find(p.slot);
      if (slot == kernel.buffer_of_slot.end())
        return Error{fmt::format("kernel {}: PARAM slot {} is bound to no buffer", k, p.slot)};
      if (p.output)
        written[p.slot] = slot->second;
      else
        bound.buffers[p.slot] = storage[static_cast<size_t>(slot->second)];
    }
    Result<ir::RunOutput> ran = (*compiled)->run(bound, options);
    if (!ran) return Error{fmt::format("kernel {}: {}", k, ran.error().message)};
    if (ran->status != ir::RunStatus::Ok) {
      out.status = ran->status;
      out.ub = ran->ub;
      out.failed_kernel = static_cast<int>(k);
      return out;
    }
    for (auto [slot, buffer] : written) {
      auto it = ran->outputs.find(slot);
      if (it == ran->outputs.end())
        return Error{fmt::format("kernel {} returned no buffer for output slot {}", k, slot)};
      storage[static_cast<size_t>(buffer)] = std::move(it->second);
    }
  }
  for (size_t i = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].role == ir::ProgramBuffer::Role::Output)
      out.outputs[program.buffers[i].index] = storage[i];
  return out;
}

}  // namespace uopfuzz::backends
