/** \file The CPU backend: kernel graphs lowered to LLVM IR, optimized at O2 and
 * JIT-compiled in process (ORC LLJIT) for the host CPU.
 *
 * Semantics are SEMANTICS.md's, bit for bit: integers wrap (no nsw/nuw), divisions are
 * guarded so that a speculated division by zero or INT_MIN / -1 cannot trap, shifts mask
 * their amount and float-to-int casts saturate (so a value computed ahead of need is
 * never LLVM poison that could reach a branch), floats without fast-math; EXP2, LOG2
 * and SIN call the same libm double functions as the oracle, and float16 values live
 * in registers as doubles rounded after every op with the oracle's own rounding.
 * Loads (and everything that uses one, REDUCE included) are emitted where they are
 * demanded, never hoisted above a loop that might not run; LLVM hoists what it can
 * prove safe.
 *
 * Kernels are cached by the hash of their printed graph. The JIT and the thread pool
 * are created lazily in the process that compiles or runs (fork-safe: a campaign parent
 * that never checks owns neither; a pool created before a fork is rebuilt in the child).
 */
#pragma once

#include <memory>

#include "backends/backend.h"

namespace uopfuzz::backends::cpu {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace uopfuzz::backends::cpu
