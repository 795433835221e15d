// The rule self-check (Halide's rule fuzzing): for every rule family, random instances of
// the rules' left-hand sides, rewritten by the simplifier and compared with the original
// on the oracle over several input seeds and VAR values (minimum, maximum, random).
//  (a) the faithful simplifier never disagrees;
//  (b) every rule in all_rule_names() fires on some instance;
//  (c) every planted bug that changes results makes the same instances disagree.
// Fixed seed and budget: the whole suite runs in a few seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gen/instances.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "rule_check.h"
#include "simplifier/simplifier.h"
#include "simplifier/unfireable.h"

namespace uopfuzz::selfcheck {
namespace {

using Family = gen::InstanceFamily;
using gen::InstanceGen;
using gen::InstancePolicy;

constexpr uint64_t kSeed = 0x5e1fc4ec;
constexpr int kPerFamily = 200;  ///< instances per family
constexpr int kRuns = 6;         ///< (input seed, VAR values) pairs per rewrite

struct Failure {
  Family family;
  int serial;
  std::string mode;
  Comparison cmp;
  std::string original, rewritten, hits;
};

std::string format_failure(const Failure& f) {
  std::ostringstream s;
  s << family_name(f.family) << " #" << f.serial << " [" << f.mode << "] "
    << verdict_name(f.cmp.verdict) << ": " << f.cmp.details << "\n  rules fired:" << f.hits
    << "\n--- original\n"
    << f.original << "--- rewrite\n"
    << f.rewritten;
  return s.str();
}

struct Campaign {
  std::map<std::string, uint64_t> hits;  ///< SimplifyResult::hits, plus the marker probes
  int instances = 0;
  int invalid = 0;       ///< generated kernels that fail ir::verify (a generator bug)
  int rewrites = 0;      ///< (instance, mode) pairs whose rewrite changed the graph
  int64_t compared = 0;  ///< oracle runs compared
  int64_t skipped = 0;   ///< oracle runs skipped: the original is undefined there
  std::vector<Failure> failures;
  std::string first_invalid;
  /// The rewritten root of every (instance, mode), in order: a planted bug that never
  /// changes one of them is dormant for this generator.
  std::vector<ir::UOp> roots;
  std::set<size_t> failed;  ///< indices into roots of the items that disagreed
  double seconds = 0;
};

/// One Context for the whole suite: regenerating an instance interns the same nodes, so
/// rewrites of different runs can be compared by identity.
ir::Context& shared_ctx() {
  static ir::Context ctx;
  return ctx;
}

/// Generates `per_family` instances of every family and checks each mode's rewrite. With
/// a `baseline`, items on which the baseline already disagreed are not counted.
Campaign run_campaign(simplifier::BugSet bugs, InstancePolicy policy, int per_family,
                      bool stop_at_first, bool probe, const Campaign* baseline = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  ir::Context& ctx = shared_ctx();
  Campaign c;
  std::vector<InstanceGen> gens;
  for (int f = 0; f < static_cast<int>(Family::kCount); ++f)
    gens.emplace_back(ctx, kSeed + 1000003u * f, policy);
  for (int serial = 0; serial < per_family; ++serial) {
    for (int f = 0; f < static_cast<int>(Family::kCount); ++f) {
      const Family fam = static_cast<Family>(f);
      ir::Kernel k = gens[f].make(fam);
      ++c.instances;
      if (auto errors = ir::verify(k.root); !errors.empty()) {
        if (!c.invalid++) c.first_invalid = errors[0].message + "\n" + ir::print_graph(k.root);
        continue;
      }
      if (probe) probe_markers(ctx, k.root, c.hits);
      for (const Mode& m : modes()) {
        simplifier::SimplifyOptions o;
        o.optimize = m.optimize;
        o.bugs = bugs;
        if (m.without_fold_bounds) o.disabled = {"fold_bounds"};
        simplifier::SimplifyResult r = simplifier::simplify(ctx, k.root, o);
        c.roots.push_back(r.root);
        for (const auto& [name, n] : r.hits) c.hits[name] += n;
        Comparison cmp;
        if (!r.converged) {
          cmp.verdict = Verdict::NonConvergence;
          cmp.details = "a stage hit its rewrite cap";
        } else if (r.root != k.root) {
          ++c.rewrites;
          cmp = compare_on_oracle(k.root, r.root, kRuns,
                                  kSeed + static_cast<uint64_t>(serial) * 7919u);
          c.compared += cmp.runs_compared;
          c.skipped += cmp.runs_skipped;
        }
        if (cmp.verdict == Verdict::Agree) continue;
        if (baseline && baseline->failed.count(c.roots.size() - 1)) continue;
        c.failed.insert(c.roots.size() - 1);
        std::string fired;
        for (const auto& [name, n] : r.hits) fired += " " + name + "x" + std::to_string(n);
        c.failures.push_back(
            {fam, serial, m.name, cmp, ir::print_kernel(k), ir::print_graph(r.root), fired});
        if (stop_at_first) {
          c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          return c;
        }
      }
    }
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

const Campaign& faithful() {
  static const Campaign c = run_campaign({}, InstancePolicy::everything(), kPerFamily, false, true);
  return c;
}

const std::map<std::string, std::string>& unfireable() {
  return simplifier::unfireable_rules();
}

TEST(SelfCheck, FaithfulSimplifierAgreesOnEveryInstance) {
  const Campaign& c = faithful();
  std::cout << "[selfcheck] " << c.instances << " instances, " << c.rewrites << " rewrites, "
            << c.compared << " oracle runs compared, " << c.skipped
            << " skipped (original undefined), " << c.seconds << " s\n";
  EXPECT_EQ(c.invalid, 0) << "the generator built a kernel that does not verify:\n"
                          << c.first_invalid;
  EXPECT_GT(c.compared, c.skipped) << "most comparisons must actually run";
  for (size_t i = 0; i < c.failures.size() && i < 5; ++i)
    ADD_FAILURE() << format_failure(c.failures[i]);
  if (const char* dump = std::getenv("SELFCHECK_DUMP")) {  // development aid: every failure
    std::ofstream out(dump);
    for (const Failure& f : c.failures) out << "=====\n" << format_failure(f) << "\n";
  }
  EXPECT_EQ(c.failures.size(), 0u);
}

TEST(SelfCheck, EveryRuleFires) {
  const Campaign& c = faithful();
  std::ostringstream table;
  for (const std::string& name : simplifier::all_rule_names()) {
    auto it = c.hits.find(name);
    const uint64_t n = it == c.hits.end() ? 0 : it->second;
    table << "  " << name << " " << n << "\n";
    if (unfireable().count(name)) {
      EXPECT_EQ(n, 0u) << name << " is listed as unable to fire, but it fired";
      continue;
    }
    EXPECT_GT(n, 0u) << "rule " << name << " never fired on " << c.instances << " instances";
  }
  std::cout << "[selfcheck] rule hits:\n" << table.str();
  for (const auto& [name, why] : unfireable())
    std::cout << "[selfcheck] " << name << " cannot fire: " << why << "\n";
}

TEST(SelfCheck, EveryPlantedResultBugIsCaught) {
  const Campaign& base = faithful();
  for (const simplifier::BugInfo& b : simplifier::all_bugs()) {
    if (b.kind != simplifier::BugKind::Result) continue;
    simplifier::BugSet bugs;
    bugs.enable(b.bug);
    Campaign c = run_campaign(bugs, InstancePolicy::everything(), kPerFamily, true, false, &base);
    if (!c.failures.empty()) {
      const Failure& f = c.failures.front();
      std::cout << "[selfcheck] " << b.name << ": caught at instance " << c.instances << " ("
                << family_name(f.family) << " #" << f.serial << ", " << f.mode
                << "): " << verdict_name(f.cmp.verdict) << "\n";
      continue;
    }
    bool changed = false;
    for (size_t i = 0; i < c.roots.size() && i < base.roots.size(); ++i)
      changed |= c.roots[i] != base.roots[i];
    ADD_FAILURE() << "planted bug " << b.name << " (" << b.what << ") was not caught in "
                  << c.instances << " instances; "
                  << (changed
                          ? "it changed some rewrites, but none disagreed: strengthen the generator"
                          : "it never changed a rewrite (is its rule implemented?)");
  }
}

TEST(SelfCheck, LatencyBugsKeepResultsRight) {
  for (const simplifier::BugInfo& b : simplifier::all_bugs()) {
    if (b.kind != simplifier::BugKind::Latency) continue;
    simplifier::BugSet bugs;
    bugs.enable(b.bug);
    Campaign c =
        run_campaign(bugs, InstancePolicy::everything(), kPerFamily / 2, true, false, &faithful());
    for (const Failure& f : c.failures)
      ADD_FAILURE() << "latency-only bug " << b.name << " changed a result:\n" << format_failure(f);
  }
}

// ---- Simplifier bugs the self-check found, all fixed. Each keeps its minimized case as
// a regression, and (where it has one) the campaign with its InstancePolicy edge, and no other,
// switched on: every edge is on in the faithful campaign above, so a campaign with all of
// them would be that campaign again and could not fail on its own. The comments above
// each test describe the bug as it was found.

/// The simplifier's rewrite of a .uop case agrees with the original on the oracle.
void expect_case_agrees(const char* text, simplifier::BugSet bugs = {}) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  const ir::UOp root = parsed->kernel.root;
  ASSERT_TRUE(ir::verify(root).empty());
  simplifier::SimplifyOptions o;
  o.bugs = bugs;
  simplifier::SimplifyResult r = simplifier::simplify(ctx, root, o);
  ASSERT_TRUE(r.converged);
  Comparison cmp = compare_on_oracle(root, r.root, kRuns, kSeed);
  EXPECT_EQ(cmp.verdict, Verdict::Agree)
      << verdict_name(cmp.verdict) << ": " << cmp.details << "\n--- rewrite\n"
      << ir::print_graph(r.root);
}

/// The instance space with every edge switched off (the policy's default).
InstancePolicy no_edges() {
  return InstancePolicy{};
}

/// The rewrites of the campaign without any edge (what an edge must change).
const Campaign& edgeless() {
  static const Campaign c = run_campaign({}, no_edges(), kPerFamily, false, false);
  return c;
}

/// The faithful campaign with only `edge` switched on finds nothing, and the edge reaches
/// instances the campaign without it does not (else it could not find its bug).
void expect_clean_with_only(bool InstancePolicy::*edge) {
  InstancePolicy p = no_edges();
  p.*edge = true;
  Campaign c = run_campaign({}, p, kPerFamily, false, false);
  EXPECT_EQ(c.invalid, 0) << c.first_invalid;
  for (size_t i = 0; i < c.failures.size() && i < 3; ++i)
    ADD_FAILURE() << format_failure(c.failures[i]);
  EXPECT_EQ(c.failures.size(), 0u);
  EXPECT_NE(c.roots, edgeless().roots) << "the edge changes no instance's rewrite";
}

// mod_one_period floor-divided the full int64 interval of x = CAST(int64 load) as
// -((-lo + 8) / 9), overflowing on INT64_MIN: x % 9 became x - 9223372036854775800.
TEST(SelfCheck, ModOfAFullInt64RangeDoesNotOverflow) {
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=1 out : int64
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int64
%3 = PARAM slot=1 size=1 in : int64
%4 = INDEX %3 %1 : int64
%5 = LOAD %4 : int64
%6 = CAST %5 : index
%7 = CONST 9 : index
%8 = FLOORMOD %6 %7 : index
%9 = CAST %8 : int64
%10 = STORE %2 %9 : void
%11 = SINK %10 : void
)");
}

// sub_zero matched x - (-0.0) (Pat::lit(0) matched -0) and returned x: for x = -0 the
// original is -0 - (-0) = +0.
TEST(SelfCheck, SubtractingNegativeZeroKeepsTheSignOfZero) {
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = PARAM slot=1 size=1 in : float32
%4 = INDEX %3 %1 : float32
%5 = LOAD %4 : float32
%6 = CONST -0 : float32
%7 = MUL %5 %6 : float32
%8 = SUB %7 %6 : float32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)");
}

// Analysis::bounds of a REDUCE reads end = src(i).src(0) of every listed range; the
// kernel-graph stage (symbolic, no flatten_range) has already folded RANGE(1) to CONST 0,
// which has no source: a segfault (ir/analysis.cpp, the Op::Reduce case). Fix: skip
// entries that are not RANGEs there (a folded range runs once: factor 1), or flatten in
// the kernel-graph stage. Run in a child process so the crash is a failure, not an abort.
TEST(SelfCheck, ReduceOverRangeOfOneIsCheckedWithoutCrashing) {
  EXPECT_EXIT(
      {
        expect_case_agrees(R"(
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 1 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CAST %4 : int32
%6 = REDUCE %5 %4 op=ADD : int32
%7 = CONST 1 : int32
%8 = ADD %6 %7 : int32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)");
        std::exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        expect_clean_with_only(&InstancePolicy::reduce_range_of_one);
        std::exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

// fold_bounds folds the gate r < 0 to false, where_true then folds WHERE(false, r, INVALID)
// to INVALID: INDEX(out, INVALID) fails the verifier's gate rule. Fix (symbolic.cpp,
// where_true): decline when the branch it would return is INVALID (or drop the STORE / turn
// the LOAD into its alternative, which is what an always-invalid access means).
TEST(SelfCheck, AlwaysFalseGateNeverLeavesABareInvalidIndex) {
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = CONST 0 : index
%4 = CMPLT %2 %3 : bool
%5 = INVALID : index
%6 = WHERE %4 %2 %5 : index
%7 = INDEX %0 %6 : int32
%8 = CAST %2 : int32
%9 = STORE %7 %8 : void
%10 = END %9 %2 : void
%11 = SINK %10 : void
)");
  expect_clean_with_only(&InstancePolicy::always_false_gates);
}

// merge_adjacent fuses RANGE(0) and RANGE(2) into RANGE(0*2) = RANGE(0), whose bounds are
// {0, 0}; the END's range list new//2, new%2 folds to constants and flatten_range drops the
// loop: out[0] = 7 is stored once although the original never stores (a REDUCE over such
// a pair returns its value instead of the identity). The same missing gate lets two
// negative VAR ends (a = b = -2) multiply into a positive trip count: the faithful merge
// rejects that pair on its divmod count, but merge-more-divmod, planted as latency-only,
// accepts it and stores out of bounds. Fix (ranges.cpp, merge_adjacent): only merge when
// both ends are provably >= 1 (vmin(s0) >= 1 && vmin(s1) >= 1).
TEST(SelfCheck, MergingAZeroTripRangeNeverRunsTheBody) {
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=16 out : int32
%1 = VAR name=a min=-2 max=4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = VAR name=b min=-2 max=4 : index
%4 = RANGE %3 axis=1 LOOP : index
%5 = CONST 4 : index
%6 = MUL %2 %5 : index
%7 = ADD %6 %4 : index
%8 = INDEX %0 %7 : int32
%9 = CONST 1 : int32
%10 = STORE %8 %9 : void
%11 = END %10 %2 %4 : void
%12 = SINK %11 : void
)",
                     simplifier::BugSet().enable(simplifier::Bug::MergeMoreDivmod));
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 0 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = CONST 2 : index
%4 = MUL %2 %3 : index
%5 = RANGE %3 axis=1 LOOP : index
%6 = ADD %4 %5 : index
%7 = INDEX %0 %6 : int32
%8 = CONST 7 : int32
%9 = STORE %7 %8 : void
%10 = END %9 %2 %5 : void
%11 = SINK %10 : void
)");
  expect_clean_with_only(&InstancePolicy::zero_trip_merges);
}

// r // 8 folds to 0 (r < 4), so 12 / (r//8 + d) becomes 12 / d, which depends on no range.
// Under the former eager semantics it was evaluated once before the loop and divided by
// zero for d = 0 even when n = 0 and the loop never ran: every rewrite removing a range
// from a faulting operation "introduced" UB. Fixed by making SEMANTICS.md's evaluation
// demand-driven (UB only where an executed effect needs the value), as on real backends.
TEST(SelfCheck, DivisionHoistedOutOfAZeroTripLoopDoesNotFault) {
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=4 out : int32
%1 = VAR name=n min=0 max=4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CONST 8 : index
%5 = FLOORDIV %2 %4 : index
%6 = VAR name=d min=0 max=3 : index
%7 = ADD %5 %6 : index
%8 = CONST 12 : index
%9 = CDIV %8 %7 : index
%10 = CAST %9 : int32
%11 = STORE %3 %10 : void
%12 = END %11 %2 : void
%13 = SINK %12 : void
)");
  expect_clean_with_only(&InstancePolicy::zero_trip_hoisting);
}

// reduce_unparented on a float MUL over two ranges the value does not use: x^2 for the
// first, then (x^2)^3 for the second, i.e. (x*x)*(x*x)*(x*x), while the REDUCE computes the
// left fold x*x*x*x*x*x. For x = 5.875 the first rounds to 41119.441, the second to
// 41119.445 (a kept range has the same problem: (prod_k x_k)^n is not the interleaved
// fold). Fix (reduce_unparented.cpp): for floats, drop ranges only when every range goes, as one
// power with the total trip count (n - 1 MULs of x), and not at all next to a kept range.
TEST(SelfCheck, FloatProductOverDroppedRangesRoundsLikeTheFold) {
  expect_case_agrees(R"(
%0 = PARAM slot=0 size=1 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = CONST 5.875 : float32
%4 = CONST 2 : index
%5 = RANGE %4 axis=0 REDUCE : index
%6 = CONST 3 : index
%7 = RANGE %6 axis=1 REDUCE : index
%8 = REDUCE %3 %5 %7 op=MUL : float32
%9 = STORE %2 %8 : void
%10 = SINK %9 : void
)");
  expect_clean_with_only(&InstancePolicy::float_partial_products);
}

}  // namespace
}  // namespace uopfuzz::selfcheck
