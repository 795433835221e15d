/** \file What one run of a kernel takes and gives, on every executor: input buffers and VAR values,
 * output buffers, UB. */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

struct RunOutput {
  RunStatus status = RunStatus::Ok;
  std::map<int, Buffer> outputs;  ///< by slot; meaningful when status == Ok
  std::optional<UbReport> ub;  ///< only interpreters report UB (compiled backends trust the oracle)
  uint64_t steps = 0;          ///< interpreters: instructions executed
  uint64_t iterations =
      0;  ///< interpreters: passes through a loop body, all loops (nested ones per pass)
};

/// Deterministic inputs for a kernel (SEMANTICS.md, "Inputs"): every input PARAM
/// filled and every VAR given a value, all derived from `seed` alone. Values given in
/// `vars` are kept as they are.
Inputs make_inputs(UOp root, uint64_t seed, const std::map<std::string, int64_t>& vars = {});

}  // namespace uopfuzz::ir
