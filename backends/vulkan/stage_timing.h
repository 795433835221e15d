/** \file Where the Vulkan backend's time goes, stage by stage (UOPFUZZ_VULKAN_TIMING).
 *
 * With UOPFUZZ_VULKAN_TIMING=1 every compile and every run prints one line to stderr
 * naming its stages and their milliseconds; any other non-empty value other than 0 is a
 * file the lines are appended to (a campaign's forked workers have their stderr sent to
 * /dev/null). Off, a StageTimer reads no clock.
 */
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace uopfuzz::backends::vulkan {

/// Whether UOPFUZZ_VULKAN_TIMING asks for the stage lines (read once per process).
bool stage_timing();

/// Laps of one compile or run; `report` writes them as one line.
class StageTimer {
 public:
  StageTimer() : on_(stage_timing()) {
    if (on_) last_ = std::chrono::steady_clock::now();
  }
  bool on() const { return on_; }
  /// Charges the time since the previous lap (or the start) to `stage`.
  void lap(std::string_view stage);
  /// A note printed after the times (what was cached, sizes).
  void note(std::string text);
  /// Writes "vulkan WHAT: stage X ms, ... (notes)" when timing is on.
  void report(std::string_view what) const;

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_;
  std::vector<std::pair<std::string, double>> laps_;
  std::vector<std::string> notes_;
};

}  // namespace uopfuzz::backends::vulkan
