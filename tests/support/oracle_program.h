/** \file The oracle whole-program tests' fixture (tests/oracle_program*_test.cpp): compile
 * and run .uop text on oracle::Program, read buffers back, and the one-range REDUCE kernel. */
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/parser.h"
#include "oracle/interpreter.h"

namespace uopfuzz::oracle::program_test {

using namespace ir;
using I64s = std::vector<int64_t>;

// gtest only (no gmock): substring checks that print the whole text on failure.
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

inline constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();

class OracleProgram : public ::testing::Test {
 protected:
  Context ctx_;

  UOp parse(const std::string& text) {
    auto r = parse_kernel(ctx_, text);
    if (!r) {
      ADD_FAILURE() << "parse error at line " << r.error().loc.line << ":" << r.error().loc.col
                    << ": " << r.error().message << "\n"
                    << text;
      return UOp();
    }
    return r->kernel.root;
  }

  Program compile(const std::string& text) {
    UOp root = parse(text);
    auto p = Program::compile(root);
    if (!p) {
      ADD_FAILURE() << "compile error: " << p.error().message << "\n" << text;
      throw std::runtime_error("no program");  // gtest reports the test as failed
    }
    return std::move(p.value());
  }

  RunOutput run(const std::string& text, const Inputs& in = {}, const RunOptions& opts = {}) {
    Program p = compile(text);
    auto out = p.run(in, opts);
    if (!out) {
      ADD_FAILURE() << "run error: " << out.error().message;
      return RunOutput{};
    }
    return std::move(out.value());
  }

  // The unique node of `op` in the graph of `root` (the UB report's node is compared to it).
  static UOp unique(UOp root, Op op) {
    UOp found;
    for (UOp u : toposort(root))
      if (u.op() == op) {
        EXPECT_FALSE(found) << "more than one " << op_name(op);
        found = u;
      }
    EXPECT_TRUE(found) << "no " << op_name(op);
    return found;
  }
  static UOp range_axis(UOp root, int axis) {
    for (UOp u : toposort(root))
      if (u.op() == Op::Range && u.arg<RangeArg>().axis[0] == axis) return u;
    ADD_FAILURE() << "no RANGE with axis " << axis;
    return UOp();
  }
};

inline std::vector<int64_t> ints(const Buffer& b) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).i);
  return v;
}
inline std::vector<uint64_t> uints(const Buffer& b) {
  std::vector<uint64_t> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).u);
  return v;
}
inline std::vector<double> floats(const Buffer& b) {
  std::vector<double> v;
  for (size_t i = 0; i < b.size(); ++i) v.push_back(b.get(i).f);
  return v;
}

inline Buffer int_buffer(DType dt, std::vector<int64_t> values) {
  Buffer b(dt, values.size());
  for (size_t i = 0; i < values.size(); ++i) b.set(i, wrap_int(dt, values[i]));
  return b;
}
inline Buffer float_buffer(DType dt, std::vector<double> values) {
  Buffer b(dt, values.size());
  for (size_t i = 0; i < values.size(); ++i) b.set(i, Value::of_float(values[i]));
  return b;
}

// out[0] = REDUCE op over r < end of CAST(r*a + b).
inline std::string reduce1(const char* op, const char* dt, int end, int a, int b) {
  return fmt::format(R"(
%out = PARAM slot=0 size=1 out : {dt}
%c0 = CONST 0 : index
%ix = INDEX %out %c0 : {dt}
%end = CONST {end} : index
%a = CONST {a} : index
%b = CONST {b} : index
%r = RANGE %end axis=0 REDUCE : index
%m = MUL %r %a : index
%x = ADD %m %b : index
%v = CAST %x : {dt}
%red = REDUCE %v %r op={op} : {dt}
%st = STORE %ix %red : void
%s = SINK %st : void
)",
                     fmt::arg("dt", dt), fmt::arg("end", end), fmt::arg("a", a), fmt::arg("b", b),
                     fmt::arg("op", op));
}

}  // namespace uopfuzz::oracle::program_test
