/** \file The reducer's passes, one propose_<Pass> per row of passes.def, each listing candidate
 * edits of a kernel; defined in passes_*.cpp by kind. */
#pragma once

#include "ir/kernel.h"
#include "reduce/edit.h"

namespace uopfuzz::reduce {

#define PASS(e, name, doc) void propose_##e(ir::Context& ctx, const ir::Kernel& k, Candidates& out);
#include "reduce/passes.def"
#undef PASS

}  // namespace uopfuzz::reduce
