/** \file How many loop iterations one shader invocation may run, at most: the bound that
 * the Vulkan backend compares with a device's loop limit (DeviceInfo::max_loop_iterations).
 *
 * llvmpipe (lavapipe) guards against endless shaders with one counter per invocation that
 * every loop of the shader decrements on each pass, the pass that leaves a loop included;
 * at 65535 passes it leaves every loop, and the kernel stores a truncated result as if
 * nothing happened. A kernel that may need that many passes is refused instead.
 */
#pragma once

#include <cstdint>

#include "ir/uop.h"

namespace uopfuzz::backends::vulkan {

/// An upper bound on the loop passes one invocation of the rendered kernel `root` makes
/// when `threads` invocations share the outermost loop of each top-level END (render.h):
/// a loop entered with n iterations counts n + 1 passes, every REDUCE is taken as
/// evaluated once per iteration of the loops around it, and each RANGE runs its largest
/// trip count. Saturates at UINT64_MAX.
uint64_t loop_passes_per_invocation(ir::UOp root, uint32_t threads);

}  // namespace uopfuzz::backends::vulkan
