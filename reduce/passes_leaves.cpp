// Reducer passes (passes.def) on leaves and the header: merged leaves, smaller range ends,
// constants and VAR bounds, renumbered slots.
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

void propose_MergeLeaves(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> leaves;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Const || u.op() == Op::Var || u.op() == Op::Param) leaves.push_back(u);
  auto same_kind = [](UOp a, UOp b) {
    if (a.op() != b.op() || a.dtype() != b.dtype()) return false;
    return a.op() != Op::Param || a.arg<ParamArg>().output == b.arg<ParamArg>().output;
  };
  for (UOp a : leaves)
    for (UOp b : leaves)
      if (a != b && same_kind(a, b)) push_root(out, k, replace(ctx, k.root, a, b));
}

void propose_ShrinkRangeEnd(Context& ctx, const Kernel& k, Candidates& out) {
  std::map<std::string, int64_t> header_vars(k.header.vars.begin(), k.header.vars.end());
  for (UOp r : toposort(k.root)) {
    if (r.op() != Op::Range) continue;
    UOp end = r.src(0);
    std::vector<int64_t> ends;
    auto add = [&](int64_t e) {
      if (std::find(ends.begin(), ends.end(), e) == ends.end()) ends.push_back(e);
    };
    if (end.is_const()) {
      const int64_t e = end.const_value().i;
      for (int64_t x : {int64_t{0}, int64_t{1}, int64_t{2}, e / 2, e - 1})
        if (x >= 0 && x < e) add(x);
    } else {
      if (end.op() == Op::Var) {
        const VarArg& v = end.arg<VarArg>();
        if (auto h = header_vars.find(v.name); h != header_vars.end()) add(h->second);
        add(v.min);
        add(v.max);
      }
      for (int64_t x : {0, 1, 2}) add(x);
    }
    for (int64_t e : ends) {
      UOp nr = ctx.make(Op::Range, r.dtype(), {ctx.const_int(dtypes::Index, e)}, r.arg());
      push_root(out, k, replace(ctx, k.root, r, nr));
    }
  }
}

void propose_VarToConst(Context& ctx, const Kernel& k, Candidates& out) {
  std::map<std::string, int64_t> header_vars(k.header.vars.begin(), k.header.vars.end());
  for (UOp u : toposort(k.root)) {
    if (u.op() != Op::Var) continue;
    const VarArg& v = u.arg<VarArg>();
    std::vector<int64_t> values;
    auto add = [&](int64_t x) {
      if (x >= v.min && x <= v.max && std::find(values.begin(), values.end(), x) == values.end())
        values.push_back(x);
    };
    if (auto h = header_vars.find(v.name); h != header_vars.end()) add(h->second);
    add(0);
    add(1);
    add(v.min);
    add(v.max);
    for (int64_t x : values)
      push_root(out, k, replace(ctx, k.root, u, ctx.const_int(u.dtype(), x)));
  }
}

// A VAR an @var line pins becomes a VAR of a fresh name (same bounds) that no line
// names: the check then fills it per seed, like any VAR the header does not pin.
void propose_UnpinVar(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  const std::string name = fresh_var_name(k, topo);
  for (UOp u : topo) {
    if (u.op() != Op::Var) continue;
    VarArg a = u.arg<VarArg>();
    auto line = std::find_if(k.header.vars.begin(), k.header.vars.end(),
                             [&](const auto& v) { return v.first == a.name; });
    if (line == k.header.vars.end() || a.min == a.max) continue;
    Kernel c{k.header, UOp()};
    c.header.vars.erase(c.header.vars.begin() + (line - k.header.vars.begin()));
    a.name = name;
    c.root = replace(ctx, k.root, u, ctx.make(Op::Var, u.dtype(), {}, a));
    out.push_back(std::move(c));
  }
}

// Narrow a VAR's bounds (toward a single value, preferring 0); the @var value stays inside.
void propose_VarBounds(Context& ctx, const Kernel& k, Candidates& out) {
  std::map<std::string, int64_t> header_vars(k.header.vars.begin(), k.header.vars.end());
  for (UOp u : toposort(k.root)) {
    if (u.op() != Op::Var) continue;
    const VarArg& v = u.arg<VarArg>();
    std::optional<int64_t> pinned;
    if (auto h = header_vars.find(v.name); h != header_vars.end()) pinned = h->second;
    std::vector<std::pair<int64_t, int64_t>> bounds;
    auto add = [&](int64_t lo, int64_t hi) {
      if (lo > hi || (lo == v.min && hi == v.max) || lo < v.min || hi > v.max) return;
      if (pinned && (*pinned < lo || *pinned > hi)) return;
      if (std::find(bounds.begin(), bounds.end(), std::make_pair(lo, hi)) == bounds.end())
        bounds.emplace_back(lo, hi);
    };
    // Midpoints without overflow.
    const int64_t mid = static_cast<int64_t>((static_cast<__int128>(v.min) + v.max) / 2);
    if (v.min < 0 && v.max >= 0) add(0, v.max);
    if (v.max > 0 && v.min <= 0) add(v.min, 0);
    add(mid, v.max);
    add(v.min, mid);
    if (v.min < v.max) {
      add(v.min + 1, v.max);
      add(v.min, v.max - 1);
    }
    for (auto [lo, hi] : bounds) {
      VarArg a = v;
      a.min = lo, a.max = hi;
      push_root(out, k, replace(ctx, k.root, u, ctx.make(Op::Var, u.dtype(), {}, a)));
    }
  }
}

void propose_ShrinkConst(Context& ctx, const Kernel& k, Candidates& out) {
  for (UOp c : toposort(k.root)) {
    if (!c.is_const()) continue;
    for (UOp x : const_candidates(ctx, c)) push_root(out, k, replace(ctx, k.root, c, x));
  }
}

void propose_FlipConstSign(Context& ctx, const Kernel& k, Candidates& out) {
  for (UOp u : toposort(k.root)) {
    if ((u.op() != Op::Add && u.op() != Op::Sub) || u.dtype().kind() == DTypeKind::Unsigned)
      continue;
    for (size_t i = u.op() == Op::Add ? 0 : 1; i < 2; ++i) {
      UOp c = u.src(i);
      if (!c.is_const()) continue;
      const Value v = c.const_value();
      const bool negative = u.dtype().is_float() ? std::signbit(v.f) && !std::isnan(v.f) : v.i < 0;
      if (!negative || (!u.dtype().is_float() && v.i == u.dtype().int_min())) continue;
      UOp neg =
          u.dtype().is_float() ? ctx.const_float(u.dtype(), -v.f) : ctx.const_int(u.dtype(), -v.i);
      UOp x = u.src(1 - i);
      push_root(out, k,
                replace(ctx, k.root, u, ctx.alu(u.op() == Op::Add ? Op::Sub : Op::Add, {x, neg})));
    }
  }
}

void propose_RenumberParams(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> params;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param) params.push_back(u);
  std::sort(params.begin(), params.end(),
            [](UOp a, UOp b) { return a.arg<ParamArg>().slot < b.arg<ParamArg>().slot; });
  std::unordered_map<UOp, UOp, UOpHash> with;
  for (size_t i = 0; i < params.size(); ++i) {
    ParamArg a = params[i].arg<ParamArg>();
    if (a.slot == static_cast<int>(i)) continue;
    a.slot = static_cast<int>(i);
    with.emplace(params[i], ctx.make(Op::Param, params[i].dtype(), {}, a));
  }
  if (with.empty()) return;
  Kernel c{k.header, substitute(ctx, k.root, with)};
  // @output and @input lines name slots: renumber them along.
  auto renumbered = [&](int slot) {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].arg<ParamArg>().slot == slot) return static_cast<int>(i);
    return slot;
  };
  for (auto& o : c.header.outputs) o.slot = renumbered(o.slot);
  for (auto& in : c.header.inputs) in.slot = renumbered(in.slot);
  out.push_back(std::move(c));
}

void propose_SimplifyHeader(Context& ctx, const Kernel& k, Candidates& out) {
  std::unordered_set<std::string> names;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Var) names.insert(u.arg<VarArg>().name);
  Kernel c = k;
  c.header.outputs.clear();
  std::erase_if(c.header.vars, [&](const auto& v) { return !names.count(v.first); });
  if (!(c.header == k.header)) out.push_back(std::move(c));
}

}  // namespace uopfuzz::reduce
