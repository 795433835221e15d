/** \file The tensor-program generator: random tensor programs (rooted at REALIZE) from the
 * same two entropy sources as kernels (a 64-bit seed or libFuzzer bytes) and the
 * TensorGenPolicy section of GenPolicy. Free of undefined behaviour (SEMANTICS.md) by
 * construction, checked on the tensor oracle while generating.
 */
#pragma once

#include <cstdint>

#include "gen/entropy.h"
#include "gen/policy.h"
#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::gen {

struct TensorGenResult {
  /// The program (root: REALIZE); the header holds @name, @seed (input seed 0),
  /// @generator and, for seeded generation, @gen-seed.
  ir::Kernel program;
  int nodes = 0;
  bool repaired = false;  ///< an undefined element was repaired while generating
};

TensorGenResult generate_tensor_program(ir::Context& ctx, const GenPolicy& policy,
                                        Entropy& entropy);
TensorGenResult generate_tensor_program(ir::Context& ctx, const GenPolicy& policy, uint64_t seed);

}  // namespace uopfuzz::gen
