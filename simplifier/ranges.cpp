// The range rules of the seeds: pm_flatten_range, pm_split_ranges (mark_range_mod +
// substitution at SINK) and pm_simplify_ranges (simplify_merge_adjacent, mark_gated,
// do_substitute). Each gate is a named check; a planted bug removes or weakens one.
#include <algorithm>
#include <unordered_set>

#include "ir/graph.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

// The RANGE nodes that the listed range expressions depend on, in topological order of
// the expressions taken together (after a split, an END lists outer*c+inner; after a
// merge, new//s and new%s; after a range of one folds, a constant).
std::vector<UOp> collect_ranges(std::span<const UOp> exprs) {
  std::vector<UOp> out;
  std::unordered_set<UOp, UOpHash> seen;
  for (UOp e : exprs)
    for (UOp u : toposort(e))
      if (u.op() == Op::Range && seen.insert(u).second) out.push_back(u);
  return out;
}

// flatten_range: END/REDUCE close exactly the RANGE nodes of their range list.
UOp flatten_range(RewriteCtx& rc, const Bindings& b) {
  UOp u = b["u"];
  std::span<const UOp> listed = u.src().subspan(1);
  std::vector<UOp> ranges;
  if (state(rc).bugs.has(Bug::FlattenFirstRangeOnly)) {
    for (UOp e : listed)
      if (auto first = collect_ranges({&e, 1});
          !first.empty() && std::find(ranges.begin(), ranges.end(), first[0]) == ranges.end())
        ranges.push_back(first[0]);
  } else {
    ranges = collect_ranges(listed);
  }
  if (std::equal(ranges.begin(), ranges.end(), listed.begin(), listed.end())) return UOp();
  if (ranges.empty()) {
    // One iteration: the body runs once; a REDUCE folds its value once into the
    // identity, which for a float sum turns -0 into +0 (0 + -0 = +0).
    UOp v = u.src(0);
    if (u.op() == Op::Reduce && u.arg<ReduceArg>().op == Op::Add && v.dtype().is_float())
      return rc.ctx.alu(Op::Add, {v, rc.ctx.const_float(v.dtype(), 0.0)});
    return v;
  }
  std::vector<UOp> src{u.src(0)};
  src.insert(src.end(), ranges.begin(), ranges.end());
  return rc.ctx.make(u.op(), u.dtype(), std::move(src), u.arg());
}

bool splittable_axis(AxisType t) {
  return t != AxisType::Warp && t != AxisType::Device;
}

// mark_range_mod: remember (range, c) for RANGE % c; the rewrite happens at SINK.
UOp mark_range_mod(RewriteCtx& rc, const Bindings& b) {
  SimplifyState& st = state(rc);
  UOp r = b["r"];
  int64_t c = b["c"].const_value().i;
  if (c <= 0) return UOp();
  for (const auto& [marked, _] : st.split_marks)
    if (marked == r) return UOp();  // the first modulus seen wins
  if (!splittable_axis(r.arg<RangeArg>().type)) return UOp();
  UOp end = r.src(0);
  bool proven;
  if (end.is_const())
    proven = st.analysis.divides(end, c) || st.bugs.has(Bug::SplitNoDivisibility);
  else
    proven = st.bugs.has(Bug::SplitDynamicEnd);  // the end must be a CONST node
  if (!proven) return UOp();
  st.split_marks.emplace_back(r, c);
  return UOp();  // nothing changes before SINK
}

RangeArg sub_axis(const RangeArg& a, int32_t sub) {
  RangeArg out = a;
  out.axis.push_back(sub);
  return out;
}

// At SINK: every marked range r becomes outer * c + inner.
UOp split_at_sink(RewriteCtx& rc, const Bindings& b) {
  SimplifyState& st = state(rc);
  if (st.split_marks.empty()) return UOp();
  Context& ctx = rc.ctx;
  std::unordered_map<UOp, UOp, UOpHash> with;
  for (const auto& [r, c] : st.split_marks) {
    UOp end = r.src(0);
    UOp cc = ctx.const_int(dtypes::Index, c);
    UOp outer_end = end.is_const() ? ctx.const_int(dtypes::Index, end.const_value().i / c)
                                   : ctx.alu(Op::FloorDiv, {end, cc});
    const auto& arg = r.arg<RangeArg>();
    UOp outer = ctx.make(Op::Range, dtypes::Index, {outer_end}, sub_axis(arg, 0));
    UOp inner = ctx.make(Op::Range, dtypes::Index, {cc}, sub_axis(arg, 1));
    with.emplace(r, ctx.alu(Op::Add, {ctx.alu(Op::Mul, {outer, cc}), inner}));
  }
  st.split_marks.clear();
  return substitute(ctx, b["sink"], with);
}

size_t count_divmod(UOp u) {
  size_t n = 0;
  for (UOp x : toposort(u))
    n += x.op() == Op::FloorDiv || x.op() == Op::FloorMod || x.op() == Op::Cdiv ||
         x.op() == Op::Cmod;
  return n;
}

// Does REDUCE x use range r (in its value or its own range list)?
bool reduce_holds(UOp x, UOp r, NodeMap<RangeSet>& open) {
  for (size_t i = 1; i < x.num_src(); ++i)
    if (x.src(i) == r) return true;
  const RangeSet& o = open[x];
  return std::find(o.begin(), o.end(), r) != o.end();
}

// simplify_merge_adjacent: try to merge two ranges of an END (adjacent pairs) or a
// REDUCE (all ordered pairs) into one; keep the merge only if it costs no extra divmod.
UOp merge_adjacent(RewriteCtx& rc, const Bindings& b) {
  SimplifyState& st = state(rc);
  Context& ctx = rc.ctx;
  static const RuleSet check_rules = symbolic() + pm_flatten_range();
  UOp u = b["u"];
  bool changed = false;
  for (bool merged = true; merged;) {
    merged = false;
    if (u.op() != Op::End && u.op() != Op::Reduce) break;
    const size_t n = u.num_src() - 1;
    for (size_t i = 1; i <= n; ++i)
      if (u.src(i).op() != Op::Range) return changed ? u : UOp();
    std::vector<UOp> topo = toposort(u);
    auto open = open_ranges(topo);
    std::vector<UOp> reduces;
    for (UOp x : topo)
      if (x.op() == Op::Reduce) reduces.push_back(x);
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t i = 1; i <= n; ++i)
      for (size_t j = 1; j <= n; ++j)
        // END: adjacent pairs. REDUCE: all ordered pairs, except for floats, where only an
        // adjacent pair in order keeps the order of the sum (a fuzzer found float16 sums
        // that rounded differently after a reordering merge).
        if (u.op() == Op::End || u.dtype().is_float() ? j == i + 1 : i != j)
          pairs.emplace_back(i, j);
    const size_t before = count_divmod(u);
    for (auto [i, j] : pairs) {
      UOp r0 = u.src(i), r1 = u.src(j);
      if (r0.arg<RangeArg>().type != r1.arg<RangeArg>().type) continue;
      bool same_reduces = std::all_of(reduces.begin(), reduces.end(), [&](UOp x) {
        return reduce_holds(x, r0, open) == reduce_holds(x, r1, open);
      });
      if (!same_reduces) continue;
      UOp s0 = r0.src(0), s1 = r1.src(0);
      // Both loops must run: with a zero-trip (or negative) end the fused range's bounds
      // collapse and its divmods fold as if the body ran (and two negative ends multiply
      // into a positive trip count).
      if (st.analysis.vmin(s0) < 1 || st.analysis.vmin(s1) < 1) continue;
      UOp fused_end = ctx.alu(Op::Mul, {st.bugs.has(Bug::MergeWrongEnd) ? s1 : s0, s1});
      UOp fused = ctx.make(Op::Range, dtypes::Index, {fused_end}, r0.arg());
      std::unordered_map<UOp, UOp, UOpHash> with{{r0, ctx.alu(Op::FloorDiv, {fused, s1})},
                                                 {r1, ctx.alu(Op::FloorMod, {fused, s1})}};
      RewriteOptions o;
      o.state = &st;
      o.disabled = st.disabled;
      UOp candidate = graph_rewrite(ctx, substitute(ctx, u, with), check_rules, o).root;
      if (count_divmod(candidate) > before && !st.bugs.has(Bug::MergeMoreDivmod)) continue;
      u = candidate;
      changed = merged = true;
      break;  // one pair at a time; continue from the merged graph
    }
  }
  return changed ? u : UOp();
}

// The AND-clauses of a gate that have the form RANGE < CONST.
void collect_guards(UOp valid, std::unordered_map<UOp, int64_t, UOpHash>& guards) {
  std::vector<UOp> work{valid};
  while (!work.empty()) {
    UOp c = work.back();
    work.pop_back();
    if (c.op() == Op::And && c.dtype().is_bool()) {
      work.push_back(c.src(0));
      work.push_back(c.src(1));
    } else if (c.op() == Op::CmpLt && c.src(0).op() == Op::Range && c.src(1).is_const()) {
      int64_t v = c.src(1).const_value().i;
      auto [it, fresh] = guards.emplace(c.src(0), v);
      if (!fresh) it->second = std::max(it->second, v);
    }
  }
}

// The shrink context: for each range, the end it may shrink to (nullopt: full length).
// It is collected over the whole graph when the SINK is reached, not node by node: the
// rewriter memoizes unchanged nodes, so after one substitution a per-node context would
// never see the untouched ungated uses again (a fuzzer found exactly that).
struct ShrinkMarks {
  std::unordered_map<UOp, std::optional<int64_t>, UOpHash> end;
  std::vector<UOp> order;  // first-seen order, for a deterministic substitution

  void full(UOp r) {
    if (!end.count(r)) order.push_back(r);
    end[r] = std::nullopt;
  }
  void guard(UOp r, int64_t g, bool smallest_wins) {
    auto it = end.find(r);
    if (it == end.end()) {
      order.push_back(r);
      end.emplace(r, g);
    } else if (it->second) {  // a full-length mark is never narrowed again
      it->second = smallest_wins ? std::min(*it->second, g) : std::max(*it->second, g);
    }
  }
};

// mark_gated: an INDEX lets each of its ranges shrink to its largest RANGE < CONST guard;
// a range it uses without such a guard keeps its full length.
void mark_gated(const SimplifyState& st, UOp index, ShrinkMarks& marks) {
  std::unordered_map<UOp, int64_t, UOpHash> guards;
  UOp i = index.src(1);
  if (i.op() == Op::Where && i.src(2).op() == Op::Invalid) collect_guards(i.src(0), guards);
  for (UOp r : toposort(i)) {
    if (r.op() != Op::Range) continue;
    if (auto g = guards.find(r); g != guards.end())
      marks.guard(r, g->second, st.bugs.has(Bug::ShrinkSmallestGuard));
    else if (!st.bugs.has(Bug::ShrinkDespiteUngated))
      marks.full(r);
  }
}

// mark_reduce: a REDUCE needs every iteration of its ranges.
void mark_reduce(const SimplifyState& st, UOp red, ShrinkMarks& marks) {
  if (st.bugs.has(Bug::ShrinkReduceRange)) return;
  for (size_t k = 1; k < red.num_src(); ++k)
    if (red.src(k).op() == Op::Range) marks.full(red.src(k));
}

// do_substitute: at SINK, give each shrinkable range its guard as end.
UOp shrink_at_sink(RewriteCtx& rc, const Bindings& b) {
  SimplifyState& st = state(rc);
  ShrinkMarks marks;
  for (UOp u : toposort(b["sink"])) {
    if (u.op() == Op::Index) mark_gated(st, u, marks);
    if (u.op() == Op::Reduce) mark_reduce(st, u, marks);
  }
  std::unordered_map<UOp, UOp, UOpHash> with;
  for (UOp r : marks.order) {
    const auto& g = marks.end.at(r);
    if (!g) continue;
    // Only when the guard is below every value the end can take: a shorter loop then
    // skips exactly the iterations whose accesses the guard disabled.
    if (*g >= st.analysis.vmin(r.src(0)) || *g < 0) continue;
    with.emplace(
        r, rc.ctx.make(Op::Range, dtypes::Index, {rc.ctx.const_int(dtypes::Index, *g)}, r.arg()));
  }
  if (with.empty()) return UOp();
  return substitute(rc.ctx, b["sink"], with);
}

}  // namespace

RuleSet pm_flatten_range() {
  RuleSet r;
  r.add("flatten_range", Pat::ops({Op::End, Op::Reduce}, {Pat::var()}).rest().named("u"),
        flatten_range);
  return r;
}

RuleSet pm_split_ranges() {
  RuleSet r;
  r.add("mark_range_mod",
        Pat::ops({Op::FloorMod, Op::Cmod}, {Pat::op(Op::Range).named("r"), Pat::cvar("c")}),
        mark_range_mod);                                                 // RANGE % c: remember
  r.add("split_range", Pat::op(Op::Sink).named("sink"), split_at_sink);  // r -> outer*c + inner
  return r;
}

RuleSet pm_simplify_ranges() {
  RuleSet r;
  r.add("merge_adjacent", Pat::ops({Op::End, Op::Reduce}, {Pat::var()}).rest().named("u"),
        merge_adjacent);
  // mark_gated + mark_reduce over the whole graph, then do_substitute
  r.add("shrink_range", Pat::op(Op::Sink).named("sink"), shrink_at_sink);
  return r;
}

}  // namespace uopfuzz::simplifier
