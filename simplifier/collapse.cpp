// reduce_collapse: a REDUCE ADD is rewritten one range at a time: the part of its value
// that depends on the range, with every outside input replaced by a bounded temporary,
// goes through the inner rules (pm_reduce_collapse, pm_reduce_load_collapse), which must
// remove the range; then the inputs are put back.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "simplifier/exact_float.h"
#include "simplifier/reduce_helpers.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

constexpr uint64_t kInnerMaxRewrites = 20'000;

void add_hits(SimplifyState& st, const RewriteResult& r) {
  for (const auto& [name, n] : r.hits) st.nested_hits[name] += n;
}

}  // namespace

UOp collapse(RewriteCtx& rc, UOp red, const RuleSet& inner) {
  Context& ctx = rc.ctx;
  SimplifyState& st = state(rc);
  UOp u = red.src(0);
  // Collapsing one range of several regroups a float sum; like reduce_unparented, that
  // is exact only if no partial sum over the whole nest can round.
  if (red.dtype().is_float() && red.num_src() > 2) {
    __int128 total = 1;
    for (size_t i = 1; i < red.num_src(); ++i) {
      if (red.src(i).op() != Op::Range) return UOp();
      total *= std::max<int64_t>(1, st.analysis.vmax(red.src(i).src(0)));
      if (total > (__int128{1} << 40)) return UOp();
    }
    if (!exact_multiple(rc, u, static_cast<int64_t>(total))) return UOp();
  }
  for (size_t i = 1; i < red.num_src(); ++i) {
    UOp r = red.src(i);
    if (r.op() != Op::Range) return UOp();
    // A closed form evaluates the body's range-free parts even when the loop runs zero
    // times: only for bodies that cannot fault (a fuzzer found sum_{r<0} 0/0).
    if (st.analysis.vmin(r.src(0)) < 1 && may_fault(rc, u) && !st.bugs.has(Bug::CollapseZeroTrip))
      return UOp();
    UOp sub = ctx.make(Op::Reduce, red.dtype(), {u, r}, red.arg());
    std::vector<UOp> topo = toposort(sub);
    auto open = open_ranges(topo);
    // The part that depends on r (r itself included); a STORE or REDUCE in it stops us.
    std::unordered_set<UOp, UOpHash> included;
    for (UOp n : topo) {
      if (n.op() == Op::Var && n.arg<VarArg>().name.starts_with(kTmpPrefix))
        return UOp();  // name clash
      if (n == sub || !in_set(open[n], r)) continue;
      if (n.op() == Op::Store || n.op() == Op::Reduce || n.op() == Op::End) return UOp();
      included.insert(n);
    }
    // Outside inputs -> fresh bounded temporaries (VAR "__rc<id>"). CONST, PARAM, VAR and
    // INVALID are already opaque leaves, and an INDEX is an address, not a value (LOAD
    // needs it in place). Integer and bool inputs keep their interval. A float input
    // becomes a float-typed VAR: an opaque placeholder that holds no range, carrying in
    // (min, max) what the exact-sum analysis knew of the input (its grid exponent and
    // bound, max = -1: nothing); it is put back before anything runs it.
    std::unordered_map<UOp, UOp, UOpHash> to_tmp, from_tmp;
    for (UOp n : topo) {
      if (n != sub && !included.count(n)) continue;
      for (UOp s : n.src()) {
        if (included.count(s) || to_tmp.count(s)) continue;
        Op o = s.op();
        if (o == Op::Const || o == Op::Param || o == Op::Var || o == Op::Invalid || o == Op::Index)
          continue;
        if (s.dtype().is_void()) continue;
        VarArg v{std::string(kTmpPrefix) + std::to_string(s.id()), 0, 0, std::nullopt};
        if (!s.dtype().is_float()) {
          Interval iv = st.analysis.bounds(s);
          v.min = iv.lo, v.max = iv.hi;
        } else if (auto d = dyadic(rc, s)) {  // what the exact-sum proofs know of it
          v.min = d->e, v.max = static_cast<int64_t>(d->k);
        } else {
          v.max = -1;  // nothing known
        }
        UOp tmp = ctx.make(Op::Var, s.dtype(), {}, v);
        to_tmp.emplace(s, tmp);
        from_tmp.emplace(tmp, s);
      }
    }
    RewriteOptions o;
    o.max_rewrites = kInnerMaxRewrites;
    o.disabled = st.disabled;
    o.state = &st;
    RewriteResult res = graph_rewrite(ctx, substitute(ctx, sub, to_tmp), inner, o);
    if (!res.converged) return UOp();
    add_hits(st, res);
    UOp out = substitute(ctx, res.root, from_tmp);
    // Gate: the collapse must remove r.
    if (contains(out, r)) return UOp();
    // A range of one folded to a constant leaves a REDUCE over a non-RANGE: not ours to keep.
    if (any_node(out, [](UOp n) {
          if (n.op() != Op::Reduce) return false;
          for (size_t k = 1; k < n.num_src(); ++k)
            if (n.src(k).op() != Op::Range) return true;
          return false;
        }))
      return UOp();
    u = out;
  }
  return u;
}

RuleSet pm_reduce_simplify() {
  RuleSet r = pm_reduce_unparented();
  // sum over ranges of f -> a closed form (reduce_collapse with pm_reduce_collapse)
  r.add("reduce_collapse",
        Pat::op(Op::Reduce, {Pat::var(), Pat::op(Op::Range)})
            .rest()
            .arg(ReduceArg{Op::Add})
            .named("red"),
        [](RewriteCtx& rc, const Bindings& b) {
          static const RuleSet inner = pm_reduce_collapse();
          return collapse(rc, b["red"], inner);
        });
  return r;
}

}  // namespace uopfuzz::simplifier
