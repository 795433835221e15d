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
  std::vector<Pat::GateKey> gates;  ///< pattern.gates(), filled in by RuleSet
};

/// How often one gate was asked, where the sub-pattern it guards had matched, and its
/// answers. A rule's gates are named by their index: "sub_const#0" (Pat::gates order).
struct GateCount {
  uint64_t accepted = 0, declined = 0;
};
/// Rule name -> its gates' counts (rules whose gates were never asked are absent).
using GateCounts = std::map<std::string, std::vector<GateCount>>;
void add_gate_counts(GateCounts& into, const GateCounts& from);

/// One rule application: the node it matched and what it became (local nodes: the whole
/// graph after a step is what a replay stopped after that step returns).
struct RewriteStep {
  std::string rule;
  UOp before, after;
};

/// The rule applications of a run across graph_rewrite calls (a pipeline's stages share
/// one): recorded when `record`, and none applied past `stop_after` (replaying a prefix).
/// Rewrites nested in a rule's own rewrite function run without it: part of that step.
struct RewriteTrace {
  bool record = false;
  uint64_t stop_after = UINT64_MAX;
  uint64_t taken = 0;  ///< steps applied so far
  std::vector<RewriteStep> steps;
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
  RewriteTrace* trace = nullptr;  ///< opt-in: record or cut short the rule applications
};

struct RewriteResult {
  UOp root;
  bool converged = true;  ///< false: the rewrite cap was hit (likely a rule cycle)
  uint64_t rewrites = 0;
  std::map<std::string, uint64_t> hits;  ///< rule name -> times it fired
  GateCounts gates;                      ///< the gates' verdicts, by rule
};

RewriteResult graph_rewrite(Context& ctx, UOp root, const RuleSet& rules,
                            const RewriteOptions& options = {});

/// While it lives, every graph_rewrite on this thread also adds its gate counts into
/// `into`, those nested in a rule's own rewrite function included (whose results the
/// rule keeps to itself). Scopes nest: the innermost one counts.
class GateCountScope {
 public:
  explicit GateCountScope(GateCounts& into);
  ~GateCountScope();
  GateCountScope(const GateCountScope&) = delete;
  GateCountScope& operator=(const GateCountScope&) = delete;

 private:
  GateCounts* outer_;
};

/// The name of the rule this thread is trying right now (matching or rewriting), or
/// nullptr outside every rule. A breadcrumb, as LLVM's pretty stack trace names the pass
/// that was running: a crash or hang handler reads it to say which rule the fault is in.
/// Nested rewrites (a rule that runs its own graph_rewrite) leave the innermost name.
const char* current_rule();

/// Replaces nodes by others everywhere under `root` (no rules): the substitution the
/// range rules use. Keys absent from the graph are ignored.
UOp substitute(Context& ctx, UOp root, const std::unordered_map<UOp, UOp, UOpHash>& with);

}  // namespace uopfuzz::ir
