#include "backends/program_runner.h"

#include <fmt/format.h>

#include "ir/graph.h"

namespace uopfuzz::backends {

Result<std::vector<ir::Buffer>> program_storage(const ir::Program& program,
                                                const ir::Inputs& inputs) {
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
  return storage;
}

Result<std::map<int, int>> bind_kernel(const ir::Program& program, size_t k,
                                       const std::vector<ir::Buffer>& storage, ir::Inputs& bound) {
  const ir::ProgramKernel& kernel = program.kernels[k];
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
  return written;
}

std::optional<Error> store_outputs(size_t k, const std::map<int, int>& written, ir::RunOutput& ran,
                                   std::vector<ir::Buffer>& storage) {
  for (auto [slot, buffer] : written) {
    auto it = ran.outputs.find(slot);
    if (it == ran.outputs.end())
      return Error{fmt::format("kernel {} returned no buffer for output slot {}", k, slot)};
    storage[static_cast<size_t>(buffer)] = std::move(it->second);
  }
  return std::nullopt;
}

Result<ProgramRunOutput> run_program(Backend& backend, const ir::Program& program,
                                     const ir::Inputs& inputs, const RunOptions& options,
                                     const CompileOptions& compile) {
  Result<std::vector<ir::Buffer>> storage = program_storage(program, inputs);
  if (!storage) return storage.error();
  ProgramRunOutput out;
  std::vector<ir::UOp> roots;
  for (const ir::ProgramKernel& k : program.kernels) roots.push_back(k.root);
  // All kernels at once (one module on the cpu); the first error in kernel order wins.
  std::vector<Result<std::shared_ptr<Kernel>>> kernels = backend.compile_all(roots, compile);
  for (auto& compiled : kernels)
    if (!compiled) return compiled.error();
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    Result<std::shared_ptr<Kernel>>& compiled = kernels[k];
    ir::Inputs bound;
    bound.vars = inputs.vars;
    Result<std::map<int, int>> written = bind_kernel(program, k, *storage, bound);
    if (!written) return written.error();
    Result<ir::RunOutput> ran = (*compiled)->run(bound, options);
    if (!ran) return Error{fmt::format("kernel {}: {}", k, ran.error().message)};
    if (ran->status != ir::RunStatus::Ok) {
      out.status = ran->status;
      out.ub = ran->ub;
      out.failed_kernel = static_cast<int>(k);
      return out;
    }
    if (options.observe_values) out.observed.push_back(std::move(ran->observed));
    if (auto e = store_outputs(k, *written, *ran, *storage)) return *e;
  }
  for (size_t i = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].role == ir::ProgramBuffer::Role::Output)
      out.outputs[program.buffers[i].index] = (*storage)[i];
  return out;
}

}  // namespace uopfuzz::backends
