/** \file Rangeify's intermediate form, the BUFFERIZE graph, between the realization plan
 * (rangeify.h) and kernel splitting; the buffer rules (buffers.h) rewrite it.
 *
 * The graph is SINK(BUFFERIZE...) with one BUFFERIZE per output, in REALIZE order. Its
 * conventions, which every buffer rule keeps:
 * - BUFFERIZE(value, r0..rn): `value` computed at the ranges r_i, one per buffer dim (a
 *   RANGE, or CONST 0 for a dim of size 1; no ranges: a scalar buffer of one element). Its
 *   arg (ir::BufferizeArg) says which output it is and whether the rules may touch it.
 * - INDEX(BUFFERIZE b, i0..in): reads b, one index per range. A gated read has every
 *   index as WHERE(g, e_i, INVALID) with the same g, and reads 0 where g is false; an index
 *   that is INVALID itself reads 0 everywhere. A read of a BUFFERIZE with no ranges carries
 *   no gate (a PAD above it masks the value itself).
 * - An input is read as LOAD(INDEX(PARAM, linear)), the PARAM being the tensor program's
 *   own (with its shape); a gated load's linear index is WHERE(g, linear, INVALID).
 * - REDUCE(value, ranges...) and the ALU ops are kernel ops; CONST is a scalar.
 * Kernel splitting makes each BUFFERIZE a kernel that STOREs its buffer, and each INDEX of
 * it a LOAD (split_kernels.cpp).
 */
#pragma once

#include "ir/program.h"
#include "ir/result.h"
#include "ir/uop.h"
#include "schedule/lowering_bugs.h"
#include "schedule/rangeify.h"

namespace uopfuzz::schedule {

/// The BUFFERIZE graph of a tensor program under its realization `plan`.
Result<ir::UOp> bufferize(IndexSimplifier& simplify, const RangeifyPlan& plan,
                          const LoweringBugSet& bugs);

/// The row-major linear index of `idx` into `shape`, simplified.
ir::UOp linear_index(IndexSimplifier& simplify, const std::vector<ir::UOp>& idx,
                     const ir::Shape& shape);

/// A buffer's shape from its BUFFERIZE's ranges (a RANGE's end, 1 for a CONST), or an
/// error for a range of symbolic end.
Result<ir::Shape> bufferize_shape(ir::UOp bufferize);

/// Kernel splitting: the Program of `graph`, the BUFFERIZE graph of the tensor program
/// `root`. Buffers are the inputs (by PARAM slot), the outputs (by REALIZE index) and one
/// intermediate per other BUFFERIZE, in dependency order; kernels likewise. Fails (not
/// "unsupported:") on a graph that breaks the conventions above.
Result<ir::Program> split_kernels(IndexSimplifier& simplify, ir::UOp root, ir::UOp graph);

}  // namespace uopfuzz::schedule
