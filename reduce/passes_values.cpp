// Reducer passes (passes.def) on computed values: a node by an operand, a cast, a constant, a VAR
// or another node of the graph.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/rewrite.h"
#include "ir/scalar_eval.h"
#include "reduce/edit.h"
#include "reduce/passes.h"

namespace uopfuzz::reduce {

using namespace ir;

void propose_NodeToOperand(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  // Users before sources: replacing a node near the root removes the most.
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!is_value(u)) continue;
    std::vector<UOp> with;
    auto add = [&](UOp s) {
      if (s != u && s.dtype() == u.dtype() && can_replace(s) &&
          std::find(with.begin(), with.end(), s) == with.end())
        with.push_back(s);
    };
    for (UOp s : u.src()) add(s);  // direct operands first
    std::vector<UOp> below = toposort(u);
    for (auto jt = below.rbegin(); jt != below.rend(); ++jt)
      add(*jt);  // then deeper sources, nearest first
    for (UOp s : with) push_root(out, k, replace(ctx, k.root, u, s));
  }
}

void propose_NodeToCast(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!is_value(u)) continue;
    std::vector<UOp> below = toposort(u);
    std::unordered_set<UOp, UOpHash> seen;
    auto add = [&](UOp s) {
      if (s == u || s.dtype() == u.dtype() || !can_replace(s) || !seen.insert(s).second) return;
      // CAST(CAST(s)) where u is CAST(s) already: nothing gained.
      if (u.op() == Op::Cast && u.src(0) == s) return;
      push_root(out, k, replace(ctx, k.root, u, ctx.make(Op::Cast, u.dtype(), {s})));
    };
    for (UOp s : u.src()) add(s);
    for (auto jt = below.rbegin(); jt != below.rend(); ++jt) add(*jt);
  }
}

void propose_NodeToConst(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!is_value(u)) continue;
    for (int v : {0, 1}) push_root(out, k, replace(ctx, k.root, u, ctx.const_int(u.dtype(), v)));
  }
}

// Replace a computed integer value by a fresh VAR with the value's bounds (a bool or
// float value by a CAST of one, a RANGE by a VAR over its values): an input the check
// fills per seed instead of the computation (the VAR can then become a constant).
void propose_ExprToVar(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  const std::string name = fresh_var_name(k, topo);
  Analysis an;
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!is_value(u)) continue;
    const DType dt = u.dtype();
    if (!dt.is_int()) {  // a bool or float value: a cast of a VAR over 0..1 or -8..8
      if (!dt.is_bool() && !dt.is_float()) continue;
      VarArg a{name, dt.is_bool() ? 0 : -8, dt.is_bool() ? 1 : 8, std::nullopt};
      push_root(out, k,
                replace(ctx, k.root, u,
                        ctx.make(Op::Cast, dt, {ctx.make(Op::Var, dtypes::Index, {}, a)})));
      continue;
    }
    Interval b = an.bounds(u);
    // A VAR spanning (nearly) the whole dtype would be filled with huge values.
    if (static_cast<double>(b.hi) - static_cast<double>(b.lo) > double(int64_t{1} << 32)) continue;
    push_root(
        out, k,
        replace(ctx, k.root, u, ctx.make(Op::Var, dt, {}, VarArg{name, b.lo, b.hi, std::nullopt})));
  }
  // A RANGE becomes a VAR over its values (out of every END and REDUCE that closes it).
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    if (it->op() != Op::Range) continue;
    const int64_t hi = an.vmax(it->src(0));
    if (hi < 1 || hi > kMaxGrownSize) continue;
    push_root(
        out, k,
        remove_range(ctx, k.root, *it,
                     ctx.make(Op::Var, dtypes::Index, {}, VarArg{name, 0, hi - 1, std::nullopt})));
  }
}

// Replace every use of a CONST, VAR or computed value by another node already in the
// graph, of the same dtype, that does not depend on it (buffers grown to fit).
void propose_ReuseNode(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> with = stand_ins(topo);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!is_value(u) && u.op() != Op::Const && u.op() != Op::Var) continue;
    const auto users = dependents(topo, u);
    for (UOp s : with) {
      if (s.dtype() != u.dtype() || users.count(s)) continue;
      push_fitted(ctx, out, k, replace(ctx, k.root, u, s));
    }
  }
}

// Rebuild an ALU node over other nodes of the graph: each operand becomes any existing
// node of its dtype that does not depend on the node (two operands can change at once,
// which one replacement at a time cannot reach when either alone is not smaller).
void propose_ReOperand(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> with = stand_ins(topo);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (!op_in(u.op(), Alu) || u.num_src() != 2) continue;
    std::vector<UOp> a, b;
    const auto users = dependents(topo, u);
    for (UOp s : with) {
      if (users.count(s)) continue;
      if (s.dtype() == u.src(0).dtype()) a.push_back(s);
      if (s.dtype() == u.src(1).dtype()) b.push_back(s);
    }
    for (UOp x : a)
      for (UOp y : b) {
        if (x == u.src(0) || y == u.src(1)) continue;  // one operand: reuse-node's edit
        push_root(out, k, replace(ctx, k.root, u, ctx.make(u.op(), u.dtype(), {x, y}, u.arg())));
      }
  }
}

}  // namespace uopfuzz::reduce
