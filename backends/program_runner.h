/** \file Running a Program (ir/program.h) on any backend: kernel by kernel, in order, with
 * the intermediate buffers allocated (zeroed) by the runner. */
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "backends/backend.h"
#include "ir/program.h"

namespace uopfuzz::backends {

struct ProgramRunOutput {
  ir::RunStatus status = ir::RunStatus::Ok;
  std::map<int, ir::Buffer> outputs;  ///< by the tensor program's REALIZE index
  std::optional<ir::UbReport> ub;     ///< the oracle only
  int failed_kernel = -1;             ///< the kernel that hit UB or the step limit
  /// With RunOptions::observe_values (the oracle): each kernel's observed values, by kernel.
  std::vector<std::vector<ir::ObservedRange>> observed;
};

/// Runs `program` on `backend`. `inputs` holds the tensor program's input buffers by PARAM
/// slot (ir::make_inputs of the tensor program). A kernel the backend cannot compile fails
/// the run with its compile error ("unsupported: ..." for a capability).
Result<ProgramRunOutput> run_program(Backend& backend, const ir::Program& program,
                                     const ir::Inputs& inputs, const RunOptions& options = {},
                                     const CompileOptions& compile = {});

// The steps of a run, for runners that keep their compiled kernels (check/program_latency.h).

/// The Program's buffers before its first kernel: the inputs from `inputs` (by the tensor
/// program's PARAM slot), every other buffer zeroed.
Result<std::vector<ir::Buffer>> program_storage(const ir::Program& program,
                                                const ir::Inputs& inputs);

/// Binds kernel `k`'s input slots to their buffers in `storage` (into `bound.buffers`) and
/// returns its output slots' buffers (slot -> buffer index).
Result<std::map<int, int>> bind_kernel(const ir::Program& program, size_t k,
                                       const std::vector<ir::Buffer>& storage, ir::Inputs& bound);

/// Moves kernel `k`'s outputs from `ran` into `storage`, as `written` (bind_kernel) says.
std::optional<Error> store_outputs(size_t k, const std::map<int, int>& written, ir::RunOutput& ran,
                                   std::vector<ir::Buffer>& storage);

}  // namespace uopfuzz::backends
