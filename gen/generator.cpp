// The kernel generator (see generator.h for the contract): the Builder (builder.h) makes
// one kernel, then the oracle checks it and repairs it locally (repair.cpp).
#include "gen/generator.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "gen/builder.h"
#include "gen/near_miss.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {

/// `p` with the caps of its real-sizes section in place of the small ones.
GenPolicy large_sizes(const GenPolicy& p, Entropy& entropy) {
  GenPolicy l = p;
  l.max_store_iterations = entropy.chance(p.p_large_store) ? p.large_max_store_iterations
                                                           : p.large_small_store_iterations;
  l.max_positions = p.large_max_positions;
  l.max_outputs = p.large_max_outputs;
  l.max_range_end = p.large_max_iterations;
  l.max_iterations = p.large_max_iterations;
  l.exprs.reduce = p.large_reduce_weight;
  l.check_max_steps = p.large_check_max_steps;
  return l;
}

}  // namespace

GenResult generate(Context& ctx, const GenPolicy& given, Entropy& entropy) {
  // A near miss replaces the whole kernel; with p_near_miss 0 no draw is made, so the other
  // kernels of a seed stay as they were.
  if (given.p_near_miss > 0 && entropy.chance(given.p_near_miss)) {
    GenResult res;
    res.kernel = draw_near_miss(ctx, entropy);
    res.stats.entropy_exhausted = entropy.exhausted();
    res.kernel.header.name = "gen";
    res.kernel.header.extra.emplace_back("generator", kGeneratorVersion);
    check_and_repair(ctx, res.kernel, given, res.stats);
    return res;
  }
  std::optional<GenPolicy> large;
  if (entropy.chance(given.p_large)) large = large_sizes(given, entropy);
  const GenPolicy& policy = large ? *large : given;
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
