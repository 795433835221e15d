#include "ir/pattern.h"

#include <algorithm>

namespace uopfuzz::ir {

Pat Pat::var(std::string name) {
  auto n = std::make_shared<Node>();
  n->name = std::move(name);
  return Pat(n);
}

Pat Pat::cvar(std::string name) {
  auto n = std::make_shared<Node>();
  n->ops = {Op::Const};
  n->is_const = true;
  n->src = std::vector<Pat>{};
  n->name = std::move(name);
  return Pat(n);
}

Pat Pat::lit(int64_t v) {
  Pat p = cvar();
  return p.with([v](Node& n) { n.literal = v; });
}

Pat Pat::op(Op op, std::vector<Pat> src) {
  return ops({op}, std::move(src));
}

Pat Pat::op(Op op) {
  auto n = std::make_shared<Node>();
  n->ops = {op};
  return Pat(n);
}

Pat Pat::ops(std::vector<Op> ops, std::vector<Pat> src) {
  auto n = std::make_shared<Node>();
  n->ops = std::move(ops);
  n->src = std::move(src);
  return Pat(n);
}

Pat Pat::group(uint32_t group) {
  auto n = std::make_shared<Node>();
  n->group = group;
  return Pat(n);
}

Pat Pat::any_of(std::vector<Pat> alternatives) {
  auto n = std::make_shared<Node>();
  // The root ops of a choice are those of its alternatives (any op if one takes any).
  for (const Pat& a : alternatives) {
    if (a.root_ops().empty()) {
      n->ops.clear();
      break;
    }
    n->ops.insert(n->ops.end(), a.root_ops().begin(), a.root_ops().end());
  }
  n->alternatives = std::move(alternatives);
  return Pat(n);
}

Pat Pat::with(const std::function<void(Node&)>& edit) const {
  auto copy = std::make_shared<Node>(*n_);
  edit(*copy);
  return Pat(copy);
}

Pat Pat::named(std::string name) const {
  return with([&](Node& n) { n.name = std::move(name); });
}
Pat Pat::dtype(DType dt) const {
  return with([dt](Node& n) { n.dtype_ok = [dt](DType d) { return d == dt; }; });
}
Pat Pat::dtype_if(std::function<bool(DType)> ok) const {
  return with([&](Node& n) { n.dtype_ok = std::move(ok); });
}
Pat Pat::arg(Arg arg) const {
  return with([&](Node& n) { n.arg = std::move(arg); });
}
Pat Pat::rest() const {
  return with([](Node& n) { n.rest = true; });
}
Pat Pat::when(Pred pred) const {
  return with([&](Node& n) { n.preds.push_back(std::move(pred)); });
}

namespace {

// The installed gate sink: null (the usual case) costs one load per gate asked.
thread_local Pat::GateSink t_gate_sink = nullptr;
thread_local void* t_gate_ctx = nullptr;

}  // namespace

Pat::GateWatch::GateWatch(GateSink sink, void* ctx)
    : outer_sink_(t_gate_sink), outer_ctx_(t_gate_ctx) {
  t_gate_sink = sink;
  t_gate_ctx = ctx;
}

Pat::GateWatch::~GateWatch() {
  t_gate_sink = outer_sink_;
  t_gate_ctx = outer_ctx_;
}

std::vector<Pat::GateKey> Pat::gates() const {
  std::vector<GateKey> out;
  collect_gates(out);
  return out;
}

void Pat::collect_gates(std::vector<GateKey>& out) const {
  for (const Pat& a : n_->alternatives) a.collect_gates(out);
  if (n_->src)
    for (const Pat& s : *n_->src) s.collect_gates(out);
  for (uint32_t k = 0; k < n_->preds.size(); ++k) {
    GateKey key{n_.get(), k};
    // A sub-pattern used twice in one rule carries its gates once.
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
}

bool Pat::match(UOp u, Bindings& b) const {
  return match_each(u, b, [](Bindings&) { return true; });
}

bool Pat::match_each(UOp u, Bindings& b, Accept accept) const {
  const Node& n = *n_;
  if (!n.ops.empty() && std::find(n.ops.begin(), n.ops.end(), u.op()) == n.ops.end()) return false;
  if (n.group && !op_in(u.op(), n.group)) return false;
  if (n.dtype_ok && !n.dtype_ok(u.dtype())) return false;
  if (n.arg && u.arg() != *n.arg) return false;
  if (n.literal) {
    Value v = u.const_value();
    if (u.dtype().is_float() ? v.f != static_cast<double>(*n.literal) : v.i != *n.literal)
      return false;
    if (u.dtype().kind() == DTypeKind::Unsigned && *n.literal < 0) return false;
  }
  const size_t mark = b.size();
  if (!n.name.empty() && !b.bind(n.name, u)) return false;
  // Predicates see this node's whole sub-match; then the caller continues.
  auto after_src = [&](Bindings& bb) {
    for (uint32_t k = 0; k < n.preds.size(); ++k) {
      const bool ok = n.preds[k](bb);
      if (t_gate_sink) t_gate_sink(t_gate_ctx, GateKey{&n, k}, ok);
      if (!ok) return false;
    }
    return accept(bb);
  };
  bool ok = false;
  if (!n.alternatives.empty()) {
    for (const Pat& a : n.alternatives)
      if ((ok = a.match_each(u, b, after_src))) break;
  } else if (!n.src) {
    ok = after_src(b);
  } else {
    ok = match_src(u, b, false, 0, after_src);
    if (!ok && n.src->size() == 2 && u.num_src() == 2 && op_in(u.op(), Commutative))
      ok = match_src(u, b, true, 0, after_src);
  }
  if (!ok) b.truncate(mark);
  return ok;
}

bool Pat::match_src(UOp u, Bindings& b, bool swapped, size_t i, Accept accept) const {
  const auto& src = *n_->src;
  if (i == 0 && (n_->rest ? u.num_src() < src.size() : u.num_src() != src.size())) return false;
  if (i == src.size()) return accept(b);
  size_t j = swapped ? src.size() - 1 - i : i;
  const size_t mark = b.size();
  bool ok = src[i].match_each(
      u.src(j), b, [&](Bindings& bb) { return match_src(u, bb, swapped, i + 1, accept); });
  if (!ok) b.truncate(mark);
  return ok;
}

Pat operator+(const Pat& a, const Pat& b) {
  return Pat::op(Op::Add, {a, b});
}
Pat operator-(const Pat& a, const Pat& b) {
  return Pat::op(Op::Sub, {a, b});
}
Pat operator*(const Pat& a, const Pat& b) {
  return Pat::op(Op::Mul, {a, b});
}
Pat operator<(const Pat& a, const Pat& b) {
  return Pat::op(Op::CmpLt, {a, b});
}
Pat operator!=(const Pat& a, const Pat& b) {
  return Pat::op(Op::CmpNe, {a, b});
}
Pat operator&(const Pat& a, const Pat& b) {
  return Pat::op(Op::And, {a, b});
}
Pat operator|(const Pat& a, const Pat& b) {
  return Pat::op(Op::Or, {a, b});
}

}  // namespace uopfuzz::ir
