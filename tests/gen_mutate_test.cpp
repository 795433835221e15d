// The structure-aware mutators (gen/mutate.h): over fixed parents and seeds each one makes
// mutants, every mutant verifies, differs from its parent, runs without undefined behaviour
// on the oracle and gets the faithful simplifier's agreement, and the same (parent, seed) gives
// the same mutant in another Context.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "check/differential.h"
#include "gen/generator.h"
#include "gen/mutate.h"
#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

constexpr int kParents = 60;

/// Why `k` is not a good mutant (empty: it is): it verifies, runs without UB for its header's
/// VAR values on input seeds 0 and 1, and the faithful simplifier's rewrite agrees.
std::string bad_mutant(Context& ctx, const Kernel& k) {
  if (auto errors = verify(k.root); !errors.empty()) return "verify: " + errors[0].message;
  const std::map<std::string, int64_t> vars(k.header.vars.begin(), k.header.vars.end());
  for (uint64_t seed = 0; seed < 2; ++seed) {
    auto run = oracle::run(k.root, oracle::make_inputs(k.root, seed, vars));
    if (!run) return "oracle: " + run.error().message;
    if (run->status == oracle::RunStatus::Ub)
      return "undefined: " + (run->ub ? run->ub->what : std::string("?"));
  }
  check::CheckOptions co;
  co.seeds = 2;
  co.vars = vars;
  check::CheckResult r = check::check_kernel(ctx, k, co);
  if (r.kind != check::FindingKind::None) return "finding: " + r.details;
  return "";
}

TEST(Mutate, EveryMutatorMakesValidDifferentMutants) {
  const GenPolicy policy;
  for (Mutator m : all_mutators()) {
    std::set<std::string> texts;
    int made = 0;
    for (int i = 0; i < kParents; ++i) {
      Context ctx;
      const Kernel parent = generate(ctx, policy, 1000 + static_cast<uint64_t>(i)).kernel;
      const Kernel donor = generate(ctx, policy, 5000 + static_cast<uint64_t>(i)).kernel;
      auto mutant = mutate_with(ctx, parent, &donor, m, 77 + static_cast<uint64_t>(i), policy);
      if (!mutant) continue;
      ++made;
      const std::string text = print_kernel(mutant->kernel);
      EXPECT_NE(text, print_kernel(parent)) << mutator_name(m);
      EXPECT_EQ(mutant->mutator, m);
      texts.insert(text);
      const std::string why = bad_mutant(ctx, mutant->kernel);
      EXPECT_EQ(why, "") << mutator_name(m) << " (" << mutant->what << ") of parent " << i << ":\n"
                         << text;
    }
    std::cout << "[mutate] " << mutator_name(m) << ": " << made << " mutants of " << kParents
              << " parents, " << texts.size() << " distinct\n";
    EXPECT_GE(made, kParents / 6) << mutator_name(m) << " rarely applies";
    EXPECT_GE(texts.size(), 2u) << mutator_name(m) << " makes one mutant only";
  }
}

TEST(Mutate, SameParentAndSeedSameMutant) {
  const GenPolicy policy;
  int compared = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Context a, b;
    b.const_int(dtypes::Int32, 12345);  // other nodes first: ids differ, the mutant must not
    const Kernel pa = generate(a, policy, 42 + seed).kernel, da = generate(a, policy, 7).kernel;
    const Kernel pb = generate(b, policy, 42 + seed).kernel, db = generate(b, policy, 7).kernel;
    auto ma = mutate(a, pa, &da, seed, policy);
    auto mb = mutate(b, pb, &db, seed, policy);
    ASSERT_EQ(ma.has_value(), mb.has_value());
    if (!ma) continue;
    ++compared;
    EXPECT_EQ(print_kernel(ma->kernel), print_kernel(mb->kernel));
  }
  EXPECT_GE(compared, 20);
}

TEST(Mutate, SeedsDrawDifferentMutators) {
  const GenPolicy policy;
  Context ctx;
  std::set<Mutator> used;
  // Several parents: one generated kernel may lack what some mutators need (a range, a CONST).
  for (uint64_t parent_seed = 1; parent_seed <= 4; ++parent_seed) {
    const Kernel parent = generate(ctx, policy, parent_seed).kernel;
    for (uint64_t seed = 0; seed < 100; ++seed)
      if (auto m = mutate(ctx, parent, nullptr, seed, policy)) used.insert(m->mutator);
  }
  EXPECT_GE(used.size(), all_mutators().size() - 2);
}

}  // namespace
}  // namespace uopfuzz::gen
