/** \file The reduce rule tests' fixture (tests/simplifier_reduce*_test.cpp): parse a kernel,
 * apply one rule set with fold_reduce off, and compare original and rewrite on the oracle. */
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "bug_examples.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier::reduce_rules {

using namespace ir;
using Vars = std::map<std::string, int64_t>;

inline std::string read_example(const std::string& name) {
  std::string text = test_support::read_example(name);
  EXPECT_FALSE(text.empty()) << "missing example " << name;
  return text;
}

inline int count_op(UOp root, Op op) {
  int n = 0;
  for (UOp u : toposort(root)) n += u.op() == op;
  return n;
}

class ReduceRules : public ::testing::Test {
 protected:
  Context ctx_;
  SimplifyState st_;

  UOp parse(const std::string& text) {
    auto p = parse_kernel(ctx_, text);
    if (!p) {
      ADD_FAILURE() << "parse error at " << p.error().loc.line << ":" << p.error().loc.col << ": "
                    << p.error().message << "\n"
                    << text;
      return UOp();
    }
    return p->kernel.root;
  }
  UOp example(const std::string& name) { return parse(read_example(name)); }

  // fold_reduce (symbolic) would evaluate these small constant-trip REDUCEs outright;
  // it is switched off so the rules under test are what rewrites them.
  RewriteResult apply(UOp root, const RuleSet& rules, BugSet bugs = {}) {
    static const std::unordered_set<std::string> no_fold = {"fold_reduce"};
    st_ = SimplifyState();
    st_.bugs = bugs;
    st_.disabled = &no_fold;
    RewriteOptions o;
    o.state = &st_;
    o.disabled = &no_fold;
    RewriteResult r = graph_rewrite(ctx_, root, rules, o);
    EXPECT_TRUE(r.converged);
    return r;
  }
  // The kernel-graph stage's reduce rules, and the optimize-only load collapse.
  UOp reduce_simplify(UOp root, BugSet bugs = {}) {
    return apply(root, pm_reduce_simplify() + symbolic(), bugs).root;
  }
  UOp load_collapse(UOp root, BugSet bugs = {}) {
    return apply(root, pm_load_collapse() + symbolic(), bugs).root;
  }
  UOp unparented(UOp root, BugSet bugs = {}) {
    return apply(root, pm_reduce_unparented() + symbolic(), bugs).root;
  }

  static oracle::RunOutput run(UOp root, uint64_t seed, const Vars& vars) {
    auto in = oracle::make_inputs(root, seed, vars);
    auto out = oracle::run(root, in);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message) << "\n" << print_graph(root);
    return out.ok() ? std::move(out.value()) : oracle::RunOutput{};
  }

  // The rewrite verifies and agrees with the original on every seed and VAR assignment.
  static void expect_same(UOp original, UOp rewritten, const std::vector<Vars>& var_sets = {{}},
                          int seeds = 4, uint64_t base = 0) {
    auto errors = verify(rewritten);
    ASSERT_TRUE(errors.empty()) << "rewrite does not verify: " << errors[0].message << "\n"
                                << print_graph(rewritten);
    for (const Vars& vars : var_sets)
      for (uint64_t seed = base; seed < base + static_cast<uint64_t>(seeds); ++seed) {
        auto a = run(original, seed, vars);
        auto b = run(rewritten, seed, vars);
        ASSERT_EQ(a.status, oracle::RunStatus::Ok)
            << "the original itself has UB: " << (a.ub ? a.ub->what : "");
        ASSERT_EQ(b.status, oracle::RunStatus::Ok)
            << "UB introduced: " << (b.ub ? b.ub->what : "") << "\n"
            << print_graph(rewritten);
        for (const auto& [slot, buf] : a.outputs) {
          ASSERT_TRUE(b.outputs.count(slot));
          EXPECT_TRUE(buf == b.outputs.at(slot))
              << "output " << slot << " differs at seed " << seed << "\n"
              << print_graph(rewritten);
        }
      }
  }

  // Some seed / VAR assignment tells the rewrite apart: a verifier failure, UB the
  // original does not have, or a different output.
  static bool differs(UOp original, UOp rewritten, const std::vector<Vars>& var_sets = {{}},
                      int seeds = 4, uint64_t base = 0) {
    if (!verify(rewritten).empty()) return true;
    for (const Vars& vars : var_sets)
      for (uint64_t seed = base; seed < base + static_cast<uint64_t>(seeds); ++seed) {
        auto a = run(original, seed, vars);
        if (a.status != oracle::RunStatus::Ok) continue;
        auto b = run(rewritten, seed, vars);
        if (b.status != oracle::RunStatus::Ok) return true;
        for (const auto& [slot, buf] : a.outputs)
          if (!(buf == b.outputs.at(slot))) return true;
      }
    return false;
  }

  static Value out0(UOp root, const Vars& vars = {}, size_t i = 0, uint64_t seed = 0) {
    auto r = run(root, seed, vars);
    EXPECT_EQ(r.status, oracle::RunStatus::Ok);
    return r.outputs.count(0) ? r.outputs.at(0).get(i) : Value::of_int(-999);
  }
};

inline std::vector<Vars> sweep(const std::string& name, std::vector<int64_t> values) {
  std::vector<Vars> out;
  for (int64_t v : values) out.push_back({{name, v}});
  return out;
}

}  // namespace uopfuzz::simplifier::reduce_rules
