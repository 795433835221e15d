/** \file Rewrite rules, rule sets and the graph rewrite driver.
 *
 * A Rule is {name, pattern, rewrite}. The rewrite returns the replacement, or a null
 * UOp to decline. Rule sets compose with +; rules are tried in order, dispatched by the
 * root op. graph_rewrite() rewrites bottom-up to a fixed point: the sources of a node
 * first, then rules at the node until none applies (each result has its own sources
 * rewritten first). It is memoized and capped: hitting the cap returns converged=false,
 * it never hangs. Rules can be switched off by name at run time.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/pattern.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

/// What a rewrite function sees besides its bindings: the node matched, the Context
/// to build with, and the caller's state for rules that collect context (range marks).
struct RewriteCtx {
  Context& ctx;
  UOp node;
  void* state = nullptr;
  template <class T>
  T& get() const {
    return *static_cast<T*>(state);
  }
};

using RewriteFn = std::function<UOp(RewriteCtx&, const Bindings&)>;

struct Rule {
  std::string name;
  Pat pattern;
  RewriteFn rewrite;
};

class RuleSet {
 public:
  RuleSet() = default;
  RuleSet(std::vector<Rule> rules);  // NOLINT: a list of rules is a rule set
  RuleSet& add(std::string name, Pat pattern, RewriteFn rewrite);
  RuleSet operator+(const RuleSet& other) const;

  const std::vector<Rule>& rules() const { return rules_; }
  /// Indices of the rules whose pattern can match a node of `op`, in order.
  const std::vector<uint32_t>& candidates(Op op) const;
  std::vector<std::string> names() const;

 private:
  void index();
  std::vector<Rule> rules_;
  std::vector<std::vector<uint32_t>> by_op_;  // built by index()
};

struct RewriteOptions {
  uint64_t max_rewrites = 100'000;
  const std::unordered_set<std::string>* disabled = nullptr;  ///< rule names switched off
  void* state = nullptr;                                      ///< RewriteCtx::state
};

struct RewriteResult {
  UOp root;
  bool converged = true;  ///< false: the rewrite cap was hit (likely a rule cycle)
  uint64_t rewrites = 0;
  std::map<std::string, uint64_t> hits;  ///< rule name -> times it fired
};

RewriteResult graph_rewrite(Context& ctx, UOp root, const RuleSet& rules,
                            const RewriteOptions& options = {});

/// The name of the rule this thread is trying right now (matching or rewriting), or
/// nullptr outside every rule. A breadcrumb, as LLVM's pretty stack trace names the pass
/// that was running: a crash or hang handler reads it to say which rule the fault is in.
/// Nested rewrites (a rule that runs its own graph_rewrite) leave the innermost name.
const char* current_rule();

/// Replaces nodes by others everywhere under `root` (no rules): the substitution the
/// range rules use. Keys absent from the graph are ignored.
UOp substitute(Context& ctx, UOp root, const std::unordered_map<UOp, UOp, UOpHash>& with);

}  // namespace uopfuzz::ir
