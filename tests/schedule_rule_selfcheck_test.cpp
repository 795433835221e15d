// The tensor-stage rule self-check (as simplifier_selfcheck_test.cpp does for kernel rules):
// random tensor programs biased to each rule's left-hand side (a generator policy per shape),
// each lowered with the rules on and, for every rule that fired, with that rule switched off
// (LowerOptions::disabled); every lowering is compared with the tensor oracle over several
// input seeds.
//  (a) the faithful rules never disagree with the tensor oracle, on or off;
//  (b) every rule in schedule::tensor_rule_names() fires on some instance;
//  (c) every planted lowering bug that changes results (kind Result) makes some instance
//      disagree, or makes a lowering that does not verify.
// Fixed seed and budget: a few seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "check/program_check.h"
#include "gen/tensor_gen.h"
#include "ir/printer.h"
#include "schedule/lower.h"

namespace uopfuzz::schedule {
namespace {

constexpr uint64_t kSeed = 0x7e50c4ec;
constexpr int kPerFamily = 30;  ///< programs per biased policy
constexpr int kInputSeeds = 3;  ///< input seeds each lowering is compared on

/// A generator policy whose positions are mostly the shape `field` builds, over plain
/// leaves and elementwise ops; a null `field` is the default policy (quantized outputs
/// included).
gen::GenPolicy biased(double gen::TensorNodeWeights::*field) {
  gen::GenPolicy p;
  if (!field) return p;
  gen::TensorNodeWeights w;
  for (double* x : {&w.reuse, &w.cast, &w.movement, &w.reduce, &w.reduce_broadcast, &w.self_combine,
                    &w.contiguous, &w.shared_reduce, &w.unary_in_reduce, &w.wide_read,
                    &w.pad_shared, &w.const_broadcast, &w.dead_axes, &w.split_candidate})
    *x = 0.3;
  w.*field = 8;
  p.tensor.nodes = w;
  p.tensor.max_nodes = 12;
  // Quantized outputs are the default family's; here every output carries the shape.
  p.tensor.p_quantized_output = 0;
  return p;
}

struct Family {
  std::string name;
  gen::GenPolicy policy;
  int count = kPerFamily;  ///< programs drawn
};

std::vector<Family> families() {
  using W = gen::TensorNodeWeights;
  return {{"default", biased(nullptr)},
          // A reduce shared at a ratio >= 10 (buffer_partial_inline, pcontig > 2) is rare too.
          {"shared_reduce", biased(&W::shared_reduce), 4 * kPerFamily},
          {"unary_in_reduce", biased(&W::unary_in_reduce)},
          {"wide_read", biased(&W::wide_read)},
          // A gated read of a value that divides by a buffer's element (buffer_keep_gate) is
          // rare even here: more draws.
          {"pad_shared", biased(&W::pad_shared), 12 * kPerFamily},
          {"const_broadcast", biased(&W::const_broadcast)},
          {"dead_axes", biased(&W::dead_axes)},
          {"split_candidate", biased(&W::split_candidate)},
          {"self_combine", biased(&W::self_combine)},
          {"reduce_broadcast", biased(&W::reduce_broadcast)}};
}

/// The lowering options an instance is tried under: tinygrad's defaults, and a pcontig level
/// above 2 with a split threshold small enough for small shapes.
std::vector<LowerOptions> modes() {
  LowerOptions deflt;
  LowerOptions eager;
  eager.pcontig = 3;
  eager.split_reduce_threshold = 16;
  return {deflt, eager};
}

struct Instance {
  std::string family;
  int serial = 0;
  ir::Kernel program;
};

/// One shared Context: regenerating a program interns the same nodes.
ir::Context& shared_ctx() {
  static ir::Context ctx;
  return ctx;
}

const std::vector<Instance>& instances() {
  static const std::vector<Instance> all = [] {
    std::vector<Instance> v;
    uint64_t f = 0;
    for (const Family& fam : families()) {
      ++f;
      for (int i = 0; i < fam.count; ++i) {
        const uint64_t seed = kSeed + f * 1000003u + static_cast<uint64_t>(i);
        v.push_back(
            {fam.name, i, gen::generate_tensor_program(shared_ctx(), fam.policy, seed).program});
      }
    }
    return v;
  }();
  return all;
}

/// How one lowering of one instance went.
enum class Outcome { Agree, Unsupported, Disagree, Invalid };

struct Tried {
  Outcome outcome = Outcome::Agree;
  std::string details;
  std::map<std::string, uint64_t> hits;
};

Tried try_lowering(const Instance& in, const LowerOptions& options) {
  ir::Context& ctx = shared_ctx();
  Tried t;
  LowerReport report;
  auto lowered = lower(ctx, in.program.root, options, &report);
  t.hits = report.hits;
  if (!lowered) {
    const std::string& m = lowered.error().message;
    t.outcome = m.rfind("unsupported", 0) == 0 ? Outcome::Unsupported : Outcome::Invalid;
    t.details = m;
    return t;
  }
  check::CheckOptions co;
  co.seeds = kInputSeeds;
  co.max_steps = 20'000'000;
  check::ProgramCheckResult r = check::compare_lowered(ctx, in.program, *lowered, co);
  if (r.unsupported) {
    t.outcome = Outcome::Unsupported;
    t.details = *r.unsupported;
  } else if (r.kind != check::FindingKind::None) {
    t.outcome = Outcome::Disagree;
    t.details = r.details;
  }
  return t;
}

std::string describe(const Instance& in, const LowerOptions& o, const Tried& t) {
  std::string disabled;
  for (const std::string& d : o.disabled) disabled += " " + d;
  return in.family + " #" + std::to_string(in.serial) + " (pcontig " + std::to_string(o.pcontig) +
         ", split threshold " + std::to_string(o.split_reduce_threshold) + ", off:" + disabled +
         "): " + t.details + "\n" + ir::print_kernel(in.program);
}

struct Faithful {
  std::map<std::string, uint64_t> hits;
  std::vector<std::string> failures;
  int lowerings = 0, compared = 0, unsupported = 0;
  double seconds = 0;
};

const Faithful& faithful() {
  static const Faithful f = [] {
    const auto t0 = std::chrono::steady_clock::now();
    Faithful c;
    for (const Instance& in : instances())
      for (const LowerOptions& mode : modes()) {
        Tried on = try_lowering(in, mode);
        ++c.lowerings;
        for (const auto& [name, n] : on.hits) c.hits[name] += n;
        std::vector<std::pair<LowerOptions, Tried>> tried{{mode, on}};
        for (const auto& [name, n] : on.hits) {
          if (n == 0) continue;
          LowerOptions off = mode;
          off.disabled.insert(name);
          tried.emplace_back(off, try_lowering(in, off));
          ++c.lowerings;
        }
        for (const auto& [o, t] : tried) {
          if (t.outcome == Outcome::Unsupported) ++c.unsupported;
          if (t.outcome == Outcome::Agree) ++c.compared;
          if (t.outcome == Outcome::Disagree || t.outcome == Outcome::Invalid)
            c.failures.push_back(describe(in, o, t));
        }
      }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
  }();
  return f;
}

TEST(ScheduleRuleSelfCheck, FaithfulRulesAgreeWithTheTensorOracleOnAndOff) {
  const Faithful& c = faithful();
  std::cout << "[schedule selfcheck] " << instances().size() << " programs, " << c.lowerings
            << " lowerings, " << c.compared << " compared, " << c.unsupported << " unsupported, "
            << c.seconds << " s\n";
  EXPECT_GT(c.compared, c.lowerings / 2) << "most lowerings must be compared, not declined";
  ASSERT_TRUE(c.failures.empty()) << c.failures.size() << " disagreements; the first:\n"
                                  << c.failures.front();
}

TEST(ScheduleRuleSelfCheck, EveryTensorRuleFiresOnSomeInstance) {
  const Faithful& c = faithful();
  std::string hits;
  for (const auto& [name, n] : c.hits) hits += " " + name + "x" + std::to_string(n);
  std::cout << "[schedule selfcheck] hits:" << hits << "\n";
  // Rangeify gives every realized node fresh RANGEs, so no reader of a tensor program's
  // lowering indexes a buffer at that buffer's own RANGEs: the identity fold is reached only
  // by hand-built graphs (tests/schedule_buffer_folds_test.cpp).
  const std::set<std::string> unreachable = {"index_bufferize_identity"};
  for (const std::string& name : tensor_rule_names()) {
    const uint64_t n = c.hits.count(name) ? c.hits.at(name) : 0;
    if (unreachable.count(name))
      EXPECT_EQ(n, 0u) << name << " fired: it is reachable now, so check it here";
    else
      EXPECT_GT(n, 0u) << name << " never fired";
  }
}

TEST(ScheduleRuleSelfCheck, EveryResultLoweringBugMakesSomeInstanceDisagree) {
  for (LoweringBug b : all_lowering_bugs()) {
    if (lowering_bug_kind(b) != simplifier::BugKind::Result) continue;
    int caught = 0;
    for (const Instance& in : instances()) {
      for (LowerOptions mode : modes()) {
        mode.bugs = {b};
        const Tried t = try_lowering(in, mode);
        if (t.outcome == Outcome::Disagree || t.outcome == Outcome::Invalid) ++caught;
      }
      if (caught) break;
    }
    EXPECT_GT(caught, 0) << lowering_bug_name(b) << " changed no instance's result";
  }
}

}  // namespace
}  // namespace uopfuzz::schedule
