/** \file The Vulkan devices as the CLI and tests see them (no Vulkan headers here):
 * listing, choosing the device, turning validation on. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/result.h"

namespace uopfuzz::backends::vulkan {

/// What the backend needs to know about a device, and what `uopfuzz devices` prints.
struct DeviceInfo {
  uint32_t index = 0;
  std::string name, type, driver, driver_info, api_version;
  uint32_t vendor_id = 0, device_id = 0;
  uint32_t subgroup_size = 0;
  float timestamp_period = 0;  ///< nanoseconds per timestamp tick
  bool timestamps = false;     ///< the compute queue has timestamps
  uint32_t max_workgroup_invocations = 0, max_workgroup_count_x = 0, max_push_constants = 0;
  uint64_t max_storage_buffer_range = 0;
  /// Loop iterations one invocation may run, all loops together; 0: no limit. llvmpipe
  /// (lavapipe) counts every loop's back edges in one per-invocation counter and leaves
  /// all loops once it reaches LP_MAX_TGSI_LOOP_ITERATIONS (65535), silently.
  uint64_t max_loop_iterations = 0;
  // Features the renderer can use (each enabled on the logical device when present).
  bool int64 = false, int16 = false, int8 = false, float64 = false, float16 = false;
  bool storage8 = false, storage16 = false;
  bool denorm_preserve32 = false, denorm_preserve64 = false;
};

/// Every Vulkan device, in enumeration order (creates and destroys a throwaway instance).
Result<std::vector<DeviceInfo>> list_devices();

/// Which device the next context uses: "" (default: the first discrete or integrated
/// GPU, else the first CPU device such as lavapipe), an index, or a name substring.
void set_device_choice(const std::string& spec);
/// Enables VK_LAYER_KHRONOS_validation and a messenger counting its messages in contexts
/// created after this call (also UOPFUZZ_VULKAN_VALIDATION=1).
void set_validation(bool on);
/// Asks llvmpipe (lavapipe's shader compiler) to skip its LLVM IR optimization passes
/// (GALLIVM_PERF=nopt, unless GALLIVM_PERF is already set). On lavapipe the JIT at a
/// pipeline's first dispatch takes most of a campaign's time, and a campaign runs each
/// shader a few times: it compiles in about half the time. Results are the same; kernel
/// timings are not (a campaign that times kernels on Vulkan keeps the optimizer).
/// Mesa's shader disk cache keys its entries by this setting, so processes with and
/// without it never share compiled code. (LP_NATIVE_VECTOR_WIDTH=128 would save more,
/// but Mesa 22.3's disk cache does not key by it: a process would be handed code
/// compiled for another vector width.) Sets the environment: call it before any thread
/// or Vulkan instance exists. No effect on other drivers.
void prefer_fast_shader_compiles();

}  // namespace uopfuzz::backends::vulkan
