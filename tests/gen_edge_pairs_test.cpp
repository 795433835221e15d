// Edge pairs (GenPolicy::p_edge_pair, p_nested_divmod, p_index_multiple; gen/edge_values.h):
// the pure window and divisor arithmetic, then, from fixed seeds, that the generator draws
// each kind of pair (a constant at a boundary in the same graph as a value whose declared
// bounds straddle it; each nested div/mod shape with each sign combination; each unary op
// and cast over each special float), that kernels full of pairs stay defined, and that the
// faithful simplifier agrees with them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check/differential.h"
#include "gen/edge_values.h"
#include "gen/entropy.h"
#include "gen/generator.h"
#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

using i128 = __int128;

// ---------------------------------------------------------------- the arithmetic

i128 exact(Op op, i128 x, i128 c) {
  switch (op) {
    case Op::Add: return x + c;
    case Op::Sub: return x - c;
    default: return x * c;
  }
}

TEST(EdgePairWindows, TheResultRunsFromInsideTheLimitToPastIt) {
  const DType types[] = {dtypes::Int8,  dtypes::Int16,  dtypes::Int32,  dtypes::Int64,
                         dtypes::UInt8, dtypes::UInt16, dtypes::UInt32, dtypes::UInt64};
  int checked = 0;
  for (DType dt : types) {
    const IntRange r = declarable_range(dt);
    const i128 half = r.hi / 2;
    for (Op op : {Op::Add, Op::Sub, Op::Mul})
      for (bool at_max : {true, false})
        for (i128 c : {i128{1}, i128{2}, i128{3}, i128{7}, i128{-1}, i128{-3}, i128{-8}, half,
                       -half, r.hi - 1, -(r.hi - 1)})
          for (int inside = 0; inside <= 2; ++inside)
            for (int past = 0; past <= 2; ++past) {
              const auto w = limit_window(r, op, c, at_max, inside, past);
              if (!w) continue;
              ++checked;
              ASSERT_LE(w->hi - w->lo, 4) << dt.name();
              ASSERT_GE(w->lo, r.lo);
              ASSERT_LE(w->hi, r.hi);
              const i128 limit = at_max ? r.hi : r.lo;
              int in = 0, out = 0;
              i128 nearest = 0;  // the in-range result closest to the limit
              bool have = false;
              for (i128 x = w->lo; x <= w->hi; ++x) {
                const i128 v = exact(op, x, c);
                const bool beyond = at_max ? v > r.hi : v < r.lo;
                ASSERT_TRUE(at_max ? v >= r.lo : v <= r.hi)
                    << "the window leaves the range on the other side";
                if (beyond) {
                  ++out;
                  continue;
                }
                ++in;
                const i128 d = at_max ? limit - v : v - limit;
                if (!have || d < (at_max ? limit - nearest : nearest - limit)) nearest = v;
                have = true;
              }
              EXPECT_EQ(out, past) << dt.name() << " op " << op_name(op);
              EXPECT_EQ(in, inside + 1) << dt.name() << " op " << op_name(op);
              const i128 mag = c < 0 ? -c : c;
              const i128 gap = at_max ? limit - nearest : nearest - limit;
              if (op == Op::Mul)
                EXPECT_LT(gap, mag) << "one more step of x would cross: " << dt.name();
              else
                EXPECT_EQ(gap, 0) << "ADD and SUB reach the limit exactly: " << dt.name();
            }
  }
  EXPECT_GT(checked, 500);
  // no window for a product by -1, 0 or 1, nor for another op
  EXPECT_FALSE(limit_window(declarable_range(dtypes::Int8), Op::Mul, 1, true, 0, 1));
  EXPECT_FALSE(limit_window(declarable_range(dtypes::Int8), Op::Mul, -1, true, 0, 1));
  EXPECT_FALSE(limit_window(declarable_range(dtypes::Int8), Op::Max, 3, true, 0, 1));
  // ADD at int8's max with c = 3: x + 3 runs 126, 127, 128 (wraps)
  const auto w = limit_window(declarable_range(dtypes::Int8), Op::Add, 3, true, 1, 1);
  ASSERT_TRUE(w);
  EXPECT_EQ(static_cast<int64_t>(w->lo), 123);
  EXPECT_EQ(static_cast<int64_t>(w->hi), 125);
}

bool divides(int64_t d, int64_t n) {
  return n % d == 0;
}

TEST(EdgePairDivisors, EachRelationWithEachSignCombination) {
  NestedDivmodWeights w;
  SeedEntropy e(7);
  std::set<std::pair<int, int>> seen;  // (relation, sign combination)
  for (int i = 0; i < 4000; ++i) {
    const DivisorPair p = draw_divisor_pair(e, w);
    ASSERT_NE(p.a, 0);
    ASSERT_NE(p.b, 0);
    const int64_t a = std::abs(p.a), b = std::abs(p.b);
    ASSERT_LE(std::max(a, b), 32);
    switch (p.relation) {
      case DivisorRelation::ADividesB: EXPECT_TRUE(divides(a, b) && a < b) << a << " " << b; break;
      case DivisorRelation::BDividesA: EXPECT_TRUE(divides(b, a) && b < a) << a << " " << b; break;
      case DivisorRelation::Neither:
        EXPECT_TRUE(!divides(a, b) && !divides(b, a)) << a << " " << b;
        break;
      case DivisorRelation::Equal: EXPECT_EQ(a, b); break;
      case DivisorRelation::Unit: EXPECT_TRUE((a == 1) != (b == 1)) << a << " " << b; break;
    }
    seen.insert({static_cast<int>(p.relation), (p.a < 0) * 2 + (p.b < 0)});
  }
  EXPECT_EQ(seen.size(), 5u * 4u);
  // a weight of 0 switches a relation off
  w.a_divides_b = w.b_divides_a = w.neither = w.equal = 0;
  for (int i = 0; i < 200; ++i) EXPECT_EQ(draw_divisor_pair(e, w).relation, DivisorRelation::Unit);
}

TEST(EdgePairSpecials, ValuesTheFloatTypeHolds) {
  for (DType dt : {dtypes::Float16, dtypes::Float32, dtypes::Float64}) {
    const double largest = dt == dtypes::Float16   ? 65504.0
                           : dt == dtypes::Float32 ? 3.4028234663852886e38
                                                   : std::numeric_limits<double>::max();
    const double tiny = dt == dtypes::Float16   ? std::ldexp(1.0, -24)
                        : dt == dtypes::Float32 ? std::ldexp(1.0, -149)
                                                : std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(special_float(SpecialFloat::Largest, dt), largest) << dt.name();
    EXPECT_EQ(special_float(SpecialFloat::NegLargest, dt), -largest) << dt.name();
    EXPECT_EQ(special_float(SpecialFloat::Subnormal, dt), tiny) << dt.name();
    EXPECT_EQ(special_float(SpecialFloat::NegSubnormal, dt), -tiny) << dt.name();
    EXPECT_TRUE(std::signbit(special_float(SpecialFloat::NegZero, dt)));
    EXPECT_TRUE(std::isnan(special_float(SpecialFloat::NaN, dt)));
    EXPECT_EQ(special_float(SpecialFloat::Inf, dt), INFINITY);
    EXPECT_EQ(special_float(SpecialFloat::NegInf, dt), -INFINITY);
  }
}

// ---------------------------------------------------------------- what generated graphs hold

/// The bounds a value is declared to lie in: a VAR's, or an input's vmin/vmax read by a LOAD
/// (maybe cast to index, as a loaded index is).
std::optional<std::pair<i128, i128>> declared(UOp x) {
  if (x.op() == Op::Cast && x.dtype().is_index()) x = x.src(0);
  if (x.op() == Op::Var) return std::pair<i128, i128>{x.arg<VarArg>().min, x.arg<VarArg>().max};
  if (x.op() != Op::Load || x.src(0).op() != Op::Index) return std::nullopt;
  UOp buf = x.src(0).src(0);
  if (buf.op() != Op::Param) return std::nullopt;
  const auto& p = buf.arg<ParamArg>();
  if (!p.vmin || !p.vmax) return std::nullopt;
  return std::pair<i128, i128>{*p.vmin, *p.vmax};
}

/// A pair-heavy policy: every knob of the pairs up, the rest as the default has it.
GenPolicy pairs_policy(double p_edge_pair = 0.5) {
  GenPolicy p;
  p.p_edge_pair = p_edge_pair;
  p.p_nested_divmod = 0.5;
  p.p_index_multiple = 0.3;
  p.p_quantized_output = 0;
  return p;
}

using Visit = std::function<void(UOp)>;
void for_each_node(const GenPolicy& p, uint64_t seeds, const Visit& visit) {
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    Context ctx;
    for (UOp u : toposort(generate(ctx, p, seed).kernel.root)) visit(u);
  }
}

int significand_bits(DType f) {
  return f == dtypes::Float16 ? 11 : f == dtypes::Float32 ? 24 : 53;
}

TEST(GenEdgePairs, IntegerToFloatRoundingWindowsAndTheirBoundaryConstants) {
  GenPolicy p = pairs_policy(1.0);
  p.edge_pairs =
      EdgePairWeights{.float_rounding = 1, .limit = 0, .multiple = 0, .special_unary = 0};
  std::map<int, int> windows, constants;  // by significand bits
  int overflow = 0;
  for_each_node(p, 300, [&](UOp u) {
    if (u.op() == Op::Cast && u.dtype().is_float() && u.src(0).dtype().is_int()) {
      const auto b = declared(u.src(0));
      if (!b) return;
      const i128 edge = i128{1} << significand_bits(u.dtype());
      // the window holds the boundary and the first integer past it that rounds
      for (i128 s : {edge, -edge})
        if (b->first <= std::min(s, s + (s > 0 ? 1 : -1)) &&
            b->second >= std::max(s, s + (s > 0 ? 1 : -1)))
          ++windows[significand_bits(u.dtype())];
      if (u.dtype() == dtypes::Float16 && b->first <= 65520 && b->second >= 65520) ++overflow;
    }
    if (u.is_const() && u.dtype().is_float()) {
      const double v = std::fabs(u.const_value().f);
      const int bits = significand_bits(u.dtype());
      if (std::isfinite(v) && std::fabs(v - std::ldexp(1.0, bits)) <= 2) ++constants[bits];
    }
  });
  for (int bits : {11, 24, 53}) {
    EXPECT_GE(windows[bits], 5) << "integers straddling 2^" << bits;
    EXPECT_GE(constants[bits], 5) << "constants at 2^" << bits;
  }
  EXPECT_GE(overflow, 3) << "integers straddling float16's overflow at 65520";
}

TEST(GenEdgePairs, SizedIntegerLimitPairsTouchAndCrossTheLimit) {
  GenPolicy p = pairs_policy(1.0);
  p.edge_pairs =
      EdgePairWeights{.float_rounding = 0, .limit = 1, .multiple = 0, .special_unary = 0};
  std::map<std::string, int> seen;  // "<op> crosses" / "<op> touches"
  std::set<std::string> dtypes_seen;
  int from_loads = 0;
  for_each_node(p, 300, [&](UOp u) {
    if (u.op() != Op::Add && u.op() != Op::Sub && u.op() != Op::Mul) return;
    if (!u.dtype().is_int() || u.dtype().is_index() || !u.src(1).is_const()) return;
    const auto b = declared(u.src(0));
    if (!b) return;
    const IntRange r = declarable_range(u.dtype());
    const i128 c = u.dtype().kind() == DTypeKind::Unsigned
                       ? i128{static_cast<int64_t>(u.src(1).const_value().i)}
                       : i128{u.src(1).const_value().i};
    const i128 v1 = exact(u.op(), b->first, c), v2 = exact(u.op(), b->second, c);
    const i128 lo = std::min(v1, v2), hi = std::max(v1, v2);
    const bool crosses = (hi > r.hi && lo <= r.hi) || (lo < r.lo && hi >= r.lo);
    const bool touches = hi == r.hi || lo == r.lo;
    if (!crosses && !touches) return;
    const std::string op(op_name(u.op()));
    seen[op + (crosses ? " crosses" : " touches")]++;
    dtypes_seen.insert(std::string(u.dtype().name()));
    from_loads += u.src(0).op() == Op::Load;
  });
  for (const char* k : {"ADD crosses", "ADD touches", "SUB crosses", "SUB touches", "MUL crosses"})
    EXPECT_GE(seen[k], 5) << k;
  EXPECT_GE(dtypes_seen.size(), 6u);
  EXPECT_GE(from_loads, 5) << "windows declared as an input's vmin/vmax";
}

TEST(GenEdgePairs, DivisorMultiplesOfBothSignsAreStraddled) {
  GenPolicy p = pairs_policy(1.0);
  p.edge_pairs =
      EdgePairWeights{.float_rounding = 0, .limit = 0, .multiple = 1, .special_unary = 0};
  std::map<std::string, int> seen;
  for_each_node(p, 1500, [&](UOp u) {
    const Op op = u.op();
    if (op != Op::FloorDiv && op != Op::FloorMod && op != Op::Cdiv && op != Op::Cmod) return;
    if (!u.src(1).is_const()) return;
    const auto b = declared(u.src(0));
    if (!b) return;
    // a multiple past the dtype (3 * 2^30 in int32) once made an empty window: min > max
    EXPECT_LE(b->first, b->second) << "an empty window of " << u.dtype().name();
    if (b->first >= b->second) return;
    const DType dt = u.dtype();
    const int64_t c = u.src(1).const_value().i;
    if (c == 0 || dt.kind() == DTypeKind::Unsigned) {
      if (c != 0 && dt.kind() == DTypeKind::Unsigned) seen["unsigned"]++;
      return;
    }
    // a multiple of c inside the window with values on both sides of it
    bool straddles = false;
    for (i128 x = b->first; x <= b->second; ++x)
      if (x % c == 0 && x > b->first && x < b->second) straddles = true;
    if (c == -1 && b->first == dt.int_min()) seen["INT_MIN / -1"]++;
    if (!straddles) return;
    const std::string kind = dt.is_index() ? "index" : "sized";
    seen[kind + (c < 0 ? " negative" : " positive")]++;
  });
  for (const char* k : {"index negative", "index positive", "sized negative", "sized positive",
                        "unsigned", "INT_MIN / -1"})
    EXPECT_GE(seen[k], 5) << k;
}

TEST(GenEdgePairs, EachNestedDivmodShapeWithEachSignCombination) {
  GenPolicy p = pairs_policy(0.0);
  auto is_div = [](Op op) { return op == Op::FloorDiv || op == Op::Cdiv; };
  auto is_mod = [](Op op) { return op == Op::FloorMod || op == Op::Cmod; };
  std::map<std::string, std::set<int>> signs;  // shape -> sign combinations of (a, b)
  int mod_mod_dividing = 0, mod_mod_not_dividing = 0;
  for_each_node(p, 400, [&](UOp u) {
    if (!u.dtype().is_index() || !(is_div(u.op()) || is_mod(u.op())) || !u.src(1).is_const())
      return;
    UOp in = u.src(0);
    if (in.num_src() != 2 || !in.src(1).is_const()) return;
    std::string inner;
    if (is_div(in.op())) inner = "div";
    if (is_mod(in.op())) inner = "mod";
    if (in.op() == Op::Mul) inner = "mul";
    if (in.op() == Op::Add) inner = "add";
    if (inner.empty()) return;
    const int64_t a = in.src(1).const_value().i, b = u.src(1).const_value().i;
    const std::string shape = inner + "_" + (is_div(u.op()) ? "div" : "mod");
    signs[shape].insert((a < 0) * 2 + (b < 0));
    if (u.op() == Op::FloorMod && in.op() == Op::FloorMod && a > 0 && b > 0)
      (a % b == 0 && a > b ? mod_mod_dividing : mod_mod_not_dividing)++;
  });
  for (const char* shape :
       {"div_div", "mod_mod", "div_mod", "mod_div", "mul_div", "mul_mod", "add_div", "add_mod"})
    EXPECT_EQ(signs[shape].size(), 4u) << shape << ": sign combinations of (a, b) seen";
  // mod_mod's side condition (b divides a) both holds and fails
  EXPECT_GE(mod_mod_dividing, 5);
  EXPECT_GE(mod_mod_not_dividing, 5);
}

/// The special a float constant is, or nullopt.
std::optional<SpecialFloat> special_of(UOp c) {
  if (!c.is_const() || !c.dtype().is_float()) return std::nullopt;
  const double v = c.const_value().f;
  const DType dt = c.dtype();
  const double largest = dt == dtypes::Float16   ? 65504.0
                         : dt == dtypes::Float32 ? 3.4028234663852886e38
                                                 : std::numeric_limits<double>::max();
  const double tiny = dt == dtypes::Float16   ? std::ldexp(1.0, -24)
                      : dt == dtypes::Float32 ? std::ldexp(1.0, -149)
                                              : std::numeric_limits<double>::denorm_min();
  if (std::isnan(v)) return SpecialFloat::NaN;
  if (v == INFINITY) return SpecialFloat::Inf;
  if (v == -INFINITY) return SpecialFloat::NegInf;
  if (v == 0 && std::signbit(v)) return SpecialFloat::NegZero;
  if (v == largest) return SpecialFloat::Largest;
  if (v == -largest) return SpecialFloat::NegLargest;
  if (v == tiny) return SpecialFloat::Subnormal;
  if (v == -tiny) return SpecialFloat::NegSubnormal;
  return std::nullopt;
}

TEST(GenEdgePairs, EachUnaryOpAndCastGetsEachSpecialFloat) {
  GenPolicy p = pairs_policy(1.0);
  p.edge_pairs =
      EdgePairWeights{.float_rounding = 0, .limit = 0, .multiple = 0, .special_unary = 1};
  std::map<std::string, std::set<int>> seen;  // op -> specials directly under it
  int nan_bitcasts = 0, unguarded_int_casts = 0, int_limits_to_float = 0;
  for_each_node(p, 400, [&](UOp u) {
    if (u.num_src() != 1) return;
    if (u.op() == Op::Cast && u.dtype().is_float() && u.src(0).is_const() &&
        u.src(0).dtype().is_int()) {
      const DType from = u.src(0).dtype();
      const int64_t v = u.src(0).const_value().i;
      if (v == from.int_max() || v == from.int_min() || (from == dtypes::UInt64 && v == -1))
        ++int_limits_to_float;
    }
    const auto s = special_of(u.src(0));
    if (!s) return;
    std::string op(op_name(u.op()));
    if (u.op() == Op::Cast)
      op += u.dtype().is_float() ? " to float" : u.dtype().is_bool() ? " to bool" : " to int";
    if (u.op() == Op::Cast && u.dtype().is_int()) ++unguarded_int_casts;
    if (u.op() == Op::Bitcast && *s == SpecialFloat::NaN) ++nan_bitcasts;
    seen[op].insert(static_cast<int>(*s));
  });
  for (const char* op : {"NEG", "TRUNC", "RECIPROCAL", "SQRT", "EXP2", "LOG2", "SIN",
                         "CAST to float", "CAST to bool"})
    EXPECT_EQ(seen[op].size(), static_cast<size_t>(kSpecialFloats)) << op;
  EXPECT_EQ(seen["BITCAST"].size(), static_cast<size_t>(kSpecialFloats - 1)) << "all but NaN";
  // both are undefined behaviour (SEMANTICS.md): never drawn
  EXPECT_EQ(nan_bitcasts, 0);
  EXPECT_EQ(unguarded_int_casts, 0);
  EXPECT_GE(int_limits_to_float, 10);
  // with exact floats no infinity, NaN or transcendental enters
  p.inexact_floats = false;
  int nonfinite = 0, transcendental = 0;
  for_each_node(p, 100, [&](UOp u) {
    const auto s = special_of(u);
    nonfinite += s == SpecialFloat::Inf || s == SpecialFloat::NegInf || s == SpecialFloat::NaN;
    transcendental += u.op() == Op::Reciprocal || u.op() == Op::Sqrt || u.op() == Op::Exp2 ||
                      u.op() == Op::Log2 || u.op() == Op::Sin;
  });
  EXPECT_EQ(nonfinite, 0);
  EXPECT_EQ(transcendental, 0);
}

// The default policy draws every kind of pair on its own, at a rate a campaign sees.
TEST(GenEdgePairs, TheDefaultPolicyDrawsEachKind) {
  GenPolicy p;
  std::map<std::string, int> graphs;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    Context ctx;
    std::set<std::string> kinds;
    for (UOp u : toposort(generate(ctx, p, seed).kernel.root)) {
      if (u.op() == Op::Cast && u.dtype().is_float() && declared(u.src(0))) {
        const auto b = declared(u.src(0));
        const i128 edge = i128{1} << significand_bits(u.dtype());
        if (b->first <= edge && b->second > edge) kinds.insert("rounding");
      }
      if (u.num_src() == 1 && special_of(u.src(0))) kinds.insert("special");
      if ((u.op() == Op::FloorMod || u.op() == Op::FloorDiv) && u.dtype().is_index() &&
          u.src(1).is_const() && (u.src(0).op() == Op::FloorMod || u.src(0).op() == Op::FloorDiv) &&
          u.src(0).src(1).is_const())
        kinds.insert("nested");
      if ((u.op() == Op::Add || u.op() == Op::Sub || u.op() == Op::Mul) && !u.dtype().is_index() &&
          u.dtype().is_int() && u.src(1).is_const()) {
        const auto b = declared(u.src(0));
        if (!b) continue;
        const IntRange r = declarable_range(u.dtype());
        const i128 c = u.src(1).const_value().i;
        const i128 v1 = exact(u.op(), b->first, c), v2 = exact(u.op(), b->second, c);
        if (std::max(v1, v2) >= r.hi || std::min(v1, v2) <= r.lo) kinds.insert("limit");
      }
    }
    for (const auto& k : kinds) ++graphs[k];
  }
  for (const char* k : {"rounding", "special", "nested", "limit"})
    EXPECT_GE(graphs[k], 10) << k << " in " << graphs[k] << " of 1000 default graphs";
  for (const auto& [k, n] : graphs) std::cout << "[ pairs    ] " << k << ": " << n << " graphs\n";
}

// Kernels full of pairs are defined for every VAR value in its window (by construction: the
// generator's check repairs nothing), and the faithful simplifier agrees with them.
TEST(GenEdgePairs, KernelsFullOfPairsStayDefinedAndAgree) {
  GenPolicy p = pairs_policy(0.3);
  p.p_shielded_fault = 0;  // the two shapes defined only for the header's VAR values
  p.divisors.zero_at_an_iteration = 0;
  std::vector<std::string> problems;
  for (uint64_t seed = 0; seed < 300 && problems.size() < 3; ++seed) {
    Context ctx;
    GenResult r = generate(ctx, p, seed);
    const Kernel& k = r.kernel;
    if (r.stats.repaired()) {
      problems.push_back("seed " + std::to_string(seed) + " needed a repair: " +
                         (r.stats.repair_log.empty() ? "" : r.stats.repair_log[0]));
      continue;
    }
    if (auto errors = verify(k.root); !errors.empty()) {
      problems.push_back("seed " + std::to_string(seed) + ": " + errors[0].message);
      continue;
    }
    std::map<std::string, int64_t> lo, hi;
    for (UOp u : toposort(k.root))
      if (u.op() == Op::Var) {
        lo[u.arg<VarArg>().name] = u.arg<VarArg>().min;
        hi[u.arg<VarArg>().name] = u.arg<VarArg>().max;
      }
    for (const auto& vars : {lo, hi}) {
      auto out = oracle::run(k.root, oracle::make_inputs(k.root, 1, vars));
      if (!out.ok() || out->status != oracle::RunStatus::Ok)
        problems.push_back("seed " + std::to_string(seed) + ": not defined at a window's end\n" +
                           print_kernel(k));
    }
    check::CheckOptions o;
    o.vars = {k.header.vars.begin(), k.header.vars.end()};
    const check::CheckResult c = check::check_kernel(ctx, k, o);
    if (c.kind != check::FindingKind::None)
      problems.push_back("seed " + std::to_string(seed) + ": " +
                         std::string(check::finding_kind_name(c.kind)) + ": " + c.details + "\n" +
                         print_kernel(k));
  }
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems; the first:\n"
                                << (problems.empty() ? "" : problems[0]);
}

}  // namespace
}  // namespace uopfuzz::gen
