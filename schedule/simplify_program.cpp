#include "schedule/lower.h"

namespace uopfuzz::schedule {

SimplifiedProgram simplify_program(ir::Context& ctx, const ir::Program& program,
                                   const simplifier::SimplifyOptions& options) {
  SimplifiedProgram out;
  out.program = program;
  for (ir::ProgramKernel& k : out.program.kernels) {
    simplifier::SimplifyResult r = simplifier::simplify(ctx, k.root, options);
    k.root = r.root;
    out.converged = out.converged && r.converged;
    for (const auto& [rule, n] : r.hits) out.hits[rule] += n;
  }
  return out;
}

}  // namespace uopfuzz::schedule
