#include "ir/rewrite.h"

#include <exception>

#include "ir/graph.h"
#include "ir/node_map.h"

namespace uopfuzz::ir {

RuleSet::RuleSet(std::vector<Rule> rules) : rules_(std::move(rules)) {
  index();
}

RuleSet& RuleSet::add(std::string name, Pat pattern, RewriteFn rewrite) {
  rules_.push_back({std::move(name), std::move(pattern), std::move(rewrite), {}});
  index();
  return *this;
}

RuleSet RuleSet::operator+(const RuleSet& other) const {
  std::vector<Rule> all = rules_;
  all.insert(all.end(), other.rules_.begin(), other.rules_.end());
  return RuleSet(std::move(all));
}

void RuleSet::index() {
  by_op_.assign(kOpCount, {});
  for (uint32_t i = 0; i < rules_.size(); ++i) {
    rules_[i].gates = rules_[i].pattern.gates();
    const auto& ops = rules_[i].pattern.root_ops();
    for (int op = 0; op < kOpCount; ++op)
      if (ops.empty() || std::find(ops.begin(), ops.end(), static_cast<Op>(op)) != ops.end())
        by_op_[op].push_back(i);
  }
}

const std::vector<uint32_t>& RuleSet::candidates(Op op) const {
  static const std::vector<uint32_t> none;
  return by_op_.empty() ? none : by_op_[static_cast<int>(op)];
}

std::vector<std::string> RuleSet::names() const {
  std::vector<std::string> out;
  for (const auto& r : rules_) out.push_back(r.name);
  return out;
}

void add_gate_counts(GateCounts& into, const GateCounts& from) {
  for (const auto& [rule, gates] : from) {
    auto& to = into[rule];
    if (to.size() < gates.size()) to.resize(gates.size());
    for (size_t g = 0; g < gates.size(); ++g) {
      to[g].accepted += gates[g].accepted;
      to[g].declined += gates[g].declined;
    }
  }
}

namespace {

thread_local const char* t_current_rule = nullptr;
thread_local GateCounts* t_gate_scope = nullptr;

// Sets the breadcrumb for one rule attempt and restores the outer one afterwards, except
// while an exception thrown in the rule unwinds the stack: then it keeps naming the rule
// that threw, for whoever turns the exception into a crash report.
class RuleBreadcrumb {
 public:
  explicit RuleBreadcrumb(const std::string& name)
      : outer_(t_current_rule), exceptions_(std::uncaught_exceptions()) {
    t_current_rule = name.c_str();
  }
  ~RuleBreadcrumb() {
    if (std::uncaught_exceptions() == exceptions_) t_current_rule = outer_;
  }
  RuleBreadcrumb(const RuleBreadcrumb&) = delete;
  RuleBreadcrumb& operator=(const RuleBreadcrumb&) = delete;

 private:
  const char* outer_;
  int exceptions_;
};

class Rewriter {
 public:
  Rewriter(Context& ctx, const RuleSet& rules, const RewriteOptions& o)
      : ctx_(ctx),
        rules_(rules),
        opts_(o),
        hits_(rules.rules().size(), 0),
        gate_counts_(rules.rules().size()) {}

  RewriteResult run(UOp root) {
    // Visit the original graph in topological order so recursion depth stays small:
    // by the time a node is rewritten, its sources are memoized.
    const std::vector<UOp> topo = toposort(root);
    memo_.reserve(2 * topo.size());  // each node, and about as many results
    for (UOp u : topo) rewrite(u);
    RewriteResult r;
    r.root = rewrite(root);
    r.converged = !capped_;
    r.rewrites = count_;
    for (size_t i = 0; i < hits_.size(); ++i)
      if (hits_[i]) r.hits[rules_.rules()[i].name] += hits_[i];
    for (size_t i = 0; i < gate_counts_.size(); ++i)
      if (!gate_counts_[i].empty()) {
        auto& to = r.gates[rules_.rules()[i].name];
        to.resize(gate_counts_[i].size());
        for (size_t g = 0; g < to.size(); ++g) {
          to[g].accepted += gate_counts_[i][g].accepted;
          to[g].declined += gate_counts_[i][g].declined;
        }
      }
    if (t_gate_scope) add_gate_counts(*t_gate_scope, r.gates);
    return r;
  }

 private:
  UOp rebuild(UOp u) {
    // Most nodes keep their sources: the new source list is only built (allocated) once
    // a source has changed.
    std::vector<UOp> src;
    bool changed = false;
    for (size_t i = 0; i < u.num_src(); ++i) {
      UOp s = u.src(i), n = rewrite(s);
      if (n != s && !changed) {
        changed = true;
        src.reserve(u.num_src());
        src.assign(u.src().begin(), u.src().begin() + static_cast<std::ptrdiff_t>(i));
      }
      if (changed) src.push_back(n);
    }
    return changed ? ctx_.make(u.op(), u.dtype(), std::move(src), u.arg()) : u;
  }

  // Counts one gate verdict of the rule being tried (a rule has a gate or two: a scan).
  static void count_gate(void* self, Pat::GateKey key, bool accepted) {
    auto* rw = static_cast<Rewriter*>(self);
    const Rule& rule = rw->rules_.rules()[rw->trying_];
    for (size_t g = 0; g < rule.gates.size(); ++g) {
      if (!(rule.gates[g] == key)) continue;
      auto& counts = rw->gate_counts_[rw->trying_];
      if (counts.empty()) counts.resize(rule.gates.size());
      ++(accepted ? counts[g].accepted : counts[g].declined);
      return;
    }
  }

  UOp try_rules(UOp n) {
    Bindings b;  // shared by the rules (keeps its capacity): a failed match leaves it empty
    Pat::GateWatch watch(count_gate, this);
    for (uint32_t i : rules_.candidates(n.op())) {
      const Rule& rule = rules_.rules()[i];
      if (opts_.disabled && opts_.disabled->count(rule.name)) continue;
      trying_ = i;
      RuleBreadcrumb crumb(rule.name);
      RewriteCtx rc{ctx_, n, opts_.state};
      UOp out;
      rule.pattern.match_each(n, b, [&](Bindings& bb) {
        out = rule.rewrite(rc, bb);
        return out && out != n;
      });
      if (out && out != n) {
        ++hits_[i];
        if (opts_.trace) {
          ++opts_.trace->taken;
          if (opts_.trace->record) opts_.trace->steps.push_back({rule.name, n, out});
        }
        return out;
      }
    }
    return UOp();
  }

  UOp rewrite(UOp u) {
    if (const UOp* done = memo_.find(u)) return *done;
    UOp n = rebuild(u);
    while (!capped_ && !(opts_.trace && opts_.trace->taken >= opts_.trace->stop_after)) {
      UOp next = try_rules(n);
      if (!next) break;
      if (++count_ >= opts_.max_rewrites) capped_ = true;
      n = rebuild(next);
    }
    memo_[u] = n;
    memo_.emplace(n, n);
    return n;
  }

  Context& ctx_;
  const RuleSet& rules_;
  const RewriteOptions& opts_;
  std::vector<uint64_t> hits_;
  std::vector<std::vector<GateCount>> gate_counts_;  // by rule index, sized on first count
  uint32_t trying_ = 0;                              // the rule count_gate counts for
  NodeMap<UOp> memo_;
  uint64_t count_ = 0;
  bool capped_ = false;
};

}  // namespace

GateCountScope::GateCountScope(GateCounts& into) : outer_(t_gate_scope) {
  t_gate_scope = &into;
}

GateCountScope::~GateCountScope() {
  t_gate_scope = outer_;
}

const char* current_rule() {
  return t_current_rule;
}

RewriteResult graph_rewrite(Context& ctx, UOp root, const RuleSet& rules,
                            const RewriteOptions& options) {
  return Rewriter(ctx, rules, options).run(root);
}

UOp substitute(Context& ctx, UOp root, const std::unordered_map<UOp, UOp, UOpHash>& with) {
  const std::vector<UOp> topo = toposort(root);
  NodeMap<UOp> done(topo.size() + with.size());
  for (const auto& [from, to] : with) done[from] = to;
  for (UOp u : topo) {
    if (done.contains(u)) continue;
    std::vector<UOp> src;
    bool changed = false;
    for (UOp s : u.src()) {
      UOp n = done.at(s);
      changed |= n != s;
      src.push_back(n);
    }
    done[u] = changed ? ctx.make(u.op(), u.dtype(), std::move(src), u.arg(), u.shape()) : u;
  }
  return done.at(root);
}

}  // namespace uopfuzz::ir
