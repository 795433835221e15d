// The CPU backend beyond the conformance suite (tests/backends_conformance_test.cpp, run
// here on 1 and 2 threads): bad inputs, thread splitting, vectorization, the listing.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/lower.h"
#include "backends/registry.h"
#include "check/differential.h"
#include "gen/generator.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "tests/backend_conformance.h"

namespace uopfuzz {
namespace {

using namespace ir;

using test_support::Case;

// The conformance suite (tests/backends_conformance_test.cpp) runs each case on 1 and 2
// threads here, compiled at every level: neither the thread pool nor the optimizer and code
// generator of any level may change a bit.
const bool g_cpu_conformance =
    test_support::register_conformance({"cpu",
                                        {1, 2},
                                        {},
                                        {},
                                        {backends::OptLevel::O0, backends::OptLevel::O1,
                                         backends::OptLevel::O2, backends::OptLevel::O3}});

TEST(CpuBackend, RejectsBadInputsAsValues) {
  Context x;
  auto k =
      parse_kernel(x,
                   "%0 = PARAM slot=0 size=4 out : int32\n%1 = PARAM slot=1 size=4 in : int32\n"
                   "%2 = VAR name=n min=0 max=4 : index\n%3 = RANGE %2 axis=0 LOOP : index\n"
                   "%4 = INDEX %1 %3 : int32\n%5 = LOAD %4 : int32\n%6 = INDEX %0 %3 : int32\n"
                   "%7 = STORE %6 %5 : void\n%8 = END %7 %3 : void\n%9 = SINK %8 : void\n");
  ASSERT_TRUE(k.ok());
  auto c = backends::find_backend("cpu")->compile(k->kernel.root);
  ASSERT_TRUE(c.ok());
  oracle::Inputs in;
  EXPECT_FALSE(c.value()->run(in).ok());  // no buffer
  in.buffers[1] = Buffer(dtypes::Int32, 4);
  EXPECT_FALSE(c.value()->run(in).ok());  // no VAR
  in.vars["n"] = 9;
  EXPECT_FALSE(c.value()->run(in).ok());  // out of bounds VAR
  in.vars["n"] = 4;
  EXPECT_TRUE(c.value()->run(in).ok());
}

// The kernel with its listing: IR as lowered, after O2, and the vectorizer's remarks.
Result<std::shared_ptr<backends::Kernel>> compile_with_listing(UOp root) {
  backends::CompileOptions co;
  co.keep_listing = true;
  return backends::find_backend("cpu")->compile(root, co);
}

// A large loop nest is split across threads, a small one runs on thread 0, and a
// top-level store once: on 1, 2 and 3 threads (an odd split) every output must match
// the oracle bit for bit.
TEST(CpuBackend, LargeLoopNestsSplitAcrossThreadsAndAgree) {
  Context x;
  // out0[i] = a[i] * 3 + sum_j b[j] over 40,009 i (split); out1[j] = b[j] (8, thread 0);
  // out2[0] = 7 (top level).
  auto k = parse_kernel(x, R"(
%0 = PARAM slot=0 size=40009 out : float32
%1 = PARAM slot=1 size=40009 in : float32
%2 = PARAM slot=2 size=8 in : float32
%3 = CONST 40009 : index
%4 = RANGE %3 axis=0 LOOP : index
%5 = INDEX %1 %4 : float32
%6 = LOAD %5 : float32
%7 = CONST 3 : float32
%8 = MUL %6 %7 : float32
%9 = CONST 8 : index
%10 = RANGE %9 axis=1 REDUCE : index
%11 = INDEX %2 %10 : float32
%12 = LOAD %11 : float32
%13 = REDUCE %12 %10 op=ADD : float32
%14 = ADD %8 %13 : float32
%15 = INDEX %0 %4 : float32
%16 = STORE %15 %14 : void
%17 = END %16 %4 : void
%18 = PARAM slot=3 size=8 out : float32
%19 = RANGE %9 axis=2 LOOP : index
%20 = INDEX %2 %19 : float32
%21 = LOAD %20 : float32
%22 = INDEX %18 %19 : float32
%23 = STORE %22 %21 : void
%24 = END %23 %19 : void
%25 = PARAM slot=4 size=1 out : int32
%26 = CONST 0 : index
%27 = INDEX %25 %26 : int32
%28 = CONST 7 : int32
%29 = STORE %27 %28 : void
%30 = SINK %17 %24 %29 : void
)");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_TRUE(backends::cpu::splits_across_threads(k->kernel.root));
  auto c = backends::find_backend("cpu")->compile(k->kernel.root);
  ASSERT_TRUE(c.ok()) << c.error().message;
  oracle::Inputs in = oracle::make_inputs(k->kernel.root, 3);
  auto want = oracle::run(k->kernel.root, in);
  ASSERT_TRUE(want.ok());
  for (int threads : {1, 2, 3}) {
    backends::RunOptions ro;
    ro.threads = threads;
    auto got = c.value()->run(in, ro);
    ASSERT_TRUE(got.ok()) << got.error().message;
    for (int slot : {0, 3, 4}) {
      auto d = check::first_difference(want->outputs.at(slot), &got->outputs.at(slot));
      EXPECT_FALSE(d.has_value()) << threads << " threads, slot " << slot << " element " << *d;
    }
  }
}

// Small nests are not worth a thread: they keep their constant trip counts, and a run on
// many threads does not wake the pool.
TEST(CpuBackend, SmallLoopNestsStaySerial) {
  Context x;
  auto k = parse_kernel(x,
                        "%0 = PARAM slot=0 size=64 out : int32\n%1 = CONST 64 : index\n%2 = RANGE "
                        "%1 axis=0 LOOP : index\n"
                        "%3 = INDEX %0 %2 : int32\n%4 = CAST %2 : int32\n%5 = STORE %3 %4 : "
                        "void\n%6 = END %5 %2 : void\n"
                        "%7 = SINK %6 : void\n");
  ASSERT_TRUE(k.ok());
  EXPECT_FALSE(backends::cpu::splits_across_threads(k->kernel.root));
}

// An UPCAST axis becomes vectors of its width: out[4g + u] = in[4g + u] * 2 over GLOBAL g
// and UPCAST u (4), and an int32 REDUCE over an UPCAST axis of 8. The optimized IR holds
// <4 x float> and <8 x i32> values, the vectorizer says it vectorized at those widths,
// and the results match the oracle's.
TEST(CpuBackend, UpcastAxesBecomeVectorsOfTheirWidth) {
  const char* kernels[][2] = {{R"(
%0 = PARAM slot=0 size=4000 out : float32
%1 = PARAM slot=1 size=4000 in : float32
%2 = CONST 1000 : index
%3 = RANGE %2 axis=0 GLOBAL : index
%4 = CONST 4 : index
%5 = RANGE %4 axis=1 UPCAST : index
%6 = MUL %3 %4 : index
%7 = ADD %6 %5 : index
%8 = INDEX %1 %7 : float32
%9 = LOAD %8 : float32
%10 = CONST 2 : float32
%11 = MUL %9 %10 : float32
%12 = INDEX %0 %7 : float32
%13 = STORE %12 %11 : void
%14 = END %13 %3 %5 : void
%15 = SINK %14 : void
)",
                               "<4 x float>"},
                              {R"(
%0 = PARAM slot=0 size=100 out : int32
%1 = PARAM slot=1 size=800 in : int32
%2 = CONST 100 : index
%3 = RANGE %2 axis=0 GLOBAL : index
%4 = CONST 8 : index
%5 = RANGE %4 axis=1 UPCAST : index
%6 = MUL %3 %4 : index
%7 = ADD %6 %5 : index
%8 = INDEX %1 %7 : int32
%9 = LOAD %8 : int32
%10 = REDUCE %9 %5 op=ADD : int32
%11 = INDEX %0 %3 : int32
%12 = STORE %11 %10 : void
%13 = END %12 %3 : void
%14 = SINK %13 : void
)",
                               "<8 x i32>"}};
  for (auto& [text, vector] : kernels) {
    Context x;
    auto k = parse_kernel(x, text);
    ASSERT_TRUE(k.ok()) << k.error().message;
    auto c = compile_with_listing(k->kernel.root);
    ASSERT_TRUE(c.ok()) << c.error().message;
    const std::string listing = c.value()->listing();
    const std::string optimized = listing.substr(listing.find("after the O2 pipeline"));
    EXPECT_NE(optimized.find(vector), std::string::npos) << optimized;
    const std::string width = fmt::format("vectorization width: {}", vector[1]);
    EXPECT_NE(listing.find(width), std::string::npos) << listing;
    oracle::Inputs in = oracle::make_inputs(k->kernel.root, 5);
    auto want = oracle::run(k->kernel.root, in);
    ASSERT_TRUE(want.ok());
    auto got = c.value()->run(in);
    ASSERT_TRUE(got.ok());
    EXPECT_FALSE(check::first_difference(want->outputs.at(0), &got->outputs.at(0)).has_value());
  }
}

// The generator's UPCAST axes reach the vector lowering: a generated kernel whose
// innermost store range is UPCAST vectorizes at its width unless a REDUCE loop sits
// inside it (about half of them, 19 of these 40; LLVM 14 vectorizes innermost loops
// only, and the listing then carries the transform warning). Either way the compile
// writes nothing to stderr, and every kernel still checks clean against the oracle.
TEST(CpuBackend, GeneratedUpcastAxesVectorizeAndAgree) {
  gen::GenPolicy policy;
  policy.p_store_in_loop = policy.p_upcast_axis = 1;
  constexpr int kGraphs = 40;
  int vectorized = 0, warned = 0;
  for (uint64_t seed = 7000; seed < 7000 + kGraphs; ++seed) {
    Context x;
    gen::GenResult g = gen::generate(x, policy, seed);
    testing::internal::CaptureStderr();
    auto c = compile_with_listing(g.kernel.root);
    check::CheckOptions o;
    o.backends = {"oracle", "cpu"};
    auto r = check::check_kernel(x, g.kernel, o);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "seed " << seed;
    ASSERT_TRUE(c.ok()) << c.error().message;
    const std::string listing = c.value()->listing();
    vectorized += listing.find("remark loop-vectorize: vectorized loop") != std::string::npos;
    warned += listing.find("remark transform-warning: loop not vectorized") != std::string::npos;
    EXPECT_EQ(r.kind, check::FindingKind::None) << "seed " << seed << ": " << r.details << "\n"
                                                << print_kernel(g.kernel);
  }
  EXPECT_GE(vectorized, kGraphs / 3) << "of " << kGraphs << " generated UPCAST kernels";
  EXPECT_GE(warned, 1) << "an UPCAST loop around a REDUCE says why it stayed a loop";
}

// Vector code for a loop bounded by a small VAR costs more to compile than it can save:
// such a loop stays scalar, while the same loop with a large bound vectorizes.
TEST(CpuBackend, OnlyLoopsThatCanRunLongVectorize) {
  for (int64_t max : {63, 100000}) {
    Context x;
    auto k = parse_kernel(x, fmt::format(R"(
%0 = PARAM slot=0 size={0} out : float32
%1 = PARAM slot=1 size={0} in : float32
%2 = VAR name=n min=0 max={0} : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %1 %3 : float32
%5 = LOAD %4 : float32
%6 = MUL %5 %5 : float32
%7 = INDEX %0 %3 : float32
%8 = STORE %7 %6 : void
%9 = END %8 %3 : void
%10 = SINK %9 : void
)",
                                         max));
    ASSERT_TRUE(k.ok()) << k.error().message;
    auto c = compile_with_listing(k->kernel.root);
    ASSERT_TRUE(c.ok()) << c.error().message;
    const std::string listing = c.value()->listing();
    const bool vectorized =
        listing.find("vectorized loop (vectorization width") != std::string::npos;
    EXPECT_EQ(vectorized, max >= 64) << "VAR max " << max << "\n" << listing;
  }
}

// Found by a campaign (mismatch/lift_add_ne/cpu): out = x - 1 > -1 ? x - 1 : 0 for x in
// {0, 1} is always 0, but LLVM 14's fast instruction selector at O2 placed the XOR that
// zeroes a register between the SUB and the CMOV that reads its carry, and gave -1 for
// x = 0. The backend uses the DAG selector; this kernel must stay right on both inputs.
TEST(CpuBackend, SelectOnASubtractionsSignIsNotMiscompiled) {
  Context x;
  auto k = parse_kernel(x, R"(
%0 = PARAM slot=1 size=3 out : int32
%1 = CONST 2 : index
%2 = INDEX %0 %1 : int32
%3 = CONST -1 : index
%4 = PARAM slot=0 size=3 in vmin=0 vmax=1 : uint32
%5 = INDEX %4 %1 : uint32
%6 = LOAD %5 : uint32
%7 = CAST %6 : index
%8 = ADD %7 %3 : index
%9 = CMPLT %3 %8 : bool
%10 = CONST 0 : index
%11 = WHERE %9 %8 %10 : index
%12 = CAST %11 : int32
%13 = CONST 0 : int32
%14 = WHERE %9 %12 %13 : int32
%15 = STORE %2 %14 : void
%16 = SINK %15 : void
)");
  ASSERT_TRUE(k.ok()) << k.error().message;
  for (int level = 0; level < backends::kOptLevelCount; ++level) {
    backends::CompileOptions co;
    co.opt_level = static_cast<backends::OptLevel>(level);
    auto c = backends::find_backend("cpu")->compile(k->kernel.root, co);
    ASSERT_TRUE(c.ok()) << c.error().message;
    for (uint32_t v : {0u, 1u}) {
      oracle::Inputs in;
      in.buffers[0] = Buffer(dtypes::UInt32, 3);
      in.buffers[0].set(2, Value::of_uint(v));
      auto got = c.value()->run(in);
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(got->outputs.at(1).get(2).i, 0)
          << "x = " << v << " at " << backends::opt_level_name(co.opt_level);
    }
  }
}

// out[i] = in[i] * `factor` + 1 over 64 elements.
std::string scaled(int factor) {
  return fmt::format(
      "%0 = PARAM slot=0 size=64 out : int32\n%1 = PARAM slot=1 size=64 in : int32\n"
      "%2 = CONST 64 : index\n%3 = RANGE %2 axis=0 LOOP : index\n%4 = INDEX %1 %3 : int32\n"
      "%5 = LOAD %4 : int32\n%6 = CONST {} : int32\n%7 = MUL %5 %6 : int32\n"
      "%8 = CONST 1 : int32\n%9 = ADD %7 %8 : int32\n%10 = INDEX %0 %3 : int32\n"
      "%11 = STORE %10 %9 : void\n%12 = END %11 %3 : void\n%13 = SINK %12 : void\n",
      factor);
}

// Graphs compiled in one call share one module: each kernel runs its own function (a mixup
// of entry points or signatures shows as wrong outputs), a repeated graph is one kernel,
// and a graph that cannot be compiled fails alone.
TEST(CpuBackend, CompileAllBuildsOneModuleWhereEachKernelRunsItsOwnGraph) {
  Context x;
  auto a = parse_kernel(x, scaled(3));
  auto b = parse_kernel(x, scaled(-7));
  ASSERT_TRUE(a.ok() && b.ok());
  backends::Backend* cpu = backends::find_backend("cpu");
  cpu->kernel_cache()->clear();
  const std::vector<UOp> roots{a->kernel.root, UOp(), b->kernel.root, a->kernel.root};
  auto compiled = cpu->compile_all(roots);
  ASSERT_EQ(compiled.size(), 4u);
  EXPECT_FALSE(compiled[1].ok());
  ASSERT_TRUE(compiled[0].ok() && compiled[2].ok() && compiled[3].ok());
  EXPECT_EQ(compiled[0].value(), compiled[3].value());
  EXPECT_NE(compiled[0].value(), compiled[2].value());
  for (size_t i : {0u, 2u}) {
    oracle::Inputs in = oracle::make_inputs(i == 0 ? a->kernel : b->kernel, 5);
    auto want = oracle::run(roots[i], in);
    auto got = compiled[i].value()->run(in);
    ASSERT_TRUE(want.ok() && got.ok());
    for (size_t e = 0; e < 64; ++e)
      EXPECT_EQ(got->outputs.at(0).get(e).i, want->outputs.at(0).get(e).i) << "graph " << i;
  }
  // Both are cached: compiling either alone is a hit.
  const auto before = cpu->kernel_cache()->stats();
  auto again = cpu->compile(b->kernel.root);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), compiled[2].value());
  EXPECT_EQ(cpu->kernel_cache()->stats().hits, before.hits + 1);
}

// Each level is its own compile (and cache entry), and really is that level: O0 runs the
// IR as lowered, the others optimize it.
TEST(CpuBackend, OptLevelsCompileApartAndO0KeepsTheLoweredIr) {
  Context x;
  auto k = parse_kernel(x, scaled(5));
  ASSERT_TRUE(k.ok());
  backends::Backend* cpu = backends::find_backend("cpu");
  EXPECT_TRUE(cpu->caps().opt_levels);
  std::vector<std::shared_ptr<backends::Kernel>> kernels;
  for (int level = 0; level < backends::kOptLevelCount; ++level) {
    backends::CompileOptions co;
    co.keep_listing = true;
    co.opt_level = static_cast<backends::OptLevel>(level);
    auto c = cpu->compile(k->kernel.root, co);
    ASSERT_TRUE(c.ok()) << c.error().message;
    for (const auto& other : kernels) EXPECT_NE(other, c.value());
    kernels.push_back(c.value());
    const std::string listing = c.value()->listing();
    const std::string name(backends::opt_level_name(co.opt_level));
    const size_t after = listing.find("; ---- after the " + name + " pipeline");
    ASSERT_NE(after, std::string::npos) << listing;
    const size_t lowered_at = listing.find("; ---- LLVM IR as lowered ----");
    auto body = [&](size_t from) {
      const size_t start = listing.find("define", from);
      return listing.substr(start, listing.find("\n}", start) - start);
    };
    // O0 runs no IR pass; any pipeline at least merges the entry block into `start`.
    EXPECT_EQ(body(lowered_at) == body(after), level == 0) << name << "\n" << listing;
    oracle::Inputs in = oracle::make_inputs(k->kernel, 1);
    auto want = oracle::run(k->kernel.root, in);
    auto got = c.value()->run(in);
    ASSERT_TRUE(want.ok() && got.ok());
    for (size_t e = 0; e < 64; ++e)
      EXPECT_EQ(got->outputs.at(0).get(e).i, want->outputs.at(0).get(e).i) << name;
  }
}

TEST(CpuBackend, ListingHasTheIr) {
  Context x;
  auto k = parse_kernel(
      x,
      "%0 = PARAM slot=0 size=1 out : float32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : float32\n"
      "%3 = CONST 1.5 : float32\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n");
  backends::CompileOptions co;
  co.keep_listing = true;
  auto c = backends::find_backend("cpu")->compile(k->kernel.root, co);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c.value()->listing().find("define void @uopfuzz_kernel_"), std::string::npos);
}

TEST(Registry, ListsOracleAndCpu) {
  const auto& names = backends::backend_names();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "oracle");
  for (const auto& n : names) {
    ASSERT_NE(backends::find_backend(n), nullptr);
    EXPECT_EQ(backends::find_backend(n)->name(), n);
  }
  EXPECT_EQ(backends::find_backend("nope"), nullptr);
}

TEST(CheckKernel, ComparesOnExtraBackends) {
  Context x;
  auto k = parse_kernel(x,
                        "%0 = PARAM slot=0 size=10 out : int32\n%1 = CONST 10 : index\n%2 = RANGE "
                        "%1 axis=0 LOOP : index\n"
                        "%3 = INDEX %0 %2 : int32\n%4 = CAST %2 : int32\n%5 = CONST 3 : int32\n%6 "
                        "= FLOORMOD %4 %5 : int32\n"
                        "%7 = STORE %3 %6 : void\n%8 = END %7 %2 : void\n%9 = SINK %8 : void\n");
  ASSERT_TRUE(k.ok());
  check::CheckOptions o;
  o.backends = {"oracle", "cpu"};
  auto r = check::check_kernel(x, k->kernel, o);
  EXPECT_EQ(r.kind, check::FindingKind::None) << r.details;
  EXPECT_EQ(r.seeds_run, 3);
  o.backends = {"oracle", "vulkan-not-here"};
  EXPECT_EQ(check::check_kernel(x, k->kernel, o).kind, check::FindingKind::BackendError);
}

}  // namespace
}  // namespace uopfuzz
