/** \file The tensor-program generator: random tensor programs (rooted at REALIZE) from the
 * same two entropy sources as kernels (a 64-bit seed or libFuzzer bytes) and the
 * TensorGenPolicy section of GenPolicy. Free of undefined behaviour (SEMANTICS.md) by
 * construction, checked on the tensor oracle while generating.
 *
 * Generation is top-down: each output is a *position*, a dtype and a shape to fill, and
 * filling it picks a node that gives exactly that dtype and shape, drawing its sources as
 * new positions: a PARAM or CONST leaf, an earlier node of the dtype and shape (a second
 * consumer), an elementwise op, a CAST or BITCAST, a movement op from a source shape
 * derived backwards (RESHAPE from another factorisation, PERMUTE from the inverse order,
 * EXPAND from 1s, PAD from a smaller shape, SHRINK from a larger one, FLIP), REDUCE_AXIS
 * over inserted or size-1 axes (one, several, all, none), reduce-then-broadcast
 * (x - x.max(1)), x combined with a re-indexed x, and CONTIGUOUS. Shapes mix 1s, small
 * primes and, rarely, 0; a share of programs reduces 32,768+ elements per output element.
 *
 * Undefined behaviour is avoided by construction: integer divisors are nonzero CONSTs or
 * x | 1; shift amounts are CONSTs in [0, bits) or x & (bits - 1); a float reaching an
 * integer CAST is NaN-guarded and clamped into the target's range, and one reaching an
 * integer BITCAST is NaN-guarded. Then (TensorGenPolicy::check) the tensor oracle runs the
 * program on input seed 0, and a node it reports as undefined is replaced by a CONST of its
 * dtype and shape, up to max_repairs times.
 *
 * Deterministic: the same policy and entropy give the same program text, on any machine
 * and whatever nodes the Context already holds.
 */
#pragma once

#include <cstdint>
#include <string>

#include "gen/entropy.h"
#include "gen/policy.h"
#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::gen {

/// The tensor generator's version, written to each program's header (@generator).
inline constexpr const char* kTensorGeneratorVersion = "uopfuzz-tensor-gen-1";

struct TensorGenResult {
  /// The program (root: REALIZE); the header holds @name, @seed (input seed 0),
  /// @generator and, for seeded generation, @gen-seed.
  ir::Kernel program;
  int nodes = 0;                   ///< nodes of the program, REALIZE included
  bool repaired = false;           ///< an undefined element was repaired while generating
  int repairs = 0;                 ///< nodes replaced because the oracle found them undefined
  bool still_undefined = false;    ///< max_repairs did not suffice (a generator bug)
  bool entropy_exhausted = false;  ///< a byte source ran out (choices defaulted from there on)
  std::string oracle_error;        ///< why the oracle could not run the program, or empty
};

TensorGenResult generate_tensor_program(ir::Context& ctx, const GenPolicy& policy,
                                        Entropy& entropy);
TensorGenResult generate_tensor_program(ir::Context& ctx, const GenPolicy& policy, uint64_t seed);

}  // namespace uopfuzz::gen
