// Reducer passes (passes.def) on buffers and accesses: load alts, retyped and merged buffers, moved
// addresses, stored values, sizes.
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

// Replace a value by a gated LOAD among its sources that gets an alt value (an existing
// node of the value's dtype, or 1): what the value made of the masked-out elements, the
// LOAD's alt gives with fewer nodes. A load of another dtype reads its input buffer
// retyped to the value's (when that load is the buffer's only access).
void propose_LoadAlt(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> with = stand_ins(topo);
  std::unordered_map<UOp, int, UOpHash> index_uses;  // INDEXes per PARAM
  for (UOp u : topo)
    if (u.op() == Op::Index) ++index_uses[u.src(0)];
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp u = *it;
    const DType dt = u.dtype();
    if (!is_value(u) || dt.is_index()) continue;
    std::vector<UOp> alts;
    const auto users = dependents(topo, u);
    for (UOp t : with)
      if (t.dtype() == dt && !users.count(t)) alts.push_back(t);
    UOp one = dt.is_float() ? ctx.const_float(dt, 1.0) : ctx.const_int(dt, 1);
    if (std::find(alts.begin(), alts.end(), one) == alts.end()) alts.push_back(one);
    std::vector<UOp> below = toposort(u);
    for (auto jt = below.rbegin(); jt != below.rend(); ++jt) {
      UOp l = *jt;
      if (l == u || !gated_load(l)) continue;
      UOp ix = l.src(0), buf = ix.src(0);
      if (l.dtype() != dt && index_uses[buf] != 1) continue;
      UOp nix = l.dtype() == dt
                    ? ix
                    : ctx.make(Op::Index, dt, {retyped_param(ctx, buf, dt), ix.src(1)}, ix.arg());
      for (UOp t : alts)
        if (t != l && (l.num_src() == 1 || t != l.src(1) || l.dtype() != dt))
          push_root(out, k, replace(ctx, k.root, u, ctx.make(Op::Load, dt, {nix, t}, l.arg())));
    }
  }
}

// LOAD(idx, alt) -> LOAD(idx), alone and with the op of a REDUCE over the load changed:
// a masked-out element then reads 0, which a product or a maximum still shows where a
// sum needed the alt to be nonzero.
void propose_DropAlt(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (UOp l : topo) {
    if (l.op() != Op::Load || l.num_src() != 2) continue;
    UOp bare = ctx.make(Op::Load, l.dtype(), {l.src(0)}, l.arg());
    push_root(out, k, replace(ctx, k.root, l, bare));
    for (UOp red : topo) {
      if (red.op() != Op::Reduce || !depends_on(red.src(0), l)) continue;
      for (Op op : {Op::Add, Op::Mul, Op::Max, Op::Min}) {
        if (op == red.arg<ReduceArg>().op) continue;
        std::vector<UOp> src(red.src().begin(), red.src().end());
        src[0] = substitute(ctx, src[0], {{l, bare}});
        push_root(out, k,
                  replace(ctx, k.root, red,
                          ctx.make(Op::Reduce, red.dtype(), std::move(src), ReduceArg{op})));
      }
    }
  }
}

// CAST(LOAD(in[i])) -> LOAD(in'[i]) with the input buffer in' of the CAST's dtype (its
// only access; a constant alt is converted along, another alt cast).
void propose_CastIntoLoad(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::unordered_map<UOp, int, UOpHash> index_uses;  // INDEXes per PARAM
  for (UOp u : topo)
    if (u.op() == Op::Index) ++index_uses[u.src(0)];
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    UOp c = *it;
    if (c.op() != Op::Cast || c.src(0).op() != Op::Load) continue;
    const DType dt = c.dtype();
    if (dt.is_index() || dt.is_void()) continue;
    UOp l = c.src(0), ix = l.src(0), buf = ix.src(0);
    if (buf.op() != Op::Param || buf.arg<ParamArg>().output || index_uses[buf] != 1) continue;
    UOp nbuf = retyped_param(ctx, buf, dt);
    std::vector<UOp> src{ctx.make(Op::Index, dt, {nbuf, ix.src(1)}, ix.arg())};
    if (l.num_src() == 2) {
      UOp alt = converted(ctx, l.src(1), dt);
      if (!alt) continue;
      src.push_back(alt);
    }
    push_root(out, k, replace(ctx, k.root, c, ctx.make(Op::Load, dt, std::move(src), l.arg())));
  }
}

// Replace a LOAD by its alt (or 0), giving its address to another INDEX of the graph: an
// access whose address is what matters (out of bounds after the rewrite) no longer needs
// the load, its input buffer or the other access's index (buffers grown to fit).
void propose_MoveAddress(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> indexes;
  for (UOp u : topo)
    if (u.op() == Op::Index) indexes.push_back(u);
  for (UOp l : topo) {
    if (l.op() != Op::Load) continue;
    UOp addr = l.src(0).src(1);
    UOp c = l.num_src() == 2 ? l.src(1) : ctx.const_int(l.dtype(), 0);
    for (UOp n : indexes) {
      if (n == l.src(0) || n.src(1) == addr) continue;
      UOp moved =
          replace(ctx, k.root, n, ctx.make(Op::Index, n.dtype(), {n.src(0), addr}, n.arg()));
      push_fitted(ctx, out, k, replace(ctx, moved, l, c));
    }
  }
}

namespace {

/// The graph under `root` with output buffer `b`'s stores going to output `a` instead,
/// their values converted to a's dtype (null when a constant cannot be).
UOp merge_output(Context& ctx, UOp root, UOp a, UOp b) {
  if (a.dtype() == b.dtype()) return replace(ctx, root, b, a);
  std::unordered_map<UOp, UOp, UOpHash> with;
  for (UOp st : toposort(root)) {
    if (st.op() != Op::Store || st.src(0).src(0) != b) continue;
    UOp ix = st.src(0), v = converted(ctx, st.src(1), a.dtype());
    if (!v) return UOp();
    UOp nix = ctx.make(Op::Index, a.dtype(), {a, ix.src(1)}, ix.arg());
    with.emplace(st, ctx.make(Op::Store, st.dtype(), {nix, v}, st.arg()));
  }
  return substitute(ctx, root, with);
}

}  // namespace

// Make two output buffers one (the second's stores go to the first, their values
// converted to its dtype), also moving one access's index to another node of the graph
// so the two buffers' stores can stay apart (buffers grown to fit).
void propose_MergeOutputs(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> outs, indexes;
  for (UOp u : topo) {
    if (u.op() == Op::Param && u.arg<ParamArg>().output) outs.push_back(u);
    if (u.op() == Op::Index) indexes.push_back(u);
  }
  std::vector<UOp> with;
  for (UOp s : stand_ins(topo))
    if (s.dtype().is_index()) with.push_back(s);
  for (int same = 1; same >= 0; --same)  // buffers of one dtype first
    for (UOp a : outs)
      for (UOp b : outs) {
        if (a == b || (a.dtype() == b.dtype()) != static_cast<bool>(same)) continue;
        push_fitted(ctx, out, k, merge_output(ctx, k.root, a, b));
        for (UOp n : indexes) {
          if (n.src(0) != a && n.src(0) != b) continue;
          UOp idx = n.src(1);
          const bool gated = idx.op() == Op::Where && idx.src(2).op() == Op::Invalid;
          UOp at = gated ? idx.src(1) : idx;
          for (UOp y : with) {
            if (y == at) continue;
            UOp ni = gated ? ctx.make(Op::Where, idx.dtype(), {idx.src(0), y, idx.src(2)}) : y;
            UOp moved =
                replace(ctx, k.root, n, ctx.make(Op::Index, n.dtype(), {n.src(0), ni}, n.arg()));
            push_fitted(ctx, out, k, merge_output(ctx, moved, a, b));
          }
        }
      }
}

// Every STORE to one output buffer stores the same existing node instead, the buffer
// retyped to that node's dtype: the values the stores computed go, and a node the graph
// needs anyway (a comparison, a load) is what lands in the output.
void propose_StoreValue(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  std::vector<UOp> with;
  for (UOp s : stand_ins(topo))
    if (!s.dtype().is_index() && !s.dtype().is_void()) with.push_back(s);
  for (UOp p : topo) {
    if (p.op() != Op::Param || !p.arg<ParamArg>().output) continue;
    for (UOp t : with) {
      UOp np = p.dtype() == t.dtype() ? p : ctx.make(Op::Param, t.dtype(), {}, p.arg());
      std::unordered_map<UOp, UOp, UOpHash> subst;
      for (UOp st : topo) {
        if (st.op() != Op::Store || st.src(0).src(0) != p || depends_on(t, st)) continue;
        UOp ix = st.src(0);
        UOp nix = np == p ? ix : ctx.make(Op::Index, t.dtype(), {np, ix.src(1)}, ix.arg());
        subst.emplace(st, ctx.make(Op::Store, st.dtype(), {nix, t}, st.arg()));
      }
      if (!subst.empty()) push_root(out, k, substitute(ctx, k.root, subst));
    }
  }
}

// Give a buffer fewer elements: just enough for its accesses (by the interval analysis),
// half, one less, 1.
void propose_BufferSize(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  Analysis an;
  std::unordered_map<UOp, int64_t, UOpHash> need;
  for (UOp u : topo) {
    if (u.op() != Op::Index || u.src(0).op() != Op::Param) continue;
    UOp idx = u.src(1);
    if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) idx = idx.src(1);
    Interval b = an.bounds(idx);
    auto& n = need[u.src(0)];
    n = std::max(n, b.lo >= 0 && b.hi < kMaxGrownSize ? b.hi + 1 : int64_t{1});
  }
  for (UOp p : topo) {
    if (p.op() != Op::Param) continue;
    const ParamArg& a = p.arg<ParamArg>();
    std::vector<int64_t> sizes;
    for (int64_t s : {need.count(p) ? need.at(p) : int64_t{1}, a.size / 2, a.size - 1, int64_t{1}})
      if (s >= 1 && s < a.size && std::find(sizes.begin(), sizes.end(), s) == sizes.end())
        sizes.push_back(s);
    for (int64_t s : sizes) {
      ParamArg b = a;
      b.size = s;
      Kernel c{k.header, replace(ctx, k.root, p, ctx.make(Op::Param, p.dtype(), {}, b))};
      std::erase_if(c.header.outputs, [&](const ExpectedOutput& o) { return o.slot == a.slot; });
      out.push_back(std::move(c));
    }
  }
}

}  // namespace uopfuzz::reduce
