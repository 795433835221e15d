#include "report/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace uopfuzz::report::plot {

double LogScale::operator()(double v) const {
  double l = std::log(lo), h = std::log(hi);
  double x = std::log(std::clamp(v > 0 ? v : lo, lo, hi));
  return h > l ? px0 + (x - l) / (h - l) * (px1 - px0) : px0;
}

std::pair<double, double> decade_range(double lo, double hi) {
  if (!(lo > 0)) lo = 1;
  if (!(hi > lo)) hi = lo;
  double a = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
  double b = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
  if (b <= a) b = a * 10;
  return {a, b};
}

std::pair<double, double> pow2_range(double lo, double hi) {
  if (!(lo > 0)) lo = 1;
  if (!(hi > 0)) hi = 1;
  double a = std::exp2(std::floor(std::log2(lo) + 1e-9));
  double b = std::exp2(std::ceil(std::log2(hi) - 1e-9));
  return {std::min(a, 0.5), std::max(b, 2.0)};
}

std::vector<double> decade_ticks(double lo, double hi) {
  std::vector<double> ticks;
  int decades = int(std::round(std::log10(hi / lo)));
  for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
    for (double m : {1.0, 2.0, 5.0}) {
      if (decades > 3 && m != 1.0) continue;
      double t = d * m;
      if (t >= lo * 0.9999 && t <= hi * 1.0001) ticks.push_back(t);
    }
  return ticks;
}

std::vector<double> pow2_ticks(double lo, double hi) {
  std::vector<double> ticks;
  int n = int(std::round(std::log2(hi / lo)));
  int step = n > 8 ? 2 : 1;
  for (int e = int(std::round(std::log2(lo))); std::exp2(e) <= hi * 1.0001; ++e)
    if (e % step == 0) ticks.push_back(std::exp2(e));
  return ticks;
}

namespace {

/// Three significant digits without a trailing ".0": 850, 12.5, 3.2.
std::string sig3(double v) {
  std::string s = v >= 100  ? fmt::format("{:.0f}", v)
                  : v >= 10 ? fmt::format("{:.1f}", v)
                            : fmt::format("{:.2f}", v);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

std::string format_duration(double ns) {
  if (!(ns >= 0) || !std::isfinite(ns)) return "—";
  if (ns < 1e3) return sig3(ns) + " ns";
  if (ns < 1e6) return sig3(ns / 1e3) + " µs";
  if (ns < 1e9) return sig3(ns / 1e6) + " ms";
  return sig3(ns / 1e9) + " s";
}

std::string format_speedup(double s) {
  if (!(s > 0) || !std::isfinite(s)) return "—";
  return fmt::format("{:.2f}×", s);
}

std::string format_pow2_tick(double v) {
  if (v >= 1) return fmt::format("{:.0f}×", v);
  return fmt::format("1/{:.0f}×", 1 / v);
}

std::string format_p_value(std::optional<double> p) {
  if (!p || !std::isfinite(*p)) return "—";
  if (*p >= 0.001) return fmt::format("{:.3g}", *p);
  return fmt::format("{:.1e}", *p);
}

std::string format_count(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -(n + 1) + uint64_t(1) : uint64_t(n));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string px(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.ends_with(".0")) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

}  // namespace uopfuzz::report::plot
