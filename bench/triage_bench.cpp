// Grouping findings by root cause: 1,000 findings of 43 signatures (with and without a
// bounds diagnosis) explained against the repository's tinygrad root-causes file. Target:
// 1,000 findings under 10 s (it is microseconds: the file is read once, each finding is a
// few pattern matches).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "fuzz/root_causes.h"

namespace uopfuzz {
namespace {

void BM_Triage_Group1000Findings(benchmark::State& state) {
  const std::string path = UOPFUZZ_SOURCE_DIR "/corpus/findings/tinygrad/root-causes.md";
  std::vector<std::pair<std::string, std::string>> findings;
  for (int i = 0; i < 1000; ++i) {
    const int rule = 100 + (i % 43) * 9;
    findings.emplace_back(
        fmt::format("{}/uop/symbolic.py:{}/oracle", i % 3 ? "mismatch" : "ub-introduced", rule),
        i % 4 ? "seed 0: out[0][0] is 1 on the original but 0 on the rewrite"
              : "seed 0: ...; unsound-bounds: CAST of [0, 65535] claimed [0, 127], value -8");
  }
  size_t explained = 0;
  for (auto _ : state) {
    auto causes = fuzz::read_root_causes(path);
    if (!causes) {
      state.SkipWithError(causes.error().message.c_str());
      return;
    }
    explained = 0;
    for (const auto& [signature, details] : findings)
      explained += causes->explain(signature, details) != nullptr;
    benchmark::DoNotOptimize(explained);
  }
  state.counters["explained"] = static_cast<double>(explained);
}
BENCHMARK(BM_Triage_Group1000Findings)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace uopfuzz
