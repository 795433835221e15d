// The IR verifier: each rule in verify_rules.def is triggered by a small bad graph and
// reported exactly once, on the offending node; well-formed graphs give no errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "random_graph.h"

namespace uopfuzz::ir {
namespace {

/// A bad graph: from text with the offending node named `%bad`, or from a builder
/// returning {root, offending node}.
struct VerifyCase {
  std::string name;
  VerifyRule rule;
  std::string text;
  std::function<std::pair<UOp, UOp>(Context&)> build;
  std::string message;  ///< a substring of the expected message
};

/// A kernel that stores VALUE into a one-element output of dtype DT; BODY defines VALUE.
std::string store_of(std::string_view dt, std::string_view body, std::string_view value = "%bad") {
  std::string d(dt);
  return "%out = PARAM slot=0 size=1 out : " + d +
         "\n%zero = CONST 0 : index\n%at = INDEX %out %zero : " + d + "\n" + std::string(body) +
         "\n%st = STORE %at " + std::string(value) + " : void\n%sink = SINK %st : void\n";
}

ParamArg param_arg(int slot, bool out, int64_t size = 4) {
  ParamArg p;
  p.slot = slot;
  p.size = size;
  p.output = out;
  return p;
}

/// {root, bad} for a graph that stores `value` into a fresh int32 output of size 4.
std::pair<UOp, UOp> store_built(Context& ctx, UOp value, UOp bad, DType dt = dtypes::Int32) {
  UOp out = ctx.make(Op::Param, dt, {}, param_arg(0, true));
  UOp at = ctx.make(Op::Index, dt, {out, ctx.const_int(dtypes::Index, 0)});
  return {ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::Store, dtypes::Void, {at, value})}), bad};
}

const std::vector<VerifyCase>& cases() {
  static const std::vector<VerifyCase> all = [] {
    std::vector<VerifyCase> v;
    auto text = [&](std::string name, VerifyRule rule, std::string t, std::string msg) {
      v.push_back({std::move(name), rule, std::move(t), nullptr, std::move(msg)});
    };
    auto built = [&](std::string name, VerifyRule rule,
                     std::function<std::pair<UOp, UOp>(Context&)> b, std::string msg) {
      v.push_back({std::move(name), rule, "", std::move(b), std::move(msg)});
    };

    // ---- root
    text("sink_of_a_const", VerifyRule::Root, "%c = CONST 1 : int32\n%bad = SINK %c : void\n",
         "SINK sources must be STORE or END, got CONST");
    built(
        "root_is_not_a_sink", VerifyRule::Root,
        [](Context& ctx) {
          UOp add = ctx.make(Op::Add, dtypes::Int32,
                             {ctx.const_int(dtypes::Int32, 1), ctx.const_int(dtypes::Int32, 2)});
          return std::pair{add, add};
        },
        "the root must be a SINK");

    // ---- arity (the parser refuses these, so build them)
    built(
        "add_with_one_source", VerifyRule::Arity,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Add, dtypes::Int32, {ctx.const_int(dtypes::Int32, 1)});
          return store_built(ctx, bad, bad);
        },
        "ADD has 1 sources");
    built(
        "range_without_end", VerifyRule::Arity,
        [](Context& ctx) {
          // Regression: the scope pass read src(0) of this RANGE.
          UOp r = ctx.make(Op::Range, dtypes::Index, {}, RangeArg{{0}, AxisType::Loop});
          UOp out = ctx.make(Op::Param, dtypes::Int32, {}, param_arg(0, true));
          UOp st = ctx.make(
              Op::Store, dtypes::Void,
              {ctx.make(Op::Index, dtypes::Int32, {out, r}), ctx.const_int(dtypes::Int32, 1)});
          return std::pair{
              ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, r})}), r};
        },
        "RANGE has 0 sources");
    built(
        "index_without_sources", VerifyRule::Arity,
        [](Context& ctx) {
          // Regression: STORE checks read the INDEX's buffer.
          UOp idx = ctx.make(Op::Index, dtypes::Int32, {});
          UOp st = ctx.make(Op::Store, dtypes::Void, {idx, ctx.const_int(dtypes::Int32, 1)});
          return std::pair{ctx.make(Op::Sink, dtypes::Void, {st}), idx};
        },
        "INDEX has 0 sources");
    built(
        "store_with_one_source", VerifyRule::Arity,
        [](Context& ctx) {
          UOp out = ctx.make(Op::Param, dtypes::Int32, {}, param_arg(0, true));
          UOp st = ctx.make(
              Op::Store, dtypes::Void,
              {ctx.make(Op::Index, dtypes::Int32, {out, ctx.const_int(dtypes::Index, 0)})});
          return std::pair{ctx.make(Op::Sink, dtypes::Void, {st}), st};
        },
        "STORE has 1 sources");

    // ---- dtype
    text(
        "add_of_int_and_float", VerifyRule::DType,
        store_of("int32", "%i = CONST 1 : int32\n%f = CONST 1 : float32\n%bad = ADD %i %f : int32"),
        "ADD operands must share one dtype (int32 vs float32)");
    text("comparison_not_bool", VerifyRule::DType,
         store_of("int32", "%i = CONST 1 : int32\n%bad = CMPLT %i %i : int32"),
         "CMPLT yields bool, not int32");
    text("where_condition_not_bool", VerifyRule::DType,
         store_of("int32", "%i = CONST 1 : int32\n%bad = WHERE %i %i %i : int32"),
         "WHERE condition must be bool");
    text("sqrt_of_int", VerifyRule::DType,
         store_of("int32", "%i = CONST 4 : int32\n%bad = SQRT %i : int32"),
         "SQRT needs a float operand, got int32");
    text("bitcast_size_change", VerifyRule::DType,
         store_of("int64", "%i = CONST 4 : int32\n%bad = BITCAST %i : int64"),
         "BITCAST needs two fixed-size");
    text("add_on_bool", VerifyRule::DType,
         store_of("bool", "%b = CONST true : bool\n%bad = ADD %b %b : bool"),
         "ADD is not defined on bool");
    text("store_of_wrong_dtype", VerifyRule::DType,
         "%out = PARAM slot=0 size=1 out : int32\n%zero = CONST 0 : index\n%at = INDEX %out %zero "
         ": int32\n"
         "%f = CONST 1.5 : float32\n%bad = STORE %at %f : void\n%sink = SINK %bad : void\n",
         "STORE of float32 into a buffer of int32");
    text("neg_changes_dtype", VerifyRule::DType,
         store_of("float32", "%i = CONST 1 : int32\n%bad = NEG %i : float32"),
         "NEG of int32 cannot yield float32");

    // ---- const
    built(
        "int8_const_not_wrapped", VerifyRule::ConstValue,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Const, dtypes::Int8, {}, ConstArg{Value::of_int(200)});
          return store_built(ctx, bad, bad, dtypes::Int8);
        },
        "CONST value is not canonical for int8");
    built(
        "float32_const_not_rounded", VerifyRule::ConstValue,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Const, dtypes::Float32, {}, ConstArg{Value::of_float(0.1)});
          return store_built(ctx, bad, bad, dtypes::Float32);
        },
        "CONST value is not canonical for float32");
    text("invalid_not_index", VerifyRule::ConstValue,
         "%out = PARAM slot=0 size=4 out : int32\n%c = CONST 1 : index\n%t = CONST true : bool\n"
         "%bad = INVALID : int32\n%g = WHERE %t %c %bad : index\n%at = INDEX %out %g : int32\n"
         "%v = CONST 1 : int32\n%st = STORE %at %v : void\n%sink = SINK %st : void\n",
         "INVALID must have dtype index");

    // ---- param
    text("duplicate_slot", VerifyRule::Param,
         store_of("int32",
                  "%bad = PARAM slot=0 size=1 in : int32\n%ia = INDEX %bad %zero : int32\n%v = "
                  "LOAD %ia : int32",
                  "%v"),
         "duplicate PARAM slot 0");
    text("size_zero", VerifyRule::Param,
         "%bad = PARAM slot=0 size=0 out : int32\n%zero = CONST 0 : index\n%at = INDEX %bad %zero "
         ": int32\n"
         "%v = CONST 1 : int32\n%st = STORE %at %v : void\n%sink = SINK %st : void\n",
         "PARAM size 0 is outside 1..2^31");
    text("size_too_big", VerifyRule::Param,
         "%bad = PARAM slot=0 size=2147483649 out : int32\n%zero = CONST 0 : index\n%at = INDEX "
         "%bad %zero : int32\n"
         "%v = CONST 1 : int32\n%st = STORE %at %v : void\n%sink = SINK %st : void\n",
         "PARAM size 2147483649 is outside 1..2^31");
    text("vmin_above_vmax", VerifyRule::Param,
         store_of(
             "int32",
             "%bad = PARAM slot=1 size=1 in vmin=5 vmax=4 : int32\n%ia = INDEX %bad %zero : int32\n"
             "%v = LOAD %ia : int32",
             "%v"),
         "PARAM vmin > vmax");
    text("bounds_on_float_buffer", VerifyRule::Param,
         store_of(
             "float32",
             "%bad = PARAM slot=1 size=1 in vmin=0 : float32\n%ia = INDEX %bad %zero : float32\n"
             "%v = LOAD %ia : float32",
             "%v"),
         "vmin/vmax/multiple_of are only for integer buffers");
    text("bounds_outside_dtype", VerifyRule::Param,
         store_of("int8",
                  "%bad = PARAM slot=1 size=1 in vmax=200 : int8\n%ia = INDEX %bad %zero : int8\n"
                  "%v = LOAD %ia : int8",
                  "%v"),
         "PARAM bounds exceed int8");

    built(
        "slot_the_format_cannot_spell", VerifyRule::Param,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Param, dtypes::Int32, {}, param_arg(5000, true));
          UOp at = ctx.make(Op::Index, dtypes::Int32, {bad, ctx.const_int(dtypes::Index, 0)});
          return std::pair{
              ctx.make(Op::Sink, dtypes::Void,
                       {ctx.make(Op::Store, dtypes::Void, {at, ctx.const_int(dtypes::Int32, 1)})}),
              bad};
        },
        "PARAM slot 5000 is outside 0..4096");

    // ---- var
    built(
        "var_name_not_an_identifier", VerifyRule::Var,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Var, dtypes::Int32, {}, VarArg{"two words", 0, 3, {}});
          return store_built(ctx, bad, bad);
        },
        "VAR name must be 1 to 256 of [A-Za-z0-9_.-]");
    built(
        "var_name_empty", VerifyRule::Var,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Var, dtypes::Int32, {}, VarArg{"", 0, 3, {}});
          return store_built(ctx, bad, bad);
        },
        "VAR name must be");
    text("var_min_above_max", VerifyRule::Var,
         store_of("int32", "%bad = VAR name=n min=5 max=1 : int32"), "VAR n has min 5 > max 1");
    text("two_vars_one_name", VerifyRule::Var,
         store_of("int32",
                  "%a = VAR name=n min=0 max=3 : int32\n%bad = VAR name=n min=0 max=4 : int32\n"
                  "%s = ADD %a %bad : int32",
                  "%s"),
         "two different VARs are named n");
    text("float_var", VerifyRule::Var,
         store_of("float32", "%bad = VAR name=x min=0 max=1 : float32"),
         "VAR must be an integer, got float32");
    text("var_bounds_outside_dtype", VerifyRule::Var,
         store_of("uint8", "%bad = VAR name=x min=0 max=256 : uint8"), "VAR x bounds exceed uint8");

    // ---- range
    text("range_end_not_index", VerifyRule::Range,
         "%out = PARAM slot=0 size=4 out : int32\n%n = CONST 4 : int32\n%bad = RANGE %n axis=0 "
         "LOOP : index\n"
         "%at = INDEX %out %bad : int32\n%v = CONST 1 : int32\n%st = STORE %at %v : void\n"
         "%e = END %st %bad : void\n%sink = SINK %e : void\n",
         "RANGE end must have dtype index");
    text("range_end_depends_on_range", VerifyRule::Range,
         "%out = PARAM slot=0 size=16 out : int32\n%n = CONST 4 : index\n%r0 = RANGE %n axis=0 "
         "LOOP : index\n"
         "%m = ADD %r0 %n : index\n%bad = RANGE %m axis=1 LOOP : index\n%i = ADD %r0 %bad : index\n"
         "%at = INDEX %out %i : int32\n%v = CONST 1 : int32\n%st = STORE %at %v : void\n"
         "%e = END %st %r0 %bad : void\n%sink = SINK %e : void\n",
         "RANGE end depends on a range");

    built(
        "negative_axis_id", VerifyRule::Range,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Range, dtypes::Index, {ctx.const_int(dtypes::Index, 4)},
                             RangeArg{{2, -1}, AxisType::Loop});
          UOp out = ctx.make(Op::Param, dtypes::Int32, {}, param_arg(0, true));
          UOp st = ctx.make(
              Op::Store, dtypes::Void,
              {ctx.make(Op::Index, dtypes::Int32, {out, bad}), ctx.const_int(dtypes::Int32, 1)});
          return std::pair{
              ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, bad})}), bad};
        },
        "RANGE axis ids must be >= 0, at most 16 of them");

    // ---- memory
    text("store_to_input", VerifyRule::Memory,
         "%in = PARAM slot=0 size=1 in : int32\n%zero = CONST 0 : index\n%at = INDEX %in %zero : "
         "int32\n"
         "%v = CONST 1 : int32\n%bad = STORE %at %v : void\n%sink = SINK %bad : void\n",
         "STORE to an input buffer");
    text("load_from_output", VerifyRule::Memory, store_of("int32", "%bad = LOAD %at : int32"),
         "LOAD from an output buffer");
    text("index_into_a_const", VerifyRule::Memory,
         store_of("int32",
                  "%c = CONST 1 : int32\n%bad = INDEX %c %zero : int32\n%v = LOAD %bad : int32",
                  "%v"),
         "INDEX buffer must be a PARAM, got CONST");
    text("index_not_index_typed", VerifyRule::Memory,
         "%out = PARAM slot=0 size=1 out : int32\n%i = CONST 0 : int32\n%bad = INDEX %out %i : "
         "int32\n"
         "%v = CONST 1 : int32\n%st = STORE %bad %v : void\n%sink = SINK %st : void\n",
         "INDEX index must have dtype index, got int32");
    text("param_used_by_add", VerifyRule::Memory,
         store_of("int32", "%bad = PARAM slot=1 size=1 in : int32\n%w = NEG %bad : int32", "%w"),
         "PARAM is used by NEG");

    // ---- void-use
    text("index_used_by_add", VerifyRule::VoidUse,
         store_of("int32",
                  "%in = PARAM slot=1 size=1 in : int32\n%bad = INDEX %in %zero : int32\n%one = "
                  "CONST 1 : int32\n"
                  "%s = ADD %bad %one : int32",
                  "%s"),
         "INDEX is used by ADD");
    text("index_as_load_alternative", VerifyRule::VoidUse,
         store_of("int32",
                  "%in = PARAM slot=1 size=1 in : int32\n%ia = INDEX %in %zero : int32\n"
                  "%in2 = PARAM slot=2 size=1 in : int32\n%bad = INDEX %in2 %zero : int32\n%v = "
                  "LOAD %ia %bad : int32",
                  "%v"),
         "INDEX is used by LOAD");

    // ---- closer
    text(
        "reduce_lists_range_twice", VerifyRule::Closer,
        store_of("int32",
                 "%n = CONST 4 : index\n%r = RANGE %n axis=0 REDUCE : index\n%c = CAST %r : int32\n"
                 "%bad = REDUCE %c %r %r op=ADD : int32"),
        "REDUCE lists a RANGE twice");
    // bool reduces are any (MAX) and all (MIN): a bool sum or product is refused
    text("reduce_add_of_bool", VerifyRule::DType,
         store_of("bool",
                  "%n = CONST 4 : index\n%r = RANGE %n axis=0 REDUCE : index\n%z = CONST 0 : "
                  "index\n%b = CMPLT %z %r : bool\n%bad = REDUCE %b %r op=ADD : bool"),
         "REDUCE ADD of bool");
    text("max_of_bool", VerifyRule::DType,
         store_of("bool", "%b = CONST true : bool\n%bad = MAX %b %b : bool"),
         "MAX is not defined on bool");
    text("reduce_over_a_const", VerifyRule::Closer,
         store_of("int32",
                  "%n = CONST 4 : index\n%c = CONST 2 : int32\n%bad = REDUCE %c %n op=MUL : int32"),
         "REDUCE source 1 must be a RANGE, got CONST");
    text("end_of_a_load", VerifyRule::Closer,
         "%in = PARAM slot=1 size=4 in : int32\n%n = CONST 4 : index\n%r = RANGE %n axis=0 LOOP : "
         "index\n"
         "%ia = INDEX %in %r : int32\n%ld = LOAD %ia : int32\n%bad = END %ld %r : void\n%sink = "
         "SINK %bad : void\n",
         "END body must be a STORE or END, got LOAD");

    // ---- scope
    text("store_in_a_loop_without_end", VerifyRule::Scope,
         "%out = PARAM slot=0 size=4 out : int32\n%n = CONST 4 : index\n%r = RANGE %n axis=0 LOOP "
         ": index\n"
         "%at = INDEX %out %r : int32\n%v = CONST 1 : int32\n%bad = STORE %at %v : void\n%sink = "
         "SINK %bad : void\n",
         "STORE uses RANGE (axis 0) outside the END or REDUCE that closes it");
    text("end_closes_the_wrong_range", VerifyRule::Scope,
         "%out = PARAM slot=0 size=16 out : int32\n%n = CONST 4 : index\n%r0 = RANGE %n axis=0 "
         "LOOP : index\n"
         "%r1 = RANGE %n axis=1 LOOP : index\n%i = MUL %r0 %r1 : index\n%at = INDEX %out %i : "
         "int32\n"
         "%v = CONST 1 : int32\n%st = STORE %at %v : void\n%bad = END %st %r1 : void\n%sink = SINK "
         "%bad : void\n",
         "END uses RANGE (axis 0) outside");
    text(
        "reduce_range_used_after_reduce", VerifyRule::Scope,
        "%out = PARAM slot=0 size=1 out : int32\n%zero = CONST 0 : index\n%at = INDEX %out %zero : "
        "int32\n"
        "%n = CONST 4 : index\n%r = RANGE %n axis=2.1 REDUCE : index\n%c = CAST %r : int32\n"
        "%red = REDUCE %c %r op=ADD : int32\n%s = ADD %red %c : int32\n%bad = STORE %at %s : void\n"
        "%sink = SINK %bad : void\n",
        "STORE uses RANGE (axis 2.1)");

    // ---- nested-close
    text("end_closes_range_twice", VerifyRule::NestedClose,
         "%out = PARAM slot=0 size=4 out : int32\n%n = CONST 4 : index\n%r = RANGE %n axis=0 LOOP "
         ": index\n"
         "%at = INDEX %out %r : int32\n%v = CONST 1 : int32\n%st = STORE %at %v : void\n%e = END "
         "%st %r : void\n"
         "%bad = END %e %r : void\n%sink = SINK %bad : void\n",
         "END closes a RANGE (axis 0) that is already closed inside it");
    text(
        "reduce_inside_reduce_same_range", VerifyRule::NestedClose,
        store_of("int32",
                 "%n = CONST 4 : index\n%r = RANGE %n axis=3 REDUCE : index\n%c = CAST %r : int32\n"
                 "%in = REDUCE %c %r op=ADD : int32\n%bad = REDUCE %in %r op=MAX : int32"),
        "REDUCE closes a RANGE (axis 3) that is already closed inside it");

    // ---- gate
    text("gated_index_used_by_add", VerifyRule::Gate,
         "%out = PARAM slot=0 size=4 out : int32\n%zero = CONST 0 : index\n%t = CONST true : bool\n"
         "%inv = INVALID : index\n%bad = WHERE %t %zero %inv : index\n%i = ADD %bad %zero : index\n"
         "%at = INDEX %out %i : int32\n%v = CONST 1 : int32\n%st = STORE %at %v : void\n%sink = "
         "SINK %st : void\n",
         "a gated index WHERE(.., INVALID) is used by ADD");
    text("invalid_as_index", VerifyRule::Gate,
         "%out = PARAM slot=0 size=4 out : int32\n%bad = INVALID : index\n%at = INDEX %out %bad : "
         "int32\n"
         "%v = CONST 1 : int32\n%st = STORE %at %v : void\n%sink = SINK %st : void\n",
         "INVALID is used by INDEX");
    text("invalid_as_true_branch", VerifyRule::Gate,
         "%out = PARAM slot=0 size=4 out : int32\n%zero = CONST 0 : index\n%t = CONST true : bool\n"
         "%bad = INVALID : index\n%w = WHERE %t %bad %zero : index\n%at = INDEX %out %w : int32\n"
         "%v = CONST 1 : int32\n%st = STORE %at %v : void\n%sink = SINK %st : void\n",
         "INVALID is used by WHERE");

    // ---- tensor-op (more cases, on tensor programs: ir_tensor_verify_test.cpp)
    text("contiguous_in_a_kernel", VerifyRule::TensorOp,
         store_of("int32", "%v = CONST 5 : int32\n%bad = CONTIGUOUS %v : int32"),
         "CONTIGUOUS is a tensor-level op; kernels (rooted at SINK) cannot hold it");
    text("bufferize_in_a_kernel", VerifyRule::TensorOp,
         store_of("int32", "%v = CONST 5 : int32\n%bad = BUFFERIZE %v : int32"),
         "BUFFERIZE is a tensor-level op");

    // ---- shape
    // (The parser refuses a shape in a kernel, so build it.)
    built(
        "kernel_const_with_a_shape", VerifyRule::TensorShape,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Const, dtypes::Int32, {}, ConstArg{Value::of_int(5)}, {1});
          return store_built(ctx, bad, bad);
        },
        "a kernel node has no shape, got [1]");
    return v;
  }();
  return all;
}

/// Builds a case: {root, the node the error must be reported on}.
std::pair<UOp, UOp> materialize(Context& ctx, const VerifyCase& c) {
  if (c.build) return c.build(ctx);
  auto r = parse_kernel(ctx, c.text);
  EXPECT_TRUE(r.ok()) << c.name << ": " << r.error().loc.line << ":" << r.error().loc.col << " "
                      << r.error().message;
  if (!r.ok()) return {};
  // The offending node is the one defined on the line that starts with "%bad =".
  int bad_line = 0, line = 1;
  for (size_t pos = 0;; ++line) {
    if (c.text.compare(pos, 6, "%bad =") == 0) bad_line = line;
    const size_t nl = c.text.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  EXPECT_GT(bad_line, 0) << c.name << " has no %bad";
  for (const auto& [u, loc] : r->where)
    if (loc.line == bad_line) return {r->kernel.root, u};
  ADD_FAILURE() << c.name << ": %bad not found";
  return {};
}

std::string describe_errors(const std::vector<VerifyError>& errs) {
  std::string s;
  for (const auto& e : errs)
    s += "  [" + std::string(verify_rule_name(e.rule)) + "] " + e.message + " at " +
         describe(e.node) + "\n";
  return s;
}

void check_case(const VerifyCase& c) {
  SCOPED_TRACE(c.name);
  Context ctx;
  auto [root, bad] = materialize(ctx, c);
  ASSERT_TRUE(root && bad);
  auto errs = verify(root);
  ASSERT_EQ(errs.size(), 1u) << describe_errors(errs);
  EXPECT_EQ(errs[0].rule, c.rule) << describe_errors(errs);
  EXPECT_EQ(errs[0].node, bad) << describe_errors(errs);
  EXPECT_NE(errs[0].message.find(c.message), std::string::npos)
      << "'" << errs[0].message << "' lacks '" << c.message << "'";
}

int run_cases_for(VerifyRule rule) {
  int n = 0;
  for (const VerifyCase& c : cases())
    if (c.rule == rule) {
      check_case(c);
      ++n;
    }
  return n;
}

TEST(Verify, RootRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Root), 2);
}
TEST(Verify, ArityRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Arity), 3);
}
TEST(Verify, DTypeRule) {
  EXPECT_GE(run_cases_for(VerifyRule::DType), 5);
}
TEST(Verify, ConstRule) {
  EXPECT_GE(run_cases_for(VerifyRule::ConstValue), 3);
}
TEST(Verify, ParamRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Param), 4);
}
TEST(Verify, VarRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Var), 3);
}
TEST(Verify, RangeRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Range), 2);
}
TEST(Verify, MemoryRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Memory), 4);
}
TEST(Verify, VoidUseRule) {
  EXPECT_GE(run_cases_for(VerifyRule::VoidUse), 2);
}
TEST(Verify, CloserRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Closer), 3);
}
TEST(Verify, ScopeRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Scope), 3);
}
TEST(Verify, NestedCloseRule) {
  EXPECT_GE(run_cases_for(VerifyRule::NestedClose), 2);
}
TEST(Verify, GateRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Gate), 3);
}
TEST(Verify, TensorOpRuleInKernels) {
  EXPECT_GE(run_cases_for(VerifyRule::TensorOp), 2);
}
TEST(Verify, ShapeRuleInKernels) {
  EXPECT_GE(run_cases_for(VerifyRule::TensorShape), 1);
}

TEST(Verify, EveryRuleIsExercisedByACase) {
  std::set<VerifyRule> covered;
  std::set<std::string> names;
  for (const VerifyCase& c : cases()) {
    covered.insert(c.rule);
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
  }
  for (VerifyRule r : all_verify_rules())
    EXPECT_TRUE(covered.count(r)) << "no test case for verifier rule '" << verify_rule_name(r)
                                  << "'";
  EXPECT_EQ(covered.size(), all_verify_rules().size());
}

TEST(Verify, RuleNamesMatchTheRegistry) {
  std::vector<std::string> names;
  for (VerifyRule r : all_verify_rules()) names.emplace_back(verify_rule_name(r));
  EXPECT_EQ(names, (std::vector<std::string>{"root", "arity", "dtype", "const", "param", "var",
                                             "range", "memory", "void-use", "closer", "scope",
                                             "nested-close", "gate", "tensor-op", "shape"}));
  for (VerifyRule r : all_verify_rules()) EXPECT_FALSE(verify_rule_doc(r).empty());
}

TEST(Verify, BadArityNeverReadsMissingSources) {
  // Nodes of the wrong arity next to nodes whose checks look at their sources' sources.
  // Each is reported (under ASan these used to read past the end of a source list).
  Context ctx;
  UOp out = ctx.make(Op::Param, dtypes::Int32, {}, param_arg(0, true));
  UOp t = ctx.const_bool(true);
  UOp inv = ctx.invalid();
  UOp where2 = ctx.make(Op::Where, dtypes::Index, {t, inv});  // WHERE with 2 sources
  UOp gated = ctx.make(Op::Where, dtypes::Index, {t, ctx.const_int(dtypes::Index, 0), inv});
  UOp index1 = ctx.make(Op::Index, dtypes::Int32, {gated});  // INDEX with 1 source
  UOp ld = ctx.make(Op::Load, dtypes::Int32, {index1});
  UOp idx_ok = ctx.make(Op::Index, dtypes::Int32, {out, where2});
  UOp root = ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::Store, dtypes::Void, {idx_ok, ld})});
  auto errs = verify(root);
  auto has = [&](VerifyRule r, UOp n) {
    return std::any_of(errs.begin(), errs.end(),
                       [&](const VerifyError& e) { return e.rule == r && e.node == n; });
  };
  EXPECT_TRUE(has(VerifyRule::Arity, where2)) << describe_errors(errs);
  EXPECT_TRUE(has(VerifyRule::Arity, index1)) << describe_errors(errs);
  // INVALID under a broken WHERE and a gated index under a broken INDEX are misuses too.
  EXPECT_TRUE(has(VerifyRule::Gate, inv)) << describe_errors(errs);
  EXPECT_TRUE(has(VerifyRule::Gate, gated)) << describe_errors(errs);
}

TEST(Verify, ErrorsComeInTopologicalOrder) {
  Context ctx;
  auto r =
      parse_kernel(ctx,
                   "%out = PARAM slot=0 size=1 out : int32\n%zero = CONST 0 : index\n"
                   "%at = INDEX %out %zero : int32\n%a = VAR name=n min=3 max=1 : int32\n"
                   "%f = CONST 1 : float32\n%b = ADD %a %f : int32\n%st = STORE %at %b : void\n"
                   "%sink = SINK %st : void\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto errs = verify(r->kernel.root);
  ASSERT_EQ(errs.size(), 2u) << describe_errors(errs);
  EXPECT_EQ(errs[0].rule, VerifyRule::Var);
  EXPECT_EQ(errs[1].rule, VerifyRule::DType);
  EXPECT_LT(errs[0].node.id(), errs[1].node.id());
}

TEST(Verify, NullRootHasNoErrors) {
  EXPECT_TRUE(verify(UOp()).empty());
}

TEST(Verify, WellFormedGraphsHaveNoErrors) {
  // The corpus examples.
  const std::filesystem::path dir =
      std::filesystem::path(UOPFUZZ_SOURCE_DIR) / "corpus" / "examples";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".uop") continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    Context ctx;
    auto r = parse_kernel(ctx, ss.str());
    ASSERT_TRUE(r.ok()) << e.path() << ": " << r.error().message;
    EXPECT_EQ(describe_errors(verify(r->kernel.root)), "") << e.path();
    ++files;
  }
  EXPECT_GE(files, 1);
  // Each bad case, repaired, is fine: e.g. the scope case with its END.
  {
    Context ctx;
    auto r = parse_kernel(
        ctx,
        "%out = PARAM slot=0 size=4 out : int32\n%n = CONST 4 : index\n"
        "%r = RANGE %n axis=0 LOOP : index\n%at = INDEX %out %r : int32\n%v = CONST 1 : int32\n"
        "%st = STORE %at %v : void\n%e = END %st %r : void\n%sink = SINK %e : void\n");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(describe_errors(verify(r->kernel.root)), "");
  }
  // An empty SINK is a valid (if useless) kernel.
  {
    Context ctx;
    EXPECT_TRUE(verify(ctx.make(Op::Sink, dtypes::Void, {})).empty());
  }
  // Random well-formed kernels.
  for (int i = 0; i < 200; ++i) {
    Context ctx;
    Kernel k = randgraph::RandomKernelBuilder(ctx, 1000 + static_cast<uint64_t>(i)).build(i);
    ASSERT_EQ(describe_errors(verify(k.root)), "") << print_kernel(k);
  }
}

}  // namespace
}  // namespace uopfuzz::ir

namespace uopfuzz::ir {
namespace {

// Graphs built in code can pair an op with the wrong kind of argument; the verifier
// reports that (rule arity) instead of throwing while reading the argument.
TEST(Verify, WrongArgumentKindIsReportedNotThrown) {
  Context ctx;
  UOp end = ctx.const_int(dtypes::Index, 4);
  UOp bad_range = ctx.make(Op::Range, dtypes::Index, {end});  // no RangeArg
  UOp out = ctx.make(Op::Param, dtypes::Int32, {}, ParamArg{0, 4, true});
  UOp st = ctx.make(
      Op::Store, dtypes::Void,
      {ctx.make(Op::Index, dtypes::Int32, {out, bad_range}), ctx.const_int(dtypes::Int32, 1)});
  UOp sink = ctx.make(Op::Sink, dtypes::Void, {ctx.make(Op::End, dtypes::Void, {st, bad_range})});
  std::vector<VerifyError> errors;
  ASSERT_NO_THROW(errors = verify(sink));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rule, VerifyRule::Arity);
  EXPECT_EQ(errors[0].node, bad_range);
  EXPECT_NE(errors[0].message.find("wrong kind of argument"), std::string::npos);
}

}  // namespace
}  // namespace uopfuzz::ir
