// The kernel generator (gen/): every graph verifies, runs without undefined behaviour,
// round-trips through the .uop text and is the same for the same seed; byte entropy
// (libFuzzer's) always gives valid graphs; each policy knob produces its shape; and the
// generated graphs reach the simplifier's rule families without a finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check/differential.h"
#include "gen/generator.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/bugs.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

constexpr int kSeeds = 2000;

std::map<std::string, int64_t> header_vars(const Kernel& k) {
  return {k.header.vars.begin(), k.header.vars.end()};
}

/// Why `k` is not a valid generated kernel (empty: it is): it must verify, print and
/// parse back to the same text, and run without UB for the header's VAR values on input
/// seeds 0..2. With `any_vars`, also for seed-derived VAR values and every VAR at its
/// minimum and at its maximum (true by construction once the two shapes that are defined
/// only for the header's values are off: see safe_for_any_var()).
std::string invalid_reason(const Kernel& k, bool any_vars = false) {
  if (auto errors = verify(k.root); !errors.empty()) return "verify: " + errors[0].message;
  if (auto h = check_header(k)) return "header: " + *h;
  const std::string text = print_kernel(k);
  Context other;
  auto parsed = parse_kernel(other, text);
  if (!parsed) return "parse: " + parsed.error().message;
  if (print_kernel(parsed->kernel) != text) return "the text does not round-trip";
  auto prog = oracle::Program::compile(k.root);
  if (!prog) return "oracle compile: " + prog.error().message;
  std::vector<std::pair<uint64_t, std::map<std::string, int64_t>>> runs;
  for (uint64_t seed = 0; seed < 3; ++seed) runs.emplace_back(seed, header_vars(k));
  if (any_vars) {
    std::map<std::string, int64_t> lo, hi;
    for (UOp u : toposort(k.root))
      if (u.op() == Op::Var)
        lo[u.arg<VarArg>().name] = u.arg<VarArg>().min,
        hi[u.arg<VarArg>().name] = u.arg<VarArg>().max;
    runs.emplace_back(3, std::map<std::string, int64_t>{});
    runs.emplace_back(4, lo);
    runs.emplace_back(5, hi);
  }
  for (const auto& [seed, vars] : runs) {
    auto out = prog->run(oracle::make_inputs(k.root, seed, vars));
    if (!out) return "oracle run: " + out.error().message;
    if (out->status == oracle::RunStatus::Ub)
      return "UB on run " + std::to_string(seed) + ": " + out->ub->what + " at " +
             describe(out->ub->node);
    if (out->status != oracle::RunStatus::Ok) return "step limit on run " + std::to_string(seed);
  }
  return "";
}

/// The default policy without the two shapes that are defined only for the header's VAR
/// values (a fault behind a zero-trip loop, a divisor that is zero at one iteration).
GenPolicy safe_for_any_var() {
  GenPolicy p;
  p.p_shielded_fault = 0;
  p.divisors.zero_at_an_iteration = 0;
  return p;
}

// ---------------------------------------------------------------- validity, determinism

TEST(GenValidity, TwoThousandSeedsVerifyRunAndRoundTrip) {
  GenPolicy policy;
  int bad = 0, repaired = 0;
  std::set<std::string> dtypes_seen;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, policy, seed);
    EXPECT_TRUE(r.stats.oracle_error.empty()) << "seed " << seed << ": " << r.stats.oracle_error;
    repaired += r.stats.repaired();
    std::string why = invalid_reason(r.kernel);
    if (!why.empty() && ++bad <= 3) {
      ADD_FAILURE() << "seed " << seed << ": " << why << "\n" << print_kernel(r.kernel);
    }
    for (UOp u : toposort(r.kernel.root))
      if (u.op() == Op::Param) dtypes_seen.insert(std::string(u.dtype().name()));
  }
  EXPECT_EQ(bad, 0);
  // Only the divisors that are zero at one iteration (DivisorWeights::zero_at_an_iteration)
  // need repairs, when that iteration runs; everything else is defined by construction.
  EXPECT_LE(repaired, kSeeds / 20) << "graphs repaired: " << repaired;
  std::cout << "[ repairs  ] " << repaired << " of " << kSeeds << " graphs needed a local repair\n";
  for (DType dt : all_dtypes()) {
    if (dt.is_void() || dt.is_index()) continue;
    EXPECT_TRUE(dtypes_seen.count(std::string(dt.name()))) << dt.name() << " never generated";
  }
}

TEST(GenValidity, DefinedForEveryVarValueWithoutTheShieldedShapes) {
  const GenPolicy policy = safe_for_any_var();
  for (uint64_t seed = 0; seed < 500; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, policy, seed);
    EXPECT_FALSE(r.stats.repaired()) << "seed " << seed;
    ASSERT_EQ(invalid_reason(r.kernel, true), "") << "seed " << seed << "\n"
                                                  << print_kernel(r.kernel);
  }
}

TEST(GenValidity, InexactFloatsStayDefined) {
  GenPolicy policy;
  policy.inexact_floats = true;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, policy, seed);
    std::string why = invalid_reason(r.kernel);
    ASSERT_EQ(why, "") << "seed " << seed << "\n" << print_kernel(r.kernel);
  }
}

TEST(GenDeterminism, SameSeedSameTextInAnyContext) {
  GenPolicy policy;
  Context shared;  // holds the nodes of earlier kernels: interning must not change the result
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Context a, b;
    const std::string ta = print_kernel(generate(a, policy, seed).kernel);
    EXPECT_EQ(ta, print_kernel(generate(b, policy, seed).kernel)) << "seed " << seed;
    EXPECT_EQ(ta, print_kernel(generate(shared, policy, seed).kernel)) << "seed " << seed;
  }
  Context c;
  EXPECT_NE(print_kernel(generate(c, policy, 1).kernel),
            print_kernel(generate(c, policy, 2).kernel));
}

// The same seeds give the same text on every machine and compiler (checked against a
// clang build when this was written). A deliberate change of the generator's output
// bumps kGeneratorVersion and this hash together.
TEST(GenDeterminism, PinnedTextOfFiftySeeds) {
  uint64_t h = 0xcbf29ce484222325ull;
  GenPolicy p;
  p.p_near_miss = 0;  // near misses pin their own draws (gen_near_miss_test.cpp)
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Context ctx;
    for (unsigned char c : print_kernel(generate(ctx, p, seed).kernel))
      h = (h ^ c) * 0x100000001b3ull;
  }
  EXPECT_EQ(h, 0x7b859269ad66462eull)
      << "generator output changed (version " << kGeneratorVersion << ")";
}

TEST(GenDeterminism, HeaderRecordsSeedVarsAndGenerator) {
  Context ctx;
  GenResult r = generate(ctx, GenPolicy{}, 12345);
  const KernelHeader& h = r.kernel.header;
  EXPECT_EQ(h.name, "gen-12345");
  ASSERT_TRUE(h.seed.has_value());
  std::map<std::string, std::string> extra(h.extra.begin(), h.extra.end());
  EXPECT_EQ(extra["gen-seed"], "12345");
  EXPECT_EQ(extra["generator"], kGeneratorVersion);
  std::set<std::string> in_graph, in_header;
  for (UOp u : toposort(r.kernel.root))
    if (u.op() == Op::Var) in_graph.insert(u.arg<VarArg>().name);
  for (const auto& [name, v] : h.vars) in_header.insert(name);
  EXPECT_EQ(in_graph, in_header);
}

// Pinned draws: these numbers are what every machine must produce (no platform RNG, no
// std distributions).
TEST(GenEntropy, SeedStreamIsPinned) {
  SeedEntropy e(42);
  std::vector<uint64_t> got;
  for (int i = 0; i < 6; ++i) got.push_back(e.below(1000));
  EXPECT_EQ(got, (std::vector<uint64_t>{741, 159, 278, 344, 38, 868}));
  SeedEntropy f(7);
  EXPECT_FALSE(f.chance(0.5));
  EXPECT_EQ(f.pick({1.0, 2.0, 3.0}), 0u);
  EXPECT_EQ(f.between(-100, 100), 81);
  SeedEntropy g(0);  // splitmix64's first output from 0 is 0xe220a8397b1dcdaf
  EXPECT_EQ(g.below(uint64_t{1} << 32), 0xe220a839ull);
}

TEST(GenEntropy, ByteSourceConsumesAndDefaults) {
  const uint8_t bytes[] = {7, 0x34, 0x12, 200};
  ByteEntropy e(bytes, sizeof bytes);
  EXPECT_EQ(e.below(10), 7u);          // one byte
  EXPECT_EQ(e.below(65536), 0x1234u);  // two bytes, little-endian
  EXPECT_EQ(e.below(7), 200u % 7);     // one byte, reduced
  EXPECT_EQ(e.consumed(), 4u);
  EXPECT_FALSE(e.exhausted());
  EXPECT_EQ(e.below(2), 0u);  // exhausted: 0
  EXPECT_TRUE(e.exhausted());
  ByteEntropy empty(nullptr, 0);
  EXPECT_EQ(empty.below(100), 0u);
  EXPECT_FALSE(empty.chance(0.99));
  EXPECT_TRUE(empty.chance(1.0));
  EXPECT_EQ(empty.pick({0.0, 2.0, 5.0}), 1u);
  EXPECT_EQ(empty.between(-3, 9), -3);
  EXPECT_TRUE(empty.exhausted());
}

TEST(GenEntropy, BytesAlwaysGiveValidGraphs) {
  GenPolicy policy;
  {
    Context ctx;
    ByteEntropy none(nullptr, 0);
    GenResult r = generate(ctx, policy, none);
    EXPECT_TRUE(r.stats.entropy_exhausted);
    EXPECT_EQ(invalid_reason(r.kernel), "") << print_kernel(r.kernel);
  }
  uint64_t state = 0x0ddba11;
  auto next = [&] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (int i = 0; i < 500; ++i) {
    std::vector<uint8_t> bytes(next() % 600);
    for (auto& b : bytes) b = static_cast<uint8_t>(next());
    if (i % 5 == 0)
      for (auto& b : bytes) b = static_cast<uint8_t>(b & 0x3);  // mostly small draws
    Context ctx;
    ByteEntropy e(bytes);
    GenResult r = generate(ctx, policy, e);
    ASSERT_EQ(invalid_reason(r.kernel), "") << "byte string " << i << "\n"
                                            << print_kernel(r.kernel);
    // The same bytes give the same kernel.
    ByteEntropy again(bytes);
    Context ctx2;
    EXPECT_EQ(print_kernel(generate(ctx2, policy, again).kernel), print_kernel(r.kernel));
  }
}

// ---------------------------------------------------------------- the knobs

using Pred = std::function<bool(const std::vector<UOp>& topo, UOp root)>;

/// Fraction of `n` graphs (policy `p`) whose graph satisfies `pred`.
double fraction(const GenPolicy& p, const Pred& pred, int n = 300) {
  int hit = 0;
  for (int seed = 0; seed < n; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, p, 1000 + static_cast<uint64_t>(seed));
    hit += pred(toposort(r.kernel.root), r.kernel.root);
  }
  return static_cast<double>(hit) / n;
}
bool any_of(const std::vector<UOp>& topo, const std::function<bool(UOp)>& f) {
  return std::any_of(topo.begin(), topo.end(), f);
}
bool is_range_of(UOp u, UOp red) {
  return u.op() == Op::Range &&
         std::find(red.src().begin() + 1, red.src().end(), u) != red.src().end();
}
bool uses(UOp root, UOp what) {
  for (UOp u : toposort(root))
    if (u == what) return true;
  return false;
}

// sum_r where(idx != r, 0, e) with idx a loaded value
bool has_gather(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce || u.arg<ReduceArg>().op != Op::Add || u.src(0).op() != Op::Where)
      return false;
    UOp w = u.src(0), ne = w.src(0);
    if (ne.op() != Op::CmpNe || !w.src(1).is_const()) return false;
    for (int k = 0; k < 2; ++k) {
      UOp side = ne.src(k), other = ne.src(1 - k);
      if (side.op() == Op::Cast) side = side.src(0);  // tinygrad's compare: idx != CAST(r)
      bool ranged = is_range_of(side, u) || (side.op() == Op::Add && is_range_of(side.src(0), u));
      if (ranged &&
          (other.op() == Op::Load || (other.op() == Op::Cast && other.src(0).op() == Op::Load)))
        return true;
    }
    return false;
  });
}
bool has_range_mod(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    return (u.op() == Op::FloorMod || u.op() == Op::Cmod) && u.src(0).op() == Op::Range &&
           u.src(1).is_const();
  });
}
// RANGE % c with a CONST end that c does / does not divide
bool has_mod_dividing(const std::vector<UOp>& topo, bool divides) {
  return any_of(topo, [&](UOp u) {
    if ((u.op() != Op::FloorMod && u.op() != Op::Cmod) || u.src(0).op() != Op::Range ||
        !u.src(1).is_const())
      return false;
    UOp end = u.src(0).src(0);
    if (!end.is_const() || end.const_value().i < 1) return false;
    return (end.const_value().i % u.src(1).const_value().i == 0) == divides;
  });
}
bool guarded(UOp valid) {  // some AND-clause is RANGE < CONST
  if (valid.op() == Op::And) return guarded(valid.src(0)) || guarded(valid.src(1));
  return valid.op() == Op::CmpLt && valid.src(0).op() == Op::Range && valid.src(1).is_const();
}
bool gated_index(UOp index) {
  UOp i = index.src(1);
  return i.op() == Op::Where && i.src(2).op() == Op::Invalid && guarded(i.src(0));
}
bool has_gated_store(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) { return u.op() == Op::Store && gated_index(u.src(0)); });
}
bool has_gated_load(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) { return u.op() == Op::Load && gated_index(u.src(0)); });
}
// a range guarded in one store index and used ungated by another store's index
bool has_ungated_second_use(const std::vector<UOp>& topo, UOp) {
  for (UOp a : topo) {
    if (a.op() != Op::Store || !gated_index(a.src(0))) continue;
    for (UOp b : topo) {
      if (b.op() != Op::Store || b == a || b.src(0).src(1).op() == Op::Where) continue;
      for (UOp r : toposort(a.src(0).src(1)))
        if (r.op() == Op::Range && uses(b.src(0).src(1), r)) return true;
    }
  }
  return false;
}
bool has_arange(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce || u.arg<ReduceArg>().op != Op::Add) return false;
    UOp v = u.src(0);
    if (v.op() == Op::Cast && is_range_of(v.src(0), u)) return true;           // sum_r r
    return v.op() == Op::Where && v.src(1).is_const() && v.src(2).is_const();  // rangeify form
  });
}
bool has_bound_sum(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce || u.arg<ReduceArg>().op != Op::Add || u.src(0).op() != Op::Where)
      return false;
    UOp c = u.src(0).src(0);
    return (c.op() == Op::CmpLt && is_range_of(c.src(0), u)) || c.op() == Op::And;
  });
}
bool has_window(const std::vector<UOp>& topo, UOp) {  // a load at outer + r inside a sum over r
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce) return false;
    for (UOp n : toposort(u.src(0)))
      if (n.op() == Op::Add && n.src(0).op() == Op::Range && is_range_of(n.src(1), u) &&
          !is_range_of(n.src(0), u))
        return true;
    return false;
  });
}
bool has_unparented(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce) return false;
    for (size_t i = 1; i < u.num_src(); ++i)
      if (!uses(u.src(0), u.src(i))) return true;
    return false;
  });
}
bool has_nested_reduce(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce) return false;
    for (UOp n : toposort(u.src(0)))
      if (n.op() == Op::Reduce) return true;
    return false;
  });
}
bool has_dynamic_load(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Load) return false;
    for (UOp n : toposort(u.src(0).src(1)))
      if (n.op() == Op::Load) return true;
    return false;
  });
}
bool has_var_end(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    return u.op() == Op::Range && u.src(0).op() == Op::Var && u.src(0).arg<VarArg>().min <= 0;
  });
}
bool has_merge_candidate(const std::vector<UOp>& topo,
                         UOp) {  // END(store at i*N + j, i, j), same axis type
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::End || u.num_src() < 3) return false;
    return u.src(1).arg<RangeArg>().type == u.src(2).arg<RangeArg>().type;
  });
}
bool has_store_in_loop(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) { return u.op() == Op::End && u.src(0).op() == Op::Store; });
}
bool several_outputs(const std::vector<UOp>&, UOp root) {
  return root.num_src() >= 2;
}
bool has_transcendental(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    return u.op() == Op::Reciprocal || u.op() == Op::Sqrt || u.op() == Op::Exp2 ||
           u.op() == Op::Log2 || u.op() == Op::Sin;
  });
}
bool has_float_product(const std::vector<UOp>& topo, UOp) {  // x * y with neither a constant
  return any_of(topo, [](UOp u) {
    return u.op() == Op::Mul && u.dtype().is_float() && !u.src(0).is_const() &&
           !u.src(1).is_const();
  });
}
bool has_shared_range(const std::vector<UOp>& topo, UOp) {  // one RANGE closed by two ENDs
  std::map<const void*, int> closers;
  for (UOp u : topo)
    if (u.op() == Op::End)
      for (size_t i = 1; i < u.num_src(); ++i)
        if (++closers[u.src(i).node()] >= 2) return true;
  return false;
}

// A REDUCE whose first range may not run, dividing by cast(r2) - c, or (one range) a
// window where(r < k, x / d, 0) dividing by a VAR d.
bool has_shielded_fault(const std::vector<UOp>& topo, UOp) {
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce || u.src(1).src(0).op() != Op::Var ||
        u.src(1).src(0).arg<VarArg>().min != 0)
      return false;
    for (UOp n : toposort(u.src(0))) {
      if (n.op() != Op::Cdiv) continue;
      if (u.num_src() >= 3 && n.src(1).op() == Op::Sub && n.src(1).src(0).op() == Op::Cast &&
          n.src(1).src(0).src(0) == u.src(2))
        return true;
      if (u.num_src() == 2 && n.src(1).op() == Op::Var) return true;
    }
    return false;
  });
}
bool has_lifted_bound(const std::vector<UOp>& topo,
                      UOp) {  // sum_r where((r + y) < c, ...) or (r * y) < c
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Reduce || u.src(0).op() != Op::Where) return false;
    for (UOp n : toposort(u.src(0).src(0)))
      if (n.op() == Op::CmpLt && (n.src(0).op() == Op::Add || n.src(0).op() == Op::Mul) &&
          is_range_of(n.src(0).src(0), u))
        return true;
    return false;
  });
}

bool has_upcast(const std::vector<UOp>& topo, UOp) {  // an UPCAST range with a CONST end of 2..8
  return any_of(topo, [](UOp u) {
    if (u.op() != Op::Range || u.arg<RangeArg>().type != AxisType::Upcast) return false;
    return u.src(0).is_const() && u.src(0).const_value().i >= 2 && u.src(0).const_value().i <= 8;
  });
}

GenPolicy with(const std::function<void(GenPolicy&)>& set) {
  GenPolicy p;
  p.p_quantized_output = 0;  // a quantized output's value holds none of these shapes
  p.p_near_miss = 0;         // nor does a near miss, which replaces the whole kernel
  set(p);
  return p;
}

TEST(GenPolicyKnobs, EachKnobProducesItsShape) {
  struct Case {
    const char* knob;
    GenPolicy policy;
    Pred pred;
    double at_least;  ///< fraction of graphs that must show the shape
  };
  const Case cases[] = {
      {"p_gather", with([](GenPolicy& p) { p.p_gather = 1; }), has_gather, 0.9},
      {"p_range_mod", with([](GenPolicy& p) { p.p_range_mod = 1; }), has_range_mod, 0.5},
      {"p_gate_store", with([](GenPolicy& p) {
         p.p_gate_store = 1;
         p.p_store_in_loop = 1;
       }),
       has_gated_store, 0.7},
      {"p_gate_load", with([](GenPolicy& p) { p.p_gate_load = 1; }), has_gated_load, 0.3},
      {"p_second_use_ungated", with([](GenPolicy& p) {
         p.p_gate_store = p.p_store_in_loop = p.p_second_use = p.p_second_use_ungated = 1;
       }),
       has_ungated_second_use, 0.5},
      {"p_arange", with([](GenPolicy& p) { p.p_arange = 1; }), has_arange, 0.9},
      {"p_bound_sum", with([](GenPolicy& p) { p.p_bound_sum = 1; }), has_bound_sum, 0.9},
      {"p_window_sum", with([](GenPolicy& p) {
         p.p_window_sum = 1;
         p.p_store_in_loop = 1;
       }),
       has_window, 0.7},
      {"p_unparented", with([](GenPolicy& p) { p.p_unparented = 1; }), has_unparented, 0.8},
      {"p_shielded_fault", with([](GenPolicy& p) {
         p.p_shielded_fault = 1;
         p.dtypes = DTypeWeights{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
       }),
       has_shielded_fault, 0.6},
      {"p_bound_lift", with([](GenPolicy& p) { p.p_bound_sum = p.p_bound_lift = 1; }),
       has_lifted_bound, 0.8},
      {"p_nested_reduce", with([](GenPolicy& p) {
         p.p_nested_reduce = 1;
         p.exprs.reduce = 20;
       }),
       has_nested_reduce, 0.6},
      {"p_dynamic_index", with([](GenPolicy& p) { p.p_dynamic_index = 1; }), has_dynamic_load, 0.4},
      {"p_var_end_zero_min", with([](GenPolicy& p) { p.p_var_end = p.p_var_end_zero_min = 1; }),
       has_var_end, 0.9},
      {"p_extra_store_range", with([](GenPolicy& p) {
         p.p_store_in_loop = p.p_extra_store_range = p.p_same_axis_type = 1;
         p.p_nested_end = 0;
       }),
       has_merge_candidate, 0.9},
      {"p_store_in_loop", with([](GenPolicy& p) { p.p_store_in_loop = 1; }), has_store_in_loop,
       0.95},
      {"p_upcast_axis", with([](GenPolicy& p) { p.p_store_in_loop = p.p_upcast_axis = 1; }),
       has_upcast, 0.9},
      {"p_extra_output", with([](GenPolicy& p) { p.p_extra_output = 1; }), several_outputs, 0.95},
      {"p_reuse_range",
       with([](GenPolicy& p) { p.p_extra_output = p.p_reuse_range = p.p_store_in_loop = 1; }),
       has_shared_range, 0.7},
      {"inexact_floats", with([](GenPolicy& p) {
         p.inexact_floats = true;
         p.dtypes = DTypeWeights{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
       }),
       [](const std::vector<UOp>& t, UOp r) {
         return has_transcendental(t, r) || has_float_product(t, r);
       },
       0.15},
  };
  for (const Case& c : cases) {
    const double f = fraction(c.policy, c.pred);
    EXPECT_GE(f, c.at_least) << c.knob << " at 1.0 gives its shape in only " << f * 100
                             << "% of graphs";
  }
  // ... and switched off, the shape is gone.
  EXPECT_EQ(fraction(with([](GenPolicy& p) { p.p_gather = 0; }), has_gather), 0.0);
  EXPECT_EQ(fraction(with([](GenPolicy& p) { p.p_upcast_axis = 0; }), has_upcast), 0.0);
  EXPECT_LE(fraction(with([](GenPolicy& p) { p.p_range_mod = 0; }), has_range_mod),
            0.05);  // index arithmetic may still do r % c
  EXPECT_EQ(
      fraction(with([](GenPolicy& p) { p.p_gate_store = p.p_gate_load = 0; }), has_gated_store),
      0.0);
  EXPECT_EQ(fraction(with([](GenPolicy& p) {
                       p.p_extra_output = 0;
                       p.p_second_use = 0;
                     }),
                     several_outputs),
            0.0);
  const GenPolicy exact = with([](GenPolicy& p) { p.inexact_floats = false; });
  EXPECT_EQ(fraction(exact, has_transcendental), 0.0);
  EXPECT_EQ(fraction(exact, has_float_product), 0.0);
  EXPECT_GT(fraction(GenPolicy{}, has_float_product), 0.0);  // inexact floats by default
}

TEST(GenPolicyKnobs, DivisibleAndNonDivisibleModuli) {
  auto divisible = with([](GenPolicy& p) {
    p.p_range_mod = 1;
    p.p_mod_divisible = 1;
    p.p_var_end = 0;
  });
  auto any = with([](GenPolicy& p) {
    p.p_range_mod = 1;
    p.p_mod_divisible = 0;
    p.p_var_end = 0;
  });
  EXPECT_GE(fraction(divisible, [](const auto& t, UOp) { return has_mod_dividing(t, true); }), 0.5);
  EXPECT_GE(fraction(any, [](const auto& t, UOp) { return has_mod_dividing(t, false); }), 0.3);
}

TEST(GenPolicyKnobs, DtypeWeightsSelectTheOutputType) {
  for (DType dt : all_dtypes()) {
    if (dt.is_void() || dt.is_index()) continue;
    GenPolicy p;
    p.dtypes = DTypeWeights{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    p.p_quantized_output = 0;  // quantized outputs have their own knob
    p.p_near_miss = 0;         // near misses store int32 (gen/near_miss.h)
    // clang-format off
    switch (dt.scalar()) {
      case ScalarType::Bool:    p.dtypes.bool_ = 1; break;
      case ScalarType::Int8:    p.dtypes.int8 = 1; break;
      case ScalarType::Int16:   p.dtypes.int16 = 1; break;
      case ScalarType::Int32:   p.dtypes.int32 = 1; break;
      case ScalarType::Int64:   p.dtypes.int64 = 1; break;
      case ScalarType::UInt8:   p.dtypes.uint8 = 1; break;
      case ScalarType::UInt16:  p.dtypes.uint16 = 1; break;
      case ScalarType::UInt32:  p.dtypes.uint32 = 1; break;
      case ScalarType::UInt64:  p.dtypes.uint64 = 1; break;
      case ScalarType::Float16: p.dtypes.float16 = 1; break;
      case ScalarType::Float32: p.dtypes.float32 = 1; break;
      case ScalarType::Float64: p.dtypes.float64 = 1; break;
      case ScalarType::Void:
      case ScalarType::Index:   break;  // skipped above: no buffer holds them
    }
    // clang-format on
    auto all_outputs = [&](const std::vector<UOp>& topo, UOp) {
      for (UOp u : topo)
        if (u.op() == Op::Param && u.arg<ParamArg>().output && u.dtype() != dt) return false;
      return true;
    };
    EXPECT_EQ(fraction(p, all_outputs, 30), 1.0) << dt.name();
    for (int seed = 0; seed < 30; ++seed) {  // and still valid
      Context ctx;
      GenResult r = generate(ctx, p, static_cast<uint64_t>(seed));
      ASSERT_EQ(invalid_reason(r.kernel), "") << dt.name() << " seed " << seed << "\n"
                                              << print_kernel(r.kernel);
    }
  }
}

TEST(GenPolicyKnobs, LimitsHold) {
  GenPolicy p;
  p.p_near_miss = 0;  // near misses have fixed shapes of their own (gen/near_miss.h)
  p.max_outputs = 2;
  p.max_range_end = 5;
  p.max_loop_nest = 2;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, p, seed);
    EXPECT_LE(r.kernel.root.num_src(), 2u);
    auto topo = toposort(r.kernel.root);
    for (UOp u : topo)
      if (u.op() == Op::Range) {
        Interval b = Analysis().bounds(u.src(0));
        EXPECT_LE(b.hi, 5) << "seed " << seed;
      }
    // The oracle's step count bounds the loop nest: 2 loops of at most 5 iterations.
    auto out =
        oracle::run(r.kernel.root, oracle::make_inputs(r.kernel.root, 0, header_vars(r.kernel)));
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out->status, oracle::RunStatus::Ok);
  }
}

// ---------------------------------------------------------------- edge values

/// The classes of edge value a kernel holds (names as in GenPolicy's edge knobs).
std::set<std::string> edge_classes(UOp root, const GenPolicy& p) {
  std::set<std::string> seen;
  auto int_limit = [](DType dt, int64_t v) {
    return v == dt.int_min() || v == dt.int_max() || v == dt.int_min() + 1 ||
           v == dt.int_max() - 1 || (dt == dtypes::UInt64 && v < 0);  // 2^63 and up
  };
  for (UOp u : toposort(root)) {
    const DType dt = u.dtype();
    if (u.is_const() && dt.is_index()) {
      const int64_t v = u.const_value().i;
      if (v > INT64_MAX / 2 || v < INT64_MIN / 2) seen.insert("index near int64 limits");
      if (v != 0 && std::llabs(std::llabs(v) - p.max_index_magnitude) <= 1)
        seen.insert("index near max_index_magnitude");
    }
    if (u.is_const() && dt.is_int() && !dt.is_index()) {
      const int64_t v = u.const_value().i;
      if (int_limit(dt, v)) seen.insert("sized-int limit");
      const uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      for (int d = -1; d <= 1; ++d)
        if (m >= 256 && std::has_single_bit(m + static_cast<uint64_t>(d)))
          seen.insert("power of two");
    }
    if (u.is_const() && dt.is_float()) {
      const double f = u.const_value().f;
      if (f == 0 && std::signbit(f)) seen.insert("float -0");
      if (std::isnan(f) || std::isinf(f)) seen.insert("float inf/nan");
      if (std::isfinite(f) && f * 8 != std::trunc(f * 8)) seen.insert("float inexact");
      if (dt == dtypes::Float16 && std::fabs(f) >= 2048 && std::isfinite(f))
        seen.insert("float16 past its integers");
    }
    // (x + c1) + c2 where c1 + c2 leaves int64 but the sum does not
    if (u.op() == Op::Add && dt.is_index() && u.src(1).is_const() && u.src(0).op() == Op::Add &&
        u.src(0).src(1).is_const()) {
      int64_t sum;
      if (__builtin_add_overflow(u.src(0).src(1).const_value().i, u.src(1).const_value().i, &sum))
        seen.insert("index constants whose sum overflows");
    }
    if (u.op() == Op::Var) {
      const auto& a = u.arg<VarArg>();
      if (a.max == dt.int_max() || (dt.int_min() < 0 && a.min == dt.int_min()))
        seen.insert("VAR at a dtype limit");
      if (a.max < 0) seen.insert("VAR below 0");
    }
    if (u.op() == Op::Param && u.arg<ParamArg>().vmax == std::optional<int64_t>(dt.int_max()))
      seen.insert("input at its dtype's max");
  }
  return seen;
}

TEST(GenEdges, EachClassOfEdgeValueAppears) {
  GenPolicy policy;
  policy.p_quantized_output = 0;  // edge values of plain outputs (quantized: gen_quant_test)
  std::map<std::string, int> graphs;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    Context ctx;
    for (const std::string& c : edge_classes(generate(ctx, policy, seed).kernel.root, policy))
      ++graphs[c];
  }
  for (const char* c :
       {"index near int64 limits", "index near max_index_magnitude", "sized-int limit",
        "power of two", "float -0", "float inf/nan", "float inexact", "float16 past its integers",
        "index constants whose sum overflows", "VAR at a dtype limit", "VAR below 0",
        "input at its dtype's max"})
    EXPECT_GE(graphs[c], 3) << c << " in " << graphs[c] << " of 3000 graphs";
  for (const auto& [c, n] : graphs) std::cout << "[ edges    ] " << c << ": " << n << " graphs\n";
  // and none of it with the edge knobs off
  GenPolicy off;
  off.p_int_edge_const = off.p_index_edge_const = off.p_edge_var_bounds = 0;
  off.p_edge_input_bounds = off.p_float_edge_const = 0;
  int with_edges = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Context ctx;
    const auto seen = edge_classes(generate(ctx, off, seed).kernel.root, off);
    with_edges += seen.count("index near int64 limits") + seen.count("VAR at a dtype limit") +
                  seen.count("index constants whose sum overflows");
  }
  EXPECT_EQ(with_edges, 0);
}

// Edge values everywhere, and the kernels stay defined for every VAR value by construction
// (no repair needed): an index operation with an edge constant is kept only where the
// interval analysis proves that it cannot overflow.
TEST(GenEdges, KernelsFullOfEdgeValuesStayDefined) {
  GenPolicy policy = safe_for_any_var();
  policy.p_int_edge_const = policy.p_index_edge_const = 0.7;
  policy.p_edge_var_bounds = policy.p_edge_input_bounds = policy.p_float_edge_const = 0.5;
  policy.p_quantized_output = 0;
  int overflowing_pairs = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, policy, seed);
    EXPECT_FALSE(r.stats.repaired())
        << "seed " << seed << ": " << ::testing::PrintToString(r.stats.repair_log);
    ASSERT_EQ(invalid_reason(r.kernel, true), "") << "seed " << seed << "\n"
                                                  << print_kernel(r.kernel);
    overflowing_pairs +=
        edge_classes(r.kernel.root, policy).count("index constants whose sum overflows");
  }
  EXPECT_GE(overflowing_pairs, 5);
}

// ---------------------------------------------------------------- repair

TEST(GenRepair, UndefinedNodesAreReplacedLocally) {
  Context ctx;
  auto parsed = parse_kernel(ctx, R"(@name ub
%0 = PARAM slot=0 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = PARAM slot=1 size=2 in : int32
%5 = INDEX %4 %2 : int32
%6 = LOAD %5 : int32
%7 = CONST 0 : int32
%8 = CONST 1 : int32
%9 = CDIV %8 %7 : int32
%12 = ADD %6 %9 : int32
%9b = STORE %3 %12 : void
%10 = END %9b %2 : void
%11 = SINK %10 : void
)");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Kernel k = parsed->kernel;
  GenStats stats;
  check_and_repair(ctx, k, GenPolicy{}, stats);
  EXPECT_EQ(stats.repairs, 2) << ::testing::PrintToString(
      stats.repair_log);  // the load gated, the division a constant
  EXPECT_EQ(stats.dropped_effects, 0);
  EXPECT_EQ(k.root.num_src(), 1u);
  EXPECT_EQ(invalid_reason(k), "") << print_kernel(k);
}

// An index operation that an edge constant makes overflow keeps its constant's edge: the
// constant moves to the nearest one that cannot overflow (here 2^63 - 1 - 5 for v <= 5).
TEST(GenRepair, AnOverflowingEdgeConstantBecomesTheNearestSafeOne) {
  Context ctx;
  auto parsed = parse_kernel(ctx, R"(@name edge
@var v=3
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = VAR name=v min=0 max=5 : index
%4 = CONST 9223372036854775807 : index
%5 = ADD %3 %4 : index
%6 = CAST %5 : int32
%7 = STORE %2 %6 : void
%8 = SINK %7 : void
)");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Kernel k = parsed->kernel;
  GenStats stats;
  check_and_repair(ctx, k, GenPolicy{}, stats);
  EXPECT_EQ(stats.repairs, 1) << ::testing::PrintToString(stats.repair_log);
  EXPECT_EQ(stats.dropped_effects, 0);
  int64_t kept = 0;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Add) kept = u.src(1).const_value().i;
  EXPECT_EQ(kept, INT64_MAX - 5) << print_kernel(k);
  EXPECT_EQ(invalid_reason(k, true), "") << print_kernel(k);
}

TEST(GenRepair, DoubleStoreDropsTheEffect) {
  Context ctx;
  auto parsed = parse_kernel(ctx, R"(@name twice
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 4 : index
%4 = RANGE %3 axis=0 LOOP : index
%5 = CONST 1 : int32
%6 = STORE %2 %5 : void
%7 = END %6 %4 : void
%8 = PARAM slot=1 size=1 out : int32
%9 = INDEX %8 %1 : int32
%10 = STORE %9 %5 : void
%11 = SINK %7 %10 : void
)");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  Kernel k = parsed->kernel;
  GenStats stats;
  check_and_repair(ctx, k, GenPolicy{}, stats);
  EXPECT_EQ(stats.dropped_effects, 1);
  EXPECT_EQ(k.root.num_src(), 1u);
  EXPECT_EQ(invalid_reason(k), "");
}

// ---------------------------------------------------------------- the simplifier on generated
// graphs

TEST(GenRules, GeneratedGraphsReachTheRuleFamiliesWithoutFindings) {
  GenPolicy policy;
  std::map<std::string, uint64_t> hits;
  std::vector<std::string> findings;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, policy, seed);
    check::CheckOptions o;
    o.vars = header_vars(r.kernel);
    check::CheckResult c = check::check_kernel(ctx, r.kernel, o);
    for (const auto& [name, n] : c.simplified.hits) hits[name] += n;
    if (c.kind != check::FindingKind::None) {
      std::string fired;
      for (const auto& [name, n] : c.simplified.hits) fired += " " + name + "=" + std::to_string(n);
      findings.push_back("seed " + std::to_string(seed) + ": " +
                         std::string(check::finding_kind_name(c.kind)) + ": " + c.details +
                         "\n  rules:" + fired + "\n" + print_kernel(r.kernel));
    }
  }
  std::string report;
  for (const auto& [name, n] : hits) report += " " + name + "=" + std::to_string(n);
  std::cout << "[ rules    ] fired over " << kSeeds << " generated graphs:" << report << "\n";
  const char* families[] = {"split_range",       "shrink_range", "merge_adjacent",
                            "reduce_unparented", "gather_ne",    "fold_const"};
  for (const char* f : families) EXPECT_GT(hits[f], 0u) << f << " never fired";
  EXPECT_GT(
      hits["reduce_collapse"] + hits["bound_upper"] + hits["bound_lower"] + hits["bound_two_sided"],
      0u);
  // A finding here is a simplifier bug: the generated originals are free of UB.
  EXPECT_TRUE(findings.empty()) << findings.size()
                                << " findings on the faithful simplifier; the first:\n"
                                << (findings.empty() ? "" : findings[0]);
}

// Where the policy allows range ends past 127, the gather compares some int8 loads with
// int8(r) over an end of 124..132: both sides of the cast gate (lossless up to an end of
// 128, wrapping past it), and the faithful simplifier agrees with the original on both.
TEST(GenPolicyKnobs, NarrowGatherStraddlesTheInt8Boundary) {
  GenPolicy p;
  p.p_gather = 1;
  p.p_gather_cast_range = 1;
  p.p_gather_cast_narrow = 1;
  p.max_range_end = 200;
  int lossless = 0, lossy = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, p, seed);
    for (UOp u : toposort(r.kernel.root))
      if (u.op() == Op::Cast && u.dtype() == dtypes::Int8 && u.src(0).op() == Op::Range) {
        const int64_t end = Analysis().bounds(u.src(0).src(0)).hi;
        (end <= 128 ? lossless : lossy) += 1;
      }
    check::CheckOptions o;
    o.vars = header_vars(r.kernel);
    EXPECT_EQ(check::check_kernel(ctx, r.kernel, o).kind, check::FindingKind::None)
        << print_kernel(r.kernel);
  }
  EXPECT_GE(lossless, 1);
  EXPECT_GE(lossy, 1);
}

// The generator's bias reaches every planted bug that changes results: for each, some
// graph among the first 2,000 seeds makes the differential check report a finding.
TEST(GenRules, EveryResultChangingPlantedBugIsReachable) {
  GenPolicy policy;
  std::string report;
  for (const auto& bug : simplifier::all_bugs()) {
    if (bug.kind != simplifier::BugKind::Result) continue;
    int found_at = -1;
    for (uint64_t seed = 0; seed < kSeeds && found_at < 0; ++seed) {
      Context ctx;
      GenResult r = generate(ctx, policy, seed);
      check::CheckOptions o;
      o.vars = header_vars(r.kernel);
      o.simplify.bugs.enable(bug.bug);
      if (check::check_kernel(ctx, r.kernel, o).kind != check::FindingKind::None)
        found_at = static_cast<int>(seed);
    }
    EXPECT_GE(found_at, 0) << bug.name << " is never caught by " << kSeeds << " generated graphs";
    report += " " + std::string(bug.name) + "@" + std::to_string(found_at);
  }
  std::cout << "[ bugs     ] first seed catching each planted bug:" << report << "\n";
}

// ---------------------------------------------------------------- real sizes

// The original's loop iterations on input seed 0 (the campaign classifies graphs by it).
uint64_t iterations_of(const Kernel& k, uint64_t* steps = nullptr) {
  auto out = oracle::run(k.root, oracle::make_inputs(k.root, 0, header_vars(k)));
  EXPECT_TRUE(out.ok());
  if (!out.ok()) return 0;
  EXPECT_EQ(out->status, oracle::RunStatus::Ok) << print_kernel(k);
  if (steps) *steps = out->steps;
  return out->iterations;
}

TEST(GenLargeSizes, LargeGraphsComeAtTheKnobsRate) {
  constexpr uint64_t kLargeIterations = 10'000;
  GenPolicy none;
  none.p_large = 0;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    Context ctx;
    EXPECT_LT(iterations_of(generate(ctx, none, seed).kernel), kLargeIterations) << "seed " << seed;
  }
  GenPolicy some;
  some.p_large = 0.1;
  int large = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Context ctx;
    large += iterations_of(generate(ctx, some, seed).kernel) >= kLargeIterations;
  }
  // 30 expected; a few large graphs draw small VAR ends or zero-trip loops.
  EXPECT_GE(large, 12);
  EXPECT_LE(large, 50);
}

TEST(GenLargeSizes, LargeGraphsReduceOverBigLoopsAndStayDefinedAndFast) {
  GenPolicy p;
  p.p_large = 1;
  int reduce_big = 0, loop_big = 0, over_a_million = 0;
  uint64_t max_steps = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, p, seed);
    EXPECT_TRUE(r.stats.oracle_error.empty()) << "seed " << seed << ": " << r.stats.oracle_error;
    EXPECT_EQ(invalid_reason(r.kernel), "") << "seed " << seed;
    bool big_reduce = false, big_loop = false;
    for (UOp u : toposort(r.kernel.root)) {
      if (u.op() == Op::Range) big_loop = big_loop || Analysis().vmax(u.src(0)) >= p.large_min_end;
      if (u.op() == Op::Reduce)
        for (size_t i = 1; i < u.num_src(); ++i)
          big_reduce = big_reduce || Analysis().vmax(u.src(i).src(0)) >= p.large_min_end;
    }
    reduce_big += big_reduce;
    loop_big += big_loop;
    uint64_t steps = 0;
    over_a_million += iterations_of(r.kernel, &steps) > uint64_t(p.large_max_iterations) * 4;
    max_steps = std::max(max_steps, steps);
  }
  EXPECT_GE(loop_big, 24) << "loops of 10^4 or more iterations in 40 large graphs";
  EXPECT_GE(reduce_big, 10) << "REDUCEs over 10^4 or more elements in 40 large graphs";
  EXPECT_EQ(over_a_million, 0);
  EXPECT_LE(max_steps, p.large_check_max_steps);
  std::cout << "[ large    ] " << loop_big << " of 40 have a big loop, " << reduce_big
            << " reduce over one; at most " << max_steps << " oracle steps\n";
}

}  // namespace
}  // namespace uopfuzz::gen
