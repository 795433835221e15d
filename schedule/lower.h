/** \file Lowering a tensor program to a Program (rangeify, then kernel splitting).
 *
 * rangeify: tensor program -> kernel graph in which every realized node (an output, a
 * CONTIGUOUS, a node whose consumers index it in ways that disagree, a reduce whose result
 * is broadcast) is BUFFERIZE(value, ranges...) and each use is INDEX(BUFFERIZE, idx...);
 * movement ops become index expressions (simplified by the symbolic rules), REDUCE_AXIS a
 * REDUCE over fresh ranges. Kernel splitting then makes every BUFFERIZE a kernel that
 * STOREs its buffer, and its uses LOADs: the Program. Each kernel is a valid kernel
 * (ir::verify) that the simplifier pipeline takes unchanged.
 */
#pragma once

#include <string>

#include "ir/program.h"
#include "ir/result.h"
#include "ir/uop.h"
#include "schedule/lowering_bugs.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::schedule {

struct LowerOptions {
  LoweringBugSet bugs;  ///< planted lowering bugs switched on (selftest)
};

/// Lowers the verified tensor program `root` (a REALIZE). The Program's buffers are its
/// inputs (by PARAM slot), its outputs (by REALIZE index) and the intermediates; its kernels
/// are not yet simplified. Fails with "unsupported: ..." for a program it cannot lower.
Result<ir::Program> lower(ir::Context& ctx, ir::UOp root, const LowerOptions& options = {});

struct SimplifiedProgram {
  ir::Program program;                   ///< the same buffers; each kernel simplified
  std::map<std::string, uint64_t> hits;  ///< rule hits over all kernels
  bool converged = true;                 ///< every kernel's pipeline reached a fixed point
};

/// Runs the simplifier pipeline on each kernel of `program`, unchanged otherwise.
SimplifiedProgram simplify_program(ir::Context& ctx, const ir::Program& program,
                                   const simplifier::SimplifyOptions& options = {});

}  // namespace uopfuzz::schedule
