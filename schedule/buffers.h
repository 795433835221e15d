/** \file Seed 001's buffer rules on the BUFFERIZE graph (bufferize.h): which buffers exist
 * at all. Named rules, one a row as in simplifier/, run by schedule::lower between
 * BUFFERIZE creation and kernel splitting (docs/design.md, "Buffer rules"):
 * - buffer removal (tinygrad's remove_bufferize / "pcontig"): the decision tree on
 *   INDEX(BUFFERIZE(src, ranges...), idx...): always-run ops keep their buffer; inlining
 *   that reads more than kBufferLimit distinct buffers keeps it; no reduce in scope ->
 *   inline (ranges substituted by the INDEX's expressions, under its gate; an INVALID index
 *   is not substituted); a reduce in scope -> keep at pcontig level <= 2, else keep when
 *   the input/output ratio is below 10 and inline partially otherwise; a unary op read
 *   inside a reduce scope is not inlined (argmax(-x));
 * - BUFFERIZE folds: BUFFERIZE(CONST) -> CONST, INDEX(CONST) -> CONST,
 *   INDEX(BUFFERIZE(x, r...), r...) -> x, and a multi-range BUFFERIZE flattened to one
 *   linear range;
 * - dead axis removal: an axis whose range is a CONST or unused by the value is dropped
 *   from the BUFFERIZE (its readers' index for it ignored); a BUFFERIZE whose axes are all
 *   dead stays, with no ranges.
 * Outputs and always-run BUFFERIZEs (BufferizeArg::removable false) are never removed or
 * reshaped.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/rewrite.h"
#include "ir/uop.h"
#include "schedule/lower.h"
#include "schedule/rangeify.h"

namespace uopfuzz::schedule {

/// The seed's "buffer limit": inlining may make a use read at most this many distinct buffers.
inline constexpr int kBufferLimit = 3;
/// The input/output ratio below which a reduce-fed buffer is kept at pcontig level > 2.
inline constexpr double kPartialInlineRatio = 10;

/// The names of the buffer rules (every rule apply_buffer_rules can report a hit of).
std::vector<std::string> buffer_rule_names();

/// What the buffer rules see through ir::RewriteCtx::state.
struct BufferRuleState {
  IndexSimplifier* simplify;
  const LowerOptions* options;
};

/// How an INDEX of a BUFFERIZE reads (bufferize.h): its index expressions without their
/// gate, the gate (null: ungated), and whether an index is INVALID (the read is 0).
struct BufferRead {
  std::vector<ir::UOp> idx;
  ir::UOp gate;
  bool invalid = false;
};
BufferRead buffer_read(ir::UOp index);
/// `value` where the read `r` is on, and the 0 of value's dtype where it is off.
ir::UOp gated_value(ir::Context& ctx, const BufferRead& r, ir::UOp value);
/// An index of `r` at `i`, with the read's gate on it again.
ir::UOp gated_index(ir::Context& ctx, const BufferRead& r, ir::UOp i);

/// BUFFERIZE(CONST), INDEX(CONST), the identity INDEX(BUFFERIZE(x, r...), r...) (buffer_folds.cpp).
ir::RuleSet buffer_fold_rules();
/// Dead axis removal (dead_axes.cpp).
ir::RuleSet dead_axis_rules();

/// The last stage's rule: a removable BUFFERIZE of several ranges over one linear range.
inline constexpr const char* kFlattenRule = "flatten_bufferize";
/// Flattens every removable multi-range BUFFERIZE of `graph` and rewrites its INDEXes to
/// the linear index (buffer_folds.cpp); counts each BUFFERIZE flattened in `hits`.
ir::UOp flatten_bufferizes(IndexSimplifier& simplify, ir::UOp graph,
                           std::map<std::string, uint64_t>& hits);

struct BufferRulesResult {
  ir::UOp graph;
  std::map<std::string, uint64_t> hits;
  bool converged = true;
};

/// Rewrites the BUFFERIZE graph `graph` with the buffer rules under `options` (pcontig
/// level, planted bugs, rules switched off by name in `options.disabled`).
BufferRulesResult apply_buffer_rules(IndexSimplifier& simplify, ir::UOp graph,
                                     const LowerOptions& options);

}  // namespace uopfuzz::schedule
