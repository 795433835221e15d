// The external-simplifier protocol's cost per graph: each generated kernel (default policy,
// seeds 0..63) sent to an echo child (tests/fake_simplifier, which answers it back
// unchanged with a few hits) and parsed back, against the built-in simplifier in process on
// the same kernels. Counters: protocol_us, our side (printing, writing, parsing the
// answer), and child_us, from the request written to the answer read (the echo's own work
// plus two pipe hops). Target (simplifier-under-test issue): protocol overhead <= 200 us
// per graph and <= 5% of a graph's time with tinygrad.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "gen/generator.h"
#include "simplifier/simplifier.h"
#include "sut/external.h"

namespace uopfuzz {
namespace {

constexpr uint64_t kKernels = 64;

std::vector<ir::UOp> generated_kernels(ir::Context& ctx) {
  gen::GenPolicy policy;
  std::vector<ir::UOp> roots;
  for (uint64_t seed = 0; seed < kKernels; ++seed)
    roots.push_back(gen::generate(ctx, policy, seed).kernel.root);
  return roots;
}

void BM_External_EchoRoundTrip(benchmark::State& state) {
  const char* fake = UOPFUZZ_FAKE_SIMPLIFIER;
  if (!std::filesystem::exists(fake)) {
    state.SkipWithError("no tests/fake_simplifier in the build (configure with tests on)");
    return;
  }
  auto sut = sut::make_simplifier(std::string("external:exec ") + fake + " --mode echo");
  if (!sut.ok()) {
    state.SkipWithError(sut.error().message.c_str());
    return;
  }
  ir::Context ctx;
  std::vector<ir::UOp> roots = generated_kernels(ctx);
  (*sut)->version();  // start the child outside the timed loop
  double protocol = 0, child = 0;
  size_t i = 0;
  for (auto _ : state) {
    sut::Outcome out = (*sut)->simplify(ctx, roots[i++ % roots.size()], {});
    if (out.failure) {
      state.SkipWithError(out.failure->reason.c_str());
      return;
    }
    protocol += out.protocol_seconds;
    child += out.child_seconds;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["protocol_us"] = 1e6 * protocol / n;
  state.counters["child_us"] = 1e6 * child / n;
}
BENCHMARK(BM_External_EchoRoundTrip)->Unit(benchmark::kMicrosecond);

// The same kernels through tinygrad's rewrites (--simplifier tinygrad; skipped when no
// tinygrad or adapter is found). Counters: protocol_us, child_us, protocol_share (of the
// round trip), unsupported and crashed (kernels the adapter declined or raised on; only
// their protocol cost counts; the label shows the first crash). arg: 0 the symbolic stage, 1 the
// full kernel rewrite.
void BM_External_TinygradRoundTrip(benchmark::State& state) {
  sut::ExternalOptions options;
  options.tinygrad_stage = state.range(0) ? "full" : "symbolic";
  auto sut = sut::make_simplifier("tinygrad", options);
  if (!sut.ok()) {
    state.SkipWithError(sut.error().message.c_str());
    return;
  }
  if ((*sut)->version().empty()) {
    state.SkipWithError("the tinygrad adapter did not start");
    return;
  }
  ir::Context ctx;
  std::vector<ir::UOp> roots = generated_kernels(ctx);
  double protocol = 0, child = 0;
  int64_t unsupported = 0, crashed = 0;
  std::string first_crash;
  size_t i = 0;
  for (auto _ : state) {
    sut::Outcome out = (*sut)->simplify(ctx, roots[i++ % roots.size()], {});
    if (out.failure && out.failure->kind == sut::FailureKind::Unsupported) ++unsupported;
    if (out.failure && out.failure->kind != sut::FailureKind::Unsupported && crashed++ == 0)
      first_crash =
          std::string(sut::failure_kind_name(out.failure->kind)) + ": " + out.failure->reason;
    protocol += out.protocol_seconds;
    child += out.child_seconds;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["protocol_us"] = 1e6 * protocol / n;
  state.counters["child_us"] = 1e6 * child / n;
  state.counters["protocol_share"] = protocol / (protocol + child);
  state.counters["unsupported"] = static_cast<double>(unsupported);
  state.counters["crashed"] = static_cast<double>(crashed);
  state.SetLabel(first_crash);
}
BENCHMARK(BM_External_TinygradRoundTrip)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_External_BuiltinInProcess(benchmark::State& state) {
  ir::Context ctx;
  std::vector<ir::UOp> roots = generated_kernels(ctx);
  size_t i = 0;
  for (auto _ : state) {
    auto r = simplifier::simplify(ctx, roots[i++ % roots.size()], {});
    benchmark::DoNotOptimize(r.root);
  }
}
BENCHMARK(BM_External_BuiltinInProcess)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace uopfuzz
