#include "backends/program_runner.h"

namespace uopfuzz::backends {

Result<ProgramRunOutput> run_program(Backend& backend, const ir::Program& program,
                                     const ir::Inputs& inputs, const RunOptions& options) {
  return Error{"unsupported: the program runner is not written yet"};
}

}  // namespace uopfuzz::backends
