/** \file Running a Program (ir/program.h) on any backend: kernel by kernel, in order, with
 * the intermediate buffers allocated (zeroed) by the runner. */
#pragma once

#include <optional>

#include "backends/backend.h"
#include "ir/program.h"

namespace uopfuzz::backends {

struct ProgramRunOutput {
  ir::RunStatus status = ir::RunStatus::Ok;
  std::map<int, ir::Buffer> outputs;  ///< by the tensor program's REALIZE index
  std::optional<ir::UbReport> ub;     ///< the oracle only
  int failed_kernel = -1;             ///< the kernel that hit UB or the step limit
};

/// Runs `program` on `backend`. `inputs` holds the tensor program's input buffers by PARAM
/// slot (ir::make_inputs of the tensor program). A kernel the backend cannot compile fails
/// the run with its compile error ("unsupported: ..." for a capability).
Result<ProgramRunOutput> run_program(Backend& backend, const ir::Program& program,
                                     const ir::Inputs& inputs, const RunOptions& options = {});

}  // namespace uopfuzz::backends
