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

#include "ir/graph.h"
#include "ir/rewrite.h"
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
