/** \file Lowering of a verified kernel graph to one LLVM IR function (the LLVM-facing half
 * of the CPU backend; cpu_backend.cpp compiles what this builds with the ORC JIT).
 *
 * The emitted function is
 *     void <name>(i8** buffers, i64* vars, i64 thread, i64 threads)
 * `buffers` and `vars` in the order of the kernel's signature (ir/signature.h). Thread t
 * of T runs its share of the outermost loop of every top-level END (a contiguous
 * block of iterations); top-level STOREs outside loops run on thread 0 only. Because
 * outputs are write-only and a double store is UB, the shares never conflict.
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/result.h"
#include "ir/signature.h"
#include "ir/uop.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace uopfuzz::backends::cpu {

/// One kernel's entry function in a module.
struct LoweredFunction {
  std::string function;     ///< the entry's symbol name
  ir::Signature signature;  ///< the order of the entry's `buffers` and `vars`
  bool parallel = false;    ///< some loop is split across threads (else one thread does all)
};

struct LoweredKernel : LoweredFunction {
  std::unique_ptr<llvm::Module> module;
};

/// Names of the float16 helpers the emitted code calls (defined by the JIT as absolute
/// symbols pointing at ir::round_to_half, ir::half_bits, ir::half_value).
inline constexpr const char* kHalfRound = "uopfuzz_half_round";
inline constexpr const char* kHalfBits = "uopfuzz_half_bits";
inline constexpr const char* kHalfValue = "uopfuzz_half_value";

/// Whether some top-level loop nest of the kernel is large enough (2^15 iterations at
/// most, by static bounds) to be split across threads; the others run on thread 0.
bool splits_across_threads(ir::UOp root);

Result<LoweredKernel> lower(llvm::LLVMContext& ctx, ir::UOp root, const std::string& function);

/// Lowers `root` as the function `function` of `module`, beside what it already holds
/// (several kernels compiled as one module). On an error the module is left as it was.
Result<LoweredFunction> lower_function(llvm::Module& module, ir::UOp root,
                                       const std::string& function);

}  // namespace uopfuzz::backends::cpu
