// The kernel generator (see generator.h for the contract): the Builder (builder.h) makes
// one kernel, then the oracle checks it and repairs it locally (repair.cpp).
#include "gen/generator.h"

#include <fmt/format.h>

#include <string>

#include "gen/builder.h"

namespace uopfuzz::gen {

using namespace ir;

GenResult generate(Context& ctx, const GenPolicy& policy, Entropy& entropy) {
  GenResult res;
  Kernel& k = res.kernel;
  k = Builder(ctx, policy, entropy).build();
  res.stats.entropy_exhausted = entropy.exhausted();
  k.header.name = "gen";
  k.header.seed = 0;
  k.header.extra.emplace_back("generator", kGeneratorVersion);
  check_and_repair(ctx, k, policy, res.stats);  // evaluate, repair locally
  return res;
}

GenResult generate(Context& ctx, const GenPolicy& policy, uint64_t seed) {
  SeedEntropy e(seed);
  GenResult r = generate(ctx, policy, e);
  r.kernel.header.name = fmt::format("gen-{}", seed);
  r.kernel.header.extra.emplace_back("gen-seed", std::to_string(seed));
  return r;
}

}  // namespace uopfuzz::gen
