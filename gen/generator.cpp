// The kernel generator (see generator.h for the contract): the Builder (builder.h) makes
// one kernel, then the oracle checks it and repairs it locally (repair.cpp).
#include "gen/generator.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "gen/builder.h"
#include "gen/near_miss.h"
#include "ir/hash.h"

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

namespace {

/// A near miss (gen/near_miss.h) in place of a generated kernel, checked like one.
GenResult near_miss(Context& ctx, const GenPolicy& policy, Entropy& entropy) {
  GenResult res;
  res.kernel = draw_near_miss(ctx, entropy);
  res.stats.entropy_exhausted = entropy.exhausted();
  res.kernel.header.name = "gen";
  res.kernel.header.extra.emplace_back("generator", kGeneratorVersion);
  check_and_repair(ctx, res.kernel, policy, res.stats);
  return res;
}

GenResult generated(Context& ctx, const GenPolicy& given, Entropy& entropy) {
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

/// The near-miss choice of a seeded kernel has a stream of its own (the seed, salted), so the
/// kernels that are not near misses are the ones the seed gave before near misses existed:
/// fixed-seed campaigns and selftests keep their graphs, less the share turned into near misses.
constexpr uint64_t kNearMissSalt = 0x6e6561722d6d6973ull;  // "near-mis"

}  // namespace

GenResult generate(Context& ctx, const GenPolicy& given, Entropy& entropy) {
  // A byte source has one stream: with p_near_miss 0 no draw is made, so it reads as before.
  if (given.p_near_miss > 0 && entropy.chance(given.p_near_miss))
    return near_miss(ctx, given, entropy);
  return generated(ctx, given, entropy);
}

GenResult generate(Context& ctx, const GenPolicy& policy, uint64_t seed) {
  const uint64_t nm = mix64(seed ^ kNearMissSalt);
  GenResult r;
  if (static_cast<double>(nm >> 11) * 0x1.0p-53 < policy.p_near_miss) {
    SeedEntropy e(mix64(nm));
    r = near_miss(ctx, policy, e);
  } else {
    SeedEntropy e(seed);
    r = generated(ctx, policy, e);
  }
  r.kernel.header.name = fmt::format("gen-{}", seed);
  r.kernel.header.extra.emplace_back("gen-seed", std::to_string(seed));
  return r;
}

}  // namespace uopfuzz::gen
