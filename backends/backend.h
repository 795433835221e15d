/** \file The backend interface: where a kernel graph runs (the oracle, the CPU JIT, Vulkan).
 *
 * Lifecycle: a Backend is a process-wide object found by name in the registry
 * (backends/registry.h). compile(graph) turns a verified kernel graph into a Kernel
 * (errors are values); a Kernel runs any number of times on inputs filled by
 * ir::make_inputs. Backends run only graphs the oracle found free of undefined
 * behaviour (SEMANTICS.md): a compiled backend reports no UB, it trusts the oracle.
 *
 * Fork safety: backends create their heavy state (JIT, thread pool, device) lazily on
 * first compile or run, in the process that runs kernels, so that a campaign parent
 * that only forks workers never owns threads.
 */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/result.h"
#include "ir/run_io.h"
#include "ir/uop.h"

namespace uopfuzz::backends {

class KernelCache;  // backends/kernel_cache.h

/// What a backend can run, and how its results may differ from SEMANTICS.md.
struct Capabilities {
  std::vector<ir::DType> dtypes;  ///< value and buffer dtypes it supports
  /// Quantized types too: any quantized type whose storage integer is in `dtypes` (they
  /// cannot be listed: scale and zero point are open-ended).
  bool quantized = false;
  std::vector<ir::Op> ops;  ///< ops it supports
  int64_t max_buffer_elements = int64_t{1} << 40;
  int max_threads = 1;  ///< RunOptions::threads above this is clamped
  /// ULPs by which a float output may differ from the oracle (0: bit for bit). Declared
  /// in SEMANTICS.md, "Backend tolerances and capabilities".
  int float_tolerance_ulps = 0;
  /// false: the sign of a zero float result may differ from the oracle's (+0 for -0), so
  /// outputs compare with +0 == -0. Declared in SEMANTICS.md like the ULPs.
  bool signed_zeros = true;
  /// true: adds the terms of reassociable float sums (backends/float_sums.h) in any order,
  /// so those outputs compare within sum_bounds(), not bit for bit.
  bool reassociates_float_sums = false;
  /// true: CompileOptions::opt_level chooses how the kernel is compiled (else ignored).
  bool opt_levels = false;
  std::string notes;  ///< one line: what is missing or differs, and why

  bool supports(ir::DType dt) const;
  bool supports(ir::Op op) const;
  /// Empty when every node of `root` is supported; otherwise why not (one line).
  std::string unsupported(ir::UOp root) const;
};

struct RunOptions {
  uint64_t max_steps = 2'000'000'000;  ///< interpreters: step limit (compiled backends ignore it)
  int threads = 1;                     ///< compiled backends: threads splitting the outer loops
  bool observe_values =
      false;  ///< the oracle: record each integer node's values (RunOutput::observed)
};

/// A compiled kernel. Not thread-safe to run from two threads at once.
class Kernel {
 public:
  virtual ~Kernel() = default;
  /// Runs once: outputs start zeroed. Usage errors (a missing or mis-sized buffer, a VAR
  /// missing or out of bounds) are errors; UB is reported only by the oracle.
  virtual Result<ir::RunOutput> run(const ir::Inputs& inputs, const RunOptions& options = {}) = 0;
  /// Runs `reps` times and returns the seconds each run took (output zeroing and
  /// argument checks are not timed).
  virtual Result<std::vector<double>> time(const ir::Inputs& inputs, int reps,
                                           const RunOptions& options = {}) = 0;
  /// A printable listing for bug reports (LLVM IR for the CPU backend); "" if none.
  virtual std::string listing() const { return ""; }
  /// Seconds each run of the last time() took on the device's own clock (Vulkan: GPU
  /// timestamp queries scaled by timestampPeriod), while time() returns host wall time;
  /// empty where the backend has no device clock.
  virtual std::vector<double> device_times() const { return {}; }
};

/// What a backend runs on, as results files and dashboards name it
/// (docs/results-format.md, context.devices).
struct DeviceDescription {
  std::string device;  ///< "llvmpipe (LLVM 15.0.6, 256 bits)", "Intel(R) Xeon(R) ... (host CPU)"
  std::string driver;  ///< "llvmpipe", "LLVM 14.0.6 ORC LLJIT"
  std::string driver_info;  ///< e.g. "Mesa 22.3.6"
  std::string api_version;  ///< e.g. Vulkan "1.3.230"; "" where there is none
  std::string device_type;  ///< "cpu", "discrete-gpu", "integrated-gpu", ...
};

/// How hard a compiling backend optimizes a kernel (cpu: the LLVM pass pipeline and the
/// code generator's level). A fuzzing dimension, not only a speed knob: code generator
/// bugs live at specific levels (the fast instruction selector runs at O0, the SelectionDAG
/// and the vectorizers above it).
enum class OptLevel : uint8_t { O0, O1, O2, O3 };
inline constexpr int kOptLevelCount = 4;

/// "O0" .. "O3", as corpus headers (`@cpu-opt`) and flags write it.
std::string_view opt_level_name(OptLevel level);
std::optional<OptLevel> parse_opt_level(std::string_view text);

struct CompileOptions {
  bool keep_listing = false;          ///< keep Kernel::listing() (costs time: off in campaigns)
  OptLevel opt_level = OptLevel::O2;  ///< where Capabilities::opt_levels says it matters
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual const Capabilities& caps() const = 0;
  /// The float tolerance (ULPs) for this graph's outputs: the per-graph hook, so that a
  /// backend can declare a tolerance only where a graph uses the ops it names
  /// (SEMANTICS.md, "Backend tolerances and capabilities").
  virtual int tolerance_ulps(ir::UOp root) const { return caps().float_tolerance_ulps; }
  /// The graph must pass ir::verify. A graph with an unsupported dtype or op fails with
  /// a message starting "unsupported:" (callers may skip rather than report it).
  virtual Result<std::shared_ptr<Kernel>> compile(ir::UOp root,
                                                  const CompileOptions& options = {}) = 0;
  /// compile() of each root, in order, where a backend may do the work once for all of
  /// them (cpu: one module, one optimization and code generation run, which halves the
  /// fixed cost of checking an original and its rewrite). The default compiles one by one.
  virtual std::vector<Result<std::shared_ptr<Kernel>>> compile_all(
      std::span<const ir::UOp> roots, const CompileOptions& options = {}) {
    std::vector<Result<std::shared_ptr<Kernel>>> out;
    out.reserve(roots.size());
    for (ir::UOp root : roots) out.push_back(compile(root, options));
    return out;
  }
  /// The compiled-kernel cache (backends/kernel_cache.h) of a compiling backend, for
  /// counters and cold-compile benchmarks; nullptr for one that keeps none (the oracle).
  virtual KernelCache* kernel_cache() { return nullptr; }
  /// The device kernels run on (Vulkan: the chosen device; creating it if needed).
  virtual Result<DeviceDescription> device() = 0;
};

/// True when a compile error means "this backend cannot run this graph" (a capability),
/// not a backend failure.
inline bool is_unsupported(const Error& e) {
  return e.message.rfind("unsupported:", 0) == 0;
}

}  // namespace uopfuzz::backends
