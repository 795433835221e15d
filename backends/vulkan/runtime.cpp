#include "backends/vulkan/runtime.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace uopfuzz::backends::vulkan {

namespace {

std::mutex g_mutex;
std::string g_device_choice;
bool g_validation = false;

bool env_validation() {
  const char* e = std::getenv("UOPFUZZ_VULKAN_VALIDATION");
  return e && *e && std::string(e) != "0";
}

const char* result_name(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    default: return "VkResult";
  }
}

Error plain_fail(const char* call, VkResult r) {
  return Error{
      fmt::format("vulkan: {} failed: {} ({})", call, result_name(r), static_cast<int>(r))};
}

std::string version_string(uint32_t v) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                     VK_API_VERSION_PATCH(v));
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

int compute_family(VkPhysicalDevice pd, bool* timestamps) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> fams(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fams.data());
  for (uint32_t i = 0; i < n; ++i)
    if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      if (timestamps) *timestamps = fams[i].timestampValidBits > 0;
      return static_cast<int>(i);
    }
  return -1;
}

DeviceInfo describe(VkPhysicalDevice pd, uint32_t index) {
  DeviceInfo d;
  d.index = index;
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties drv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceFloatControlsProperties fc{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  sub.pNext = &drv;
  drv.pNext = &fc;
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &sub;
  VkPhysicalDeviceProperties plain{};
  vkGetPhysicalDeviceProperties(pd, &plain);
  const bool v12 = plain.apiVersion >= VK_API_VERSION_1_2;
  if (v12)
    vkGetPhysicalDeviceProperties2(pd, &p2);
  else
    p2.properties = plain;
  const VkPhysicalDeviceProperties& p = p2.properties;
  d.name = p.deviceName;
  d.type = type_name(p.deviceType);
  d.api_version = version_string(p.apiVersion);
  d.vendor_id = p.vendorID;
  d.device_id = p.deviceID;
  d.driver = v12 ? drv.driverName : "";
  d.driver_info = v12 ? drv.driverInfo : "";
  d.subgroup_size = v12 ? sub.subgroupSize : 0;
  d.timestamp_period = p.limits.timestampPeriod;
  d.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  d.max_workgroup_count_x = p.limits.maxComputeWorkGroupCount[0];
  d.max_push_constants = p.limits.maxPushConstantsSize;
  d.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  if (v12 && drv.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) d.max_loop_iterations = 65535;
  d.denorm_preserve32 = v12 && fc.shaderDenormPreserveFloat32;
  d.denorm_preserve64 = v12 && fc.shaderDenormPreserveFloat64;
  compute_family(pd, &d.timestamps);
  d.timestamps = d.timestamps && p.limits.timestampPeriod > 0;

  VkPhysicalDeviceFeatures f{};
  vkGetPhysicalDeviceFeatures(pd, &f);
  d.int64 = f.shaderInt64;
  d.int16 = f.shaderInt16;
  d.float64 = f.shaderFloat64;
  if (v12) {
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &f11;
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    d.storage16 = f11.storageBuffer16BitAccess;
    d.int8 = f12.shaderInt8;
    d.float16 = f12.shaderFloat16;
    d.storage8 = f12.storageBuffer8BitAccess;
  }
  return d;
}

Result<VkInstance> make_instance(bool validation, bool* debug_utils) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "uopfuzz";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, exts;
  *debug_utils = false;
  if (validation) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> ls(n);
    vkEnumerateInstanceLayerProperties(&n, ls.data());
    bool found = false;
    for (auto& l : ls)
      found = found || std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    if (!found)
      return Error{
          "vulkan: validation was asked for but VK_LAYER_KHRONOS_validation is not installed "
          "(vulkan-validationlayers)"};
    layers.push_back("VK_LAYER_KHRONOS_validation");
    exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    *debug_utils = true;
  }
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  VkInstance inst = VK_NULL_HANDLE;
  if (VkResult r = vkCreateInstance(&ci, nullptr, &inst); r != VK_SUCCESS) {
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
      return Error{
          "vulkan: no Vulkan driver (install mesa-vulkan-drivers for lavapipe: "
          "scripts/install-deps.sh)"};
    return plain_fail("vkCreateInstance", r);
  }
  return inst;
}

Result<std::vector<VkPhysicalDevice>> physical_devices(VkInstance inst) {
  uint32_t n = 0;
  if (VkResult r = vkEnumeratePhysicalDevices(inst, &n, nullptr); r != VK_SUCCESS)
    return plain_fail("vkEnumeratePhysicalDevices", r);
  std::vector<VkPhysicalDevice> pds(n);
  if (VkResult r = vkEnumeratePhysicalDevices(inst, &n, pds.data());
      r != VK_SUCCESS && r != VK_INCOMPLETE)
    return plain_fail("vkEnumeratePhysicalDevices", r);
  pds.resize(n);
  return pds;
}

// The device `spec` names among `infos`: see set_device_choice.
Result<size_t> choose(const std::vector<DeviceInfo>& infos, const std::string& spec) {
  if (infos.empty())
    return Error{
        "vulkan: no Vulkan devices (install mesa-vulkan-drivers for lavapipe: "
        "scripts/install-deps.sh)"};
  auto usable = [](const DeviceInfo& d) { return d.int64; };  // index values are 64-bit
  if (spec.empty()) {
    for (size_t i = 0; i < infos.size(); ++i)
      if ((infos[i].type == "discrete-gpu" || infos[i].type == "integrated-gpu") &&
          usable(infos[i]))
        return i;
    for (size_t i = 0; i < infos.size(); ++i)
      if (infos[i].type == "cpu" && usable(infos[i])) return i;
    return size_t{0};
  }
  if (spec.find_first_not_of("0123456789") == std::string::npos) {
    size_t i = std::stoul(spec);
    if (i < infos.size()) return i;
    return Error{fmt::format("vulkan: no device with index {} ({} devices; see `uopfuzz devices`)",
                             spec, infos.size())};
  }
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (size_t i = 0; i < infos.size(); ++i)
    if (lower(infos[i].name).find(lower(spec)) != std::string::npos) return i;
  return Error{fmt::format("vulkan: no device named like '{}' (see `uopfuzz devices`)", spec)};
}

}  // namespace

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* user) {
  auto* ctx = static_cast<DeviceContext*>(user);
  ctx->messages_.fetch_add(1);
  std::lock_guard<std::mutex> l(ctx->log_mutex_);
  if (ctx->log_.size() < 64)
    ctx->log_.push_back(fmt::format("[{}] {}", static_cast<int>(severity),
                                    data && data->pMessage ? data->pMessage : ""));
  return VK_FALSE;
}

void set_device_choice(const std::string& spec) {
  std::lock_guard<std::mutex> l(g_mutex);
  g_device_choice = spec;
}

void set_validation(bool on) {
  std::lock_guard<std::mutex> l(g_mutex);
  g_validation = on;
}

void prefer_fast_shader_compiles() {
  ::setenv("GALLIVM_PERF", "nopt", 0);  // the user's own setting wins
}

Result<std::vector<DeviceInfo>> list_devices() {
  bool du = false;
  auto inst = make_instance(false, &du);
  if (!inst) return inst.error();
  auto pds = physical_devices(*inst);
  std::vector<DeviceInfo> out;
  if (pds)
    for (size_t i = 0; i < pds->size(); ++i)
      out.push_back(describe((*pds)[i], static_cast<uint32_t>(i)));
  vkDestroyInstance(*inst, nullptr);
  if (!pds) return pds.error();
  return out;
}

Result<std::shared_ptr<DeviceContext>> make_context() {
  std::string spec;
  bool validation;
  {
    std::lock_guard<std::mutex> l(g_mutex);
    spec = g_device_choice;
    validation = g_validation || env_validation();
  }
  std::shared_ptr<DeviceContext> ctx(new DeviceContext);
  ctx->pid_ = ::getpid();
  bool debug_utils = false;
  auto inst = make_instance(validation, &debug_utils);
  if (!inst) return inst.error();
  ctx->instance_ = *inst;
  if (debug_utils) {
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_message;
    mi.pUserData = ctx.get();
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(ctx->instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (!create) return Error{"vulkan: vkCreateDebugUtilsMessengerEXT is missing"};
    if (VkResult r = create(ctx->instance_, &mi, nullptr, &ctx->messenger_); r != VK_SUCCESS)
      return plain_fail("vkCreateDebugUtilsMessengerEXT", r);
  }
  auto pds = physical_devices(ctx->instance_);
  if (!pds) return pds.error();
  std::vector<DeviceInfo> infos;
  for (size_t i = 0; i < pds->size(); ++i)
    infos.push_back(describe((*pds)[i], static_cast<uint32_t>(i)));
  auto which = choose(infos, spec);
  if (!which) return which.error();
  ctx->physical_ = (*pds)[*which];
  ctx->info_ = infos[*which];
  const DeviceInfo& d = ctx->info_;
  vkGetPhysicalDeviceMemoryProperties(ctx->physical_, &ctx->memory_);
  const int family = compute_family(ctx->physical_, nullptr);
  if (family < 0) return Error{fmt::format("vulkan: device '{}' has no compute queue", d.name)};

  // Enable every feature the renderer can use that the device has.
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f2.features.shaderInt64 = d.int64;
  f2.features.shaderInt16 = d.int16;
  f2.features.shaderFloat64 = d.float64;
  f11.storageBuffer16BitAccess = d.storage16;
  f12.shaderInt8 = d.int8;
  f12.shaderFloat16 = d.float16;
  f12.storageBuffer8BitAccess = d.storage8;
  const bool v12 = !d.driver.empty();
  if (v12) {
    f2.pNext = &f11;
    f11.pNext = &f12;
  }
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = static_cast<uint32_t>(family);
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = &f2;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  if (VkResult r = vkCreateDevice(ctx->physical_, &di, nullptr, &ctx->device_); r != VK_SUCCESS)
    return plain_fail("vkCreateDevice", r);
  vkGetDeviceQueue(ctx->device_, static_cast<uint32_t>(family), 0, &ctx->queue_);
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = static_cast<uint32_t>(family);
  if (VkResult r = vkCreateCommandPool(ctx->device_, &pi, nullptr, &ctx->pool_); r != VK_SUCCESS)
    return plain_fail("vkCreateCommandPool", r);
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  if (VkResult r = vkCreatePipelineCache(ctx->device_, &ci, nullptr, &ctx->cache_); r != VK_SUCCESS)
    return plain_fail("vkCreatePipelineCache", r);
  return ctx;
}

DeviceContext::~DeviceContext() {
  if (pid_ != ::getpid()) return;  // a parent's objects: never destroyed in a forked child
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (cache_) vkDestroyPipelineCache(device_, cache_, nullptr);
    if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Result<std::shared_ptr<DeviceContext>> context() {
  // Created once per process; a context inherited through fork() belongs to the parent
  // and is leaked here (its driver threads do not exist in this process).
  static std::mutex m;
  static std::shared_ptr<DeviceContext>* current = nullptr;
  static std::string error;
  static pid_t error_pid = 0;
  std::lock_guard<std::mutex> l(m);
  const pid_t pid = ::getpid();
  if (current && (*current)->owner() == pid) return *current;
  if (!current && error_pid == pid) return Error{error};
  if (current) current = nullptr;  // the parent's: leaked on purpose
  auto made = make_context();
  if (!made) {
    error = made.error().message;
    error_pid = pid;
    return made.error();
  }
  current = new std::shared_ptr<DeviceContext>(made.value());  // lives as long as the process
  return *current;
}

int DeviceContext::memory_type(uint32_t bits, VkMemoryPropertyFlags flags) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & flags) == flags)
      return static_cast<int>(i);
  return -1;
}

Error DeviceContext::fail(const char* call, VkResult r) {
  if (r == VK_ERROR_DEVICE_LOST) lost_.store(true);
  Error e = plain_fail(call, r);
  if (r == VK_ERROR_DEVICE_LOST)
    e.message = fmt::format("vulkan: device lost in {} on '{}'", call, info_.name);
  return e;
}

std::vector<std::string> DeviceContext::validation_log() const {
  std::lock_guard<std::mutex> l(log_mutex_);
  return log_;
}

// ---- DeviceBuffer --------------------------------------------------------------------------

Result<std::unique_ptr<DeviceBuffer>> DeviceBuffer::make(DeviceContext& ctx, uint64_t bytes) {
  auto b = std::make_unique<DeviceBuffer>();
  b->ctx_ = &ctx;
  b->bytes_ = bytes = std::max<uint64_t>(4, (bytes + 3) & ~uint64_t{3});  // no empty buffers
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = bytes;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(ctx.device(), &bi, nullptr, &b->buffer_); r != VK_SUCCESS)
    return ctx.fail("vkCreateBuffer", r);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device(), b->buffer_, &req);
  // Host-visible and coherent: inputs are written and outputs read through the mapping
  // (lavapipe has only such memory; on a GPU it is the simple, always-correct choice).
  int type = ctx.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                                     VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (type < 0)
    type = ctx.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (type < 0) return Error{"vulkan: no host-visible coherent memory for a storage buffer"};
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = static_cast<uint32_t>(type);
  if (VkResult r = vkAllocateMemory(ctx.device(), &ai, nullptr, &b->memory_); r != VK_SUCCESS)
    return ctx.fail("vkAllocateMemory", r);
  if (VkResult r = vkBindBufferMemory(ctx.device(), b->buffer_, b->memory_, 0); r != VK_SUCCESS)
    return ctx.fail("vkBindBufferMemory", r);
  if (VkResult r = vkMapMemory(ctx.device(), b->memory_, 0, VK_WHOLE_SIZE, 0, &b->mapped_);
      r != VK_SUCCESS)
    return ctx.fail("vkMapMemory", r);
  return b;
}

DeviceBuffer::~DeviceBuffer() {
  if (!ctx_ || ctx_->owner() != ::getpid()) return;
  if (mapped_) vkUnmapMemory(ctx_->device(), memory_);
  if (buffer_) vkDestroyBuffer(ctx_->device(), buffer_, nullptr);
  if (memory_) vkFreeMemory(ctx_->device(), memory_, nullptr);
}

// ---- KernelObjects -------------------------------------------------------------------

Result<std::unique_ptr<KernelObjects>> KernelObjects::make(std::shared_ptr<DeviceContext> ctxp,
                                                           const PipelineSpec& spec,
                                                           StageTimer& timer) {
  std::unique_ptr<KernelObjects> k(new KernelObjects);
  k->ctx_ = ctxp;
  k->pid_ = ::getpid();
  k->push_bytes_ = spec.push_constant_bytes;
  k->groups_ = spec.groups;
  DeviceContext& ctx = *ctxp;
  if (ctx.lost()) return Error{fmt::format("vulkan: device lost on '{}'", ctx.info().name)};
  VkDevice dev = ctx.device();
  for (uint64_t bytes : spec.buffer_bytes) {
    auto b = DeviceBuffer::make(ctx, bytes);
    if (!b) return b.error();
    k->buffers_.push_back(std::move(b.value()));
  }
  timer.lap("buffers");
  VkShaderModuleCreateInfo si{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  si.codeSize = spec.spirv.size() * sizeof(uint32_t);
  si.pCode = spec.spirv.data();
  if (VkResult r = vkCreateShaderModule(dev, &si, nullptr, &k->module_); r != VK_SUCCESS)
    return ctx.fail("vkCreateShaderModule", r);
  const uint32_t n = static_cast<uint32_t>(spec.buffer_bytes.size());
  std::vector<VkDescriptorSetLayoutBinding> bindings(n);
  for (uint32_t i = 0; i < n; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = n;
  li.pBindings = bindings.data();
  if (VkResult r = vkCreateDescriptorSetLayout(dev, &li, nullptr, &k->set_layout_); r != VK_SUCCESS)
    return ctx.fail("vkCreateDescriptorSetLayout", r);
  VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, spec.push_constant_bytes};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &k->set_layout_;
  pli.pushConstantRangeCount = spec.push_constant_bytes ? 1 : 0;
  pli.pPushConstantRanges = &pcr;
  if (VkResult r = vkCreatePipelineLayout(dev, &pli, nullptr, &k->layout_); r != VK_SUCCESS)
    return ctx.fail("vkCreatePipelineLayout", r);
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = k->module_;
  ci.stage.pName = "main";
  ci.layout = k->layout_;
  if (VkResult r =
          vkCreateComputePipelines(dev, ctx.pipeline_cache(), 1, &ci, nullptr, &k->pipeline_);
      r != VK_SUCCESS)
    return ctx.fail("vkCreateComputePipelines", r);
  timer.lap("pipeline");
  if (n > 0) {
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 1;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    if (VkResult r = vkCreateDescriptorPool(dev, &dpi, nullptr, &k->descriptor_pool_);
        r != VK_SUCCESS)
      return ctx.fail("vkCreateDescriptorPool", r);
  } else {
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 1;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    if (VkResult r = vkCreateDescriptorPool(dev, &dpi, nullptr, &k->descriptor_pool_);
        r != VK_SUCCESS)
      return ctx.fail("vkCreateDescriptorPool", r);
  }
  VkDescriptorSetAllocateInfo dai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dai.descriptorPool = k->descriptor_pool_;
  dai.descriptorSetCount = 1;
  dai.pSetLayouts = &k->set_layout_;
  if (VkResult r = vkAllocateDescriptorSets(dev, &dai, &k->set_); r != VK_SUCCESS)
    return ctx.fail("vkAllocateDescriptorSets", r);
  std::vector<VkDescriptorBufferInfo> infos(n);
  std::vector<VkWriteDescriptorSet> writes(n);
  for (uint32_t i = 0; i < n; ++i) {
    infos[i] = {k->buffers_[i]->handle(), 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = k->set_;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  if (n) vkUpdateDescriptorSets(dev, n, writes.data(), 0, nullptr);
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = ctx.command_pool();
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  {
    std::lock_guard<std::mutex> l(ctx.queue_mutex());  // the pool is shared
    if (VkResult r = vkAllocateCommandBuffers(dev, &cai, &k->cmd_); r != VK_SUCCESS)
      return ctx.fail("vkAllocateCommandBuffers", r);
  }
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (VkResult r = vkCreateFence(dev, &fi, nullptr, &k->fence_); r != VK_SUCCESS)
    return ctx.fail("vkCreateFence", r);
  if (ctx.info().timestamps) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    if (VkResult r = vkCreateQueryPool(dev, &qi, nullptr, &k->queries_); r != VK_SUCCESS)
      return ctx.fail("vkCreateQueryPool", r);
  }
  timer.lap("descriptors");
  return k;
}

Result<double> KernelObjects::dispatch(const void* push, uint32_t push_bytes) {
  DeviceContext& ctx = *ctx_;
  if (ctx.lost()) return Error{fmt::format("vulkan: device lost on '{}'", ctx.info().name)};
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = vkBeginCommandBuffer(cmd_, &bi); r != VK_SUCCESS)
    return ctx.fail("vkBeginCommandBuffer", r);
  if (queries_) {
    vkCmdResetQueryPool(cmd_, queries_, 0, 2);
    vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  }
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
  if (push_bytes_ && push_bytes)
    vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  vkCmdDispatch(cmd_, groups_, 1, 1);
  // Make the shader's writes visible to the host's reads through the mapping.
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &mb, 0, nullptr, 0, nullptr);
  if (queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  if (VkResult r = vkEndCommandBuffer(cmd_); r != VK_SUCCESS)
    return ctx.fail("vkEndCommandBuffer", r);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  {
    std::lock_guard<std::mutex> l(ctx.queue_mutex());
    if (VkResult r = vkQueueSubmit(ctx.queue(), 1, &si, fence_); r != VK_SUCCESS)
      return ctx.fail("vkQueueSubmit", r);
  }
  // A generous bound: a kernel that runs longer is reported, not waited on forever
  // (campaigns also have their own per-graph timeout).
  VkResult w =
      vkWaitForFences(ctx.device(), 1, &fence_, VK_TRUE, uint64_t{600} * 1000 * 1000 * 1000);
  if (w != VK_SUCCESS) return ctx.fail("vkWaitForFences", w);
  if (VkResult r = vkResetFences(ctx.device(), 1, &fence_); r != VK_SUCCESS)
    return ctx.fail("vkResetFences", r);
  if (!queries_) return -1.0;
  uint64_t ts[2] = {0, 0};
  VkResult q = vkGetQueryPoolResults(ctx.device(), queries_, 0, 2, sizeof(ts), ts, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (q != VK_SUCCESS) return ctx.fail("vkGetQueryPoolResults", q);
  return static_cast<double>(ts[1] - ts[0]) * ctx.info().timestamp_period * 1e-9;
}

KernelObjects::~KernelObjects() {
  if (!ctx_ || pid_ != ::getpid()) {
    // A parent's objects in a forked child: leak them (and the context reference).
    for (auto& b : buffers_) b.release();
    new std::shared_ptr<DeviceContext>(std::move(ctx_));
    return;
  }
  VkDevice dev = ctx_->device();
  if (!ctx_->lost()) vkWaitForFences(dev, 1, &fence_, VK_TRUE, 0);
  if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
  if (fence_) vkDestroyFence(dev, fence_, nullptr);
  if (cmd_) {
    std::lock_guard<std::mutex> l(ctx_->queue_mutex());
    vkFreeCommandBuffers(dev, ctx_->command_pool(), 1, &cmd_);
  }
  if (descriptor_pool_) vkDestroyDescriptorPool(dev, descriptor_pool_, nullptr);
  if (pipeline_) vkDestroyPipeline(dev, pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(dev, layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
  if (module_) vkDestroyShaderModule(dev, module_, nullptr);
  buffers_.clear();
}

}  // namespace uopfuzz::backends::vulkan
