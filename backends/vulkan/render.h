/** \file Rendering of a verified kernel graph to a GLSL 450 compute shader (the
 * Vulkan backend's code generator; glsl_compile.h turns the text into SPIR-V).
 *
 * The shader has one storage buffer per PARAM (binding i = the signature's buffer i),
 * every VAR as an int64 push constant (`pc.v[k]`, k = the signature's VAR order), and a
 * local size of kLocalSize. Invocation t of T = `threads` runs iterations t, t+T, t+2T,
 * ... of the outermost loop of every top-level END; top-level STOREs outside loops run
 * on invocation 0 only. Because outputs are write-only and a double store is UB, the
 * shares never conflict. Inner loops and REDUCE ranges are plain loops; gated loads and
 * stores are branches; values are placed at the innermost loop they depend on, loads (and
 * what uses them) where demanded: ir/loop_plan.h with Pinning::Memory, as the CPU backend.
 *
 * Exact semantics (SEMANTICS.md): integer division, remainder and shifts go through
 * helpers that give CDIV/CMOD truncation, FLOORDIV/FLOORMOD flooring, INT_MIN / -1
 * wrapping and masked shift amounts, and never divide by zero even when computed ahead
 * of need; float temporaries are `precise` (no contraction into FMA); float MAX/MIN and
 * comparisons follow the NaN and signed-zero rules; float32/float16 RECIPROCAL and SQRT
 * are computed in double (correctly rounded twice is exact for these), EXP2/LOG2/SIN
 * in double through the renderer's own double-precision routines (glsl_library.h), then rounded
 * once; such graphs need float64 (RenderedKernel::needs), never the device's looser builtins.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/result.h"
#include "ir/signature.h"
#include "ir/uop.h"

namespace uopfuzz::backends::vulkan {

inline constexpr uint32_t kLocalSize = 64;

/// Device features a shader needs (checked against DeviceInfo before compiling).
struct Needs {
  bool int8 = false, int16 = false, int64 = false, float16 = false, float64 = false;
  bool storage8 = false, storage16 = false;
};

struct RenderedKernel {
  std::string glsl;
  ir::Signature signature;  ///< binding i is signature.buffers[i]; pc.v[k] is signature.vars[k]
  Needs needs;
  uint32_t threads = 1;  ///< invocations T (a multiple of kLocalSize)
};

struct RenderOptions {
  uint32_t max_groups = 65535;  ///< the device's maxComputeWorkGroupCount[0]: caps the invocations
};

Result<RenderedKernel> render(ir::UOp root, const RenderOptions& options = {});

}  // namespace uopfuzz::backends::vulkan
