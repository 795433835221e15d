/** \file What one run of a kernel takes and gives, on every executor: input buffers and VAR values,
 * output buffers, UB. */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/kernel.h"
#include "ir/uop.h"
#include "ir/value.h"

namespace uopfuzz::ir {

/// Input buffers by PARAM slot and VAR values by name.
struct Inputs {
  std::map<int, Buffer> buffers;
  std::map<std::string, int64_t> vars;
};

struct UbReport {
  UOp node;          ///< the node whose evaluation was undefined
  std::string what;  ///< e.g. "division by zero", "out-of-bounds load: index 12, size 10"
  /// The loop iteration it happened in: each enclosing RANGE and its value, outermost first.
  std::vector<std::pair<UOp, int64_t>> iteration;
};

enum class RunStatus : uint8_t { Ok, Ub, StepLimit };

/// The values one integer or bool node took in a run, least and greatest, as plain
/// integers (an unsigned 64-bit value keeps its whole range): what a simplifier's claimed
/// bounds for the node must hold.
struct ObservedRange {
  UOp node;
  __int128 lo = 0, hi = 0;
  /// The greatest common divisor of the values' magnitudes (0 when every value was 0):
  /// a claim that the node is a multiple of m holds exactly when m divides it.
  unsigned __int128 gcd = 0;
};

struct RunOutput {
  RunStatus status = RunStatus::Ok;
  std::map<int, Buffer> outputs;  ///< by slot; meaningful when status == Ok
  std::optional<UbReport> ub;  ///< only interpreters report UB (compiled backends trust the oracle)
  uint64_t steps = 0;          ///< interpreters: instructions executed
  uint64_t iterations =
      0;  ///< interpreters: passes through a loop body, all loops (nested ones per pass)
  /// The oracle with RunOptions::observe_values: every ALU, LOAD and REDUCE node of an
  /// integer or bool dtype that took a defined value, in no particular order.
  std::vector<ObservedRange> observed;
};

/// Deterministic inputs for a kernel (SEMANTICS.md, "Inputs"): every input PARAM
/// filled and every VAR given a value, all derived from `seed` alone. Values given in
/// `vars` are kept as they are.
Inputs make_inputs(UOp root, uint64_t seed, const std::map<std::string, int64_t>& vars = {});

/// make_inputs for a case: the input buffers its header's @input lines give hold exactly
/// those values on every seed; the others are filled from `seed` as above (each slot's
/// fill depends on its slot alone, so giving one buffer changes no other). A line that
/// does not fit an input PARAM of the graph (the parser and the reducer never leave one)
/// is ignored.
Inputs make_inputs(const Kernel& kernel, uint64_t seed,
                   const std::map<std::string, int64_t>& vars = {});

/// The kernel's @input lines fitted to its graph after an edit (the reducer's, the
/// simplifier's): a line whose buffer shrank keeps its first values; a line that fits no
/// input PARAM any more (none of its slot or dtype, a larger one, new value bounds) is
/// dropped, and that buffer is seed-filled.
void fit_given_inputs(Kernel& kernel);

/// Why `v` (canonical in the PARAM's dtype) cannot be an element of the input PARAM
/// `param`: outside its vmin..vmax or not a multiple of its multiple_of, which static
/// proofs may rely on; nullopt when it can.
std::optional<std::string> input_value_problem(UOp param, Value v);

}  // namespace uopfuzz::ir
