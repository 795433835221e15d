// Pinned output of the tensor-program generator's families and of the mutators: for fixed
// seeds, the printed text of the programs (each node family made common in turn, the
// quantized families, the hard-input and degenerate-shape draws) and of the mutants of fixed
// parents hashes to these numbers. Moving a family or a knob between files must not change a
// draw; a deliberate change updates the hash it moves, with the reason in the commit. A
// failing test prints the new hash.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gen/generator.h"
#include "gen/mutate.h"
#include "gen/tensor_gen.h"
#include "ir/printer.h"

namespace uopfuzz::gen {
namespace {

using namespace ir;

/// FNV-1a over a text, continued from `h`.
uint64_t fnv(uint64_t h, const std::string& text) {
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;

/// The hash of the programs of seeds [first, first + n) under `policy`.
uint64_t tensor_hash(const GenPolicy& policy, uint64_t first, uint64_t n, uint64_t h = kFnvBasis) {
  for (uint64_t seed = first; seed < first + n; ++seed) {
    Context ctx;
    h = fnv(h, print_kernel(generate_tensor_program(ctx, policy, seed).program));
  }
  return h;
}

// Each row of TensorNodeWeights made twenty times as likely as the rest together, ten
// seeds each: every family builds most of these programs' positions.
TEST(GenPin, TensorProgramsOfEachNodeFamily) {
  const std::vector<double TensorNodeWeights::*> rows = {&TensorNodeWeights::input,
                                                         &TensorNodeWeights::constant,
                                                         &TensorNodeWeights::reuse,
                                                         &TensorNodeWeights::elementwise,
                                                         &TensorNodeWeights::cast,
                                                         &TensorNodeWeights::movement,
                                                         &TensorNodeWeights::reduce,
                                                         &TensorNodeWeights::reduce_broadcast,
                                                         &TensorNodeWeights::self_combine,
                                                         &TensorNodeWeights::contiguous,
                                                         &TensorNodeWeights::shared_reduce,
                                                         &TensorNodeWeights::unary_in_reduce,
                                                         &TensorNodeWeights::wide_read,
                                                         &TensorNodeWeights::pad_shared,
                                                         &TensorNodeWeights::const_broadcast,
                                                         &TensorNodeWeights::dead_axes,
                                                         &TensorNodeWeights::split_candidate,
                                                         &TensorNodeWeights::dequantize,
                                                         &TensorNodeWeights::gated_divide,
                                                         &TensorNodeWeights::partial_shared};
  uint64_t h = kFnvBasis;
  for (size_t i = 0; i < rows.size(); ++i) {
    GenPolicy p;
    p.tensor.nodes.*rows[i] = 800;
    h = tensor_hash(p, 100 * i, 10, h);
  }
  EXPECT_EQ(h, 0x49ca7f817c9c0dedull) << "new hash 0x" << std::hex << h;
}

// Quantized outputs only, each QuantNodeWeights row made common in turn.
TEST(GenPin, TensorProgramsOfEachQuantizedFamily) {
  const std::vector<double QuantNodeWeights::*> rows = {
      &QuantNodeWeights::input,       &QuantNodeWeights::quantize,  &QuantNodeWeights::requantize,
      &QuantNodeWeights::where,       &QuantNodeWeights::bitcast,   &QuantNodeWeights::movement,
      &QuantNodeWeights::unit_reduce, &QuantNodeWeights::sum_reduce};
  uint64_t h = kFnvBasis;
  for (size_t i = 0; i < rows.size(); ++i) {
    GenPolicy p;
    p.tensor.p_quantized_output = 1;
    p.tensor.qnodes.*rows[i] = 100;
    h = tensor_hash(p, 3000 + 100 * i, 10, h);
  }
  EXPECT_EQ(h, 0x131b9863507635fcull) << "new hash 0x" << std::hex << h;
}

// The per-program draws: hard inputs, degenerate shapes, the large reduction.
TEST(GenPin, TensorProgramsWithHardInputsDegenerateShapesAndLargeReduces) {
  GenPolicy p;
  p.tensor.p_degenerate_shapes = 0.5;
  p.tensor.p_edge_inputs = 0.7;
  p.tensor.p_hard_float_inputs = 0.7;
  p.tensor.p_large_reduce = 0.3;
  const uint64_t h = tensor_hash(p, 7000, 30);
  EXPECT_EQ(h, 0x86baee4320dc056cull) << "new hash 0x" << std::hex << h;
}

// Every mutator on fixed parents and donors, and mutate()'s own draw of a mutator.
TEST(GenPin, MutantsOfFixedParents) {
  const GenPolicy policy;
  uint64_t h = kFnvBasis;
  int made = 0;
  for (Mutator m : all_mutators()) {
    for (uint64_t i = 0; i < 8; ++i) {
      Context ctx;
      const Kernel parent = generate(ctx, policy, 1000 + i).kernel;
      const Kernel donor = generate(ctx, policy, 5000 + i).kernel;
      auto mutant = mutate_with(ctx, parent, &donor, m, 77 + i, policy);
      h = fnv(h, mutant ? print_kernel(mutant->kernel) : std::string("none"));
      made += mutant ? 1 : 0;
    }
  }
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Context ctx;
    const Kernel parent = generate(ctx, policy, 42 + seed).kernel;
    const Kernel donor = generate(ctx, policy, 7).kernel;
    auto mutant = mutate(ctx, parent, &donor, seed, policy);
    h = fnv(h, mutant ? print_kernel(mutant->kernel) : std::string("none"));
    made += mutant ? 1 : 0;
  }
  EXPECT_GE(made, 40);  // the pin covers mutants, not mostly rejections
  EXPECT_EQ(h, 0xc8e0df7cc7c6449full) << "new hash 0x" << std::hex << h;
}

}  // namespace
}  // namespace uopfuzz::gen
