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
 * primes and, rarely, 0; a share of programs reduces 10^4..10^5 elements per output element.
 *
 * Further kinds aim at the tensor-stage rules (schedule/buffers.h, split_reduce.h), each a
 * node read by two consumers at indices that disagree (a removable BUFFERIZE): a reduce
 * (a reduce in scope; over every axis, a scalar), a NEG or CAST read inside and outside a
 * reduce (argmax(-x)), 1..5 distinct inputs combined (the buffer limit), a PAD-gated
 * read, a CONST through a movement (BUFFERIZE(CONST)), an EXPAND of a smaller value (dead
 * axes); and reduces of factorable, prime or broadcast dims with a large input/output
 * ratio (split reduce at a small threshold).
 *
 * Undefined behaviour is avoided by construction: integer divisors are nonzero CONSTs or
 * x | 1; shift amounts are CONSTs in [0, bits) or x & (bits - 1); a float reaching an
 * integer CAST is NaN-guarded and clamped into the target's range, and one reaching an
 * integer BITCAST is NaN-guarded. Then (TensorGenPolicy::check) the tensor oracle runs the
 * outputs that hold such an op (integer division or shift, a float reaching an integer) on
 * input seed 0, and a node it reports as undefined is replaced by a CONST of its dtype and
 * shape, up to max_repairs times. The large reduction's source holds none of those ops, so
 * its 32,768+ elements are never evaluated while generating.
 *
 * Deterministic: the same policy and entropy give the same program text, on any machine
 * and whatever nodes the Context already holds.
 *
 * Where it lives: what fills a position is a family, one row of gen/tensor_families.def
 * (its TensorNodeWeights or QuantNodeWeights row, its builder), each builder a member of
 * TensorBuilder (gen/tensor/builder.h) in the gen/tensor/ file of its idea; every
 * probability, weight and size it draws is a TensorGenPolicy field (gen/tensor_policy.h).
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
inline constexpr const char* kTensorGeneratorVersion = "uopfuzz-tensor-gen-4";

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

/// The check-and-repair step of generate_tensor_program(), for any tensor program: runs the
/// outputs that can be undefined on the tensor oracle (input seed 0) and replaces each node
/// it reports undefined by a CONST 1 of its dtype and shape, up to policy.max_repairs times;
/// counts them in `result` (repairs, still_undefined, oracle_error).
void check_and_repair_tensor_program(ir::Context& ctx, ir::Kernel& program,
                                     const TensorGenPolicy& policy, TensorGenResult& result);

}  // namespace uopfuzz::gen
