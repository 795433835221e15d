// Simplifier throughput: the full pipeline (optimize on and off) on every corpus example,
// each iteration on a fresh Context (the graph is copied in, so interning starts cold).
// Target (simplifier issue): <= 80 us per small arange/sum kernel on one core.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/graph.h"
#include "ir/parser.h"
#include "simplifier/simplifier.h"

namespace uopfuzz {
namespace {

void BM_Simplify_Example(benchmark::State& state, std::string path, bool optimize) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  ir::Context source;
  auto parsed = ir::parse_kernel(source, ss.str());
  if (!parsed) {
    state.SkipWithError(parsed.error().message.c_str());
    return;
  }
  simplifier::SimplifyOptions o;
  o.optimize = optimize;
  for (auto _ : state) {
    ir::Context ctx;
    auto r = simplifier::simplify(ctx, ir::copy_graph(ctx, parsed->kernel.root), o);
    benchmark::DoNotOptimize(r.root);
  }
}

int register_examples() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(UOPFUZZ_SOURCE_DIR "/corpus/examples"))
    if (e.path().extension() == ".uop") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files)
    for (bool opt : {true, false})
      benchmark::RegisterBenchmark(
          ("BM_Simplify_Example/" + p.stem().string() + (opt ? "/optimize" : "/no_optimize"))
              .c_str(),
          BM_Simplify_Example, p.string(), opt)
          ->Unit(benchmark::kMicrosecond);
  return 0;
}
const int registered = register_examples();

}  // namespace
}  // namespace uopfuzz
