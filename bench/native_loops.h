/** \file Plain C++ reference loops (-O3 -march=native) for the CPU backend's ratios. */
#pragma once

#include <cstdint>

namespace uopfuzz::bench {

/// out[i] = a[i] * b[i] + c[i] for i in [lo, hi).
void native_triad(float* out, const float* a, const float* b, const float* c, int64_t lo,
                  int64_t hi);
/// Sum of a[0..n) (vectorized with independent partial sums).
float native_sum(const float* a, int64_t n);

}  // namespace uopfuzz::bench
