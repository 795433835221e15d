#include "report/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace uopfuzz::report {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  double pos = std::clamp(q, 0.0, 1.0) * double(v.size() - 1);
  size_t lo = size_t(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

double median(std::vector<double> v) {
  return quantile(std::move(v), 0.5);
}

double speedup_of(const Comparison& c) {
  if (c.original_ns > 0 && c.rewritten_ns > 0 && std::isfinite(c.original_ns) &&
      std::isfinite(c.rewritten_ns))
    return c.original_ns / c.rewritten_ns;
  return c.speedup > 0 && std::isfinite(c.speedup) ? c.speedup : 0;
}

SpeedupClass classify_speedup(const Comparison& c, double tolerance) {
  double s = speedup_of(c);
  if (!c.rewrite_changed || s <= 0) return SpeedupClass::Unchanged;
  if (s > 1 + tolerance) return SpeedupClass::Faster;
  if (s < 1 / (1 + tolerance)) return SpeedupClass::Slower;
  return SpeedupClass::Unchanged;
}

SpeedupSummary summarize_speedups(const std::vector<Comparison>& comparisons, double tolerance) {
  SpeedupSummary s;
  std::vector<double> values;
  for (const Comparison& c : comparisons) {
    double v = speedup_of(c);
    if (v <= 0) continue;
    values.push_back(v);
    switch (classify_speedup(c, tolerance)) {
      case SpeedupClass::Faster: ++s.faster; break;
      case SpeedupClass::Slower: ++s.slower; break;
      case SpeedupClass::Unchanged: ++s.unchanged; break;
    }
  }
  s.count = values.size();
  s.median = median(values);
  s.q1 = quantile(values, 0.25);
  s.q3 = quantile(values, 0.75);
  s.min = quantile(values, 0);
  s.max = quantile(values, 1);
  return s;
}

}  // namespace uopfuzz::report
