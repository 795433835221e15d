/** \file What the reduce rule files share: graph queries, interval helpers, the gates their rows
 * name, and the entry points one file calls in another. */
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

namespace uopfuzz::simplifier {

// ---- graph queries

template <class Pred>
bool any_node(ir::UOp root, Pred pred) {
  std::vector<ir::UOp> stack{root};
  std::unordered_set<ir::UOp, ir::UOpHash> seen{root};
  while (!stack.empty()) {
    ir::UOp u = stack.back();
    stack.pop_back();
    if (pred(u)) return true;
    for (ir::UOp s : u.src())
      if (seen.insert(s).second) stack.push_back(s);
  }
  return false;
}

bool has_range(ir::UOp u);
bool no_range(ir::UOp u);
bool no_load(ir::UOp u);  ///< no LOAD or INDEX under u
bool contains(ir::UOp root, ir::UOp what);
bool in_set(const ir::RangeSet& s, ir::UOp r);

/// Can evaluating u be undefined (SEMANTICS.md)? Conservative: division, modulo, shifts,
/// bitcasts, float-to-int casts, loads, and index arithmetic whose bounds may overflow.
/// Removing a loop that may run zero times evaluates its body's range-free parts where
/// the original evaluated nothing, so that is only done for bodies that cannot fault.
bool may_fault(ir::RewriteCtx& rc, ir::UOp u);
/// Can the one node `n` be undefined for some values of its operands, whatever their bounds
/// say? For values no bounds analysis foresees (the 0 a gated-off load reads).
bool may_fault_on_some_operand(ir::UOp n);

// ---- interval helpers

ir::Interval bnd(ir::RewriteCtx& rc, ir::UOp u);
/// [lo, hi] lies within dt's range (no wrap for sized ints, no overflow for index).
bool fits(ir::DType dt, __int128 lo, __int128 hi);
/// MAX/MIN that fold when the bounds already decide them (the count formulas stay small).
ir::UOp smax(ir::RewriteCtx& rc, ir::UOp a, ir::UOp b);
ir::UOp smin(ir::RewriteCtx& rc, ir::UOp a, ir::UOp b);
inline ir::UOp zero(ir::Context& ctx, ir::DType dt) {
  return ctx.const_int(dt, 0);
}
inline ir::UOp idx_const(ir::Context& ctx, int64_t v) {
  return ctx.const_int(ir::dtypes::Index, v);
}

// ---- gates: the named predicates of the rule rows (Pat::when)

/// No node bound to these names holds a RANGE.
ir::Pat::Pred no_range_in(std::initializer_list<std::string_view> names);
/// No node bound to these names is an INVALID.
ir::Pat::Pred not_invalid(std::initializer_list<std::string_view> names);
/// The node bound to `name` holds a RANGE.
ir::Pat::Pred range_in(std::string_view name);

// ---- patterns the rule files share

/// A REDUCE ADD of `value` over exactly the range bound to "r", itself bound to "red".
ir::Pat sum_r(const ir::Pat& value);
/// A REDUCE ADD of `value` over any ranges, bound to "red".
ir::Pat sum(const ir::Pat& value);
ir::Pat where(const ir::Pat& cond, const ir::Pat& a, const ir::Pat& b);
/// A RANGE bound to `range`, bare or as the source of a CAST bound to `cast` (tinygrad's
/// or_casted). Whoever matches it must check the cast with lossless_range_cast.
ir::Pat range_or_cast(std::string_view range, std::string_view cast);
/// Does `cast` (a CAST of a RANGE to an integer dtype) keep every value the range takes,
/// with that dtype itself within index, so CAST(r) == i exactly when r == index(i)?
bool lossless_range_cast(ir::RewriteCtx& rc, ir::UOp cast);
/// !b in each spelling a graph may use: b ^ true, b != true, b == false.
ir::Pat negation(const ir::Pat& b);

// ---- entry points across the rule files

/// reduce_collapse: the sum `red` (a REDUCE ADD over at least one range, as the callers'
/// patterns match) over each of its ranges in turn, the range-free part replaced by
/// bounded temporaries and rewritten by `inner`; a null UOp unless every range goes.
ir::UOp collapse(ir::RewriteCtx& rc, ir::UOp red, const ir::RuleSet& inner);
/// (x+y) cmp c -> x cmp c-y, also through a cast of x+y: when y and c are free (of ranges,
/// or of loads), and no step wraps or overflows. `x_must_be_bound`: x must not be free.
ir::UOp lift_add(ir::RewriteCtx& rc, ir::Op cmp, ir::UOp a, ir::UOp c, bool (*free)(ir::UOp),
                 bool x_must_be_bound);

}  // namespace uopfuzz::simplifier
