/** \file The kernel generator: random .uop kernels that are valid and free of undefined
 * behaviour by construction, biased to the shapes the simplifier's rules rewrite.
 *
 * A kernel is a SINK of 1..max_outputs effects. Each effect stores one output buffer,
 * usually inside a loop nest: END(STORE(INDEX(out, lin), value), r0, r1, ...) where lin is
 * the row-major flat index of the nest (i*Nj + j, injective, so each element is stored
 * at most once; the buffer is exactly as large as lin's bound). The stored value is a
 * random expression of the output dtype over the open ranges: loads, constants, VARs,
 * ALU ops, WHERE, casts and REDUCEs, with the rule families of GenPolicy (RANGE % c,
 * gated indexes, arange, bounded and window sums, gathers, unparented and nested
 * reduces) placed at expression positions with their probabilities.
 *
 * Free of undefined behaviour (SEMANTICS.md) by construction, for every input the
 * filler can produce and every VAR value within its bounds, except for two shapes that
 * test demand-driven evaluation and are defined only where their fault is never reached
 * (GenPolicy::p_shielded_fault: a fault behind a loop whose header VAR end is 0;
 * DivisorWeights::zero_at_an_iteration: cast(r) - c, zero at r = c); with both off,
 * every VAR value is safe:
 *  - load addresses are index expressions whose interval (ir::Analysis) fits the buffer;
 *    input buffers are sized afterwards to the largest address used, and an address that
 *    may be negative or too wide is gated (WHERE(-1 < i & i < n, i, INVALID)), wrapped
 *    (i % n) or clamped; loaded indexes come from buffers with vmin/vmax;
 *  - divisors are nonzero constants, max(x, c > 0), x | 1 or x*x + 1 (sized integers:
 *    x*x is never -1 modulo 2^bits); shift amounts are constants in [0, bits) or
 *    x & (bits - 1);
 *  - index arithmetic is kept to |value| <= max_index_magnitude by the interval analysis
 *    (an operation that could leave it is not built), except around edge constants
 *    (GenPolicy::p_index_edge_const: near the int64 limits or +-max_index_magnitude), which
 *    are moved to the nearest constant for which no value overflows; sized integers may
 *    wrap (defined), and their constants, VAR bounds and input bounds include edge values;
 *  - a float reaches an integer CAST or BITCAST only through a NaN guard (and a clamp to
 *    [-100, 100] for a CAST).
 * Floats round (inexact_floats, the default): products, transcendentals and edge constants
 * (random significands, 2^p and 1 + ulp where sums round after a few terms, -0, the dtype's
 * limits, inf and NaN). With inexact_floats off, only edge constants round: constants k/8 in
 * [-8, 8] (and the inputs), +, -, max, min, trunc, casts, and products with 2, 1/2, 1/4, 3,
 * -1, -2 only, so values are dyadic rationals of few bits unless an edge constant enters.
 * Then it is checked (check_and_repair): the oracle runs the kernel for the header's VAR
 * values and input seeds 0..check_seeds-1 (0: no check); a node it reports as undefined is replaced
 * locally (a LOAD or STORE gets a bounds gate, any other node a constant of its dtype) and the
 * check is repeated, up to max_repairs times; an effect that still has UB is dropped. Stats say how
 * often that was needed (only the zero-at-an-iteration divisors need it: about 0.4% of graphs at
 * the default policy). Callers should run the kernel with its header's VAR values: the check
 * vouches for those.
 *
 * Deterministic: the same policy and entropy give the same kernel (the same printed
 * text), on any machine and whatever nodes the Context already holds.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gen/entropy.h"
#include "gen/policy.h"
#include "ir/kernel.h"

namespace uopfuzz::gen {

/// The generator's version, written to each kernel's header (@generator).
inline constexpr const char* kGeneratorVersion = "uopfuzz-gen-9";

struct GenStats {
  int oracle_runs = 0;             ///< check runs of the oracle (all rounds)
  int repairs = 0;                 ///< nodes replaced because the oracle found them undefined
  int dropped_effects = 0;         ///< effects removed because repairs did not make them defined
  int nodes = 0;                   ///< nodes in the final graph
  bool entropy_exhausted = false;  ///< a byte source ran out (choices defaulted from there on)
  std::string oracle_error;  ///< why the oracle could not compile or run the kernel (a generator
                             ///< bug), or empty
  std::vector<std::string>
      repair_log;  ///< one line per repair: what was undefined, what replaced it
  bool repaired() const { return repairs + dropped_effects > 0; }
};

struct GenResult {
  /// The kernel; the header holds @name, @seed (input seed 0), @var values, @generator
  /// and, for seeded generation, @gen-seed.
  ir::Kernel kernel;
  GenStats stats;
};

/// One kernel from `entropy`, built in `ctx`.
GenResult generate(ir::Context& ctx, const GenPolicy& policy, Entropy& entropy);
/// One kernel from a 64-bit seed (SeedEntropy); the header records the seed (@gen-seed).
GenResult generate(ir::Context& ctx, const GenPolicy& policy, uint64_t seed);

/// The check-and-repair step of generate(), for any kernel: runs it on the oracle for the
/// header's VAR values and input seeds 0..policy.check_seeds-1 and repairs each undefined
/// node it reports (up to policy.max_repairs, then drops the effect), until the runs are
/// defined. Also drops @var lines of VARs no longer in the graph and sets stats.nodes.
void check_and_repair(ir::Context& ctx, ir::Kernel& kernel, const GenPolicy& policy,
                      GenStats& stats);

}  // namespace uopfuzz::gen
