#include "backends/vulkan/vulkan_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <list>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "backends/kernel_cache.h"
#include "backends/vulkan/glsl_compile.h"
#include "backends/vulkan/loop_budget.h"
#include "backends/vulkan/render.h"
#include "backends/vulkan/runtime.h"
#include "ir/graph.h"
#include "ir/hash.h"
#include "ir/ops.h"
#include "ir/printer.h"

namespace uopfuzz::backends::vulkan {

using namespace ir;

namespace {

class VulkanKernel final : public Kernel {
 public:
  VulkanKernel(std::unique_ptr<KernelObjects> objects, RenderedKernel rendered, std::string listing)
      : objects_(std::move(objects)),
        rendered_(std::move(rendered)),
        listing_(std::move(listing)) {}

  Result<ir::RunOutput> run(const ir::Inputs& inputs, const RunOptions&) override {
    StageTimer timer;
    std::vector<int64_t> push;
    if (auto e = bind(inputs, push)) return *e;
    timer.lap("upload");
    auto t = objects_->dispatch(push.data(), static_cast<uint32_t>(push.size() * sizeof(int64_t)));
    if (!t) return t.error();
    timer.lap("submit+wait");
    ir::RunOutput out;
    read_outputs(out.outputs);
    timer.lap("readback");
    if (runs_++ == 0) timer.note("first run");
    timer.report("run");
    return out;
  }

  Result<std::vector<double>> time(const ir::Inputs& inputs, int reps, const RunOptions&) override {
    std::vector<int64_t> push;
    if (auto e = bind(inputs, push)) return *e;
    std::map<int, Buffer> outputs;
    std::vector<double> samples;
    device_times_.clear();
    for (int i = 0; i < reps; ++i) {
      zero_outputs();
      auto t0 = std::chrono::steady_clock::now();
      auto t =
          objects_->dispatch(push.data(), static_cast<uint32_t>(push.size() * sizeof(int64_t)));
      if (!t) return t.error();
      read_outputs(outputs);
      samples.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (*t >= 0) device_times_.push_back(*t);
    }
    return samples;
  }

  std::vector<double> device_times() const override { return device_times_; }
  std::string listing() const override { return listing_; }

 private:
  void zero_outputs() {
    for (size_t i = 0; i < rendered_.signature.buffers.size(); ++i)
      if (rendered_.signature.buffers[i].output) {
        auto& b = objects_->buffer(i);
        std::memset(b.data(), 0, b.bytes());
      }
  }

  std::optional<Error> bind(const ir::Inputs& in, std::vector<int64_t>& push) {
    const ir::Signature& sig = rendered_.signature;
    if (auto e = ir::check_inputs(sig, in)) return e;
    for (size_t i = 0; i < sig.buffers.size(); ++i) {
      const ir::BufferParam& b = sig.buffers[i];
      auto& dev = objects_->buffer(i);
      if (b.output) {
        std::memset(dev.data(), 0, dev.bytes());
        continue;
      }
      const Buffer& host = in.buffers.at(b.slot);
      std::memcpy(dev.data(), host.data(), host.byte_size());
    }
    for (const ir::VarParam& v : sig.vars) push.push_back(in.vars.at(v.name));
    return std::nullopt;
  }

  void read_outputs(std::map<int, Buffer>& outputs) {
    for (size_t i = 0; i < rendered_.signature.buffers.size(); ++i) {
      const ir::BufferParam& b = rendered_.signature.buffers[i];
      if (!b.output) continue;
      auto [it, fresh] = outputs.try_emplace(b.slot, b.dtype, static_cast<size_t>(b.size));
      std::memcpy(it->second.data(), objects_->buffer(i).data(), it->second.byte_size());
    }
  }

  std::unique_ptr<KernelObjects> objects_;
  RenderedKernel rendered_;
  std::string listing_;
  std::vector<double> device_times_;
  std::atomic<uint64_t> runs_{0};  // a kernel may be run from several threads
};

constexpr size_t kCacheEntries = 256;

std::string missing_feature(const Needs& n, const DeviceInfo& d) {
  std::vector<std::string> m;
  if (n.int64 && !d.int64) m.push_back("shaderInt64 (index values and 64-bit integers)");
  if (n.int16 && !d.int16) m.push_back("shaderInt16 (16-bit integers, float16 bits)");
  if (n.int8 && !d.int8) m.push_back("shaderInt8 (8-bit integers, bool buffers)");
  if (n.float16 && !d.float16) m.push_back("shaderFloat16 (float16)");
  if (n.float64 && !d.float64) m.push_back("shaderFloat64 (float64)");
  if (n.storage8 && !d.storage8) m.push_back("storageBuffer8BitAccess (1-byte buffers)");
  if (n.storage16 && !d.storage16) m.push_back("storageBuffer16BitAccess (2-byte buffers)");
  if (m.empty()) return "";
  return fmt::format("device '{}' lacks {}", d.name, fmt::join(m, ", "));
}

class VulkanBackend final : public Backend {
 public:
  VulkanBackend() {
    for (DType dt : all_dtypes()) caps_.dtypes.push_back(dt);
    for (int i = 0; i < kOpCount; ++i) caps_.ops.push_back(static_cast<Op>(i));
    caps_.max_buffer_elements = int64_t{1} << 31;
    caps_.max_threads = 1;
    caps_.quantized =
        true;  // storage integers; the conversions need int64 and float64 (render.cpp)
    caps_.float_tolerance_ulps = 0;
    // Without the SignedZeroInfNanPreserve execution mode a Vulkan implementation need not
    // keep the sign of a zero, and lavapipe folds `x + 0.0` to x even with it declared
    // (and `precise`): a -0 where the oracle has +0 is not a finding here.
    caps_.signed_zeros = false;
    caps_.notes =
        "GLSL compute shaders on Vulkan; exact ops bit for bit; EXP2/LOG2/SIN in software double "
        "precision "
        "(float64 results within the ULPs SEMANTICS.md declares); 8/16/64-bit types and float64 "
        "need the device's "
        "features (otherwise unsupported)";
  }
  ~VulkanBackend() override {
    // Destroyed at exit, when the driver and the layers may already be torn down: the
    // cached kernels' device objects are left to the process's end.
    cache_.abandon();
  }
  std::string_view name() const override { return "vulkan"; }
  const Capabilities& caps() const override { return caps_; }

  int tolerance_ulps(UOp root) const override {
    // float64 EXP2/LOG2/SIN are this backend's own double routines, not the oracle's
    // libm: a few ULPs apart. Everything else is exact.
    for (UOp u : toposort(root))
      if ((u.op() == Op::Exp2 || u.op() == Op::Log2 || u.op() == Op::Sin) &&
          u.dtype().scalar() == ScalarType::Float64)
        return kTranscendentalUlps64;
    return 0;
  }

  Result<std::shared_ptr<Kernel>> compile(UOp root, const CompileOptions& options) override {
    if (!root) return Error{"no graph"};
    return cache_.get_or_build(root, options.keep_listing,
                               [&] { return build(root, options.keep_listing); });
  }

  KernelCache* kernel_cache() override { return &cache_; }

  Result<DeviceDescription> device() override {
    auto ctx = context();
    if (!ctx) return ctx.error();
    const DeviceInfo& i = (*ctx)->info();
    return DeviceDescription{i.name, i.driver, i.driver_info, i.api_version, i.type};
  }

  static constexpr int kTranscendentalUlps64 = 4;

 private:
  Result<std::shared_ptr<Kernel>> build(UOp root, bool keep_listing) {
    StageTimer timer;
    auto made = build(root, keep_listing, timer);
    if (!made) timer.note("refused or failed");
    timer.report("compile");
    return made;
  }

  Result<std::shared_ptr<Kernel>> build(UOp root, bool keep_listing, StageTimer& timer) {
    if (std::string why = caps_.unsupported(root); !why.empty())
      return Error{"unsupported: " + why};
    auto ctx = context();
    if (!ctx) return ctx.error();
    timer.lap("context");
    const DeviceInfo& d = (*ctx)->info();
    RenderOptions ro;
    ro.max_groups = std::max<uint32_t>(1, d.max_workgroup_count_x);
    auto rendered = render(root, ro);
    if (!rendered) return rendered.error();
    timer.lap("render");
    if (timer.on())  // the hash tells repeated shaders apart in the timing lines
      timer.note(
          fmt::format("glsl {:016x} {} bytes", ir::fnv1a(rendered->glsl), rendered->glsl.size()));
    if (std::string why = missing_feature(rendered->needs, d); !why.empty())
      return Error{"unsupported: " + why};
    if (d.max_loop_iterations > 0) {
      const uint64_t passes = loop_passes_per_invocation(root, rendered->threads);
      if (passes >= d.max_loop_iterations)
        return Error{fmt::format(
            "unsupported: up to {} loop passes per invocation reach the device's limit of {} "
            "(llvmpipe leaves every loop there, silently)",
            passes, d.max_loop_iterations)};
    }
    const uint32_t push_bytes =
        static_cast<uint32_t>(rendered->signature.vars.size() * sizeof(int64_t));
    if (push_bytes > d.max_push_constants)
      return Error{
          fmt::format("unsupported: {} VARs exceed the device's {} bytes of push constants",
                      rendered->signature.vars.size(), d.max_push_constants)};
    PipelineSpec spec;
    for (const ir::BufferParam& b : rendered->signature.buffers) {
      const uint64_t bytes = static_cast<uint64_t>(b.size) * b.dtype.bytes();
      if (bytes > d.max_storage_buffer_range)
        return Error{fmt::format(
            "unsupported: a {}-byte buffer exceeds the device's maxStorageBufferRange ({})", bytes,
            d.max_storage_buffer_range)};
      spec.buffer_bytes.push_back(bytes);
    }
    if (const char* o = std::getenv("UOPFUZZ_VULKAN_GLSL_OVERRIDE");
        o && *o) {  // debugging aid: hand-edited shader
      std::ifstream f(o);
      std::stringstream ss;
      ss << f.rdbuf();
      rendered->glsl = ss.str();
    }
    auto spirv = compile_glsl(rendered->glsl);
    if (!spirv) return Error{spirv.error().message + "\n" + rendered->glsl};
    spec.spirv = std::move(spirv.value());
    timer.lap("glslang");
    spec.push_constant_bytes = push_bytes;
    spec.groups = rendered->threads / kLocalSize;
    std::string listing;
    if (keep_listing)
      listing =
          fmt::format("// ---- device: {} ({}, {})\n// ---- GLSL ----\n{}\n// ---- SPIR-V ----\n{}",
                      d.name, d.type, d.driver, rendered->glsl, disassemble(spec.spirv));
    auto objects = KernelObjects::make(*ctx, spec, timer);
    if (!objects) return objects.error();
    return std::shared_ptr<Kernel>(std::make_shared<VulkanKernel>(
        std::move(objects.value()), std::move(rendered.value()), std::move(listing)));
  }

  Capabilities caps_;
  KernelCache cache_{kCacheEntries};
};

}  // namespace

uint64_t validation_messages() {
  auto ctx = context();
  return ctx ? (*ctx)->validation_messages() : 0;
}
std::vector<std::string> validation_log() {
  auto ctx = context();
  return ctx ? (*ctx)->validation_log() : std::vector<std::string>{};
}

}  // namespace uopfuzz::backends::vulkan

namespace uopfuzz::backends {

// Declared by the registry from backends.def.
std::unique_ptr<Backend> make_vulkan_backend() {
  return std::make_unique<vulkan::VulkanBackend>();
}

}  // namespace uopfuzz::backends
