/** \file The Vulkan backend: kernel graphs rendered to GLSL compute shaders
 * (render.h), compiled to SPIR-V in process (glsl_compile.h) and run on a Vulkan device
 * (runtime.h): Mesa's lavapipe on machines without a GPU, any GPU by choice.
 *
 * Semantics are SEMANTICS.md's: exact ops bit for bit, EXP2/LOG2/SIN through the
 * renderer's double-precision routines (within the tolerance SEMANTICS.md declares for
 * this backend). Graphs needing a device feature the chosen device lacks (8/16/64-bit
 * types, float64) fail to compile with "unsupported: ..." (skipped, never failed).
 *
 * Kernels are cached by the hash of their printed graph. The device context is created
 * lazily in the process that compiles or runs (fork-safe: a campaign parent that never
 * checks owns none; a child never reuses its parent's).
 */
#pragma once

#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/vulkan/device_info.h"

namespace uopfuzz::backends::vulkan {

/// Validation-layer messages seen by this process's device context (0 if none exists or
/// validation is off), and their text.
uint64_t validation_messages();
std::vector<std::string> validation_log();

}  // namespace uopfuzz::backends::vulkan
