/** \file The metamorphic second oracle for quantized tensor programs (seed 003).
 *
 * The differential check compares the lowering with the tensor oracle, so a wrong
 * definition shared by both would pass. This check needs no reference value: for each
 * unit-axis REDUCE_AXIS of a quantized program (every reduced axis of size 1, or
 * `axes=[]`), it picks reals that are exactly representable in the reduce's input type
 * and in a second input type (another scale and zero point), encodes them in both,
 * builds the one-reduce program for each domain (same output type, shape and axes),
 * lowers, simplifies and runs both through the system under test exactly as
 * check_program does, and requires the two outputs to decode to the same reals within
 * the output type's quantization step (and each to be within one step of the reals it
 * encodes). A disagreement is a finding.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "check/program_check.h"
#include "ir/kernel.h"

namespace uopfuzz::check {

struct QuantMetamorphicResult {
  int pairs = 0;  ///< unit-axis reduces checked (0: the program has none)
  /// One line a person can read: which reduce, both input types, the reals and the two
  /// decoded outputs. Unset when every pair agreed.
  std::optional<std::string> disagreement;
  /// The one-reduce program (with its inputs given in the header) that shows it, ready for
  /// the corpus.
  std::optional<ir::Kernel> witness;
};

/// Runs the check on every unit-axis reduce of `program` (a tensor program), the second
/// domain and the reals drawn from `seed`.
QuantMetamorphicResult check_quant_metamorphic(ir::Context& ctx, const ir::Kernel& program,
                                               const ProgramCheckOptions& options, uint64_t seed);

}  // namespace uopfuzz::check
