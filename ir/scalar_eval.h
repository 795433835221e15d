/** \file The scalar semantics of every ALU op, written once (SEMANTICS.md in code).
 *
 * The oracle evaluates with these functions and the simplifier's constant folder must
 * use them too, so that folding and executing can never disagree.
 */
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/dtype.h"
#include "ir/ops.h"
#include "ir/value.h"

namespace uopfuzz::ir {

/// Undefined behaviour an ALU op can raise (SEMANTICS.md, "Undefined behaviour").
enum class EvalError : uint8_t {
  None,
  DivisionByZero,   ///< CDIV/CMOD/FLOORDIV/FLOORMOD by 0
  ShiftOutOfRange,  ///< SHL/SHR amount outside [0, bits)
  IndexOverflow,    ///< an `index` result outside the int64 range
  CastOutOfRange,   ///< float -> int of NaN or of a value outside the target's range
  NanBitcast,       ///< BITCAST of a NaN float to an integer (payloads are not portable)
  Unsupported,      ///< not an ALU op for these dtypes (the verifier refuses such graphs)
};
std::string_view eval_error_name(EvalError e);

/// Evaluates an ALU op. `in` is the operands' dtype (WHERE: the branches'; CAST and
/// BITCAST: the source's), `out` the result dtype; `args` holds 1-3 canonical values.
/// On success writes the canonical result and returns EvalError::None.
EvalError eval_alu(Op op, DType in, DType out, const Value* args, Value& result);

/// The identity a REDUCE starts from: ADD 0, MUL 1, MAX the dtype's lowest value
/// (-inf for floats), MIN its highest (+inf).
Value reduce_identity(Op op, DType dt);

}  // namespace uopfuzz::ir
