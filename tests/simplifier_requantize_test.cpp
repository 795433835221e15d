// Tests for the simplifier's fixed-point expansion of REQUANTIZE (requantize_fixed_point),
// its planted bugs and constant folding of the quantized conversions. Expected values come
// from ir::eval_alu (whose REQUANTIZE is ir/quant.h's definition) or are the hand-worked
// numbers of SEMANTICS.md ("Quantized types", "QUANTIZE", "DEQUANTIZE").
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {
namespace {

using namespace ir;

DType q(ScalarType storage, double scale, int64_t zero_point) {
  return DType::quantized(storage, scale, zero_point);
}

/// A requantize the expansion is checked on: the quantized type the integer is read as and
/// the type it is requantized to.
struct Pair {
  DType from, to;
  const char* what;
};

std::vector<Pair> pairs_8bit() {
  using S = ScalarType;
  return {
      {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 0), "the seed: M = 0.25, ties at x = 2 mod 4"},
      {q(S::Int8, 0.04, 7), q(S::Int8, 0.08, 3), "the seed: zero points on both sides"},
      {q(S::Int8, 1, 0), q(S::Int8, 0.5, 0), "M = 2: saturates at both ends"},
      {q(S::UInt8, 0.08, 3), q(S::Int8, 0.03, -4), "M = 8/3: saturates, inexact m0"},
      {q(S::Int8, 0.5, -3), q(S::UInt8, 1, 128), "into uint8, ties, z_out = 128"},
      {q(S::UInt8, 1, 255), q(S::UInt8, 1, 0), "equal scales, all x <= 0: saturates at 0"},
      {q(S::Int8, 0.1, 0), q(S::Int8, 0.1, 0), "equal types: the identity"},
      {q(S::Int8, 0.3, 5), q(S::Int8, 0.7, -2), "an inexact ratio below 1"},
      {q(S::Int8, 0.25, -128), q(S::Int16, 0.001, 100), "widening, M = 250"},
  };
}

std::vector<Pair> pairs_16bit() {
  using S = ScalarType;
  return {
      {q(S::Int16, 0.001, -300), q(S::Int8, 0.05, 10), "narrowing, M = 0.02"},
      {q(S::Int16, 1, 0), q(S::Int16, 0.25, 0), "M = 4: saturates at both ends"},
      {q(S::Int16, 0.5, 7), q(S::Int16, 1, -7), "M = 0.5: every odd x is a tie"},
  };
}

std::vector<Pair> pairs_32bit() {
  using S = ScalarType;
  return {
      {q(S::Int32, 0.03, 0), q(S::Int8, 0.12, 0), "a quantized sum's accumulator (the seed)"},
      {q(S::Int32, 0.002, 0), q(S::Int8, 0.5, -1), "M = 0.004"},
      {q(S::Int32, 3, 0), q(S::Int32, 0.001, 0), "M = 3000: saturates int32"},
      {q(S::Int32, 1, 0), q(S::Int32, std::ldexp(1.0, -30), 0), "M = 2^30: shift 0"},
      {q(S::Int32, 1, 0), q(S::Int16, 1.5 * std::ldexp(1.0, 31), 0), "M ~ 2^-31.6: shift 62"},
      {q(S::Int32, 0.7, 0), q(S::UInt8, 0.3, 17), "into uint8, inexact"},
  };
}

/// The plain integers of `dt`'s width to read as `pair.from`: every value for 8 and 16
/// bits; for 32 bits the limits, powers of two and their neighbours, every value in
/// -300..300 (ties for power-of-two ratios) and random ones.
std::vector<int64_t> inputs_for(DType dt) {
  std::vector<int64_t> out;
  if (dt.bits() <= 16) {
    for (int64_t v = dt.int_min(); v <= dt.int_max(); ++v) out.push_back(v);
    return out;
  }
  for (int64_t v = -300; v <= 300; ++v) out.push_back(v);
  for (int k = 1; k < 32; ++k)
    for (int64_t d : {-1, 0, 1}) {
      out.push_back((int64_t{1} << k) + d);
      out.push_back(-(int64_t{1} << k) + d);
    }
  out.push_back(dt.int_min());
  out.push_back(dt.int_max());
  std::mt19937_64 rng(20);
  for (int i = 0; i < 2000; ++i)
    out.push_back(static_cast<int64_t>(rng() % (uint64_t{1} << 32)) + dt.int_min());
  for (int64_t& v : out) v = wrap_int(dt, v).i;  // canonical: uint32 keeps 0..2^32-1
  if (dt.kind() == DTypeKind::Unsigned)
    for (int64_t& v : out) v = static_cast<int64_t>(wrap_int(dt, v).u);
  return out;
}

/// out[i] = REQUANTIZE(BITCAST(in[i] -> from)) -> to, the input a plain integer `v`.
std::string bitcast_kernel(DType v, DType from, DType to, size_t n) {
  return fmt::format(
      "%0 = PARAM slot=0 size={0} in : {1}\n"
      "%1 = PARAM slot=1 size={0} out : {3}\n"
      "%2 = CONST {0} : index\n"
      "%3 = RANGE %2 axis=0 LOOP : index\n"
      "%4 = INDEX %0 %3 : {1}\n"
      "%5 = LOAD %4 : {1}\n"
      "%6 = BITCAST %5 : {2}\n"
      "%7 = REQUANTIZE %6 : {3}\n"
      "%8 = INDEX %1 %3 : {3}\n"
      "%9 = STORE %8 %7 : void\n"
      "%10 = END %9 %3 : void\n"
      "%11 = SINK %10 : void\n",
      n, v.name(), from.name(), to.name());
}

class RequantizeFixedPoint : public ::testing::Test {
 protected:
  Context ctx_;

  UOp parse(const std::string& text) {
    auto p = parse_kernel(ctx_, text);
    if (!p) {
      ADD_FAILURE() << "line " << p.error().loc.line << ": " << p.error().message << "\n" << text;
      return UOp();
    }
    return p->kernel.root;
  }

  /// pm_requantize alone (no other rule: what the rule itself writes).
  UOp expand(UOp root, BugSet bugs = {}) {
    SimplifyState st;
    st.bugs = bugs;
    RewriteOptions o;
    o.state = &st;
    RewriteResult r = graph_rewrite(ctx_, root, pm_requantize(), o);
    EXPECT_TRUE(r.converged);
    return r.root;
  }

  /// How many elements of `rewritten`'s output differ from eval_alu's REQUANTIZE of the
  /// BITCAST input, over `values` of plain type `v` read as `pair.from`. The rewrite must
  /// verify and run without UB.
  int64_t mismatches(UOp rewritten, DType v, const Pair& pair, const std::vector<int64_t>& values,
                     std::string* first = nullptr) {
    auto errors = verify(rewritten);
    if (!errors.empty()) {
      ADD_FAILURE() << "the rewrite does not verify: " << errors[0].message << "\n"
                    << print_graph(rewritten);
      return -1;
    }
    Inputs in;
    in.buffers[0] = Buffer(v, values.size());
    for (size_t i = 0; i < values.size(); ++i) in.buffers[0].set(i, wrap_int(v, values[i]));
    auto out = oracle::run(rewritten, in);
    if (!out.ok() || out->status != RunStatus::Ok) {
      ADD_FAILURE() << "the rewrite does not run cleanly\n" << print_graph(rewritten);
      return -1;
    }
    const Buffer& got = out->outputs.at(1);
    int64_t bad = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      Value raw = wrap_int(v, values[i]), stored, want;
      EXPECT_EQ(eval_alu(Op::Bitcast, v, pair.from, &raw, stored), EvalError::None);
      EXPECT_EQ(eval_alu(Op::Requantize, pair.from, pair.to, &stored, want), EvalError::None);
      if (same_bits(got.get(i), want)) continue;
      if (!bad++ && first)
        *first = fmt::format("{} {} as {} -> {}: got {}, eval_alu says {}", v.name(), values[i],
                             pair.from.name(), pair.to.name(), got.get(i).i, want.i);
    }
    return bad;
  }

  /// Every pair with each plain integer type of the input's width.
  template <class Fn>
  void for_each_case(Fn fn) {
    auto run = [&](const std::vector<Pair>& pairs, std::vector<DType> plain) {
      for (const Pair& p : pairs)
        for (DType v : plain) {
          SCOPED_TRACE(
              fmt::format("{} as {} -> {} ({})", v.name(), p.from.name(), p.to.name(), p.what));
          fn(v, p);
        }
    };
    run(pairs_8bit(), {dtypes::Int8, dtypes::UInt8});
    run(pairs_16bit(), {dtypes::Int16, dtypes::UInt16});
    run(pairs_32bit(), {dtypes::Int32, dtypes::UInt32});
  }
};

TEST_F(RequantizeFixedPoint, ExpansionIsBitExactWithEvalAlu) {
  for_each_case([&](DType v, const Pair& p) {
    const std::vector<int64_t> values = inputs_for(v);
    UOp root = parse(bitcast_kernel(v, p.from, p.to, values.size()));
    ASSERT_TRUE(root);
    ASSERT_TRUE(verify(root).empty());
    UOp out = expand(root);
    // Integer arithmetic only: the one REQUANTIZE became int64 ALU ops.
    int requantizes = 0;
    for (UOp u : toposort(out)) requantizes += u.op() == Op::Requantize;
    EXPECT_EQ(requantizes, 0) << print_graph(out);
    std::string first;
    EXPECT_EQ(mismatches(out, v, p, values, &first), 0) << first;
  });
}

// The whole pipeline (the symbolic rules, the bounds analysis and its CAST/MAX/MIN folds
// then rewrite the expansion) keeps it exact, with and without optimization.
TEST_F(RequantizeFixedPoint, SimplifiedExpansionIsBitExact) {
  for (bool optimize : {true, false})
    for_each_case([&](DType v, const Pair& p) {
      const std::vector<int64_t> values = inputs_for(v);
      UOp root = parse(bitcast_kernel(v, p.from, p.to, values.size()));
      ASSERT_TRUE(root);
      SimplifyOptions o;
      o.optimize = optimize;
      SimplifyResult r = simplify(ctx_, root, o);
      ASSERT_TRUE(r.converged);
      std::string first;
      EXPECT_EQ(mismatches(r.root, v, p, values, &first), 0) << first;
    });
}

// The seed's numbers through the kernel form of a quantized sum: the int32 accumulator
// read as qint32<0.03,0>, requantized to qint8<0.12,0> (SEMANTICS.md, "Quantized types").
TEST_F(RequantizeFixedPoint, SeedAccumulatorNumbers) {
  UOp root = parse(bitcast_kernel(dtypes::Int32, q(ScalarType::Int32, 0.03, 0),
                                  q(ScalarType::Int8, 0.12, 0), 4));
  ASSERT_TRUE(root);
  SimplifyResult r = simplify(ctx_, root);
  EXPECT_EQ(r.hits["requantize_fixed_point"], 1u);
  Inputs in;
  in.buffers[0] = Buffer(dtypes::Int32, 4);
  const int64_t acc[] = {4, 8, 20, -12}, want[] = {1, 2, 5, -3};
  for (size_t i = 0; i < 4; ++i) in.buffers[0].set(i, Value::of_int(acc[i]));
  auto out = oracle::run(r.root, in);
  ASSERT_TRUE(out.ok() && out->status == RunStatus::Ok);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(out->outputs.at(1).get(i).i, want[i]) << acc[i];
}

// ---- the planted bugs: each makes the expansion disagree with eval_alu where its gate
// matters, and only there (the faithful rule agrees everywhere: the tests above).

struct BugCase {
  Bug bug;
  Pair shows, cannot_show;  ///< a pair that exposes it; one where it changes nothing
  DType v;
};

std::vector<BugCase> bug_cases() {
  using S = ScalarType;
  return {
      {Bug::RequantizeIgnoresInputZero,
       {q(S::Int8, 0.04, 7), q(S::Int8, 0.08, 3), "z_in = 7"},
       {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 5), "z_in = 0"},
       dtypes::Int8},
      {Bug::RequantizeIgnoresOutputZero,
       {q(S::Int8, 0.04, 7), q(S::Int8, 0.08, 3), "z_out = 3"},
       {q(S::Int8, 0.04, 7), q(S::Int8, 0.08, 0), "z_out = 0"},
       dtypes::Int8},
      {Bug::RequantizeTiesToEven,
       {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 0), "M = 0.25: exact ties"},
       {q(S::Int8, 0.3, 0), q(S::Int8, 0.7, 0), "an inexact ratio: no exact ties"},
       dtypes::Int8},
      {Bug::RequantizeNoSaturate,
       {q(S::Int8, 1, 0), q(S::Int8, 0.5, 0), "M = 2: past both ends"},
       {q(S::Int8, 1, 0), q(S::Int8, 2, 0), "M = 0.5: always in range"},
       dtypes::Int8},
  };
}

TEST_F(RequantizeFixedPoint, EachBugDisagreesWithEvalAluOnlyWhereItMatters) {
  for (const BugCase& c : bug_cases()) {
    SCOPED_TRACE(std::string(all_bugs()[static_cast<size_t>(c.bug)].name));
    const std::vector<int64_t> values = inputs_for(c.v);
    BugSet bugs;
    bugs.enable(c.bug);
    UOp shows = parse(bitcast_kernel(c.v, c.shows.from, c.shows.to, values.size()));
    UOp cannot = parse(bitcast_kernel(c.v, c.cannot_show.from, c.cannot_show.to, values.size()));
    ASSERT_TRUE(shows && cannot);
    EXPECT_GT(mismatches(expand(shows, bugs), c.v, c.shows, values), 0) << c.shows.what;
    EXPECT_EQ(mismatches(expand(cannot, bugs), c.v, c.cannot_show, values), 0)
        << c.cannot_show.what;
  }
}

// The seed's worked numbers under each bug (SEMANTICS.md): 11 in qint8<0.04,7> is 5 in
// qint8<0.08,3>; dropping z_in gives 9, dropping z_out 2. 2 in qint8<0.03,0> is the tie
// 0.5 in qint8<0.12,0>: 1, to even 0. 100 in qint8<1,0> is 127 in qint8<0.5,0>; unclamped
// 200 wraps to -56.
TEST_F(RequantizeFixedPoint, SeedNumbersUnderEachBug) {
  using S = ScalarType;
  struct Row {
    std::optional<Bug> bug;
    DType from, to;
    int64_t v, want;
  };
  const DType seed_in = q(S::Int8, 0.04, 7), seed_out = q(S::Int8, 0.08, 3);
  const DType tie_in = q(S::Int8, 0.03, 0), tie_out = q(S::Int8, 0.12, 0);
  const DType sat_in = q(S::Int8, 1, 0), sat_out = q(S::Int8, 0.5, 0);
  const Row rows[] = {
      {std::nullopt, seed_in, seed_out, 11, 5},
      {Bug::RequantizeIgnoresInputZero, seed_in, seed_out, 11, 9},
      {Bug::RequantizeIgnoresOutputZero, seed_in, seed_out, 11, 2},
      {std::nullopt, tie_in, tie_out, 2, 1},
      {Bug::RequantizeTiesToEven, tie_in, tie_out, 2, 0},
      {std::nullopt, sat_in, sat_out, 100, 127},
      {Bug::RequantizeNoSaturate, sat_in, sat_out, 100, -56},
  };
  for (const Row& row : rows) {
    BugSet bugs;
    if (row.bug) bugs.enable(*row.bug);
    UOp out = expand(parse(bitcast_kernel(dtypes::Int8, row.from, row.to, 1)), bugs);
    Inputs in;
    in.buffers[0] = Buffer(dtypes::Int8, 1);
    in.buffers[0].set(0, Value::of_int(row.v));
    auto got = oracle::run(out, in);
    ASSERT_TRUE(got.ok() && got->status == RunStatus::Ok);
    EXPECT_EQ(got->outputs.at(1).get(0).i, row.want)
        << row.v << (row.bug ? " with " + std::string(all_bugs()[size_t(*row.bug)].name) : "");
  }
}

// ---- what the rule leaves alone

TEST_F(RequantizeFixedPoint, RequantizeOfAQuantizedLoadOrWhereStays) {
  // out[i] = REQUANTIZE(in[i]) and REQUANTIZE(in[i] < .. ? in[i] : in[0]), in quantized: the
  // unit-axis lowering's form.
  UOp root = parse(
      "%0 = PARAM slot=0 size=4 in : qint8<0.03,0>\n"
      "%1 = PARAM slot=1 size=4 out : qint8<0.12,0>\n"
      "%2 = CONST 4 : index\n"
      "%3 = RANGE %2 axis=0 LOOP : index\n"
      "%4 = INDEX %0 %3 : qint8<0.03,0>\n"
      "%5 = LOAD %4 : qint8<0.03,0>\n"
      "%6 = REQUANTIZE %5 : qint8<0.12,0>\n"
      "%7 = INDEX %1 %3 : qint8<0.12,0>\n"
      "%8 = STORE %7 %6 : void\n"
      "%9 = END %8 %3 : void\n"
      "%10 = PARAM slot=2 size=4 out : qint8<0.12,0>\n"
      "%11 = CONST 2 : index\n"
      "%12 = CMPLT %3 %11 : bool\n"
      "%13 = CONST 0 : index\n"
      "%14 = INDEX %0 %13 : qint8<0.03,0>\n"
      "%15 = LOAD %14 : qint8<0.03,0>\n"
      "%16 = WHERE %12 %5 %15 : qint8<0.03,0>\n"
      "%17 = REQUANTIZE %16 : qint8<0.12,0>\n"
      "%18 = INDEX %10 %3 : qint8<0.12,0>\n"
      "%19 = STORE %18 %17 : void\n"
      "%20 = END %19 %3 : void\n"
      "%21 = SINK %9 %20 : void\n");
  ASSERT_TRUE(root);
  ASSERT_TRUE(verify(root).empty());
  SimplifyResult r = simplify(ctx_, root);
  int requantizes = 0;
  for (UOp u : toposort(r.root)) requantizes += u.op() == Op::Requantize;
  EXPECT_EQ(requantizes, 2) << print_graph(r.root);
  EXPECT_EQ(r.hits.count("requantize_fixed_point"), 0u);
}

// A BITCAST between two quantized types is not a plain integer read as quantized.
TEST_F(RequantizeFixedPoint, RequantizeOfAQuantizedBitcastStays) {
  UOp root = parse(
      "%0 = PARAM slot=0 size=4 in : qint8<0.5,1>\n"
      "%1 = PARAM slot=1 size=4 out : qint8<0.12,0>\n"
      "%2 = CONST 4 : index\n"
      "%3 = RANGE %2 axis=0 LOOP : index\n"
      "%4 = INDEX %0 %3 : qint8<0.5,1>\n"
      "%5 = LOAD %4 : qint8<0.5,1>\n"
      "%6 = BITCAST %5 : qint8<0.03,0>\n"
      "%7 = REQUANTIZE %6 : qint8<0.12,0>\n"
      "%8 = INDEX %1 %3 : qint8<0.12,0>\n"
      "%9 = STORE %8 %7 : void\n"
      "%10 = END %9 %3 : void\n"
      "%11 = SINK %10 : void\n");
  ASSERT_TRUE(root);
  ASSERT_TRUE(verify(root).empty()) << verify(root)[0].message;
  EXPECT_EQ(expand(root), root);
}

// ---- constant folding of QUANTIZE, DEQUANTIZE and REQUANTIZE (fold_const, eval_alu)

/// The value symbolic() leaves for `op` applied to CONST `c` (to dtype `to`), or nullopt
/// when it leaves a non-CONST.
std::optional<Value> folded(Context& ctx, Op op, UOp c, DType to) {
  SimplifyState st;
  RewriteOptions o;
  o.state = &st;
  UOp r = graph_rewrite(ctx, ctx.make(op, to, {c}), symbolic(), o).root;
  if (!r.is_const()) return std::nullopt;
  EXPECT_EQ(r.dtype(), to);
  return r.const_value();
}

TEST_F(RequantizeFixedPoint, ConstantsFoldToTheDefinitionsNumbers) {
  using S = ScalarType;
  // SEMANTICS.md "QUANTIZE": qint8<0.5,3>: 1.25 -> 6, -1.25 -> 0, 100 -> 127, NaN -> z.
  const DType q8 = q(S::Int8, 0.5, 3);
  const std::pair<double, int64_t> quantized[] = {
      {1.25, 6}, {-1.25, 0}, {100.0, 127}, {std::nan(""), 3}, {-INFINITY, -128}};
  for (auto [x, want] : quantized) {
    auto v = folded(ctx_, Op::Quantize, ctx_.const_float(dtypes::Float32, x), q8);
    ASSERT_TRUE(v) << x;
    EXPECT_EQ(v->i, want) << x;
  }
  // "DEQUANTIZE": qint8<0.04,7>: 11 -> the double nearest 0.04 * 4, rounded to float32;
  // 7 -> +0.0.
  const DType d = q(S::Int8, 0.04, 7);
  auto eleven = folded(ctx_, Op::Dequantize, ctx_.const_int(d, 11), dtypes::Float32);
  ASSERT_TRUE(eleven);
  EXPECT_EQ(eleven->f, static_cast<double>(static_cast<float>(0.04 * 4)));
  auto zero = folded(ctx_, Op::Dequantize, ctx_.const_int(d, 7), dtypes::Float32);
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->f, 0.0);
  EXPECT_FALSE(std::signbit(zero->f));
  // "Quantized types": [4, 8, 20, -12] -> [1, 2, 5, -3]; 11 -> 5; 100 and -100 saturate.
  struct Row {
    DType from, to;
    int64_t in, want;
  };
  const Row rows[] = {
      {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 0), 4, 1},
      {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 0), 8, 2},
      {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 0), 20, 5},
      {q(S::Int8, 0.03, 0), q(S::Int8, 0.12, 0), -12, -3},
      {q(S::Int8, 0.04, 7), q(S::Int8, 0.08, 3), 11, 5},
      {q(S::Int8, 1, 0), q(S::Int8, 0.5, 0), 100, 127},
      {q(S::Int8, 1, 0), q(S::Int8, 0.5, 0), -100, -128},
  };
  for (const Row& row : rows) {
    auto v = folded(ctx_, Op::Requantize, ctx_.const_int(row.from, row.in), row.to);
    ASSERT_TRUE(v) << row.in;
    EXPECT_EQ(v->i, row.want) << row.in << " " << row.from.name() << " -> " << row.to.name();
  }
  // An integer CONST read as quantized folds through the BITCAST first: the same numbers.
  auto via_bitcast =
      folded(ctx_, Op::Requantize,
             ctx_.make(Op::Bitcast, q(S::Int8, 0.04, 7), {ctx_.const_int(dtypes::Int8, 11)}),
             q(S::Int8, 0.08, 3));
  ASSERT_TRUE(via_bitcast);
  EXPECT_EQ(via_bitcast->i, 5);
}

// A conversion the definition cannot compute (qint32 with z != 0 can leave int32) is not
// folded to a guess, and not expanded either.
TEST_F(RequantizeFixedPoint, UnsupportedRequantizeIsNeitherFoldedNorExpanded) {
  const DType from = q(ScalarType::Int32, 1, 5), to = q(ScalarType::Int8, 1, 0);
  ASSERT_TRUE(requantize_unsupported(from, to));
  EXPECT_FALSE(folded(ctx_, Op::Requantize, ctx_.const_int(from, 7), to));
  SimplifyState st;
  RewriteOptions o;
  o.state = &st;
  UOp load = ctx_.make(
      Op::Bitcast, from,
      {ctx_.make(Op::Load, dtypes::Int32,
                 {ctx_.make(Op::Index, dtypes::Int32,
                            {ctx_.make(Op::Param, dtypes::Int32, {}, ParamArg{0, 4, false}),
                             ctx_.const_int(dtypes::Index, 0)})})});
  UOp n = ctx_.make(Op::Requantize, to, {load});
  EXPECT_EQ(graph_rewrite(ctx_, n, symbolic(), o).root, n);
}

TEST(RequantizeRule, IsNamedAndItsBugsAreListed) {
  const auto names = all_rule_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "requantize_fixed_point"), names.end());
  for (const char* bug : {"requantize-ignores-input-zero", "requantize-ignores-output-zero",
                          "requantize-ties-to-even", "requantize-no-saturate"}) {
    auto b = parse_bug(bug);
    ASSERT_TRUE(b) << bug;
    EXPECT_EQ(all_bugs()[static_cast<size_t>(*b)].kind, BugKind::Result) << bug;
  }
}

}  // namespace
}  // namespace uopfuzz::simplifier
