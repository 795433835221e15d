// Reducer passes (passes.def) on effects, ranges and loops: drop an effect or a range, run a loop
// once, a reduction as a loop.
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

void propose_DropEffect(Context& ctx, const Kernel& k, Candidates& out) {
  UOp sink = k.root;
  for (size_t i = 0; i < sink.num_src(); ++i) {
    std::vector<UOp> src(sink.src().begin(), sink.src().end());
    src.erase(src.begin() + static_cast<std::ptrdiff_t>(i));
    push_root(out, k, ctx.make(Op::Sink, sink.dtype(), std::move(src), sink.arg()));
  }
}

namespace {

// Remove range i of a closer (END or REDUCE), replacing it by 0 in the body/value.
// With no range left the closer is replaced by its body (END) or value (REDUCE).
void drop_closer_range(Context& ctx, const Kernel& k, Op closer, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    if (u.op() != closer) continue;
    for (size_t i = 1; i < u.num_src(); ++i) {
      UOp r = u.src(i);
      UOp zero = ctx.const_int(dtypes::Index, 0);
      UOp body = r.op() == Op::Range ? substitute(ctx, u.src(0), {{r, zero}}) : u.src(0);
      std::vector<UOp> src{body};
      for (size_t j = 1; j < u.num_src(); ++j)
        if (j != i) src.push_back(u.src(j));
      // No REDUCE with an empty range list: the oracle does not run one (reported).
      if (src.size() == 1)
        push_root(out, k, replace(ctx, k.root, u, body));
      else
        push_root(out, k,
                  replace(ctx, k.root, u, ctx.make(u.op(), u.dtype(), std::move(src), u.arg())));
    }
  }
}

}  // namespace

void propose_DropRange(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    if (it->op() == Op::Range)
      push_root(out, k, remove_range(ctx, k.root, *it, ctx.const_int(dtypes::Index, 0)));
}

namespace {

/// The graph under `root` with RANGE `r` run once: its end becomes `one` (a VAR that can
/// only be 1), the ENDs and REDUCEs that close it close that range instead, and its value
/// uses go: with `drop_users`, a binary ALU node using it (once) becomes its other operand;
/// any other use becomes 0.
UOp run_once(Context& ctx, UOp root, UOp r, UOp one, bool drop_users) {
  UOp nr = ctx.make(Op::Range, r.dtype(), {one}, r.arg());
  std::unordered_map<UOp, UOp, UOpHash> done{{r, ctx.const_int(dtypes::Index, 0)}};
  for (UOp u : toposort(root)) {
    if (done.count(u)) continue;
    if (drop_users && op_in(u.op(), Alu) && u.num_src() == 2 &&
        (u.src(0) == r) != (u.src(1) == r)) {
      UOp other = u.src(0) == r ? u.src(1) : u.src(0);
      if (other.dtype() == u.dtype()) {
        done.emplace(u, done.at(other));
        continue;
      }
    }
    const bool closer = u.op() == Op::End || u.op() == Op::Reduce;
    std::vector<UOp> src;
    bool changed = false;
    for (size_t i = 0; i < u.num_src(); ++i) {
      UOp s = u.src(i);
      UOp n = closer && i > 0 && s == r ? nr : done.at(s);
      changed |= n != s;
      src.push_back(n);
    }
    done.emplace(u, changed ? ctx.make(u.op(), u.dtype(), std::move(src), u.arg()) : u);
  }
  return done.at(root);
}

}  // namespace

// A RANGE that its END or REDUCE closes runs once, at 0, without being dropped from the
// range list: its end becomes a fresh VAR bounded to [1, 1] (a RANGE of the constant 1
// would be folded away by the simplifier's first stage, and the range list with it).
void propose_RunOnce(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::unordered_set<UOp, UOpHash> closed;
  for (UOp u : topo)
    if (u.op() == Op::End || u.op() == Op::Reduce)
      for (size_t i = 1; i < u.num_src(); ++i) closed.insert(u.src(i));
  const std::string name = fresh_var_name(k, topo);
  UOp one = ctx.make(Op::Var, dtypes::Index, {}, VarArg{name, 1, 1, std::nullopt});
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    if (it->op() != Op::Range || !closed.count(*it) || it->src(0) == one) continue;
    for (bool drop_users : {true, false})
      push_root(out, k, run_once(ctx, k.root, *it, one, drop_users));
  }
}

void propose_DropEndRange(Context& ctx, const Kernel& k, Candidates& out) {
  drop_closer_range(ctx, k, Op::End, out);
}

void propose_DropReduceRange(Context& ctx, const Kernel& k, Candidates& out) {
  drop_closer_range(ctx, k, Op::Reduce, out);
}

// STORE(buf[i], f(REDUCE(v, r))) -> END(STORE(buf[r], f(v)), r): the reduction's terms
// stored one per element instead of combined (buffers grown to fit).
void propose_ReduceToLoop(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp st = *it;
    if (st.op() != Op::Store) continue;
    std::vector<UOp> in_value = toposort(st.src(1));
    for (auto jt = in_value.rbegin(); jt != in_value.rend(); ++jt) {
      UOp red = *jt;
      if (red.op() != Op::Reduce || red.num_src() != 2 || red.src(1).op() != Op::Range) continue;
      UOp r = red.src(1), ix = st.src(0);
      UOp v = substitute(ctx, st.src(1), {{red, red.src(0)}});
      UOp nix = ctx.make(Op::Index, ix.dtype(), {ix.src(0), r}, ix.arg());
      UOp body = ctx.make(Op::Store, st.dtype(), {nix, v}, st.arg());
      push_fitted(ctx, out, k,
                  replace(ctx, k.root, st, ctx.make(Op::End, dtypes::Void, {body, r})));
    }
  }
}

}  // namespace uopfuzz::reduce
