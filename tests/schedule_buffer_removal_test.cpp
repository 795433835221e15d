// Buffer removal (schedule/buffer_removal.cpp): one test per row of the decision tree, each on
// a small tensor program whose rangeify realizes a removable node. Kernel counts and buffer
// sizes are worked out by hand in the comment beside each; outputs are the tensor oracle's.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "check/program_check.h"
#include "gen/tensor_gen.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/program.h"
#include "ir/run_io.h"
#include "oracle/tensor_eval.h"
#include "parse_root.h"
#include "schedule/buffers.h"
#include "schedule/lower.h"

namespace uopfuzz::schedule {
namespace {

using namespace ir;

class BufferRemoval : public ::testing::Test {
 protected:
  Context ctx_;

  UOp parse(const std::string& text) { return uopfuzz::testing::parse_root(ctx_, text); }

  static LowerOptions at(int pcontig, LoweringBugSet bugs = {}) {
    LowerOptions o;
    o.pcontig = pcontig;
    o.bugs = std::move(bugs);
    return o;
  }

  Program lower_ok(UOp root, const LowerOptions& o, LowerReport* report = nullptr) {
    auto p = lower(ctx_, root, o, report);
    if (!p) {
      ADD_FAILURE() << p.error().message;
      return {};
    }
    return *p;
  }

  /// The Program's run on the oracle backend, on inputs seeded 1.
  static RunOutput run(UOp root, const Program& p) {
    auto out = backends::run_program(*backends::find_backend("oracle"), p, make_inputs(root, 1));
    if (!out) {
      ADD_FAILURE() << out.error().message;
      return {};
    }
    RunOutput r;
    r.status = out->status;
    r.outputs = out->outputs;
    return r;
  }

  /// Lowers `text` at `pcontig`, expects `kernels` kernels and the tensor oracle's outputs.
  Program expect_lowering(const std::string& text, int pcontig, size_t kernels,
                          LowerReport* report = nullptr) {
    UOp root = parse(text);
    Program p = lower_ok(root, at(pcontig), report);
    EXPECT_EQ(p.kernels.size(), kernels) << "pcontig " << pcontig;
    auto want = oracle::eval_tensor_program(root, make_inputs(root, 1));
    EXPECT_TRUE(want.ok());
    if (!want) return p;
    EXPECT_EQ(want->status, RunStatus::Ok);
    RunOutput got = run(root, p);
    EXPECT_EQ(got.status, RunStatus::Ok) << "pcontig " << pcontig;
    EXPECT_EQ(got.outputs, want->outputs) << "pcontig " << pcontig;
    return p;
  }

  static int64_t intermediate_elements(const Program& p) {
    int64_t n = 0;
    for (const ProgramBuffer& b : p.buffers)
      if (b.role == ProgramBuffer::Role::Intermediate) n += b.size;
    return n;
  }
};

uint64_t hits(const LowerReport& r, const std::string& rule) {
  auto it = r.hits.find(rule);
  return it == r.hits.end() ? 0 : it->second;
}

// y = 2x read at r and at 3 - r: rangeify realizes y, removal inlines it (no reduce in
// scope), so one kernel computes y + flip(y) with y recomputed at both places.
constexpr const char* kTwoReads = R"(
%0 = PARAM slot=0 in : int32[4]
%1 = CONST 2 : int32[4]
%2 = MUL %0 %1 : int32[4]
%3 = FLIP %2 axes=[0] : int32[4]
%4 = ADD %2 %3 : int32[4]
%5 = REALIZE %4 : void
)";

TEST_F(BufferRemoval, NoReduceInScopeInlines) {
  for (int pcontig : {0, 3}) {
    LowerReport report;
    expect_lowering(kTwoReads, pcontig, 1, &report);
    EXPECT_EQ(hits(report, "buffer_inline"), 2u);  // both reads
  }
  // Switched off, the buffer stays: its kernel and the reader's.
  LowerOptions off;
  off.disabled = {"buffer_inline"};
  EXPECT_EQ(lower_ok(parse(kTwoReads), off).kernels.size(), 2u);
}

// The same, made CONTIGUOUS: an always-run op keeps its buffer at every level.
TEST_F(BufferRemoval, AlwaysRunOpKeeps) {
  const std::string text = R"(
%0 = PARAM slot=0 in : int32[4]
%1 = CONST 2 : int32[4]
%2 = MUL %0 %1 : int32[4]
%c = CONTIGUOUS %2 : int32[4]
%3 = FLIP %c axes=[0] : int32[4]
%4 = ADD %c %3 : int32[4]
%5 = REALIZE %4 : void
)";
  for (int pcontig : {0, 3}) {
    LowerReport report;
    expect_lowering(text, pcontig, 2, &report);
    EXPECT_EQ(hits(report, "buffer_inline"), 0u);
  }
}

// y = a+b+c+d reads 4 distinct buffers, more than the limit of 3: kept (2 kernels). With
// three inputs it is inlined (1 kernel).
constexpr const char* kFourInputs = R"(
%a = PARAM slot=0 in : int32[4]
%b = PARAM slot=1 in : int32[4]
%c = PARAM slot=2 in : int32[4]
%d = PARAM slot=3 in : int32[4]
%ab = ADD %a %b : int32[4]
%abc = ADD %ab %c : int32[4]
%y = ADD %abc %d : int32[4]
%f = FLIP %y axes=[0] : int32[4]
%o = ADD %y %f : int32[4]
%r = REALIZE %o : void
)";

TEST_F(BufferRemoval, BufferLimitKeeps) {
  for (int pcontig : {0, 3}) {
    LowerReport report;
    expect_lowering(kFourInputs, pcontig, 2, &report);
    EXPECT_EQ(hits(report, "buffer_keep_limit"), 2u);
  }
  expect_lowering(R"(
%a = PARAM slot=0 in : int32[4]
%b = PARAM slot=1 in : int32[4]
%c = PARAM slot=2 in : int32[4]
%ab = ADD %a %b : int32[4]
%y = ADD %ab %c : int32[4]
%f = FLIP %y axes=[0] : int32[4]
%o = ADD %y %f : int32[4]
%r = REALIZE %o : void
)",
                  0, 1);
}

TEST_F(BufferRemoval, ExceedBufferLimitInlinesAnyway) {
  UOp root = parse(kFourInputs);
  Program bugged = lower_ok(root, at(0, {LoweringBug::ExceedBufferLimit}));
  EXPECT_EQ(bugged.kernels.size(), 1u);
  EXPECT_NE(print_program(bugged), print_program(lower_ok(root, at(0))));
  EXPECT_EQ(run(root, bugged).outputs,
            oracle::eval_tensor_program(root, make_inputs(root, 1))->outputs);
}

// x - sum(x, 1) broadcast back: the sum is realized and has a reduce in scope. Level 0
// keeps it; level 3 computes the ratio (2 + 1) / (6 + 1) < 10 and keeps it too.
constexpr const char* kReduceBroadcast = R"(
%0 = PARAM slot=0 in : int32[2,3]
%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[2,1]
%2 = EXPAND %1 : int32[2,3]
%3 = SUB %0 %2 : int32[2,3]
%4 = REALIZE %3 : void
)";

TEST_F(BufferRemoval, ReduceInScopeKeepsAtLowLevels) {
  for (int pcontig : {0, 1, 2}) {
    LowerReport report;
    expect_lowering(kReduceBroadcast, pcontig, 2, &report);
    EXPECT_EQ(hits(report, "buffer_keep_reduce"), 1u);
  }
  LowerReport report;
  expect_lowering(kReduceBroadcast, 3, 2, &report);
  EXPECT_EQ(hits(report, "buffer_keep_reduce"), 0u);
  EXPECT_EQ(hits(report, "buffer_keep_ratio"), 1u);
}

TEST_F(BufferRemoval, InlineReduceInScopeRecomputesTheReduce) {
  UOp root = parse(kReduceBroadcast);
  Program bugged = lower_ok(root, at(0, {LoweringBug::InlineReduceInScope}));
  EXPECT_EQ(bugged.kernels.size(), 1u);
  EXPECT_EQ(run(root, bugged).outputs,
            oracle::eval_tensor_program(root, make_inputs(root, 1))->outputs);
  // Only at levels <= 2: above, the ratio decides as before.
  EXPECT_EQ(print_program(lower_ok(root, at(3, {LoweringBug::InlineReduceInScope}))),
            print_program(lower_ok(root, at(3))));
}

// z = a @ b for a: [N,2], b: [2,N] (a reduce over 2), read as z[0, :].sum() (a reduce range
// on the columns, a constant row) and as z^T (no reduce range). z has N*N elements, its
// inputs 4N: at N = 50 the ratio is 2501 / 201 >= 10: the transposed read inlines z, the
// summed row keeps only its reduce-fed dim, a buffer of N elements (one row of z). At
// N = 30 the ratio is 901 / 121 < 10: z is kept whole (N*N). Level 0 keeps it whole too.
std::string matmul_reads(int n) {
  return fmt::format(R"(
%a = PARAM slot=0 in : int32[{0},2]
%b = PARAM slot=1 in : int32[2,{0}]
%a3 = RESHAPE %a : int32[{0},2,1]
%ae = EXPAND %a3 : int32[{0},2,{0}]
%b3 = RESHAPE %b : int32[1,2,{0}]
%be = EXPAND %b3 : int32[{0},2,{0}]
%m = MUL %ae %be : int32[{0},2,{0}]
%s = REDUCE_AXIS %m op=ADD axes=[1] : int32[{0},1,{0}]
%z = RESHAPE %s : int32[{0},{0}]
%row = SHRINK %z shrink=[0:1,0:{0}] : int32[1,{0}]
%rs = REDUCE_AXIS %row op=ADD axes=[1] : int32[1,1]
%zt = PERMUTE %z order=[1,0] : int32[{0},{0}]
%r = REALIZE %rs %zt : void
)",
                     n);
}

TEST_F(BufferRemoval, HighRatioInlinesPartially) {
  LowerReport report;
  Program p = expect_lowering(matmul_reads(50), 3, 3, &report);
  EXPECT_EQ(hits(report, "buffer_partial_inline"), 1u);
  EXPECT_EQ(hits(report, "buffer_inline"), 1u);
  EXPECT_EQ(intermediate_elements(p), 50);
  for (int pcontig : {0, 2})
    EXPECT_EQ(intermediate_elements(expect_lowering(matmul_reads(50), pcontig, 3)), 2500);
}

// z.sum(1) reads z at (r, a reduce range): the row index is the reader's own loop range, so
// the smaller buffer loops over it too and is as large as z (N*N); results stay exact.
TEST_F(BufferRemoval, PartialInlineLoopsOverTheReadersRanges) {
  const std::string text = R"(
%a = PARAM slot=0 in : int32[50,2]
%b = PARAM slot=1 in : int32[2,50]
%a3 = RESHAPE %a : int32[50,2,1]
%ae = EXPAND %a3 : int32[50,2,50]
%b3 = RESHAPE %b : int32[1,2,50]
%be = EXPAND %b3 : int32[50,2,50]
%m = MUL %ae %be : int32[50,2,50]
%s = REDUCE_AXIS %m op=ADD axes=[1] : int32[50,1,50]
%z = RESHAPE %s : int32[50,50]
%rs = REDUCE_AXIS %z op=ADD axes=[1] : int32[50,1]
%zt = PERMUTE %z order=[1,0] : int32[50,50]
%r = REALIZE %rs %zt : void
)";
  LowerReport report;
  Program p = expect_lowering(text, 3, 3, &report);
  EXPECT_EQ(hits(report, "buffer_partial_inline"), 1u);
  EXPECT_EQ(intermediate_elements(p), 2500);
}

TEST_F(BufferRemoval, LowRatioKeeps) {
  LowerReport report;
  Program p = expect_lowering(matmul_reads(30), 3, 3, &report);
  EXPECT_EQ(hits(report, "buffer_keep_ratio"), 2u);
  EXPECT_EQ(intermediate_elements(p), 900);
}

// y = -x read by sum(y) (inside its reduce scope) and by flip(y). The caution keeps y for
// the sum, whose every iteration would negate again; flip(y) inlines it: 3 kernels.
// The same with x*x (not unary) inlines both: 2 kernels (the sum, the flip).
std::string unary_in_reduce(const std::string& op) {
  return fmt::format(R"(
%x = PARAM slot=0 in : int32[5]
%y = {} : int32[5]
%s = REDUCE_AXIS %y op=MAX axes=[0] : int32[1]
%f = FLIP %y axes=[0] : int32[5]
%r = REALIZE %s %f : void
)",
                     op);
}

TEST_F(BufferRemoval, UnaryInReduceScopeKeeps) {
  for (int pcontig : {0, 3}) {
    LowerReport report;
    expect_lowering(unary_in_reduce("NEG %x"), pcontig, 3, &report);
    EXPECT_EQ(hits(report, "buffer_keep_unary"), 1u);
    EXPECT_EQ(hits(report, "buffer_inline"), 1u);
    expect_lowering(unary_in_reduce("MUL %x %x"), pcontig, 2);
  }
  UOp root = parse(unary_in_reduce("NEG %x"));
  Program bugged = lower_ok(root, at(0, {LoweringBug::InlineUnaryInReduce}));
  EXPECT_EQ(bugged.kernels.size(), 2u);
  EXPECT_EQ(run(root, bugged).outputs,
            oracle::eval_tensor_program(root, make_inputs(root, 1))->outputs);
}

// y = 2x read through PAD 1:1 at r - 1 and, flipped, at 4 - r, both gated by 1 <= r < 5:
// the inlined value must read 0 in the padding and never x[-1] or x[4]. With x = [1,2,3,4]:
// [0,2,4,6,8,0] + [0,8,6,4,2,0] = [0,10,10,10,10,0].
constexpr const char* kGatedReads = R"(
%x = PARAM slot=0 in : int32[4]
%two = CONST 2 : int32[4]
%y = MUL %x %two : int32[4]
%p = PAD %y pad=[1:1] : int32[6]
%f = FLIP %y axes=[0] : int32[4]
%pf = PAD %f pad=[1:1] : int32[6]
%o = ADD %p %pf : int32[6]
%r = REALIZE %o : void
)";

TEST_F(BufferRemoval, GatedReadInlinesExactly) {
  for (int pcontig : {0, 3}) expect_lowering(kGatedReads, pcontig, 1);
  UOp root = parse(kGatedReads);
  Inputs in;
  Buffer x(dtypes::Int32, 4);
  for (int i = 0; i < 4; ++i) x.set(static_cast<size_t>(i), wrap_int(dtypes::Int32, i + 1));
  in.buffers[0] = x;
  auto out = backends::run_program(*backends::find_backend("oracle"), lower_ok(root, at(0)), in);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->status, RunStatus::Ok);
  std::vector<int64_t> got;
  for (size_t i = 0; i < 6; ++i) got.push_back(out->outputs.at(0).get(i).i);
  EXPECT_EQ(got, (std::vector<int64_t>{0, 10, 10, 10, 10, 0}));
  // Without the gate the padding reads x[-1] and x[4]: undefined on the oracle.
  Program bugged = lower_ok(root, at(0, {LoweringBug::InlineIgnoresGate}));
  EXPECT_NE(print_program(bugged), print_program(lower_ok(root, at(0))));
  auto bad = backends::run_program(*backends::find_backend("oracle"), bugged, in);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status, RunStatus::Ub);
}

// A division read under a gate is not inlined: where the gate is off its loads would read
// 0 and it would divide by that 0. Kept: its kernel and the reader's.
TEST_F(BufferRemoval, GatedDivisionKeeps) {
  LowerReport report;
  UOp root = parse(R"(
%0 = PARAM slot=0 in : int32[2]
%1 = PARAM slot=1 in : int32[2]
%2 = CDIV %0 %1 : int32[2]
%3 = PAD %2 pad=[1:1] : int32[4]
%4 = REALIZE %3 : void
)");
  EXPECT_EQ(lower_ok(root, at(0), &report).kernels.size(), 2u);
  EXPECT_EQ(hits(report, "buffer_keep_gate"), 1u);
}

// Every keep row and rewriting rule is named among the tensor-stage rules.
TEST(BufferRemovalNames, EveryRowIsNamed) {
  std::vector<std::string> names = tensor_rule_names();
  for (const char* row :
       {"buffer_inline", "buffer_partial_inline", "buffer_keep_limit", "buffer_keep_unary",
        "buffer_keep_reduce", "buffer_keep_ratio", "buffer_keep_gate"})
    EXPECT_NE(std::find(names.begin(), names.end(), row), names.end()) << row;
}

// Random tensor programs at every pcontig level: the lowering agrees with the tensor oracle
// (the program-level check on the oracle backend finds nothing), and the rows fire.
TEST(BufferRemovalRandom, AgreesWithTheTensorOracleAtEveryLevel) {
  std::map<std::string, uint64_t> fired;
  int checked = 0;
  for (int pcontig : {0, 3, 4}) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      Context ctx;
      gen::TensorGenResult g = gen::generate_tensor_program(ctx, gen::GenPolicy{}, seed);
      check::ProgramCheckOptions o;
      o.check.backends = {};
      o.lower.pcontig = pcontig;
      check::ProgramCheckResult r = check::check_program(ctx, g.program, o);
      if (r.unsupported) continue;
      EXPECT_EQ(r.kind, check::FindingKind::None)
          << "pcontig " << pcontig << " seed " << seed << ": " << r.details;
      LowerReport report;
      if (lower(ctx, g.program.root, o.lower, &report))
        for (const auto& [rule, n] : report.hits) fired[rule] += n;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
  EXPECT_GT(fired["buffer_inline"], 0u);
  EXPECT_GT(fired["buffer_keep_reduce"], 0u);
}

}  // namespace
}  // namespace uopfuzz::schedule
