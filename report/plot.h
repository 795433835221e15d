/** \file Pieces of the dashboard's SVG plots: log scales with ticks a reader can name
 * (1-2-5 per decade for latencies, powers of two for speedups) and the number formats
 * of axes, labels and tables. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace uopfuzz::report::plot {

/// Maps [lo, hi] (both > 0) logarithmically onto the pixels [px0, px1]; values outside
/// are clamped, so a stray point stays on the plot instead of leaving it.
struct LogScale {
  double lo = 1, hi = 10;
  double px0 = 0, px1 = 1;
  double operator()(double v) const;
};

/// [lo, hi] widened outward to powers of ten (at least one decade).
std::pair<double, double> decade_range(double lo, double hi);
/// [lo, hi] widened outward to powers of two, and to at least [1/2, 2] so the 1x line
/// always has room on both sides.
std::pair<double, double> pow2_range(double lo, double hi);

/// 1, 2, 5 x 10^k inside [lo, hi]; only the powers of ten when that would be crowded.
std::vector<double> decade_ticks(double lo, double hi);
/// Powers of two inside [lo, hi]; every other one when that would be crowded.
std::vector<double> pow2_ticks(double lo, double hi);

/// "850 ns", "12.5 µs", "3.20 ms", "1.50 s": three significant digits, a unit a reader
/// would use.
std::string format_duration(double ns);
/// "1.42×"; "—" when not positive.
std::string format_speedup(double s);
/// "1/4×", "1/2×", "1×", "2×", "16×".
std::string format_pow2_tick(double v);
/// "2.1e-05", "0.043"; "—" when absent.
std::string format_p_value(std::optional<double> p);
/// "5,283,310": counts with thousands separators (whatever the locale).
std::string format_count(int64_t n);
/// A pixel coordinate: one decimal, no trailing zeros.
std::string px(double v);

}  // namespace uopfuzz::report::plot
