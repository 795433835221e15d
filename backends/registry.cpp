#include "backends/registry.h"

#include <deque>
#include <memory>
#include <mutex>

#include "backends/cpu/cpu_backend.h"
#include "backends/oracle_backend.h"
#include "backends/vulkan/vulkan_backend.h"
#include "ir/graph.h"
#include "ir/ops.h"

namespace uopfuzz::backends {
namespace {

struct Entry {
  std::string name;
  std::unique_ptr<Backend> (*factory)();
  std::unique_ptr<Backend> instance;
  std::once_flag made;
};

std::deque<Entry>& entries() {
  static std::deque<Entry> list = [] {
    std::deque<Entry> v;
#define BACKEND(n, f) v.emplace_back().name = n, v.back().factory = &f;
#include "backends/backends.def"
#undef BACKEND
    return v;
  }();
  return list;
}

}  // namespace

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Entry& e : entries()) n.push_back(e.name);
    return n;
  }();
  return names;
}

Backend* find_backend(std::string_view name) {
  for (Entry& e : entries()) {
    if (e.name != name) continue;
    // Construction is cheap: backends create JITs, pools and devices on first use.
    std::call_once(e.made, [&] { e.instance = e.factory(); });
    return e.instance.get();
  }
  return nullptr;
}

bool Capabilities::supports(ir::DType dt) const {
  for (ir::DType d : dtypes)
    if (d == dt) return true;
  return false;
}

bool Capabilities::supports(ir::Op op) const {
  for (ir::Op o : ops)
    if (o == op) return true;
  return false;
}

std::string Capabilities::unsupported(ir::UOp root) const {
  for (ir::UOp u : ir::toposort(root)) {
    if (!supports(u.op())) return std::string("op ") + std::string(ir::op_name(u.op()));
    if (!u.dtype().is_void() && !supports(u.dtype())) return std::string("dtype ") + std::string(u.dtype().name());
    if (u.op() == ir::Op::Param && u.arg<ir::ParamArg>().size > max_buffer_elements) return "a buffer above the size limit";
  }
  return "";
}

}  // namespace uopfuzz::backends
