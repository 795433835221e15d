// The reducer passes (passes.def): each lists candidate edits of a kernel, one edit per
// candidate, most promising first. A pass only proposes; the loop (reducer.cpp) verifies,
// measures and asks the predicate. Candidates are enumerated in toposort order (users
// after sources) or its reverse, never by node id or pointer, so the result does not
// depend on the Context's history.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/rewrite.h"
#include "ir/scalar_eval.h"
#include "reduce/reducer.h"

namespace uopfuzz::reduce {

using namespace ir;

namespace {

using Candidates = std::vector<Kernel>;

void push_root(Candidates& out, const Kernel& k, UOp root) {
  if (root && root != k.root) out.push_back(Kernel{k.header, root});
}

UOp replace(Context& ctx, UOp root, UOp from, UOp to) {
  if (from == to) return root;
  return substitute(ctx, root, {{from, to}});
}

/// Nodes whose value a replacement may stand in for: pure computed values.
bool is_value(UOp u) {
  if (u.dtype().is_void()) return false;
  return op_in(u.op(), Alu) || u.op() == Op::Load || u.op() == Op::Reduce;
}

/// Nodes that may stand in for a value: computed values and CONST, VAR, RANGE.
bool can_replace(UOp u) {
  return is_value(u) || u.op() == Op::Const || u.op() == Op::Var || u.op() == Op::Range;
}

/// The graph under `root` with RANGE `r` replaced by `with` everywhere and taken out of
/// every END and REDUCE that closes it (one left with no range becomes its body/value).
UOp remove_range(Context& ctx, UOp root, UOp r, UOp with) {
  std::unordered_map<UOp, UOp, UOpHash> done{{r, with}};
  for (UOp u : toposort(root)) {
    if (done.count(u)) continue;
    std::vector<UOp> src;
    bool changed = false;
    for (size_t i = 0; i < u.num_src(); ++i) {
      UOp s = u.src(i);
      if (i > 0 && s == r && (u.op() == Op::End || u.op() == Op::Reduce)) {
        changed = true;
        continue;
      }
      UOp n = done.at(s);
      changed |= n != s;
      src.push_back(n);
    }
    UOp n = u;
    if ((u.op() == Op::End || u.op() == Op::Reduce) && src.size() == 1)
      n = src[0];
    else if (changed)
      n = ctx.make(u.op(), u.dtype(), std::move(src), u.arg());
    done.emplace(u, n);
  }
  return done.at(root);
}

/// Integer candidates toward 0 and 1, each smaller in the const cost than v.
std::vector<int64_t> toward_zero_one(int64_t v) {
  std::vector<int64_t> c;
  auto cost = [](int64_t x) {
    // 2|x| + (x < 0) without overflow for INT64_MIN: compare in unsigned 128 bits.
    unsigned __int128 m =
        x < 0 ? static_cast<unsigned __int128>(-(x + 1)) + 1 : static_cast<unsigned __int128>(x);
    return m * 2 + (x < 0);
  };
  auto add = [&](int64_t x) {
    if (cost(x) < cost(v) && std::find(c.begin(), c.end(), x) == c.end()) c.push_back(x);
  };
  add(0);
  add(1);
  add(v / 2);
  add(v > 0 ? v - 1 : v + 1);
  return c;
}

std::vector<UOp> const_candidates(Context& ctx, UOp c) {
  DType dt = c.dtype();
  Value v = c.const_value();
  std::vector<UOp> out;
  auto add = [&](UOp x) {
    if (x != c && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  };
  if (dt.is_bool()) {
    if (v.i) add(ctx.const_bool(false));
  } else if (dt.is_float()) {
    const double f = v.f;
    add(ctx.const_float(dt, 0.0));
    add(ctx.const_float(dt, 1.0));  // smaller for |f| > 1, NaN, inf and fractions (reducer.h, Size)
    if (std::isfinite(f)) {
      if (std::signbit(f)) add(ctx.const_float(dt, -f));
      add(ctx.const_float(dt, std::trunc(f)));
      add(ctx.const_float(dt, std::trunc(f / 2)));
      add(ctx.const_float(dt, f / 2));
    }
  } else if (dt.kind() == DTypeKind::Unsigned) {
    for (uint64_t x : {uint64_t{0}, uint64_t{1}, v.u / 2, v.u - 1})
      if (x < v.u) add(ctx.make(Op::Const, dt, {}, ConstArg{Value::of_uint(x)}));
  } else {
    for (int64_t x : toward_zero_one(v.i)) add(ctx.const_int(dt, x));
  }
  return out;
}

void propose_DropEffect(Context& ctx, const Kernel& k, Candidates& out) {
  UOp sink = k.root;
  for (size_t i = 0; i < sink.num_src(); ++i) {
    std::vector<UOp> src(sink.src().begin(), sink.src().end());
    src.erase(src.begin() + static_cast<std::ptrdiff_t>(i));
    push_root(out, k, ctx.make(Op::Sink, sink.dtype(), std::move(src), sink.arg()));
  }
}

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

void propose_DropRange(Context& ctx, const Kernel& k, Candidates& out) {
  std::vector<UOp> topo = toposort(k.root);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    if (it->op() == Op::Range)
      push_root(out, k, remove_range(ctx, k.root, *it, ctx.const_int(dtypes::Index, 0)));
}

std::string fresh_var_name(const Kernel& k, const std::vector<UOp>& topo);

/// The graph under `root` with RANGE `r` run once: its end becomes `one` (a VAR that can
/// only be 1), the ENDs and REDUCEs that close it close that range instead, and its value
/// uses go: with `drop_users`, a binary ALU node using it (once) becomes its other operand;
/// any other use becomes 0.
UOp run_once(Context& ctx, UOp root, UOp r, UOp one, bool drop_users) {
  UOp nr = ctx.make(Op::Range, r.dtype(), {one}, r.arg());
  std::unordered_map<UOp, UOp, UOpHash> done{{r, ctx.const_int(dtypes::Index, 0)}};
  for (UOp u : toposort(root)) {
    if (done.count(u)) continue;
    if (drop_users && op_in(u.op(), Alu) && u.num_src() == 2 && (u.src(0) == r) != (u.src(1) == r)) {
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
    for (bool drop_users : {true, false}) push_root(out, k, run_once(ctx, k.root, *it, one, drop_users));
  }
}

void propose_DropEndRange(Context& ctx, const Kernel& k, Candidates& out) {
  drop_closer_range(ctx, k, Op::End, out);
}

void propose_DropReduceRange(Context& ctx, const Kernel& k, Candidates& out) {
  drop_closer_range(ctx, k, Op::Reduce, out);
}

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
  // @output lines name slots: renumber them along.
  for (auto& o : c.header.outputs)
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].arg<ParamArg>().slot == o.slot) {
        o.slot = static_cast<int>(i);
        break;
      }
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

// ---- helpers for the passes that reuse nodes or move accesses

/// Does `u` depend on `what` (or is it)? A replacement by a node that depends on the
/// replaced one would make the graph refer to itself.
bool depends_on(UOp u, UOp what) {
  for (UOp x : toposort(u))
    if (x == what) return true;
  return false;
}

/// The nodes of `topo` (a toposort) that depend on `what` or are it, in one sweep.
std::unordered_set<UOp, UOpHash> dependents(const std::vector<UOp>& topo, UOp what) {
  std::unordered_set<UOp, UOpHash> out{what};
  for (UOp u : topo)
    for (UOp s : u.src())
      if (out.count(s)) {
        out.insert(u);
        break;
      }
  return out;
}

/// Largest buffer a candidate may grow to (elements): enough for every index the
/// reducer builds from small constants, VARs and ranges.
constexpr int64_t kMaxGrownSize = int64_t{1} << 16;

/// `k` with every PARAM grown to hold the indexes its INDEXes can take (by the interval
/// analysis), where that is a small size; @output lines of grown outputs are dropped
/// (they describe the old size). An edit that moves an access (a reused index, a
/// merged buffer, a loop instead of a reduction) would otherwise only ever go out of
/// bounds: the buffer size is not part of the reducer's Size, so growing it is free.
Kernel fit_buffers(Context& ctx, Kernel k) {
  Analysis an;
  std::unordered_map<UOp, int64_t, UOpHash> need;
  std::vector<UOp> order;
  for (UOp u : toposort(k.root)) {
    if (u.op() != Op::Index || u.src(0).op() != Op::Param) continue;
    UOp buf = u.src(0), idx = u.src(1);
    if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) idx = idx.src(1);
    if (!idx.dtype().is_index()) continue;
    Interval b = an.bounds(idx);
    if (b.lo < 0 || b.hi < buf.arg<ParamArg>().size || b.hi >= kMaxGrownSize) continue;
    auto [it, fresh] = need.emplace(buf, b.hi + 1);
    if (fresh) order.push_back(buf);
    else it->second = std::max(it->second, b.hi + 1);
  }
  if (need.empty()) return k;
  std::unordered_map<UOp, UOp, UOpHash> with;
  for (UOp buf : order) {
    ParamArg a = buf.arg<ParamArg>();
    a.size = need.at(buf);
    with.emplace(buf, ctx.make(Op::Param, buf.dtype(), {}, a));
    std::erase_if(k.header.outputs, [&](const ExpectedOutput& o) { return o.slot == a.slot; });
  }
  k.root = substitute(ctx, k.root, with);
  return k;
}

void push_fitted(Context& ctx, Candidates& out, const Kernel& k, UOp root) {
  if (!root || root == k.root) return;
  out.push_back(fit_buffers(ctx, Kernel{k.header, root}));
}

/// Nodes that may stand in for another, simplest first (leaves, then ranges, then
/// computed values), each once, in graph order within a kind.
std::vector<UOp> stand_ins(const std::vector<UOp>& topo) {
  std::vector<UOp> out;
  for (int kind = 0; kind < 3; ++kind)
    for (UOp u : topo) {
      if (!can_replace(u)) continue;
      const int k = u.op() == Op::Const || u.op() == Op::Var ? 0 : u.op() == Op::Range ? 1 : 2;
      if (k == kind) out.push_back(u);
    }
  return out;
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

/// A VAR name used by no VAR of the graph and no @var line: x0, x1, ...
std::string fresh_var_name(const Kernel& k, const std::vector<UOp>& topo) {
  std::unordered_set<std::string> used;
  for (UOp u : topo)
    if (u.op() == Op::Var) used.insert(u.arg<VarArg>().name);
  for (const auto& v : k.header.vars) used.insert(v.first);
  for (int i = 0;; ++i)
    if (std::string n = "x" + std::to_string(i); !used.count(n)) return n;
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
      push_root(out, k, replace(ctx, k.root, u, ctx.make(Op::Cast, dt, {ctx.make(Op::Var, dtypes::Index, {}, a)})));
      continue;
    }
    Interval b = an.bounds(u);
    // A VAR spanning (nearly) the whole dtype would be filled with huge values.
    if (static_cast<double>(b.hi) - static_cast<double>(b.lo) > double(int64_t{1} << 32)) continue;
    push_root(out, k, replace(ctx, k.root, u, ctx.make(Op::Var, dt, {}, VarArg{name, b.lo, b.hi, std::nullopt})));
  }
  // A RANGE becomes a VAR over its values (out of every END and REDUCE that closes it).
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    if (it->op() != Op::Range) continue;
    const int64_t hi = an.vmax(it->src(0));
    if (hi < 1 || hi > kMaxGrownSize) continue;
    push_root(out, k, remove_range(ctx, k.root, *it, ctx.make(Op::Var, dtypes::Index, {}, VarArg{name, 0, hi - 1, std::nullopt})));
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
      if (std::find(bounds.begin(), bounds.end(), std::make_pair(lo, hi)) == bounds.end()) bounds.emplace_back(lo, hi);
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

/// `v` converted to `dt`: a CONST folded (null when the conversion is undefined),
/// anything else cast.
UOp converted(Context& ctx, UOp v, DType dt) {
  if (v.dtype() == dt) return v;
  if (!v.is_const()) return ctx.make(Op::Cast, dt, {v});
  Value out, args[1] = {v.const_value()};
  if (eval_alu(Op::Cast, v.dtype(), dt, args, out) != EvalError::None) return UOp();
  return ctx.const_value(dt, out);
}

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
            UOp moved = replace(ctx, k.root, n, ctx.make(Op::Index, n.dtype(), {n.src(0), ni}, n.arg()));
            push_fitted(ctx, out, k, merge_output(ctx, moved, a, b));
          }
        }
      }
}

/// A LOAD whose index is gated.
bool gated_load(UOp l) {
  if (l.op() != Op::Load) return false;
  UOp idx = l.src(0).src(1);
  return idx.op() == Op::Where && idx.src(2).op() == Op::Invalid;
}

/// The input buffer `buf` as one of dtype `dt` (integer bounds kept where they fit).
UOp retyped_param(Context& ctx, UOp buf, DType dt) {
  if (buf.dtype() == dt) return buf;
  ParamArg a = buf.arg<ParamArg>();
  auto fits = [&](std::optional<int64_t> v) { return !v || (*v >= dt.int_min() && *v <= dt.int_max()); };
  if (!dt.is_int() || dt.is_index() || !fits(a.vmin) || !fits(a.vmax)) a.vmin = a.vmax = a.multiple_of = std::nullopt;
  return ctx.make(Op::Param, dt, {}, a);
}

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
      UOp nix = l.dtype() == dt ? ix : ctx.make(Op::Index, dt, {retyped_param(ctx, buf, dt), ix.src(1)}, ix.arg());
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
        push_root(out, k, replace(ctx, k.root, red, ctx.make(Op::Reduce, red.dtype(), std::move(src), ReduceArg{op})));
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
      push_fitted(ctx, out, k, replace(ctx, k.root, st, ctx.make(Op::End, dtypes::Void, {body, r})));
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
      UOp moved = replace(ctx, k.root, n, ctx.make(Op::Index, n.dtype(), {n.src(0), addr}, n.arg()));
      push_fitted(ctx, out, k, replace(ctx, moved, l, c));
    }
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
    auto line = std::find_if(k.header.vars.begin(), k.header.vars.end(), [&](const auto& v) { return v.first == a.name; });
    if (line == k.header.vars.end() || a.min == a.max) continue;
    Kernel c{k.header, UOp()};
    c.header.vars.erase(c.header.vars.begin() + (line - k.header.vars.begin()));
    a.name = name;
    c.root = replace(ctx, k.root, u, ctx.make(Op::Var, u.dtype(), {}, a));
    out.push_back(std::move(c));
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
      if (s >= 1 && s < a.size && std::find(sizes.begin(), sizes.end(), s) == sizes.end()) sizes.push_back(s);
    for (int64_t s : sizes) {
      ParamArg b = a;
      b.size = s;
      Kernel c{k.header, replace(ctx, k.root, p, ctx.make(Op::Param, p.dtype(), {}, b))};
      std::erase_if(c.header.outputs, [&](const ExpectedOutput& o) { return o.slot == a.slot; });
      out.push_back(std::move(c));
    }
  }
}

using ProposeFn = void (*)(Context&, const Kernel&, Candidates&);

struct PassInfo {
  std::string_view name, doc;
  ProposeFn fn;
};

const PassInfo kPasses[] = {
#define PASS(e, name, doc) {name, doc, propose_##e},
#include "reduce/passes.def"
#undef PASS
};

}  // namespace

std::string_view pass_name(Pass p) {
  return kPasses[static_cast<size_t>(p)].name;
}
std::string_view pass_doc(Pass p) {
  return kPasses[static_cast<size_t>(p)].doc;
}

const std::vector<Pass>& all_passes() {
  static const std::vector<Pass> all = {
#define PASS(e, name, doc) Pass::e,
#include "reduce/passes.def"
#undef PASS
  };
  return all;
}

std::optional<Pass> parse_pass(std::string_view name) {
  for (Pass p : all_passes())
    if (pass_name(p) == name) return p;
  return std::nullopt;
}

std::vector<Kernel> propose(Context& ctx, const Kernel& k, Pass pass) {
  Candidates out;
  if (k.root && k.root.op() == Op::Sink) kPasses[static_cast<size_t>(pass)].fn(ctx, k, out);
  return out;
}

}  // namespace uopfuzz::reduce
