#include "backends/registry.h"

#include <deque>
#include <memory>
#include <mutex>

namespace uopfuzz::backends {

// Every backend's factory, declared from its backends.def row; its folder defines it. The
// rows come from the build's copy of backends.def (backends/CMakeLists.txt): only those of
// the backends it compiles in, which is every row except in a fuzz-targets-only build.
#define BACKEND(name, factory) std::unique_ptr<Backend> factory();
#include "backends/built_backends.def"
#undef BACKEND

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
#include "backends/built_backends.def"
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

}  // namespace uopfuzz::backends
