#include "reduce/edit.h"

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

namespace uopfuzz::reduce {

using namespace ir;

void push_root(Candidates& out, const Kernel& k, UOp root) {
  if (root && root != k.root) out.push_back(Kernel{k.header, root});
}

UOp replace(Context& ctx, UOp root, UOp from, UOp to) {
  if (from == to) return root;
  return substitute(ctx, root, {{from, to}});
}

bool is_value(UOp u) {
  if (u.dtype().is_void()) return false;
  return op_in(u.op(), Alu) || u.op() == Op::Load || u.op() == Op::Reduce;
}

bool can_replace(UOp u) {
  return is_value(u) || u.op() == Op::Const || u.op() == Op::Var || u.op() == Op::Range;
}

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

bool depends_on(UOp u, UOp what) {
  for (UOp x : toposort(u))
    if (x == what) return true;
  return false;
}

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
    if (fresh)
      order.push_back(buf);
    else
      it->second = std::max(it->second, b.hi + 1);
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

std::string fresh_var_name(const Kernel& k, const std::vector<UOp>& topo) {
  std::unordered_set<std::string> used;
  for (UOp u : topo)
    if (u.op() == Op::Var) used.insert(u.arg<VarArg>().name);
  for (const auto& v : k.header.vars) used.insert(v.first);
  for (int i = 0;; ++i)
    if (std::string n = "x" + std::to_string(i); !used.count(n)) return n;
}

UOp converted(Context& ctx, UOp v, DType dt) {
  if (v.dtype() == dt) return v;
  if (!v.is_const()) return ctx.make(Op::Cast, dt, {v});
  Value out, args[1] = {v.const_value()};
  if (eval_alu(Op::Cast, v.dtype(), dt, args, out) != EvalError::None) return UOp();
  return ctx.const_value(dt, out);
}

bool gated_load(UOp l) {
  if (l.op() != Op::Load) return false;
  UOp idx = l.src(0).src(1);
  return idx.op() == Op::Where && idx.src(2).op() == Op::Invalid;
}

UOp retyped_param(Context& ctx, UOp buf, DType dt) {
  if (buf.dtype() == dt) return buf;
  ParamArg a = buf.arg<ParamArg>();
  auto fits = [&](std::optional<int64_t> v) {
    return !v || (*v >= dt.int_min() && *v <= dt.int_max());
  };
  if (!dt.is_int() || dt.is_index() || !fits(a.vmin) || !fits(a.vmax))
    a.vmin = a.vmax = a.multiple_of = std::nullopt;
  return ctx.make(Op::Param, dt, {}, a);
}

}  // namespace uopfuzz::reduce
