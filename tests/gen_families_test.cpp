// The generator's families pinned by the text they print: every rule-instance family
// (gen/instance_families.def) under both instance policies, and the kernel generator with
// each of its rule families (gen/kernel_families.def) and its edge pairs made common.
// Same seed, same graphs: a change of any draw or of a family's order changes a hash. A
// deliberate change updates the pin in the same commit, and its message says why.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gen/generator.h"
#include "gen/instances.h"
#include "ir/hash.h"
#include "ir/printer.h"

namespace uopfuzz::gen {
namespace {

std::string hex(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llxull", static_cast<unsigned long long>(h));
  return buf;
}

/// The FNV-1a hash of the text of `per_seed` instances of `f` from each of seeds 0..9.
uint64_t instance_text_hash(InstanceFamily f, const InstancePolicy& policy) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    ir::Context ctx;
    InstanceGen gen(ctx, seed, policy);
    for (int i = 0; i < 4; ++i)
      for (unsigned char c : ir::print_kernel(gen.make(f))) h = (h ^ c) * 0x100000001b3ull;
  }
  return h;
}

/// The FNV-1a hash of the text of the kernels of seeds 0..29 under `p`.
uint64_t kernel_text_hash(const GenPolicy& p) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    ir::Context ctx;
    for (unsigned char c : ir::print_kernel(generate(ctx, p, seed).kernel))
      h = (h ^ c) * 0x100000001b3ull;
  }
  return h;
}

constexpr size_t kFamilies = static_cast<size_t>(InstanceFamily::kCount);

// Computed with the instance generator as it was before its families moved to files of
// their own, and unchanged since.
constexpr std::array<uint64_t, kFamilies> kEverythingPins = {
    0xe416be1833d06a65ull, 0xb4c777d6a5a54ab5ull, 0xfd4d1c4a31fce80bull, 0x4f127cf6de9db75full,
    0xc4631cd893c3fcd3ull, 0x9e61bf2fef909450ull, 0xc2ef22efbc06a3cfull, 0xad4ad623609f3cc7ull,
    0x366fa2e29f45ffb3ull, 0x7233788d5e52d928ull, 0x860bbe625ea08304ull};
constexpr std::array<uint64_t, kFamilies> kDefaultOffPins = {
    0x6c8a19fc0fad7c8dull, 0x3bac604b47c8203full, 0xe5f88244b1fb151dull, 0x3bda8f7b4ab00d9eull,
    0x7271ae8cc071df5bull, 0x2696b2368c73a3f1ull, 0xd9e1e616a71c6350ull, 0xd34bb4428261692cull,
    0x3836b438fb3a2c2dull, 0x43dc8d1e4b84d702ull, 0xcdabab386ea56accull};

TEST(GenFamilyPins, EveryInstanceFamilyPrintsItsPinnedText) {
  for (size_t f = 0; f < kFamilies; ++f) {
    const auto fam = static_cast<InstanceFamily>(f);
    EXPECT_EQ(hex(instance_text_hash(fam, InstancePolicy::everything())), hex(kEverythingPins[f]))
        << family_name(fam) << " (InstancePolicy::everything())";
    EXPECT_EQ(hex(instance_text_hash(fam, InstancePolicy{})), hex(kDefaultOffPins[f]))
        << family_name(fam) << " (every edge off)";
  }
}

// InstanceWeights steer their draws: a knob at 1 makes its shape certain, and the defaults
// passed explicitly are the stream pinned above.
TEST(GenFamilyPins, InstanceWeightsSteerTheirShapes) {
  auto big_ends = [](const InstanceWeights& w) {
    int n = 0;
    for (uint64_t seed = 0; seed < 20; ++seed) {
      ir::Context ctx;
      InstanceGen gen(ctx, seed, InstancePolicy::everything(), w);
      n += ir::print_kernel(gen.make(InstanceFamily::Shrink)).find("204") != std::string::npos;
    }
    return n;
  };
  InstanceWeights always;
  always.p_shrink_big_end = 1;
  EXPECT_EQ(big_ends(always), 20);
  EXPECT_LT(big_ends(InstanceWeights{}), 10);
}

/// The default policy with near misses off (they pin their own draws) and `boost` applied.
template <class F>
GenPolicy boosted(F&& boost) {
  GenPolicy p;
  p.p_near_miss = 0;
  boost(p);
  return p;
}

TEST(GenFamilyPins, KernelFamiliesMadeCommonPrintTheirPinnedText) {
  struct Case {
    const char* what;
    GenPolicy policy;
    uint64_t pin;
  };
  const Case cases[] = {
      {"gather", boosted([](GenPolicy& p) { p.p_gather = 0.5; }), 0xf0f471cf7b4a1fa2ull},
      {"bound_sum", boosted([](GenPolicy& p) { p.p_bound_sum = 0.5; }), 0xf15e3462d693e117ull},
      {"arange", boosted([](GenPolicy& p) { p.p_arange = 0.5; }), 0x57de1973a016eea7ull},
      {"window_sum", boosted([](GenPolicy& p) { p.p_window_sum = 0.5; }), 0xb8f3bccd1e6e93d3ull},
      {"unparented", boosted([](GenPolicy& p) { p.p_unparented = 0.5; }), 0xc62c56dcb8bd4d49ull},
      {"strided_sum", boosted([](GenPolicy& p) { p.p_strided_sum = 0.5; }), 0xdd06cc1061bfa0a9ull},
      {"shielded_fault", boosted([](GenPolicy& p) { p.p_shielded_fault = 0.5; }),
       0x1148dd9333e6dcbbull},
      {"edge pairs", boosted([](GenPolicy& p) {
         p.p_edge_pair = 0.4;
         p.p_nested_divmod = 0.3;
         p.p_index_multiple = 0.3;
       }),
       0x4b1f2954134c17efull},
      {"edge values", boosted([](GenPolicy& p) {
         p.p_int_edge_const = 0.6;
         p.p_index_edge_const = 0.6;
         p.p_float_edge_const = 0.5;
         p.p_edge_var_bounds = 0.5;
         p.p_edge_input_bounds = 0.5;
       }),
       0xffa0d6210beab682ull},
      {"quantized", boosted([](GenPolicy& p) {
         p.p_quantized_output = 0.8;
         p.p_dequantize = 0.3;
       }),
       0x743ae9b1fd8c5723ull},
  };
  for (const Case& c : cases) EXPECT_EQ(hex(kernel_text_hash(c.policy)), hex(c.pin)) << c.what;
}

}  // namespace
}  // namespace uopfuzz::gen
