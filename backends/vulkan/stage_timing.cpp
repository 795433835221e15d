#include "backends/vulkan/stage_timing.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

namespace uopfuzz::backends::vulkan {

namespace {

const char* setting() {
  static const char* v = std::getenv("UOPFUZZ_VULKAN_TIMING");
  return v;
}

}  // namespace

bool stage_timing() {
  static const bool on = [] {
    const char* v = setting();
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

void StageTimer::lap(std::string_view stage) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  laps_.emplace_back(std::string(stage), std::chrono::duration<double>(now - last_).count());
  last_ = now;
}

void StageTimer::note(std::string text) {
  if (on_) notes_.push_back(std::move(text));
}

void StageTimer::report(std::string_view what) const {
  if (!on_) return;
  std::string line = fmt::format("vulkan {}:", what);
  double total = 0;
  for (const auto& [stage, s] : laps_) {
    line += fmt::format(" {} {:.3f} ms,", stage, s * 1e3);
    total += s;
  }
  line += fmt::format(" total {:.3f} ms", total * 1e3);
  if (!notes_.empty()) line += fmt::format(" ({})", fmt::join(notes_, ", "));
  line += "\n";
  // One write per line, so that lines from several processes appending to one file
  // do not interleave.
  const std::string_view v = setting();
  if (v == "1") {
    (void)!::write(STDERR_FILENO, line.data(), line.size());
    return;
  }
  const int fd = ::open(std::string(v).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace uopfuzz::backends::vulkan
