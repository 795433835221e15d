#include "ir/rewrite.h"

#include <exception>

#include "ir/graph.h"
#include "ir/node_map.h"

namespace uopfuzz::ir {

RuleSet::RuleSet(std::vector<Rule> rules) : rules_(std::move(rules)) {
  index();
}

RuleSet& RuleSet::add(std::string name, Pat pattern, RewriteFn rewrite) {
  rules_.push_back({std::move(name), std::move(pattern), std::move(rewrite)});
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

namespace {

thread_local const char* t_current_rule = nullptr;

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
      : ctx_(ctx), rules_(rules), opts_(o), hits_(rules.rules().size(), 0) {}

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

  UOp try_rules(UOp n) {
    Bindings b;  // shared by the rules (keeps its capacity): a failed match leaves it empty
    for (uint32_t i : rules_.candidates(n.op())) {
      const Rule& rule = rules_.rules()[i];
      if (opts_.disabled && opts_.disabled->count(rule.name)) continue;
      RuleBreadcrumb crumb(rule.name);
      RewriteCtx rc{ctx_, n, opts_.state};
      UOp out;
      rule.pattern.match_each(n, b, [&](Bindings& bb) {
        out = rule.rewrite(rc, bb);
        return out && out != n;
      });
      if (out && out != n) {
        ++hits_[i];
        return out;
      }
    }
    return UOp();
  }

  UOp rewrite(UOp u) {
    if (const UOp* done = memo_.find(u)) return *done;
    UOp n = rebuild(u);
    while (!capped_) {
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
  NodeMap<UOp> memo_;
  uint64_t count_ = 0;
  bool capped_ = false;
};

}  // namespace

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
    done[u] = changed ? ctx.make(u.op(), u.dtype(), std::move(src), u.arg()) : u;
  }
  return done.at(root);
}

}  // namespace uopfuzz::ir
