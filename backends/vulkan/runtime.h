/** \file The Vulkan runtime of the Vulkan backend: RAII wrappers, the per-process device
 * context and the per-kernel objects (pipeline, descriptor set, buffers, command buffer).
 *
 * Lifecycle (Kompute's split): one DeviceContext per process owns the instance, the
 * chosen physical device, the logical device, its compute queue, a command pool, a
 * pipeline cache and (when asked for) the validation layer's messenger. It is created
 * lazily by the first compile or run, in that process: a campaign parent that only forks
 * workers never creates one, and a forked child never uses its parent's (the context is
 * keyed by getpid(); a parent's objects are leaked in the child, never destroyed there).
 * A KernelObjects holds what one compiled kernel needs (shader module, layouts, pipeline,
 * descriptor pool and set, persistent mapped buffers, command buffer, fence, timestamp
 * queries); it is destroyed before its context (it holds the context alive).
 *
 * Errors are values: every Vulkan failure becomes an Error naming the call and the
 * VkResult; VK_ERROR_DEVICE_LOST marks the context lost, and every later call on it
 * fails with "device lost" (a finding, not a crash).
 */
#pragma once

#include <sys/types.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/device_info.h"
#include "backends/vulkan/stage_timing.h"
#include "ir/result.h"

namespace uopfuzz::backends::vulkan {

class DeviceContext {
 public:
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  const DeviceInfo& info() const { return info_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool command_pool() const { return pool_; }
  VkPipelineCache pipeline_cache() const { return cache_; }
  pid_t owner() const { return pid_; }
  std::mutex& queue_mutex() { return queue_mutex_; }

  /// Memory type index with all of `flags` among `bits`, or -1.
  int memory_type(uint32_t bits, VkMemoryPropertyFlags flags) const;
  /// An Error for a failed call; marks the context lost on VK_ERROR_DEVICE_LOST.
  Error fail(const char* call, VkResult r);
  bool lost() const { return lost_.load(); }

  /// Validation messages seen so far (0 without validation) and their text.
  uint64_t validation_messages() const { return messages_.load(); }
  std::vector<std::string> validation_log() const;
  bool validating() const { return messenger_ != VK_NULL_HANDLE; }

 private:
  friend Result<std::shared_ptr<DeviceContext>> make_context();
  friend VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT*,
                                                   void*);
  DeviceContext() = default;

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  DeviceInfo info_;
  pid_t pid_ = 0;
  std::mutex queue_mutex_;
  std::atomic<bool> lost_{false};
  std::atomic<uint64_t> messages_{0};
  mutable std::mutex log_mutex_;
  std::vector<std::string> log_;
};

/// This process's context, created on first use (a forked child creates its own).
Result<std::shared_ptr<DeviceContext>> context();

/// One host-visible, host-coherent storage buffer, persistently mapped.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  static Result<std::unique_ptr<DeviceBuffer>> make(DeviceContext& ctx, uint64_t bytes);
  VkBuffer handle() const { return buffer_; }
  void* data() const { return mapped_; }
  uint64_t bytes() const { return bytes_; }

 private:
  DeviceContext* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  uint64_t bytes_ = 0;
};

/// What a kernel's pipeline looks like from the host.
struct PipelineSpec {
  std::vector<uint32_t> spirv;
  std::vector<uint64_t> buffer_bytes;  ///< one storage buffer per binding, in binding order
  uint32_t push_constant_bytes = 0;
  uint32_t groups = 1;  ///< workgroups dispatched (x)
};

/// Everything one compiled kernel owns on the device.
class KernelObjects {
 public:
  ~KernelObjects();
  KernelObjects(const KernelObjects&) = delete;
  KernelObjects& operator=(const KernelObjects&) = delete;
  static Result<std::unique_ptr<KernelObjects>> make(std::shared_ptr<DeviceContext> ctx,
                                                     const PipelineSpec& spec, StageTimer& timer);

  DeviceBuffer& buffer(size_t i) { return *buffers_[i]; }
  /// Records and submits one dispatch with these push constants, waits for it.
  /// Returns the device time in seconds from the timestamps (-1 when unavailable).
  Result<double> dispatch(const void* push, uint32_t push_bytes);
  DeviceContext& context() { return *ctx_; }

 private:
  KernelObjects() = default;
  std::shared_ptr<DeviceContext> ctx_;
  pid_t pid_ = 0;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
  uint32_t push_bytes_ = 0, groups_ = 1;
};

}  // namespace uopfuzz::backends::vulkan
