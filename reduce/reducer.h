/** \file The reducer: shrinks a kernel while a predicate stays true (llvm-reduce style).
 *
 * Passes (reduce/passes.def) each list candidate edits of the current kernel, one edit
 * per candidate. A round tries the passes in order; within a pass, the candidates that
 * are strictly smaller than the current kernel by Size (so the loop terminates: no pass
 * can undo another's edit) are tried fewest nodes first, and the first one that
 *   - passes ir::verify and
 *   - still satisfies the caller's predicate
 * is kept and ends the round: the next round starts again from the first pass, so the
 * edits that remove the most see every change before the ones that only shrink values.
 * Rounds repeat until one keeps nothing (a fixed point) or the time or attempt budget
 * runs out. Given the same start, predicate and options (and a budget that does not run
 * out), the result is the same: candidates are enumerated in graph order, never in
 * pointer or node-id order, and the predicate sees a kernel, not the Context's history.
 *
 * A tensor program (rooted at REALIZE) is reduced by the same loop, with the same
 * predicate type: the tensor passes (the last rows of passes.def) propose its edits and
 * the kernel passes propose none, and the other way round for a kernel.
 *
 * The reducer never prints; the result's stats say what happened.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::reduce {

enum class Pass : uint8_t {
#define PASS(e, name, doc) e,
#include "reduce/passes.def"
#undef PASS
  kCount
};
std::string_view pass_name(Pass p);
std::string_view pass_doc(Pass p);
/// Every pass, in the order a round runs them.
const std::vector<Pass>& all_passes();
std::optional<Pass> parse_pass(std::string_view name);

/// Whether a candidate still shows what the reduction must keep. It is called only on
/// kernels that verify; it must be deterministic (a function of the kernel alone).
using Interesting = std::function<bool(const ir::Kernel&)>;

/// The order the reducer shrinks by, compared lexicographically: a candidate is kept
/// only when it is strictly smaller, so no pass can undo another's edit and the loop
/// ends. A constant's cost is 2|v| (+1 if negative): 0 < 1 < -1 < 2 < -2 ...
struct Size {
  size_t nodes = 0;          ///< nodes reachable from the root
  size_t ops = 0;            ///< of those, non-leaf nodes
  size_t movements = 0;      ///< tensor movement ops but RESHAPE (a RESHAPE only renames elements)
  size_t reduces = 0;        ///< of those, REDUCEs (a loop of stores is simpler than a reduction)
  size_t closings = 0;       ///< RANGE operands of ENDs and REDUCEs
  size_t reduce_axes = 0;    ///< axes that REDUCE_AXIS nodes reduce
  size_t outputs = 0;        ///< REALIZE sources
  size_t vars = 0;           ///< VAR nodes
  size_t computed_ends = 0;  ///< RANGEs whose end is not a CONST
  double range_ends = 0;     ///< sum of the CONST ends of RANGEs (a negative one counts 0)
  size_t odd_consts = 0;     ///< float CONSTs that are NaN, infinite or not integral
  double consts = 0;         ///< sum of the finite CONSTs' costs
  double var_spans = 0;      ///< sum over VARs of max - min
  int64_t param_slots = 0;   ///< sum of PARAM slots
  size_t header = 0;         ///< @var, @input and @output lines
  double buffer_elems = 0;   ///< sum of the PARAM sizes
  double tensor_elems = 0;   ///< sum of the element counts of the tensor nodes (CONSTs included)
  size_t odd_inputs = 0;     ///< @input float values that are NaN, infinite or not integral
  double input_values = 0;   ///< sum of the finite @input values' costs (as a CONST's)
  friend bool operator==(const Size&, const Size&) = default;
  friend auto operator<=>(const Size&, const Size&) = default;
};
Size size_of(const ir::Kernel& k);

/// Number of nodes in the toposort of `root`: the size the reducer reports.
size_t node_count(ir::UOp root);

/// The candidate edits one pass proposes for `k`, most promising first (each differs
/// from `k` by one edit; some may fail to verify or not be smaller: the loop checks).
std::vector<ir::Kernel> propose(ir::Context& ctx, const ir::Kernel& k, Pass pass);

/// A copy of `k` with its nodes made in `to` in toposort order, so node ids are the
/// same as a fresh parse of the printed kernel would give.
ir::Kernel clone_kernel(ir::Context& to, const ir::Kernel& k);

struct ReduceOptions {
  double max_seconds = 10.0;  ///< wall-clock budget (<= 0: none); checked between attempts
  uint64_t max_attempts = 0;  ///< predicate calls (0: none)
  int max_rounds = 10000;     ///< rounds (a round ends at its first kept edit)
  std::vector<Pass> passes;   ///< the passes to run, in order (empty: all_passes())
};

struct PassStats {
  Pass pass;
  uint64_t proposed = 0;  ///< candidates looked at (including ones that do not verify)
  uint64_t attempts = 0;  ///< predicate calls
  uint64_t accepted = 0;
};

struct ReduceResult {
  ir::Kernel kernel;  ///< the reduced kernel (the start if nothing was kept)
  bool start_interesting =
      true;  ///< false: the start did not verify or was not interesting: returned unchanged
  bool fixed_point = false;  ///< the last round made no progress (false: a budget ran out)
  size_t start_nodes = 0, final_nodes = 0;
  int rounds = 0;
  uint64_t attempts = 0;          ///< predicate calls, the start's included
  uint64_t cache_hits = 0;        ///< candidates already known not interesting
  std::vector<PassStats> passes;  ///< one per pass run, in order
  double elapsed_s = 0;
};

ReduceResult reduce(ir::Context& ctx, const ir::Kernel& start, const Interesting& still_interesting,
                    const ReduceOptions& options = {});

}  // namespace uopfuzz::reduce
