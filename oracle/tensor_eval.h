/** \file The tensor oracle: evaluates a tensor program (rooted at REALIZE) straight from each
 * op's definition in SEMANTICS.md ("Tensor programs"), element by element, with no ranges
 * and no kernels: the reference that the lowering (schedule/) is checked against, the way
 * numpy is for tinygrad's tests.
 */
#pragma once

#include "ir/result.h"
#include "ir/run_io.h"
#include "ir/uop.h"

namespace uopfuzz::oracle {

/// Runs the verified tensor program `root` on `inputs` (input buffers by PARAM slot, as
/// ir::make_inputs fills them). RunOutput::outputs holds one buffer per REALIZE source, by
/// its index, each row-major over that tensor's shape. An op whose value is undefined for
/// some element (SEMANTICS.md) gives status Ub with the node and what happened; usage
/// errors (a missing or mis-sized input) are errors.
Result<ir::RunOutput> eval_tensor_program(ir::UOp root, const ir::Inputs& inputs);

}  // namespace uopfuzz::oracle
