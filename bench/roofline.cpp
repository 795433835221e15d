#include "bench/roofline.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/suite/suite.h"
#include "check/latency.h"
#include "ir/parser.h"
#include "ir/run_io.h"

namespace uopfuzz::bench {

namespace {

struct Timed {
  double ns = 0;
  bool device_clock = false;
  std::string error;
  bool refused = false;
};

/// The median run time of the kernel TEXT on `backend`.
Timed time_kernel(backends::Backend& backend, const std::string& text, int reps) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  if (!parsed) return {0, false, "the yardstick kernel does not parse: " + parsed.error().message};
  auto kernel = backend.compile(parsed->kernel.root);
  if (!kernel) return {0, false, kernel.error().message, backends::is_unsupported(kernel.error())};
  const ir::Inputs inputs = ir::make_inputs(parsed->kernel, 1);
  if (auto warm = (*kernel)->time(inputs, 1); !warm) return {0, false, warm.error().message};
  auto times = (*kernel)->time(inputs, std::max(reps, 1));
  if (!times) return {0, false, times.error().message};
  const std::vector<double> device = (*kernel)->device_times();
  const bool on_device = device.size() == times->size() && !device.empty();
  return {check::median(on_device ? device : *times) * 1e9, on_device, ""};
}

}  // namespace

Roofline measure_roofline(backends::Backend& backend, const std::string& device, int reps) {
  Roofline r;
  r.backend = std::string(backend.name());
  r.device = device;
  for (int64_t n : {int64_t{1} << 24, int64_t{1} << 22, int64_t{1} << 20}) {
    Timed t = time_kernel(backend, suite::copy_kernel_text(n), reps);
    if (t.refused) continue;
    if (!t.error.empty()) {
      r.error = "copy: " + t.error;
      return r;
    }
    r.copy_elements = n;
    r.copy_bytes = 8 * n;
    r.copy_ns = t.ns;
    r.device_clock = t.device_clock;
    break;
  }
  if (r.copy_ns <= 0) {
    r.error = "copy: the backend refuses every size tried";
    return r;
  }
  const int64_t n = int64_t{1} << 18;
  Timed t = time_kernel(backend, suite::fma_kernel_text(n), reps);
  if (!t.error.empty()) {
    r.error = "multiply-add: " + t.error;
    return r;
  }
  r.fma_elements = n;
  r.fma_ops = suite::fma_ops(n);
  r.fma_ns = t.ns;
  return r;
}

RooflinePoint place(const Roofline& roof, int64_t bytes, int64_t ops, double ns) {
  RooflinePoint p;
  if (ns <= 0) return p;
  p.gbps = static_cast<double>(bytes) / ns;
  p.gops = static_cast<double>(ops) / ns;
  if (!roof.measured()) return p;
  const double memory_ns = static_cast<double>(bytes) / roof.gbps();
  const double compute_ns = static_cast<double>(ops) / roof.gops();
  p.compute_bound = compute_ns > memory_ns;
  p.fraction = std::max(memory_ns, compute_ns) / ns;
  return p;
}

}  // namespace uopfuzz::bench
