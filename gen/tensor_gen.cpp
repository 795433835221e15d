#include "gen/tensor_gen.h"

namespace uopfuzz::gen {

TensorGenResult generate_tensor_program(ir::Context& ctx, const GenPolicy& policy,
                                        Entropy& entropy) {
  return {};  // not written yet
}

TensorGenResult generate_tensor_program(ir::Context& ctx, const GenPolicy& policy, uint64_t seed) {
  SeedEntropy e(seed);
  return generate_tensor_program(ctx, policy, e);
}

}  // namespace uopfuzz::gen
