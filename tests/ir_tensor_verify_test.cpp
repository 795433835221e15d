// The verifier on tensor programs: each bad program is reported exactly once, on the
// offending node, under the rule that names the mistake; edge shapes that are fine (0 and
// 1 sized dims, rank 0, empty axis lists) give no error.

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "ir/verify.h"

namespace uopfuzz::ir {
namespace {

namespace t = tensor;

/// A bad program: text whose offending node is named `%bad`, or a builder returning
/// {root, offending node}.
struct TensorCase {
  std::string name;
  VerifyRule rule;
  std::string text;
  std::function<std::pair<UOp, UOp>(Context&)> build;
  std::string message;  ///< a substring of the expected message
};

/// A program reading `%x = PARAM slot=0 in : int32[3,4]`, with `body` after it, realizing %bad.
std::string on_x(std::string_view body) {
  return "%x = PARAM slot=0 in : int32[3,4]\n" + std::string(body) + "\n%r = REALIZE %bad : void\n";
}

const std::vector<TensorCase>& cases() {
  static const std::vector<TensorCase> all = [] {
    std::vector<TensorCase> v;
    auto text = [&](std::string name, VerifyRule rule, std::string t, std::string msg) {
      v.push_back({std::move(name), rule, std::move(t), nullptr, std::move(msg)});
    };
    auto built = [&](std::string name, VerifyRule rule,
                     std::function<std::pair<UOp, UOp>(Context&)> b, std::string msg) {
      v.push_back({std::move(name), rule, "", std::move(b), std::move(msg)});
    };

    // ---- shape: each tensor op's shape rule
    text("reshape_changes_the_count", VerifyRule::TensorShape, on_x("%bad = RESHAPE %x : int32[5]"),
         "RESHAPE from [3,4] to [5] changes the element count (12 vs 5)");
    text("reshape_of_an_empty_tensor_to_one", VerifyRule::TensorShape,
         "%x = CONST 0 : int32[0,3]\n%bad = RESHAPE %x : int32[1]\n%r = REALIZE %bad : void\n",
         "changes the element count (0 vs 1)");
    text("expand_of_a_non_one_dim", VerifyRule::TensorShape, on_x("%bad = EXPAND %x : int32[3,8]"),
         "EXPAND from [3,4] to [3,8]: dim 1 has size 4, neither equal nor 1");
    text("expand_changes_the_rank", VerifyRule::TensorShape,
         on_x("%bad = EXPAND %x : int32[2,3,4]"), "EXPAND from [3,4] to [2,3,4] changes the rank");
    text("expand_of_a_zero_dim", VerifyRule::TensorShape,
         "%x = CONST 0 : int32[0]\n%bad = EXPAND %x : int32[4]\n%r = REALIZE %bad : void\n",
         "dim 0 has size 0, neither equal nor 1");
    text("permute_repeats_a_dim", VerifyRule::TensorShape,
         on_x("%bad = PERMUTE %x order=[0,0] : int32[3,3]"),
         "PERMUTE order [0,0] is not a permutation of the 2 dims of [3,4]");
    text("permute_of_too_few_dims", VerifyRule::TensorShape,
         on_x("%bad = PERMUTE %x order=[0] : int32[3]"), "is not a permutation of the 2 dims");
    text("permute_out_of_range", VerifyRule::TensorShape,
         on_x("%bad = PERMUTE %x order=[2,0] : int32[3,3]"), "order [2,0] is not a permutation");
    text("pad_negative", VerifyRule::TensorShape, on_x("%bad = PAD %x pad=[-1:0,0:0] : int32[2,4]"),
         "PAD dim 0: (-1,0) is not a pair of sizes in 0..2^31");
    text("pad_pair_count", VerifyRule::TensorShape, on_x("%bad = PAD %x pad=[1:1] : int32[5,4]"),
         "PAD lists 1 pairs for the 2 dims of [3,4]");
    text("shrink_past_the_end", VerifyRule::TensorShape,
         on_x("%bad = SHRINK %x shrink=[0:3,2:5] : int32[3,3]"),
         "SHRINK dim 1: 2:5 is not within 0 <= begin <= end <= 4");
    text("shrink_begin_after_end", VerifyRule::TensorShape,
         on_x("%bad = SHRINK %x shrink=[2:1,0:4] : int32[0,4]"), "SHRINK dim 0: 2:1");
    text("shrink_negative_begin", VerifyRule::TensorShape,
         on_x("%bad = SHRINK %x shrink=[-1:1,0:4] : int32[2,4]"), "SHRINK dim 0: -1:1");
    text("flip_unsorted_axes", VerifyRule::TensorShape,
         on_x("%bad = FLIP %x axes=[1,0] : int32[3,4]"),
         "FLIP axes [1,0] are not ascending, distinct dims of [3,4]");
    text("flip_duplicate_axis", VerifyRule::TensorShape,
         on_x("%bad = FLIP %x axes=[1,1] : int32[3,4]"), "FLIP axes [1,1]");
    text("flip_axis_out_of_range", VerifyRule::TensorShape,
         on_x("%bad = FLIP %x axes=[2] : int32[3,4]"), "FLIP axes [2]");
    text("reduce_unsorted_axes", VerifyRule::TensorShape,
         on_x("%bad = REDUCE_AXIS %x op=ADD axes=[1,0] : int32[1,1]"),
         "REDUCE_AXIS axes [1,0] are not ascending, distinct dims of [3,4]");
    text("reduce_duplicate_axis", VerifyRule::TensorShape,
         on_x("%bad = REDUCE_AXIS %x op=ADD axes=[0,0] : int32[1,4]"), "REDUCE_AXIS axes [0,0]");
    text("reduce_negative_axis", VerifyRule::TensorShape,
         on_x("%bad = REDUCE_AXIS %x op=MAX axes=[-1] : int32[3,1]"), "REDUCE_AXIS axes [-1]");
    text("reduce_axis_on_rank_zero", VerifyRule::TensorShape,
         "%x = CONST 1 : int32[]\n%bad = REDUCE_AXIS %x op=ADD axes=[0] : int32[]\n"
         "%r = REALIZE %bad : void\n",
         "REDUCE_AXIS axes [0] are not ascending, distinct dims of []");
    text("reduce_drops_the_dim", VerifyRule::TensorShape,
         on_x("%bad = REDUCE_AXIS %x op=ADD axes=[1] : int32[3]"),
         "REDUCE_AXIS gives shape [3,1], the node says [3]");
    text("permute_says_the_wrong_shape", VerifyRule::TensorShape,
         on_x("%bad = PERMUTE %x order=[1,0] : int32[3,4]"),
         "PERMUTE gives shape [4,3], the node says [3,4]");
    text("elementwise_shapes_differ", VerifyRule::TensorShape,
         on_x("%y = CONST 1 : int32[4,3]\n%bad = ADD %x %y : int32[3,4]"),
         "ADD operands have different shapes ([3,4] and [4,3])");
    text("elementwise_rank_differs", VerifyRule::TensorShape,
         on_x("%y = CONST 1 : int32[]\n%bad = MUL %x %y : int32[3,4]"),
         "MUL operands have different shapes ([3,4] and [])");
    text("where_condition_shape", VerifyRule::TensorShape,
         on_x("%c = CONST true : bool[3,1]\n%bad = WHERE %c %x %x : int32[3,4]"),
         "WHERE operands have different shapes ([3,1] and [3,4])");
    text("where_branch_shape", VerifyRule::TensorShape,
         on_x("%c = CONST true : bool[3,4]\n%y = CONST 0 : int32[3,1]\n"
              "%bad = WHERE %c %x %y : int32[3,4]"),
         "WHERE operands have different shapes ([3,4] and [3,1])");
    text("cast_says_the_wrong_shape", VerifyRule::TensorShape, on_x("%bad = CAST %x : float32[12]"),
         "CAST gives shape [3,4], the node says [12]");
    text("too_many_elements", VerifyRule::TensorShape,
         "%bad = CONST 0 : int8[65536,65536]\n%r = REALIZE %bad : void\n",
         "shape [65536,65536] has more than 2^31 elements");
    text("realize_with_a_shape", VerifyRule::TensorShape,
         "%x = CONST 0 : int8[2]\n%bad = REALIZE %x : void[2]\n", "REALIZE has no shape, got [2]");
    built(
        "pad_past_the_printable_size", VerifyRule::TensorShape,
        [](Context& ctx) {
          // [0, 2^31+2] has no element but a dim the text format cannot spell.
          UOp x = t::constant(ctx, dtypes::Int32, 0, {0, int64_t{1} << 31});
          UOp bad = t::pad(ctx, x, {{0, 0}, {1, 1}});
          return std::pair{t::realize(ctx, {bad}), bad};
        },
        "has a dim above 2^31");
    built(
        "seventeen_dims", VerifyRule::TensorShape,
        [](Context& ctx) {
          UOp bad = t::constant(ctx, dtypes::Int32, 0, Shape(17, 1));
          return std::pair{t::realize(ctx, {bad}), bad};
        },
        "has more than 16 dims");

    // ---- tensor-op: kernel and scheduling ops in a tensor program
    text("invalid_in_a_tensor_program", VerifyRule::TensorOp,
         "%bad = INVALID : index\n%r = REALIZE %bad : void\n",
         "INVALID is a kernel op; a tensor program (rooted at REALIZE) cannot hold it");
    text("var_in_a_tensor_program", VerifyRule::TensorOp,
         "%bad = VAR name=n min=0 max=3 : int32\n%r = REALIZE %bad : void\n", "VAR is a kernel op");
    text("bufferize_in_a_tensor_program", VerifyRule::TensorOp, on_x("%bad = BUFFERIZE %x : int32"),
         "BUFFERIZE is a scheduling op");

    // ---- root: REALIZE only at the root
    text("realize_inside_realize", VerifyRule::Root,
         "%x = CONST 0 : int8[2]\n%bad = REALIZE %x : void\n%r = REALIZE %bad : void\n",
         "REALIZE is only allowed as the root");

    // ---- dtype
    text("index_tensor", VerifyRule::DType, "%bad = CONST 1 : index[3]\n%r = REALIZE %bad : void\n",
         "a tensor holds no index values");
    text("void_tensor", VerifyRule::DType,
         "%bad = PARAM slot=0 in : void[3]\n%r = REALIZE %bad : void\n",
         "a tensor holds no void values");
    text("reshape_changes_the_dtype", VerifyRule::DType, on_x("%bad = RESHAPE %x : int64[12]"),
         "RESHAPE keeps its operand's dtype");
    text("bool_sum", VerifyRule::DType,
         "%x = CONST true : bool[2]\n%bad = REDUCE_AXIS %x op=ADD axes=[0] : bool[1]\n"
         "%r = REALIZE %bad : void\n",
         "REDUCE_AXIS op=ADD is not defined on bool");
    text("add_of_mixed_dtypes", VerifyRule::DType,
         on_x("%y = CONST 1 : float32[3,4]\n%bad = ADD %x %y : int32[3,4]"),
         "ADD operands must share one dtype");
    text("where_condition_not_bool", VerifyRule::DType, on_x("%bad = WHERE %x %x %x : int32[3,4]"),
         "WHERE condition must be bool, got int32");
    text("realize_not_void", VerifyRule::DType,
         "%x = CONST 0 : int8[2]\n%bad = REALIZE %x : int8\n", "REALIZE has dtype void");

    // ---- param
    text("param_out", VerifyRule::Param,
         "%bad = PARAM slot=0 out : int32[3]\n%r = REALIZE %bad : void\n",
         "a tensor program's PARAM is an input ('in')");
    text("param_size_disagrees", VerifyRule::Param,
         "%bad = PARAM slot=0 size=5 in : int32[4]\n%r = REALIZE %bad : void\n",
         "PARAM size 5 is not the element count of its shape [4]");
    text("duplicate_slot", VerifyRule::Param,
         "%a = PARAM slot=1 in : int32[4]\n%bad = PARAM slot=1 in : int32[2,2]\n"
         "%r = REALIZE %a %bad : void\n",
         "duplicate PARAM slot 1");
    text("bounds_on_a_float_input", VerifyRule::Param,
         "%bad = PARAM slot=0 vmin=0 in : float32[4]\n%r = REALIZE %bad : void\n",
         "vmin/vmax/multiple_of are only for integer buffers");

    // ---- const
    built(
        "const_tensor_not_canonical", VerifyRule::ConstValue,
        [](Context& ctx) {
          UOp bad = ctx.make(Op::Const, dtypes::Int8, {}, ConstArg{Value::of_int(300)}, {2});
          return std::pair{t::realize(ctx, {bad}), bad};
        },
        "CONST value is not canonical for int8");

    // ---- arity (the parser refuses these, so build them)
    built(
        "reshape_of_two", VerifyRule::Arity,
        [](Context& ctx) {
          UOp x = t::constant(ctx, dtypes::Int32, 0, {2});
          UOp bad = ctx.make(Op::Reshape, dtypes::Int32, {x, x}, {}, {2});
          return std::pair{t::realize(ctx, {bad}), bad};
        },
        "RESHAPE has 2 sources");
    built(
        "permute_with_pairs", VerifyRule::Arity,
        [](Context& ctx) {
          UOp x = t::constant(ctx, dtypes::Int32, 0, {2});
          UOp bad = ctx.make(Op::Permute, dtypes::Int32, {x}, PadArg{{{0, 0}}}, {2});
          return std::pair{t::realize(ctx, {bad}), bad};
        },
        "PERMUTE carries the wrong kind of argument");
    return v;
  }();
  return all;
}

/// Builds a case: {root, the node the error must be reported on}.
std::pair<UOp, UOp> materialize(Context& ctx, const TensorCase& c) {
  if (c.build) return c.build(ctx);
  auto r = parse_kernel(ctx, c.text);
  EXPECT_TRUE(r.ok()) << c.name << ": " << r.error().loc.line << ":" << r.error().loc.col << " "
                      << r.error().message;
  if (!r.ok()) return {};
  int bad_line = 0, line = 1;
  for (size_t pos = 0;; ++line) {
    if (c.text.compare(pos, 6, "%bad =") == 0) bad_line = line;
    const size_t nl = c.text.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  for (const auto& [u, loc] : r->where)
    if (loc.line == bad_line) return {r->kernel.root, u};
  ADD_FAILURE() << c.name << ": %bad not found";
  return {};
}

void check_case(const TensorCase& c) {
  SCOPED_TRACE(c.name);
  Context ctx;
  auto [root, bad] = materialize(ctx, c);
  ASSERT_TRUE(root && bad);
  ASSERT_TRUE(is_tensor_program(root));
  auto errs = verify(root);
  std::string all;
  for (const auto& e : errs)
    all += "  [" + std::string(verify_rule_name(e.rule)) + "] " + e.message + "\n";
  ASSERT_EQ(errs.size(), 1u) << all;
  EXPECT_EQ(verify_rule_name(errs[0].rule), verify_rule_name(c.rule)) << all;
  EXPECT_EQ(errs[0].node, bad) << all;
  EXPECT_NE(errs[0].message.find(c.message), std::string::npos)
      << "'" << errs[0].message << "' lacks '" << c.message << "'";
}

int run_cases_for(VerifyRule rule) {
  int n = 0;
  for (const TensorCase& c : cases())
    if (c.rule == rule) {
      check_case(c);
      ++n;
    }
  return n;
}

TEST(TensorVerify, ShapeRule) {
  EXPECT_GE(run_cases_for(VerifyRule::TensorShape), 25);
}
TEST(TensorVerify, TensorOpRule) {
  EXPECT_GE(run_cases_for(VerifyRule::TensorOp), 3);
}
TEST(TensorVerify, RootRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Root), 1);
}
TEST(TensorVerify, DTypeRule) {
  EXPECT_GE(run_cases_for(VerifyRule::DType), 6);
}
TEST(TensorVerify, ParamRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Param), 4);
}
TEST(TensorVerify, ConstRule) {
  EXPECT_GE(run_cases_for(VerifyRule::ConstValue), 1);
}
TEST(TensorVerify, ArityRule) {
  EXPECT_GE(run_cases_for(VerifyRule::Arity), 2);
}

TEST(TensorVerify, CaseNamesAreUnique) {
  std::set<std::string> names;
  for (const TensorCase& c : cases()) EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

TEST(TensorVerify, EdgeShapesAreWellFormed) {
  // 0- and 1-sized dims, rank 0, empty axis lists, a pad to and a shrink from nothing.
  const char* programs[] = {
      "%x = PARAM slot=0 in : float32[0,3]\n%s = REDUCE_AXIS %x op=ADD axes=[0] : float32[1,3]\n"
      "%r = REALIZE %s %x : void\n",
      "%x = PARAM slot=0 in : int32[]\n%y = RESHAPE %x : int32[1,1]\n"
      "%e = EXPAND %y : int32[1,5]\n%s = REDUCE_AXIS %x op=MAX axes=[] : int32[]\n"
      "%p = PERMUTE %x order=[] : int32[]\n%f = FLIP %y axes=[] : int32[1,1]\n"
      "%r = REALIZE %e %s %p %f : void\n",
      "%x = CONST 7 : int8[1,4]\n%z = SHRINK %x shrink=[1:1,0:4] : int8[0,4]\n"
      "%p = PAD %z pad=[2:1,0:0] : int8[3,4]\n%e = EXPAND %z : int8[0,4]\n"
      "%r = REALIZE %p %e : void\n",
      "%x = CONST 1 : int32[3,1]\n%e = EXPAND %x : int32[3,0]\n%r = REALIZE %e : void\n",
      "%x = CONST true : bool[2,2]\n%a = REDUCE_AXIS %x op=MAX axes=all : bool[1,1]\n"
      "%b = REDUCE_AXIS %x op=MIN axes=[1] : bool[2,1]\n%r = REALIZE %a %b : void\n",
  };
  for (const char* text : programs) {
    Context ctx;
    auto r = parse_kernel(ctx, text);
    ASSERT_TRUE(r.ok()) << r.error().message << "\n" << text;
    for (const auto& e : verify(r->kernel.root))
      ADD_FAILURE() << "[" << verify_rule_name(e.rule) << "] " << e.message << "\n" << text;
  }
}

TEST(TensorVerify, BuildersGiveTheInferredShapes) {
  // Expected shapes worked out by hand from each op's definition (SEMANTICS.md).
  Context ctx;
  UOp x = t::input(ctx, dtypes::Float32, {2, 3, 4}, 0);
  EXPECT_EQ(t::permute(ctx, x, {2, 0, 1}).shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(t::pad(ctx, x, {{1, 2}, {0, 0}, {3, 0}}).shape(), (Shape{5, 3, 7}));
  EXPECT_EQ(t::shrink(ctx, x, {{1, 2}, {0, 3}, {2, 2}}).shape(), (Shape{1, 3, 0}));
  EXPECT_EQ(t::reduce_axis(ctx, x, Op::Add, {0, 2}).shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(t::flip(ctx, x, {1}).shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(t::alu(ctx, Op::CmpLt, {x, x}).dtype(), dtypes::Bool);
  EXPECT_EQ(x.arg<ParamArg>().size, 24);
  UOp rank0 = t::input(ctx, dtypes::Int32, {}, 1);
  EXPECT_EQ(rank0.arg<ParamArg>().size, 1);
  EXPECT_EQ(numel(Shape{}), 1);
  EXPECT_EQ(numel(Shape{5, 0, 7}), 0);
  EXPECT_EQ(row_major_strides(Shape{2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(shape_text(Shape{}), "[]");
}

}  // namespace
}  // namespace uopfuzz::ir
