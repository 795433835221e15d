// Whole-program tests of the oracle (oracle::Program) on kernels written as .uop text.
// Expected outputs are worked out by hand from SEMANTICS.md in the comment beside each.
// Here: the step limit, one program run many times, and make_inputs.

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "oracle_program.h"

namespace uopfuzz::oracle {
namespace {

using namespace ir;
using namespace program_test;

// ---------------------------------------------------------------------------------
// The step limit stops any loop, however large, quickly.

TEST_F(OracleProgram, StepLimitStopsEnormousLoop) {
  const std::string text = R"(
%out = PARAM slot=0 size=1 out : int64
%c0 = CONST 0 : index
%ox = INDEX %out %c0 : int64
%huge = CONST 1099511627776 : index
%r = RANGE %huge axis=0 REDUCE : index
%one = CONST 1 : int64
%red = REDUCE %one %r op=ADD : int64
%st = STORE %ox %red : void
%s = SINK %st : void
)";
  Program p = compile(text);
  RunOptions opts;
  opts.max_steps = 100000;
  auto t0 = std::chrono::steady_clock::now();
  auto out = p.run({}, opts);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::StepLimit);
  EXPECT_FALSE(out->ub);
  EXPECT_TRUE(out->outputs.empty());
  EXPECT_GT(out->steps, 100000u);
  EXPECT_LT(out->steps, 200000u);
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 2000);
  // Nested END loops (2^20 x 2^20) stop as well.
  const std::string nested = R"(
%out = PARAM slot=0 size=1 out : int32
%c0 = CONST 0 : index
%big = CONST 1048576 : index
%r0 = RANGE %big axis=0 LOOP : index
%r1 = RANGE %big axis=1 LOOP : index
%a = CMPEQ %r0 %c0 : bool
%b = CMPEQ %r1 %c0 : bool
%g = AND %a %b : bool
%inv = INVALID : index
%gi = WHERE %g %c0 %inv : index
%ox = INDEX %out %gi : int32
%v = CONST 7 : int32
%st = STORE %ox %v : void
%e = END %st %r0 %r1 : void
%s = SINK %e : void
)";
  auto out2 = compile(nested).run({}, opts);
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ(out2->status, RunStatus::StepLimit);
  // With a generous limit a small loop finishes and counts its steps.
  RunOutput small = run(reduce1("ADD", "int32", 10, 1, 0));
  EXPECT_EQ(small.status, RunStatus::Ok);
  EXPECT_GT(small.steps, 10u);
}

// ---------------------------------------------------------------------------------
// One compiled program, many runs: no state leaks from one run into the next.

TEST_F(OracleProgram, ProgramReuseAcrossRuns) {
  // out[r] = 12 CDIV in[r] over r < 4.
  const std::string text = R"(
%out = PARAM slot=0 size=4 out : int32
%in = PARAM slot=1 size=4 in : int32
%c4 = CONST 4 : index
%r = RANGE %c4 axis=0 LOOP : index
%ox = INDEX %out %r : int32
%ix = INDEX %in %r : int32
%ld = LOAD %ix : int32
%tw = CONST 12 : int32
%q = CDIV %tw %ld : int32
%st = STORE %ox %q : void
%e = END %st %r : void
%s = SINK %e : void
)";
  Program p = compile(text);
  Inputs a, b, bad;
  a.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 2, 3, 4}));
  b.buffers.emplace(1, int_buffer(dtypes::Int32, {-1, -5, 12, 13}));
  bad.buffers.emplace(1, int_buffer(dtypes::Int32, {1, 0, 1, 1}));
  for (int round = 0; round < 3; ++round) {
    auto ra = p.run(a);
    ASSERT_TRUE(ra.ok());
    ASSERT_EQ(ra->status, RunStatus::Ok) << round;  // a fresh run: no "stored twice"
    EXPECT_EQ(ints(ra->outputs.at(0)), (I64s{12, 6, 4, 3}));
    auto rbad = p.run(bad);
    ASSERT_TRUE(rbad.ok());
    ASSERT_EQ(rbad->status, RunStatus::Ub);
    ASSERT_EQ(rbad->ub->iteration.size(), 1u);
    EXPECT_EQ(rbad->ub->iteration[0].second, 1);
    auto rb = p.run(b);
    ASSERT_TRUE(rb.ok());
    ASSERT_EQ(rb->status, RunStatus::Ok);
    EXPECT_EQ(ints(rb->outputs.at(0)), (I64s{-12, -2, 1, 0}));  // 12/-5 truncates to -2
  }
  Program moved = std::move(p);
  auto rm = moved.run(a);
  ASSERT_TRUE(rm.ok());
  EXPECT_EQ(ints(rm->outputs.at(0)), (I64s{12, 6, 4, 3}));
}

// ---------------------------------------------------------------------------------
// make_inputs

const char* kInputsKernel = R"(
%out = PARAM slot=0 size=1 out : int32
%a = PARAM slot=1 size=256 in : int32
%f = PARAM slot=2 size=256 in : float32
%u = PARAM slot=3 size=256 in : uint8
%b = PARAM slot=4 size=64 in : bool
%m = PARAM slot=5 size=256 in vmin=3 vmax=9 multiple_of=3 : int64
%k = PARAM slot=6 size=16 in vmin=5 vmax=5 : int16
%h = PARAM slot=7 size=256 in : float16
%a2 = PARAM slot=8 size=256 in : int32
%n = VAR name=n min=0 max=1000 : index
%w = VAR name=w min=-40 max=40 multiple_of=8 : int32
%c0 = CONST 0 : index
%ia = INDEX %a %c0 : int32
%la = LOAD %ia : int32
%if = INDEX %f %c0 : float32
%lf = LOAD %if : float32
%cf = CAST %lf : int32
%iu = INDEX %u %c0 : uint8
%lu = LOAD %iu : uint8
%cu = CAST %lu : int32
%ib = INDEX %b %c0 : bool
%lb = LOAD %ib : bool
%cb = CAST %lb : int32
%im = INDEX %m %c0 : int64
%lm = LOAD %im : int64
%cm = CAST %lm : int32
%ik = INDEX %k %c0 : int16
%lk = LOAD %ik : int16
%ck = CAST %lk : int32
%ih = INDEX %h %c0 : float16
%lh = LOAD %ih : float16
%ch = CAST %lh : int32
%ia2 = INDEX %a2 %c0 : int32
%la2 = LOAD %ia2 : int32
%cn = CAST %n : int32
%s1 = ADD %la %cf : int32
%s2 = ADD %s1 %cu : int32
%s3 = ADD %s2 %cb : int32
%s4 = ADD %s3 %cm : int32
%s5 = ADD %s4 %ck : int32
%s6 = ADD %s5 %ch : int32
%s7 = ADD %s6 %la2 : int32
%s8 = ADD %s7 %cn : int32
%s9 = ADD %s8 %w : int32
%io = INDEX %out %c0 : int32
%st = STORE %io %s9 : void
%s = SINK %st : void
)";

TEST_F(OracleProgram, MakeInputsIsDeterministic) {
  UOp root = parse(kInputsKernel);
  Inputs x = make_inputs(root, 42);
  Inputs y = make_inputs(root, 42);
  EXPECT_EQ(x.buffers, y.buffers);
  EXPECT_EQ(x.vars, y.vars);
  // Only input PARAMs get buffers.
  std::set<int> slots;
  for (const auto& [slot, _] : x.buffers) slots.insert(slot);
  EXPECT_EQ(slots, (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(x.buffers.at(1).dtype(), dtypes::Int32);
  EXPECT_EQ(x.buffers.at(1).size(), 256u);
  EXPECT_EQ(x.buffers.at(4).size(), 64u);
  ASSERT_EQ(x.vars.size(), 2u);
  // A context of its own parses the same text to the same inputs.
  Context other;
  auto again = parse_kernel(other, kInputsKernel);
  ASSERT_TRUE(again.ok());
  Inputs z = make_inputs(again->kernel.root, 42);
  EXPECT_EQ(x.buffers, z.buffers);
  EXPECT_EQ(x.vars, z.vars);
  // And the kernel runs on them.
  EXPECT_EQ(run(kInputsKernel, x).status, RunStatus::Ok);
}

TEST_F(OracleProgram, MakeInputsDiffersAcrossSeedsAndSlots) {
  UOp root = parse(kInputsKernel);
  Inputs s1 = make_inputs(root, 1);
  Inputs s2 = make_inputs(root, 2);
  for (int slot : {1, 2, 3, 4, 7})
    EXPECT_FALSE(s1.buffers.at(slot) == s2.buffers.at(slot)) << "slot " << slot;
  EXPECT_NE(s1.vars.at("n"), s2.vars.at("n")) << "n is uniform in [0, 1000]: equal for seeds 1, 2?";
  // Two buffers of one dtype and size in one kernel are not copies of each other.
  EXPECT_FALSE(s1.buffers.at(1) == s1.buffers.at(8));
}

TEST_F(OracleProgram, MakeInputsRespectsDistributions) {
  UOp root = parse(kInputsKernel);
  for (uint64_t seed : {0ull, 1ull, 7ull, 123456789ull}) {
    Inputs in = make_inputs(root, seed);
    std::set<int64_t> ints_seen, mults_seen;
    for (int64_t v : ints(in.buffers.at(1))) {
      EXPECT_GE(v, -8);
      EXPECT_LE(v, 8);
      ints_seen.insert(v);
    }
    EXPECT_GE(ints_seen.size(), 15u) << "256 draws from 17 values should hit nearly all";
    EXPECT_TRUE(ints_seen.count(-8) || ints_seen.count(8));
    std::set<double> floats_seen;
    for (double v : floats(in.buffers.at(2))) {
      double k = v * 8;
      EXPECT_EQ(k, std::floor(k)) << v << " is not a multiple of 1/8";
      EXPECT_GE(k, -64);
      EXPECT_LE(k, 64);
      floats_seen.insert(v);
    }
    EXPECT_GE(floats_seen.size(), 60u);
    for (double v : floats(in.buffers.at(7))) {
      double k = v * 8;
      EXPECT_EQ(k, std::floor(k));
      EXPECT_GE(k, -64);
      EXPECT_LE(k, 64);
    }
    for (uint64_t v : uints(in.buffers.at(3))) EXPECT_LE(v, 16u);
    std::set<int64_t> bools;
    for (int64_t v : ints(in.buffers.at(4))) bools.insert(v);
    EXPECT_EQ(bools, (std::set<int64_t>{0, 1}));
    for (int64_t v : ints(in.buffers.at(5))) mults_seen.insert(v);
    EXPECT_EQ(mults_seen, (std::set<int64_t>{3, 6, 9}));       // vmin..vmax, multiples of 3
    for (int64_t v : ints(in.buffers.at(6))) EXPECT_EQ(v, 5);  // vmin = vmax fixes it
    EXPECT_GE(in.vars.at("n"), 0);
    EXPECT_LE(in.vars.at("n"), 1000);
    EXPECT_GE(in.vars.at("w"), -40);
    EXPECT_LE(in.vars.at("w"), 40);
    EXPECT_EQ(in.vars.at("w") % 8, 0);
  }
}

TEST_F(OracleProgram, MakeInputsKeepsGivenVars) {
  UOp root = parse(kInputsKernel);
  Inputs in = make_inputs(root, 5, {{"n", 17}});
  EXPECT_EQ(in.vars.at("n"), 17);
  EXPECT_EQ(in.vars.count("w"), 1u);
  // The given VAR does not change the buffers.
  EXPECT_EQ(in.buffers, make_inputs(root, 5).buffers);
}

}  // namespace
}  // namespace uopfuzz::oracle
