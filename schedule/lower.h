/** \file Lowering a tensor program to a Program, in four stages:
 * 1. on the tensor program: shape normalization, the unit-axis reduce rule
 *    (normalize_shapes.h), then split ReduceOp (split_reduce.h);
 * 2. rangeify (rangeify.h, bufferize.h): tensor program -> BUFFERIZE graph in which every
 *    realized node (an output, a CONTIGUOUS, a node whose consumers index it in ways that
 *    disagree, a reduce whose result is broadcast) is BUFFERIZE(value, ranges...) and each
 *    use is INDEX(BUFFERIZE, idx...); movement ops become index expressions (simplified by
 *    the symbolic rules), REDUCE_AXIS a REDUCE over fresh ranges;
 * 3. the buffer rules (buffers.h): buffer removal, BUFFERIZE folds, dead axes;
 * 4. kernel splitting: every BUFFERIZE a kernel that STOREs its buffer, its uses LOADs.
 * The result is a Program that ir::verify_program accepts; each kernel is a valid kernel
 * that the simplifier pipeline takes unchanged.
 */
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/program.h"
#include "ir/result.h"
#include "ir/uop.h"
#include "schedule/lowering_bugs.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::schedule {

struct LowerOptions {
  LoweringBugSet bugs;  ///< planted lowering bugs switched on (selftest)
  /// tinygrad's PCONTIG level for buffer removal (buffers.h): <= 2 keeps every buffer with
  /// a reduce in scope; above, the input/output ratio decides. tinygrad's default is 0.
  int pcontig = 0;
  /// Split ReduceOp's threshold on prod(input) // prod(output) (split_reduce.h).
  int64_t split_reduce_threshold = 32768;
  /// Tensor-stage rules switched off by name (tensor_rule_names()): the
  /// alternative a latency check times a decision against, and rule bisection's lever.
  std::set<std::string> disabled;
  friend bool operator==(const LowerOptions&, const LowerOptions&) = default;
};

/// One reduce that shape normalization (normalize_shapes.h) took size-1 dims from: the
/// record keeps which reduced axes went, so an empty `remapped` means "reduce nothing".
struct SqueezeRecord {
  ir::UOp reduce;                 ///< the REDUCE_AXIS as it was (sources already rewritten)
  std::vector<int64_t> axes;      ///< its axes
  std::vector<int64_t> removed;   ///< the reduced axes removed (size 1)
  std::vector<int64_t> remapped;  ///< the axes left, numbered in the squeezed shape
};

/// What a lowering did besides its Program.
struct LowerReport {
  std::map<std::string, uint64_t> hits;  ///< tensor-stage rule -> times it fired
  std::vector<SqueezeRecord> squeezed;   ///< one per reduce shape normalization changed
  ir::UOp graph;                         ///< the BUFFERIZE graph after the buffer rules
  bool converged = true;                 ///< the buffer rules reached a fixed point
};

/// Every tensor-stage rule's name: the buffer rules, split reduce, shape normalization and
/// the unit-axis rule.
std::vector<std::string> tensor_rule_names();

/// Lowers the verified tensor program `root` (a REALIZE). The Program's buffers are its
/// inputs (by PARAM slot), its outputs (by REALIZE index) and the intermediates; its kernels
/// are not yet simplified. Fails with "unsupported: ..." for a program it cannot lower, and
/// with "the lowered program does not verify: ..." when it makes a wrong one (a planted
/// bug; never an unsupported case).
Result<ir::Program> lower(ir::Context& ctx, ir::UOp root, const LowerOptions& options = {},
                          LowerReport* report = nullptr);

struct SimplifiedProgram {
  ir::Program program;                   ///< the same buffers; each kernel simplified
  std::map<std::string, uint64_t> hits;  ///< rule hits over all kernels
  bool converged = true;                 ///< every kernel's pipeline reached a fixed point
};

/// Runs the simplifier pipeline on each kernel of `program`, unchanged otherwise.
SimplifiedProgram simplify_program(ir::Context& ctx, const ir::Program& program,
                                   const simplifier::SimplifyOptions& options = {});

}  // namespace uopfuzz::schedule
