/** \file Test helper: the conformance tables every registered backend must pass against
 * the oracle (tests/backends_conformance_test.cpp runs them on each): every ALU op on
 * every dtype it verifies for, on edge values (0, -0, ±1, INT_MIN, INT_MAX, shift
 * widths, NaN, ±inf, subnormals, the float16 limits; for SIN also huge arguments and
 * those nearest a multiple of pi/2, and random large ones), every cast and bitcast pair,
 * every REDUCE op, every example on three seeds. Operand tuples on which the op is
 * undefined (scalar_eval says so) are left out: a backend only runs UB-free kernels.
 * Outputs agree bit for bit, except as the backend declares (its ULPs for the graph, the
 * sign of zero), as the differential check compares them. */
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backends/kernel_cache.h"
#include "backends/registry.h"
#include "check/differential.h"
#include "ir/hash.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::test_support {

using namespace ir;

/// How one backend is held to the tables.
struct Conformance {
  std::string backend;          ///< registry name
  std::vector<int> threads{1};  ///< each case runs once per thread count
  /// Operand tuples the backend documents as out of its exact range (SEMANTICS.md).
  std::function<bool(Op, const Value*)> excluded;
  std::function<void()> after_each;  ///< e.g. "no validation messages"
  /// Each case compiles once per level (backends with Capabilities::opt_levels: code
  /// generator bugs live at specific levels).
  std::vector<backends::OptLevel> opt_levels{backends::OptLevel::O2};
};

/// Settings a backend's own test file registers (register_conformance, at static
/// initialization) for the suite every registered backend runs.
inline std::map<std::string, Conformance>& conformance_settings() {
  static std::map<std::string, Conformance> settings;
  return settings;
}
inline bool register_conformance(Conformance c) {
  std::string name = c.backend;
  conformance_settings()[name] = std::move(c);
  return true;
}
/// A backend's registered settings; one that registered none runs each case once, on one thread.
inline Conformance conformance_for(const std::string& backend) {
  auto it = conformance_settings().find(backend);
  return it != conformance_settings().end() ? it->second : Conformance{backend, {1}, {}, {}};
}

inline std::vector<Value> edge_values(DType dt) {
  std::vector<Value> v;
  if (dt.is_bool()) return {Value::of_int(0), Value::of_int(1)};
  if (dt.is_float()) {
    const double big = dt.bytes() == 2   ? 65504.0
                       : dt.bytes() == 4 ? std::numeric_limits<float>::max()
                                         : std::numeric_limits<double>::max();
    const double tiny = dt.bytes() == 2   ? std::ldexp(1.0, -24)
                        : dt.bytes() == 4 ? std::numeric_limits<float>::denorm_min()
                                          : std::numeric_limits<double>::denorm_min();
    for (double d : {0.0,
                     -0.0,
                     1.0,
                     -1.0,
                     0.5,
                     -2.5,
                     3.0,
                     7.75,
                     -8.0,
                     100.0,
                     1e-3,
                     3e4,
                     -3e4,
                     2147483648.0,
                     -2147483649.0,
                     9.3e18,
                     1.9e19,
                     big,
                     -big,
                     tiny,
                     -tiny,
                     double(INFINITY),
                     -double(INFINITY),
                     double(NAN),
                     255.5,
                     -128.5})
      v.push_back(round_float(dt, d));
    return v;
  }
  const int bits = dt.bits();
  for (int64_t x :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-2}, int64_t{3}, int64_t{-7},
        int64_t{7}, int64_t{bits - 1}, int64_t{bits}, int64_t{100}, int64_t{-100}})
    v.push_back(wrap_int(dt, x));
  if (dt.is_signed()) {
    v.push_back(Value::of_int(dt.int_min()));
    v.push_back(Value::of_int(dt.int_min() + 1));
    v.push_back(Value::of_int(dt.int_max()));
    v.push_back(Value::of_int(dt.int_max() - 1));
  } else {
    uint64_t max = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    v.push_back(Value::of_uint(max));
    v.push_back(Value::of_uint(max - 1));
    v.push_back(Value::of_uint(uint64_t{1} << (bits - 1)));
  }
  return v;
}

// SIN's argument reduction, beyond the edge values: large magnitudes up to the largest
// double, and the doubles and floats nearest a multiple of pi/2 (the best approximations
// m * 2^e, from the continued fractions of 2^e * 2/pi): 6381956970095103 * 2^797 is the
// closest of the doubles from 2^31 up (2^-61.5 quadrants off; the known worst case of
// all doubles), 16367173 * 2^72 of the floats from 2^31 up, and 7763785107565477 * 2^-29
// of the doubles in [2^12, 2^31) (Cody-Waite's side). Rounded to `dt` (float16: mostly
// inf).
inline std::vector<Value> sin_edge_values(DType dt) {
  std::vector<Value> v;
  const double dmax = std::numeric_limits<double>::max();
  for (double d : {2147483648.0,
                   2147483649.0,
                   2147483647.5,
                   -2147483648.0,
                   4294967296.0,
                   1e10,
                   1e15,
                   1e22,
                   -1e22,
                   9007199254740992.0,
                   1e100,
                   1e300,
                   dmax,
                   -dmax,
                   std::ldexp(1.0, 1023),
                   3e38,
                   double(1e10f),
                   double(std::numeric_limits<float>::max()),
                   std::ldexp(6381956970095103.0, 797),
                   -std::ldexp(6381956970095103.0, 797),
                   std::ldexp(6381956970095103.0, 798),
                   std::ldexp(5916243447979695.0, 79),
                   std::ldexp(8444920710073313.0, 939),
                   std::ldexp(5850965514341686.0, 525),
                   -std::ldexp(8160885118204141.0, 808),
                   std::ldexp(8583082635084172.0, 145),
                   std::ldexp(7763785107565477.0, -29),
                   std::ldexp(16367173.0, 72),
                   -std::ldexp(16367173.0, 73),
                   std::ldexp(10741887.0, 11),
                   std::ldexp(10057457.0, 62),
                   std::ldexp(11617958.0, 17),
                   std::ldexp(10695401.0, 2)})
    v.push_back(round_float(dt, d));
  return v;
}

// index is not a buffer type: it travels as int64 and is cast at the edges.
inline DType storage_of(DType dt) {
  return dt.is_index() ? dtypes::Int64 : dt;
}

struct Case {
  std::string name;
  Context ctx;
  UOp root;
  oracle::Inputs inputs;
};

// out[k] = op(a0[k], a1[k], ...) over a RANGE of n, operands from input buffers.
inline bool build(Case& c, Op op, const std::vector<DType>& in, DType out,
                  const std::vector<std::vector<Value>>& cols) {
  Context& x = c.ctx;
  const int64_t n = static_cast<int64_t>(cols[0].size());
  if (n == 0) return false;
  UOp r = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)},
                 RangeArg{{0}, AxisType::Loop});
  std::vector<UOp> args;
  for (size_t i = 0; i < in.size(); ++i) {
    DType st = storage_of(in[i]);
    UOp p = x.make(Op::Param, st, {}, ParamArg{static_cast<int>(i + 1), n, false});
    UOp v = x.make(Op::Load, st, {x.make(Op::Index, st, {p, r})});
    if (in[i].is_index()) v = x.make(Op::Cast, dtypes::Index, {v});
    args.push_back(v);
    Buffer b(st, static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) b.set(static_cast<size_t>(k), cols[i][static_cast<size_t>(k)]);
    c.inputs.buffers[static_cast<int>(i + 1)] = std::move(b);
  }
  UOp v = x.make(op, out, args);
  DType so = storage_of(out);
  if (out.is_index()) v = x.make(Op::Cast, so, {v});
  UOp o = x.make(Op::Param, so, {}, ParamArg{0, n, true});
  UOp st = x.make(Op::Store, dtypes::Void, {x.make(Op::Index, so, {o, r}), v});
  c.root = x.make(Op::Sink, dtypes::Void, {x.make(Op::End, dtypes::Void, {st, r})});
  return verify(c.root).empty();
}

// Runs on the oracle and on the backend; outputs must agree as the check compares them.
inline void expect_agree(Case& c, const Conformance& conf) {
  auto ref = oracle::run(c.root, c.inputs);
  ASSERT_TRUE(ref.ok()) << c.name << ": " << ref.error().message;
  ASSERT_EQ(ref->status, oracle::RunStatus::Ok) << c.name << "\n" << print_graph(c.root);
  backends::Backend* be = backends::find_backend(conf.backend);
  ASSERT_NE(be, nullptr) << conf.backend;
  auto tol = check::output_tolerance(c.ctx, *be, c.root, c.inputs);
  ASSERT_TRUE(tol.ok()) << c.name << ": " << tol.error().message;
  for (backends::OptLevel level : conf.opt_levels) {
    backends::CompileOptions co;
    co.opt_level = level;
    auto k = be->compile(c.root, co);
    const std::string at(backends::opt_level_name(level));
    ASSERT_TRUE(k.ok()) << c.name << " at " << at << ": " << k.error().message;
    for (int threads : conf.threads) {
      backends::RunOptions ro;
      ro.threads = threads;
      auto got = k.value()->run(c.inputs, ro);
      ASSERT_TRUE(got.ok()) << c.name << ": " << got.error().message;
      for (const auto& [slot, want] : ref->outputs) {
        const Buffer& g = got->outputs.at(slot);
        auto i = check::first_difference(want, &g, tol->at(slot));
        if (!i) continue;
        std::string operands;
        for (const auto& [s, b] : c.inputs.buffers)
          operands += " " + format_value(b.dtype(), b.get(*i));
        ADD_FAILURE() << c.name << " (" << at << ", " << threads << " threads): element " << *i
                      << " operands" << operands << ": oracle "
                      << format_value(want.dtype(), want.get(*i)) << ", " << conf.backend << " "
                      << format_value(g.dtype(), g.get(*i));
        return;
      }
    }
  }
  if (conf.after_each) conf.after_each();
}

inline std::vector<DType> value_dtypes() {
  std::vector<DType> v;
  for (DType d : all_dtypes())
    if (!d.is_void()) v.push_back(d);
  return v;
}

inline void every_alu_op_agrees(const Conformance& conf) {
  int tested = 0;
  for (int oi = 0; oi < kOpCount; ++oi) {
    const Op op = static_cast<Op>(oi);
    // Conversions have their own tests (every_cast_agrees; the quantized ones in
    // backends_*_quant_test.cpp).
    if (!op_in(op, Alu) || op == Op::Cast || op == Op::Bitcast || op == Op::Quantize ||
        op == Op::Dequantize || op == Op::Requantize)
      continue;
    const int arity = op_in(op, Unary) ? 1 : op_in(op, Binary) ? 2 : 3;
    for (DType dt : value_dtypes()) {
      std::vector<DType> in(static_cast<size_t>(arity), dt);
      if (op == Op::Where) in[0] = dtypes::Bool;
      const DType out = op_in(op, Comparison) ? dtypes::Bool : dt;
      // Every tuple of edge values on which the op is defined.
      std::vector<std::vector<Value>> cols(static_cast<size_t>(arity));
      auto e0 = edge_values(in[0]), e1 = edge_values(dt);
      if (op == Op::Sin)
        for (Value x : sin_edge_values(dt)) e0.push_back(x);
      for (size_t i = 0; i < e0.size(); ++i)
        for (size_t j = 0; j < (arity >= 2 ? e1.size() : 1); ++j)
          for (size_t l = 0; l < (arity == 3 ? 3 : 1); ++l) {
            Value args[3] = {e0[i], arity >= 2 ? e1[j] : Value{},
                             arity == 3 ? e1[(j + 5 * l + 1) % e1.size()] : Value{}};
            Value r;
            if (eval_alu(op, op == Op::Where ? dt : in[0], out, args, r) != EvalError::None)
              continue;
            if (conf.excluded && conf.excluded(op, args)) continue;
            for (int a = 0; a < arity; ++a) cols[static_cast<size_t>(a)].push_back(args[a]);
          }
      Case c;
      c.name = fmt::format("{} {}", op_name(op), dt.name());
      if (!build(c, op, in, out, cols)) continue;
      ++tested;
      expect_agree(c, conf);
    }
  }
  EXPECT_GE(tested, 150);  // 33 ops over 13 dtypes, where they verify
}

// SIN of random large arguments, either sign, on a fixed seed: 2048 float64 with the
// exponents 31 .. 1023 in turn, 1024 float32 with 31 .. 127.
inline void sin_of_large_arguments_agrees(const Conformance& conf) {
  uint64_t state = 12345;
  auto next = [&state] { return splitmix64(state); };
  for (DType dt : {dtypes::Float64, dtypes::Float32}) {
    const bool f64 = dt == dtypes::Float64;
    const int mbits = f64 ? 53 : 24, emax = f64 ? 1023 : 127, n = f64 ? 2048 : 1024;
    std::vector<std::vector<Value>> cols(1);
    for (int i = 0; i < n; ++i) {
      const uint64_t r = next();
      const double m = static_cast<double>((r >> (64 - mbits)) |
                                           (uint64_t{1} << (mbits - 1)));  // [2^(mbits-1), 2^mbits)
      const int e = 31 + i % (emax - 31 + 1);                              // |x| in [2^e, 2^(e+1))
      const double x = std::ldexp(m, e - (mbits - 1));
      cols[0].push_back(round_float(dt, (r & 1) ? -x : x));
    }
    Case c;
    c.name = fmt::format("SIN {} of large arguments", dt.name());
    ASSERT_TRUE(build(c, Op::Sin, {dt}, dt, cols)) << c.name;
    expect_agree(c, conf);
  }
}

// TRUNC at every magnitude of each float type (random mantissas, halves, negatives), and
// SIN between 2^20 and 2^31 (where the reduction by pi/2 rounds a large quotient): rounding
// builtins of some drivers go wrong only above 2^23 (lavapipe returned a double unchanged).
inline void rounding_at_every_magnitude_agrees(const Conformance& conf) {
  uint64_t state = 777;
  auto next = [&state] { return splitmix64(state); };
  for (DType dt : {dtypes::Float64, dtypes::Float32, dtypes::Float16}) {
    const int mbits = dt == dtypes::Float64 ? 53 : (dt == dtypes::Float32 ? 24 : 11);
    std::vector<std::vector<Value>> cols(1);
    for (int e = -2; e <= mbits + 1; ++e)  // |x| in [2^e, 2^(e+1))
      for (int i = 0; i < 6; ++i) {
        const uint64_t r = next();
        const double m = static_cast<double>((r >> (64 - mbits)) | (uint64_t{1} << (mbits - 1)));
        double x = std::ldexp(m, e - (mbits - 1));
        if (i == 0) x = std::ldexp(1.0, e) + 0.5;  // a half above a power of two
        cols[0].push_back(round_float(dt, (r & 1) ? -x : x));
      }
    Case c;
    c.name = fmt::format("TRUNC {} at every magnitude", dt.name());
    ASSERT_TRUE(build(c, Op::Trunc, {dt}, dt, cols)) << c.name;
    expect_agree(c, conf);
  }
  std::vector<std::vector<Value>> cols(1);
  for (int i = 0; i < 512; ++i) {
    const uint64_t r = next();
    const double x = std::ldexp(static_cast<double>(r >> 11), 20 + i % 11 - 53);  // [0, 2^31)
    cols[0].push_back(Value::of_float((r & 1) ? -x : x));
  }
  Case c;
  c.name = "SIN float64 between 2^20 and 2^31";
  ASSERT_TRUE(build(c, Op::Sin, {dtypes::Float64}, dtypes::Float64, cols)) << c.name;
  expect_agree(c, conf);
}

inline void every_cast_agrees(const Conformance& conf) {
  int tested = 0;
  for (Op op : {Op::Cast, Op::Bitcast})
    for (DType from : value_dtypes())
      for (DType to : value_dtypes()) {
        std::vector<std::vector<Value>> cols(1);
        for (Value v : edge_values(from)) {
          Value r;
          if (eval_alu(op, from, to, &v, r) == EvalError::None) cols[0].push_back(v);
        }
        Case c;
        c.name = fmt::format("{} {} -> {}", op_name(op), from.name(), to.name());
        if (!build(c, op, {from}, to, cols)) continue;
        ++tested;
        expect_agree(c, conf);
      }
  EXPECT_GE(tested, 160);
}

// out[k] = CAST(CAST(a[k], float type), integer type) for integers next to the powers of
// two where the float's significand runs out (2^11, 2^24, 2^53) and at the type's limits: a
// compiler that folds the round trip back to the integer is wrong exactly there (lavapipe
// folded uint32 16777219 -> float32 -> uint32 to 16777219; float32 holds 16777220).
inline void integer_float_round_trips_agree(const Conformance& conf) {
  int tested = 0;
  for (DType from : value_dtypes()) {
    if (from.is_float() || from.is_bool() || from.is_index()) continue;
    for (DType to : value_dtypes()) {
      if (!to.is_float()) continue;
      std::vector<Value> vals;
      const bool is_unsigned = from.kind() == ir::DTypeKind::Unsigned;
      const __int128 max =
          is_unsigned ? (__int128{1} << from.bits()) - 1 : static_cast<__int128>(from.int_max());
      auto add = [&](__int128 v) {
        if (v < (is_unsigned ? 0 : from.int_min()) || v > max) return;
        const Value x = is_unsigned ? Value::of_uint(static_cast<uint64_t>(v))
                                    : Value::of_int(static_cast<int64_t>(v));
        Value f, back;
        if (eval_alu(Op::Cast, from, to, &x, f) != EvalError::None) return;
        if (eval_alu(Op::Cast, to, from, &f, back) != EvalError::None) return;
        vals.push_back(x);
      };
      for (int e : {11, 12, 24, 25, 53, 54, 62, 63})
        for (int d : {-3, -1, 0, 1, 3, 5}) {
          add((__int128{1} << e) + d);
          add(-(__int128{1} << e) - d);
        }
      add(is_unsigned ? 0 : from.int_min());
      add(max);
      if (vals.empty()) continue;
      Case c;
      c.name = fmt::format("CAST {} -> {} -> {}", from.name(), to.name(), from.name());
      Context& x = c.ctx;
      const int64_t n = static_cast<int64_t>(vals.size());
      UOp r = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)},
                     RangeArg{{0}, AxisType::Loop});
      UOp a = x.make(Op::Param, from, {}, ParamArg{1, n, false});
      UOp v = x.make(Op::Load, from, {x.make(Op::Index, from, {a, r})});
      v = x.make(Op::Cast, from, {x.make(Op::Cast, to, {v})});
      UOp o = x.make(Op::Param, from, {}, ParamArg{0, n, true});
      UOp st = x.make(Op::Store, dtypes::Void, {x.make(Op::Index, from, {o, r}), v});
      c.root = x.make(Op::Sink, dtypes::Void, {x.make(Op::End, dtypes::Void, {st, r})});
      ASSERT_TRUE(verify(c.root).empty()) << c.name;
      Buffer b(from, static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) b.set(static_cast<size_t>(k), vals[static_cast<size_t>(k)]);
      c.inputs.buffers[1] = std::move(b);
      ++tested;
      expect_agree(c, conf);
    }
  }
  EXPECT_GE(tested, 24);  // 8 integer types x 3 float types
}

inline void every_reduce_agrees(const Conformance& conf) {
  for (Op rop : {Op::Add, Op::Mul, Op::Max, Op::Min})
    for (DType dt : value_dtypes()) {
      // bool reduces are any (MAX) and all (MIN) only
      if (dt.is_index() || (dt.is_bool() && rop != Op::Max && rop != Op::Min)) continue;
      Case c;
      c.name = fmt::format("REDUCE {} {}", op_name(rop), dt.name());
      Context& x = c.ctx;
      std::vector<Value> vals = edge_values(dt);
      if (dt.is_bool()) {  // suffixes giving both results: any ends on false, all on true
        vals.clear();
        for (int64_t v : {1, 0, 1, 1, 0, 0}) vals.push_back(Value::of_int(rop == Op::Max ? v : !v));
      }
      if (rop == Op::Mul && dt.is_float()) vals.resize(8);  // keep products finite and interesting
      const int64_t n = static_cast<int64_t>(vals.size());
      // out[j] = REDUCE over r of a[(r + j) % n] for r < n - j: every suffix, so NaN,
      // -0 and the extremes meet every neighbour.
      UOp a = x.make(Op::Param, dt, {}, ParamArg{1, n, false});
      UOp j = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)},
                     RangeArg{{0}, AxisType::Loop});
      UOp r = x.make(Op::Range, dtypes::Index,
                     {x.make(Op::Sub, dtypes::Index, {x.const_int(dtypes::Index, n), j})},
                     RangeArg{{1}, AxisType::Reduce});
      (void)r;
      // Range ends may not depend on ranges: use a full range and a gate instead.
      UOp rr = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)},
                      RangeArg{{1}, AxisType::Reduce});
      UOp idx = x.make(Op::Add, dtypes::Index, {rr, j});
      UOp valid = x.make(Op::CmpLt, dtypes::Bool, {idx, x.const_int(dtypes::Index, n)});
      UOp gated = x.make(Op::Where, dtypes::Index, {valid, idx, x.invalid()});
      UOp ld =
          x.make(Op::Load, dt,
                 {x.make(Op::Index, dt, {a, gated}), x.const_value(dt, reduce_identity(rop, dt))});
      UOp red = x.make(Op::Reduce, dt, {ld, rr}, ReduceArg{rop});
      UOp o = x.make(Op::Param, dt, {}, ParamArg{0, n, true});
      UOp st = x.make(Op::Store, dtypes::Void, {x.make(Op::Index, dt, {o, j}), red});
      c.root = x.make(Op::Sink, dtypes::Void, {x.make(Op::End, dtypes::Void, {st, j})});
      auto errors = verify(c.root);
      ASSERT_TRUE(errors.empty()) << c.name << ": " << errors[0].message;
      Buffer b(dt, static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) b.set(static_cast<size_t>(k), vals[static_cast<size_t>(k)]);
      c.inputs.buffers[1] = b;
      expect_agree(c, conf);
    }
}

inline void every_example_agrees(const Conformance& conf) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(UOPFUZZ_SOURCE_DIR) / "corpus/examples")) {
    if (e.path().extension() != ".uop") continue;  // tensor/ holds tensor programs
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    Case c;
    c.name = e.path().filename().string();
    auto k = parse_kernel(c.ctx, ss.str());
    ASSERT_TRUE(k.ok()) << c.name;
    c.root = k->kernel.root;
    for (uint64_t seed = 0; seed < 3; ++seed) {
      std::map<std::string, int64_t> vars(k->kernel.header.vars.begin(),
                                          k->kernel.header.vars.end());
      c.inputs = oracle::make_inputs(c.root, seed, vars);
      auto ref = oracle::run(c.root, c.inputs);
      if (!ref.ok() || ref->status != oracle::RunStatus::Ok)
        continue;  // UB examples are the oracle's
      expect_agree(c, conf);
      ++n;
    }
  }
  EXPECT_GT(n, 40);
}

// Kernels of real sizes: 10^4..10^6 loop iterations per element or per invocation,
// REDUCEs over them, long store loops. Each agrees with the oracle, or the backend
// refuses it as unsupported, naming the device limit (lavapipe's loop limit once gave
// truncated sums here). Returns how many the backend ran.
inline int large_kernels_agree(const Conformance& conf) {
  const char* kernels[] = {
      // int32 sum over 70000 loads, one invocation
      "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n"
      "%3 = PARAM slot=1 size=1000 in : int32\n%4 = CONST 70000 : index\n"
      "%5 = RANGE %4 axis=0 REDUCE : index\n%6 = CONST 1000 : index\n"
      "%7 = FLOORMOD %5 %6 : index\n%8 = INDEX %3 %7 : int32\n%9 = LOAD %8 : int32\n"
      "%10 = REDUCE %9 %5 op=ADD : int32\n%11 = STORE %2 %10 : void\n%12 = SINK %11 : void\n",
      // out[i] = sum_{r < 10^5} int64(r + i) for i < 8
      "%0 = PARAM slot=0 size=8 out : int64\n%1 = CONST 8 : index\n"
      "%2 = RANGE %1 axis=0 LOOP : index\n%3 = INDEX %0 %2 : int64\n"
      "%4 = CONST 100000 : index\n%5 = RANGE %4 axis=1 REDUCE : index\n"
      "%6 = ADD %5 %2 : index\n%7 = CAST %6 : int64\n%8 = REDUCE %7 %5 op=ADD : int64\n"
      "%9 = STORE %3 %8 : void\n%10 = END %9 %2 : void\n%11 = SINK %10 : void\n",
      // float32 MAX over a 400 x 400 nest of loads
      "%0 = PARAM slot=0 size=1 out : float32\n%1 = CONST 0 : index\n"
      "%2 = INDEX %0 %1 : float32\n%3 = PARAM slot=1 size=1000 in : float32\n"
      "%4 = CONST 400 : index\n%5 = RANGE %4 axis=0 REDUCE : index\n"
      "%6 = RANGE %4 axis=1 REDUCE : index\n%7 = MUL %5 %4 : index\n%8 = ADD %7 %6 : index\n"
      "%9 = CONST 1000 : index\n%10 = FLOORMOD %8 %9 : index\n%11 = INDEX %3 %10 : float32\n"
      "%12 = LOAD %11 : float32\n%13 = REDUCE %12 %5 %6 op=MAX : float32\n"
      "%14 = STORE %2 %13 : void\n%15 = SINK %14 : void\n",
      // a store loop of 3 * 10^5 elements
      "%0 = PARAM slot=0 size=300000 out : int32\n%1 = PARAM slot=1 size=1000 in : int32\n"
      "%2 = CONST 300000 : index\n%3 = RANGE %2 axis=0 LOOP : index\n"
      "%4 = CONST 1000 : index\n%5 = FLOORMOD %3 %4 : index\n%6 = INDEX %1 %5 : int32\n"
      "%7 = LOAD %6 : int32\n%8 = CAST %3 : int32\n%9 = ADD %7 %8 : int32\n"
      "%10 = INDEX %0 %3 : int32\n%11 = STORE %10 %9 : void\n%12 = END %11 %3 : void\n"
      "%13 = SINK %12 : void\n",
      // uint32 MIN over 10^6 values of a hash of the range
      "%0 = PARAM slot=0 size=1 out : uint32\n%1 = CONST 0 : index\n"
      "%2 = INDEX %0 %1 : uint32\n%3 = CONST 1000000 : index\n"
      "%4 = RANGE %3 axis=0 REDUCE : index\n%5 = CAST %4 : uint32\n"
      "%6 = CONST 2654435761 : uint32\n%7 = MUL %5 %6 : uint32\n"
      "%8 = REDUCE %7 %4 op=MIN : uint32\n%9 = STORE %2 %8 : void\n%10 = SINK %9 : void\n",
  };
  backends::Backend* be = backends::find_backend(conf.backend);
  int ran = 0, index = 0;
  for (const char* text : kernels) {
    Case c;
    c.name = fmt::format("large kernel {}", index++);
    auto k = parse_kernel(c.ctx, text);
    EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message) << "\n" << text;
    if (!k.ok()) continue;
    c.root = k->kernel.root;
    c.inputs = oracle::make_inputs(c.root, 0, {});
    auto compiled = be->compile(c.root);
    if (!compiled.ok()) {
      EXPECT_TRUE(backends::is_unsupported(compiled.error())) << compiled.error().message;
      EXPECT_NE(compiled.error().message.find("limit"), std::string::npos)
          << "a refusal names the device limit: " << compiled.error().message;
      continue;
    }
    expect_agree(c, conf);
    ++ran;
  }
  return ran;
}

// One graph built in two Contexts compiles once: the second compile is a cache hit that
// returns the same kernel, which still runs.
inline void caches_kernels_by_graph(const Conformance& conf) {
  Context a, b;
  const char* text =
      "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n"
      "%3 = CONST 7 : int32\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n";
  auto ka = parse_kernel(a, text);
  auto kb = parse_kernel(b, text);
  backends::Backend* be = backends::find_backend(conf.backend);
  ASSERT_NE(be->kernel_cache(), nullptr) << conf.backend << " keeps no kernel cache";
  const uint64_t hits = be->kernel_cache()->stats().hits;
  auto c1 = be->compile(ka->kernel.root);
  auto c2 = be->compile(kb->kernel.root);  // another Context, the same graph
  ASSERT_TRUE(c1.ok() && c2.ok()) << (c1.ok() ? c2.error().message : c1.error().message);
  EXPECT_EQ(c1.value().get(), c2.value().get());
  EXPECT_EQ(be->kernel_cache()->stats().hits, hits + 1);
  auto out = c2.value()->run({});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->outputs.at(0).get(0).i, 7);
  if (conf.after_each) conf.after_each();
}

}  // namespace uopfuzz::test_support
