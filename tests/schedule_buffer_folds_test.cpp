// The BUFFERIZE folds and dead axis removal (schedule/buffers.h): each rule and each
// dead-axis condition on the BUFFERIZE graph (LowerReport::graph), on the Program's kernels
// and buffers, and on its outputs against the tensor oracle; each planted bug changing the
// result or failing verification. Expected outputs are worked out by hand beside each case.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "oracle/tensor_eval.h"
#include "parse_root.h"
#include "schedule/bufferize.h"
#include "schedule/buffers.h"
#include "schedule/lower.h"

namespace uopfuzz::schedule {
namespace {

using namespace ir;
using I64s = std::vector<int64_t>;

class BufferFolds : public ::testing::Test {
 protected:
  Context ctx_;

  UOp parse(const std::string& text) { return uopfuzz::testing::parse_root(ctx_, text); }

  Program lower_ok(UOp root, LowerOptions options = {}, LowerReport* report = nullptr) {
    auto p = lower(ctx_, root, options, report);
    if (!p) {
      ADD_FAILURE() << p.error().message;
      return {};
    }
    return *p;
  }

  static Inputs int32_inputs(const std::map<int, I64s>& values) {
    Inputs in;
    for (const auto& [slot, vs] : values) {
      Buffer b(dtypes::Int32, vs.size());
      for (size_t i = 0; i < vs.size(); ++i) b.set(i, wrap_int(dtypes::Int32, vs[i]));
      in.buffers[slot] = b;
    }
    return in;
  }

  static I64s ints(const Buffer& b) {
    I64s out;
    for (size_t i = 0; i < b.size(); ++i) out.push_back(b.get(i).i);
    return out;
  }

  /// Output 0 of `program` on the oracle backend.
  I64s run(const Program& program, const std::map<int, I64s>& inputs) {
    auto out =
        backends::run_program(*backends::find_backend("oracle"), program, int32_inputs(inputs));
    if (!out) {
      ADD_FAILURE() << out.error().message;
      return {};
    }
    EXPECT_EQ(out->status, RunStatus::Ok);
    return ints(out->outputs[0]);
  }

  /// Output 0 of the tensor program `root` on the tensor oracle.
  I64s reference(UOp root, const std::map<int, I64s>& inputs) {
    auto out = oracle::eval_tensor_program(root, int32_inputs(inputs));
    if (!out) {
      ADD_FAILURE() << out.error().message;
      return {};
    }
    return ints(out->outputs[0]);
  }

  /// The removable BUFFERIZEs of a BUFFERIZE graph.
  static std::vector<UOp> intermediates(UOp graph) {
    std::vector<UOp> out;
    for (UOp u : toposort(graph))
      if (u.op() == Op::Bufferize && u.arg<BufferizeArg>().removable) out.push_back(u);
    return out;
  }

  static size_t intermediate_buffers(const Program& p) {
    size_t n = 0;
    for (const ProgramBuffer& b : p.buffers) n += b.role == ProgramBuffer::Role::Intermediate;
    return n;
  }

  static int64_t intermediate_size(const Program& p) {
    for (const ProgramBuffer& b : p.buffers)
      if (b.role == ProgramBuffer::Role::Intermediate) return b.size;
    return -1;
  }

  static LowerOptions with_bug(LoweringBug bug) {
    LowerOptions o;
    o.bugs.insert(bug);
    return o;
  }

  static LowerOptions without(const std::string& rule) {
    LowerOptions o;
    o.disabled.insert(rule);
    return o;
  }
};

// Row sums of x = [[1,2,3,4],[5,6,7,8]] are [10, 26], broadcast back and added to x. The
// reduce's buffer is [2,1]: its size-1 axis (a CONST range) is dead.
constexpr const char* kRowSumPlusX = R"(
%x = PARAM slot=0 in : int32[2,4]
%s = REDUCE_AXIS %x op=ADD axes=[1] : int32[2,1]
%e = EXPAND %s : int32[2,4]
%a = ADD %e %x : int32[2,4]
%o = REALIZE %a : void
)";
const std::map<int, I64s> kX8 = {{0, {1, 2, 3, 4, 5, 6, 7, 8}}};

TEST_F(BufferFolds, DeadAxisOfSizeOne) {
  UOp root = parse(kRowSumPlusX);
  LowerReport report;
  Program p = lower_ok(root, {}, &report);
  EXPECT_GE(report.hits["dead_axis"], 1u);
  std::vector<UOp> mids = intermediates(report.graph);
  ASSERT_EQ(mids.size(), 1u);
  EXPECT_EQ(mids[0].num_src(), 2u);  // the value and one range: the size-1 axis is gone
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(intermediate_size(p), 2);
  EXPECT_EQ(run(p, kX8), (I64s{11, 12, 13, 14, 31, 32, 33, 34}));
  EXPECT_EQ(run(p, kX8), reference(root, kX8));

  LowerReport off;
  LowerOptions keep_axes = without("dead_axis");
  keep_axes.disabled.insert(kFlattenRule);
  lower_ok(root, keep_axes, &off);
  ASSERT_EQ(intermediates(off.graph).size(), 1u);
  EXPECT_EQ(intermediates(off.graph)[0].num_src(), 3u);
}

// Dropping the used range as well computes row 0's sum for both rows: 10 + x.
TEST_F(BufferFolds, DeadAxisDropsUsedChangesTheResult) {
  Program p = lower_ok(parse(kRowSumPlusX), with_bug(LoweringBug::DeadAxisDropsUsed));
  EXPECT_EQ(run(p, kX8), (I64s{11, 12, 13, 14, 15, 16, 17, 18}));
}

// x: [2,1,4] broadcast to [2,3,4] and summed over the last axis: [2,3,1], the middle axis's
// range unused by the sum. Row sums [10, 26] broadcast to [2,3,2] plus the constant 1.
constexpr const char* kUnusedRange = R"(
%x = PARAM slot=0 in : int32[2,1,4]
%b = EXPAND %x : int32[2,3,4]
%s = REDUCE_AXIS %b op=ADD axes=[2] : int32[2,3,1]
%e = EXPAND %s : int32[2,3,2]
%c = CONST 1 : int32[2,3,2]
%a = ADD %e %c : int32[2,3,2]
%o = REALIZE %a : void
)";

TEST_F(BufferFolds, DeadAxisOfAnUnusedRange) {
  UOp root = parse(kUnusedRange);
  LowerReport report;
  Program p = lower_ok(root, {}, &report);
  std::vector<UOp> mids = intermediates(report.graph);
  ASSERT_EQ(mids.size(), 1u);
  ASSERT_EQ(mids[0].num_src(), 2u);
  EXPECT_EQ(mids[0].src(1).src(0).const_value().i, 2);  // only the used axis, of size 2
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(intermediate_size(p), 2);
  const I64s want{11, 11, 11, 11, 11, 11, 27, 27, 27, 27, 27, 27};
  EXPECT_EQ(run(p, kX8), want);
  EXPECT_EQ(reference(root, kX8), want);

  LowerReport off;
  Program q = lower_ok(root, without("dead_axis"), &off);
  EXPECT_EQ(intermediate_size(q), 6);
  EXPECT_EQ(run(q, kX8), want);
}

// x: [1,4] broadcast to [3,4], summed over axis 1: [3,1], every row 10; both axes are dead
// (the sum uses neither), so the buffer is a scalar. Broadcast to [3,2] and padded 1:1 on
// axis 1 the read is gated: [[0,10,10,0]] x 3, plus 1 everywhere.
constexpr const char* kScalarGated = R"(
%x = PARAM slot=0 in : int32[1,4]
%b = EXPAND %x : int32[3,4]
%s = REDUCE_AXIS %b op=ADD axes=[1] : int32[3,1]
%e = EXPAND %s : int32[3,2]
%p = PAD %e pad=[0:0,1:1] : int32[3,4]
%c = CONST 1 : int32[3,4]
%a = ADD %p %c : int32[3,4]
%o = REALIZE %a : void
)";
const std::map<int, I64s> kX4 = {{0, {1, 2, 3, 4}}};

TEST_F(BufferFolds, AllDeadAxesLeaveAScalarBufferAndTheGate) {
  UOp root = parse(kScalarGated);
  LowerReport report;
  Program p = lower_ok(root, {}, &report);
  std::vector<UOp> mids = intermediates(report.graph);
  ASSERT_EQ(mids.size(), 1u);
  EXPECT_EQ(mids[0].num_src(), 1u);  // no ranges: a scalar buffer, kept
  bool gated_scalar_read = false;
  for (UOp u : toposort(report.graph))
    gated_scalar_read |= u.op() == Op::Where && u.src(1).op() == Op::Index &&
                         u.src(1).src(0) == mids[0] && u.src(1).num_src() == 1;
  EXPECT_TRUE(gated_scalar_read);
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(intermediate_size(p), 1);
  const I64s want{1, 11, 11, 1, 1, 11, 11, 1, 1, 11, 11, 1};
  EXPECT_EQ(run(p, kX4), want);
  EXPECT_EQ(reference(root, kX4), want);
}

// The sum of [1,2,3,4] as an output of shape [1]: its one axis is a CONST, all dead. The
// output keeps its BUFFERIZE; deleting it leaves the output written by no kernel.
constexpr const char* kScalarOutput = R"(
%x = PARAM slot=0 in : int32[4]
%s = REDUCE_AXIS %x op=ADD axes=[0] : int32[1]
%o = REALIZE %s : void
)";

TEST_F(BufferFolds, ScalarOutputKeepsItsKernel) {
  UOp root = parse(kScalarOutput);
  Program p = lower_ok(root);
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(run(p, kX4), (I64s{10}));
}

TEST_F(BufferFolds, DeadAxisDeletesScalarFailsVerification) {
  auto p = lower(ctx_, parse(kScalarOutput), with_bug(LoweringBug::DeadAxisDeletesScalar));
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("the lowered program does not verify"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("written by no kernel"), std::string::npos) << p.error().message;
}

// x: [2,3,4] summed over the last axis (row sums 10, 26, 42, 58, 74, 90 with x = 1..24),
// broadcast back and added to x. The reduce's buffer keeps two live axes, flattened to one
// range of 6.
constexpr const char* kTwoLiveAxes = R"(
%x = PARAM slot=0 in : int32[2,3,4]
%s = REDUCE_AXIS %x op=ADD axes=[2] : int32[2,3,1]
%e = EXPAND %s : int32[2,3,4]
%a = ADD %e %x : int32[2,3,4]
%o = REALIZE %a : void
)";

TEST_F(BufferFolds, FlattenMakesOneLinearRange) {
  UOp root = parse(kTwoLiveAxes);
  std::map<int, I64s> in{{0, {}}};
  I64s want;
  for (int i = 0; i < 24; ++i) {
    in[0].push_back(i + 1);
    const int row = i / 4;
    want.push_back((16 * row + 10) + (i + 1));  // row sum 4*(4*row)+1+2+3+4 = 16*row+10
  }
  LowerReport report;
  Program p = lower_ok(root, {}, &report);
  EXPECT_EQ(report.hits[kFlattenRule], 1u);
  std::vector<UOp> mids = intermediates(report.graph);
  ASSERT_EQ(mids.size(), 1u);
  ASSERT_EQ(mids[0].num_src(), 2u);
  EXPECT_EQ(mids[0].src(1).src(0).const_value().i, 6);
  EXPECT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(intermediate_size(p), 6);
  EXPECT_EQ(run(p, in), want);
  EXPECT_EQ(reference(root, in), want);

  LowerReport off;
  Program q = lower_ok(root, without(kFlattenRule), &off);
  ASSERT_EQ(intermediates(off.graph).size(), 1u);
  EXPECT_EQ(intermediates(off.graph)[0].num_src(), 3u);
  EXPECT_EQ(run(q, in), want);
}

// An output of a constant keeps its store: BUFFERIZE(CONST) folds only where removable.
TEST_F(BufferFolds, ConstantOutputKeepsItsBuffer) {
  LowerReport report;
  Program p = lower_ok(parse(R"(
%c = CONST 5 : int32[3]
%o = REALIZE %c : void
)"),
                       {}, &report);
  EXPECT_EQ(report.hits.count("bufferize_const"), 0u);
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(run(p, {}), (I64s{5, 5, 5}));
}

/// BUFFERIZE graphs the rangeify pass does not make, built by hand (the folds' other
/// inputs: graphs the removal rules leave behind).
class HandBuiltGraphs : public BufferFolds {
 protected:
  UOp idx(int64_t v) { return ctx_.const_int(dtypes::Index, v); }
  UOp range(int32_t axis, int64_t size) {
    return ctx_.make(Op::Range, dtypes::Index, {idx(size)}, RangeArg{{axis}, AxisType::Loop});
  }
  UOp buffer(UOp value, std::vector<UOp> ranges, BufferizeArg arg) {
    ranges.insert(ranges.begin(), value);
    return ctx_.make(Op::Bufferize, value.dtype(), std::move(ranges), arg);
  }
  UOp read(UOp b, std::vector<UOp> at) {
    at.insert(at.begin(), b);
    return ctx_.make(Op::Index, b.dtype(), std::move(at));
  }
  UOp sink(UOp out) { return ctx_.make(Op::Sink, dtypes::Void, {out}); }

  /// The Program of the hand-built `graph` of the tensor program `root` after the rules.
  Result<Program> split(UOp root, UOp graph, LowerOptions options, BufferRulesResult* rules) {
    IndexSimplifier simplify(ctx_);
    *rules = apply_buffer_rules(simplify, graph, options);
    auto p = split_kernels(simplify, root, rules->graph);
    if (!p) return p.error();
    if (auto errors = verify_program(*p); !errors.empty()) return Error{errors.front()};
    return p;
  }
};

// out = x^T + 1 for x = [[1,2],[3,4]]: [[2,4],[3,5]]. The graph copies x into an
// intermediate at (r0, r1) and reads it at (r1, r0): not its own ranges in order.
constexpr const char* kTransposePlusOne = R"(
%x = PARAM slot=0 in : int32[2,2]
%t = PERMUTE %x order=[1,0] : int32[2,2]
%c = CONST 1 : int32[2,2]
%a = ADD %t %c : int32[2,2]
%o = REALIZE %a : void
)";
const std::map<int, I64s> kX2x2 = {{0, {1, 2, 3, 4}}};

TEST_F(HandBuiltGraphs, IdentityFoldNeedsTheVerySameRanges) {
  UOp root = parse(kTransposePlusOne);
  UOp x = toposort(root).front();
  ASSERT_EQ(x.op(), Op::Param);
  UOp r0 = range(0, 2), r1 = range(1, 2);
  auto load_x = [&](UOp i, UOp j) {
    UOp lin = ctx_.alu(Op::Add, {ctx_.alu(Op::Mul, {i, idx(2)}), j});
    return ctx_.make(Op::Load, dtypes::Int32, {ctx_.make(Op::Index, dtypes::Int32, {x, lin})});
  };
  UOp one = ctx_.const_int(dtypes::Int32, 1);
  // The transposed read: the fold must leave it alone.
  UOp copy = buffer(load_x(r0, r1), {r0, r1}, BufferizeArg{-1, true});
  UOp transposed = sink(
      buffer(ctx_.alu(Op::Add, {read(copy, {r1, r0}), one}), {r0, r1}, BufferizeArg{0, false}));
  BufferRulesResult rules;
  auto p = split(root, transposed, {}, &rules);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(rules.hits.count("index_bufferize_identity"), 0u);
  EXPECT_EQ(p->kernels.size(), 1u);  // buffer removal inlines the copy (no reduce in scope)
  EXPECT_EQ(run(*p, kX2x2), (I64s{2, 4, 3, 5}));
  EXPECT_EQ(reference(root, kX2x2), (I64s{2, 4, 3, 5}));

  // Bugged: any two ranges fold, so the read is no longer transposed.
  auto bugged = split(root, transposed, with_bug(LoweringBug::IdentityAnyRanges), &rules);
  ASSERT_TRUE(bugged) << bugged.error().message;
  EXPECT_EQ(run(*bugged, kX2x2), (I64s{2, 3, 4, 5}));

  // The same intermediate of x^T read at its own ranges folds to its value: one kernel.
  UOp copy_t = buffer(load_x(r1, r0), {r0, r1}, BufferizeArg{-1, true});
  UOp same = sink(
      buffer(ctx_.alu(Op::Add, {read(copy_t, {r0, r1}), one}), {r0, r1}, BufferizeArg{0, false}));
  auto folded = split(root, same, {}, &rules);
  ASSERT_TRUE(folded) << folded.error().message;
  EXPECT_EQ(rules.hits["index_bufferize_identity"], 1u);
  EXPECT_EQ(folded->kernels.size(), 1u);
  EXPECT_EQ(intermediate_buffers(*folded), 0u);
  EXPECT_EQ(run(*folded, kX2x2), (I64s{2, 4, 3, 5}));
}

// PAD 1:1 of a constant 7 of shape [2]: [0,7,7,0]. The intermediate holds the constant; the
// output reads it under PAD's gate.
TEST_F(HandBuiltGraphs, ConstantBufferAndItsGatedReadFold) {
  UOp root = parse(R"(
%c = CONST 7 : int32[2]
%p = PAD %c pad=[1:1] : int32[4]
%o = REALIZE %p : void
)");
  UOp ra = range(0, 2), r = range(1, 4);
  UOp seven = buffer(ctx_.const_int(dtypes::Int32, 7), {ra}, BufferizeArg{-1, true});
  UOp valid =
      ctx_.alu(Op::And, {ctx_.alu(Op::CmpLt, {idx(0), r}), ctx_.alu(Op::CmpLt, {r, idx(3)})});
  UOp at = ctx_.alu(Op::Where, {valid, ctx_.alu(Op::Sub, {r, idx(1)}), ctx_.invalid()});
  UOp graph = sink(buffer(read(seven, {at}), {r}, BufferizeArg{0, false}));
  BufferRulesResult rules;
  auto p = split(root, graph, {}, &rules);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(rules.hits["bufferize_const"], 1u);
  EXPECT_EQ(rules.hits["index_const"], 1u);
  EXPECT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(intermediate_buffers(*p), 0u);
  EXPECT_EQ(run(*p, {}), (I64s{0, 7, 7, 0}));
  EXPECT_EQ(reference(root, {}), (I64s{0, 7, 7, 0}));
}

}  // namespace
}  // namespace uopfuzz::schedule
