#include "fuzz/executor_schedule.h"

#include <algorithm>
#include <cmath>

#include "ir/hash.h"

namespace uopfuzz::fuzz {

namespace {

// The first rate (before any time is measured): the controller finds the real one within
// a few hundred graphs.
constexpr double kStartRate = 0.05;
constexpr double kMinRate = 1e-4;
// The measured time forgets with this factor per graph (a window of about 200 graphs), so
// that the rate follows a campaign whose graphs change size.
constexpr double kDecay = 0.995;
// How strongly one graph's error moves the rate (multiplicatively).
constexpr double kGain = 0.05;

double unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace

double sample_weight(bool changed, bool rare) {
  return 1.0 + (changed ? 2.0 : 0.0) + (rare ? 4.0 : 0.0);
}

BackendSampler::BackendSampler(const ExecutorSchedule& schedule) : schedule_(schedule) {
  for (const std::string& b : schedule_.backends) {
    rate_[b] = schedule_.fixed_rate.value_or(kStartRate);
    recent_[b] = 0;
  }
}

bool BackendSampler::pick(const std::string& backend, uint64_t graph_seed, double weight) const {
  auto it = rate_.find(backend);
  if (it == rate_.end()) return false;
  // The backend's name salts the draw, so that backends pick different graphs.
  const double draw = unit(ir::mix64(graph_seed ^ ir::fnv1a(backend)));
  return draw < std::min(1.0, it->second * weight);
}

void BackendSampler::observe(double graph_seconds,
                             const std::map<std::string, double>& backend_seconds) {
  recent_total_ = recent_total_ * kDecay + graph_seconds;
  if (schedule_.fixed_rate || schedule_.backends.empty() || recent_total_ <= 0) return;
  const double target = schedule_.time_share / static_cast<double>(schedule_.backends.size());
  for (const std::string& b : schedule_.backends) {
    auto spent = backend_seconds.find(b);
    double& recent = recent_[b];
    recent = recent * kDecay + (spent == backend_seconds.end() ? 0.0 : spent->second);
    const double share = recent / recent_total_;
    // Multiplicative: the rate spans orders of magnitude (a Vulkan compile costs a hundred
    // oracle checks on lavapipe, a cached cpu kernel almost nothing).
    const double error = std::clamp((target - share) / std::max(target, 1e-9), -1.0, 1.0);
    rate_[b] = std::clamp(rate_[b] * std::exp(kGain * error), kMinRate, 1.0);
  }
}

double BackendSampler::rate(const std::string& backend) const {
  auto it = rate_.find(backend);
  return it == rate_.end() ? 0.0 : it->second;
}

}  // namespace uopfuzz::fuzz
