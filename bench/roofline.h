/** \file The roofline of one backend and device, measured by kernels of that backend: its
 * streaming bandwidth (a float32 copy larger than the caches) and its arithmetic rate
 * (independent multiply-add chains; bench/suite/suite.h writes both kernels). A case's
 * time becomes a fraction of the bound that applies: the larger of bytes / bandwidth and
 * ops / arithmetic rate is the least time the device can take, and the fraction is that
 * least time over the time measured (1: at the roofline).
 */
#pragma once

#include <cstdint>
#include <string>

#include "backends/backend.h"

namespace uopfuzz::bench {

struct Roofline {
  std::string backend, device;
  int64_t copy_elements = 0, copy_bytes = 0;  ///< the copy kernel's size and traffic
  int64_t fma_elements = 0, fma_ops = 0;      ///< the multiply-add kernel's size and work
  double copy_ns = 0, fma_ns = 0;             ///< median time of one run of each
  bool device_clock = false;                  ///< times from the device's clock (Vulkan)
  std::string error;                          ///< why it could not be measured ("" if it was)

  bool measured() const { return error.empty() && copy_ns > 0 && fma_ns > 0; }
  double gbps() const { return copy_ns > 0 ? static_cast<double>(copy_bytes) / copy_ns : 0; }
  double gops() const { return fma_ns > 0 ? static_cast<double>(fma_ops) / fma_ns : 0; }
  /// Operations per byte at which the two bounds meet (the machine balance).
  double balance() const { return gbps() > 0 ? gops() / gbps() : 0; }
};

/// Measures `backend` (one warm-up run, then `reps` timed runs of each kernel; the median
/// counts). The copy tries 2^24 elements, then smaller sizes where the backend refuses
/// (Vulkan's loop budget); the multiply-add kernel runs 2^18 elements.
Roofline measure_roofline(backends::Backend& backend, const std::string& device, int reps);

/// Where a case of `bytes` and `ops` taking `ns` sits under `roof`.
struct RooflinePoint {
  double gbps = 0, gops = 0;   ///< achieved
  double fraction = 0;         ///< least possible time / measured time
  bool compute_bound = false;  ///< ops / rate is the larger of the two bounds
};
RooflinePoint place(const Roofline& roof, int64_t bytes, int64_t ops, double ns);

}  // namespace uopfuzz::bench
