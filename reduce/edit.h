/** \file The edits the reducer passes share: replacing and removing nodes, candidate constants,
 * buffers grown to fit, and the candidate list a pass fills. */
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::reduce {

/// The candidate edits a pass proposes, most promising first.
using Candidates = std::vector<ir::Kernel>;

/// Largest buffer a candidate may grow to (elements): enough for every index the
/// reducer builds from small constants, VARs and ranges.
inline constexpr int64_t kMaxGrownSize = int64_t{1} << 16;

/// Adds `k` with root `root` as a candidate, unless root is null or unchanged.
void push_root(Candidates& out, const ir::Kernel& k, ir::UOp root);

/// The graph under `root` with every use of `from` replaced by `to`.
ir::UOp replace(ir::Context& ctx, ir::UOp root, ir::UOp from, ir::UOp to);

/// Nodes whose value a replacement may stand in for: pure computed values.
bool is_value(ir::UOp u);

/// Nodes that may stand in for a value: computed values and CONST, VAR, RANGE.
bool can_replace(ir::UOp u);

/// The graph under `root` with RANGE `r` replaced by `with` everywhere and taken out of
/// every END and REDUCE that closes it (one left with no range becomes its body/value).
ir::UOp remove_range(ir::Context& ctx, ir::UOp root, ir::UOp r, ir::UOp with);

/// Integer candidates toward 0 and 1, each smaller in the const cost than v.
std::vector<int64_t> toward_zero_one(int64_t v);

/// Constants of c's dtype to try in its place, each smaller than c (reducer.h, Size).
std::vector<ir::UOp> const_candidates(ir::Context& ctx, ir::UOp c);

/// Does `u` depend on `what` (or is it)? A replacement by a node that depends on the
/// replaced one would make the graph refer to itself.
bool depends_on(ir::UOp u, ir::UOp what);

/// The nodes of `topo` (a toposort) that depend on `what` or are it, in one sweep.
std::unordered_set<ir::UOp, ir::UOpHash> dependents(const std::vector<ir::UOp>& topo, ir::UOp what);

/// `k` with every PARAM grown to hold the indexes its INDEXes can take (by the interval
/// analysis), where that is a small size; @output lines of grown outputs are dropped
/// (they describe the old size). An edit that moves an access (a reused index, a
/// merged buffer, a loop instead of a reduction) would otherwise only ever go out of
/// bounds: the buffer size is not part of the reducer's Size, so growing it is free.
ir::Kernel fit_buffers(ir::Context& ctx, ir::Kernel k);

/// push_root, with the buffers grown to fit (fit_buffers).
void push_fitted(ir::Context& ctx, Candidates& out, const ir::Kernel& k, ir::UOp root);

/// Nodes that may stand in for another, simplest first (leaves, then ranges, then
/// computed values), each once, in graph order within a kind.
std::vector<ir::UOp> stand_ins(const std::vector<ir::UOp>& topo);

/// A VAR name used by no VAR of the graph and no @var line: x0, x1, ...
std::string fresh_var_name(const ir::Kernel& k, const std::vector<ir::UOp>& topo);

/// `v` converted to `dt`: a CONST folded (null when the conversion is undefined),
/// anything else cast.
ir::UOp converted(ir::Context& ctx, ir::UOp v, ir::DType dt);

/// A LOAD whose index is gated.
bool gated_load(ir::UOp l);

/// The input buffer `buf` as one of dtype `dt` (integer bounds kept where they fit).
ir::UOp retyped_param(ir::Context& ctx, ir::UOp buf, ir::DType dt);

}  // namespace uopfuzz::reduce
