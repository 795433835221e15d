// Plain C++ loops, compiled with -O3 -march=native (bench/CMakeLists.txt): the yardsticks
// the CPU backend's streaming kernels are measured against in the same run.
#include "bench/native_loops.h"

namespace uopfuzz::bench {

void native_triad(float* __restrict out, const float* __restrict a, const float* __restrict b,
                  const float* __restrict c, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) out[i] = a[i] * b[i] + c[i];
}

// A read-only sum at memory speed: eight independent partial sums, so the compiler
// vectorizes it without reassociating a single chain (no -ffast-math).
float native_sum(const float* __restrict a, int64_t n) {
  float s[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; ++k) s[k] += a[i + k];
  float t = 0;
  for (int k = 0; k < 16; ++k) t += s[k];
  for (; i < n; ++i) t += a[i];
  return t;
}

}  // namespace uopfuzz::bench
