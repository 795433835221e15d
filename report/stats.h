/** \file The few statistics the dashboard shows: medians, quartiles and the speedup
 * summary of a run's comparisons (how many cases the simplifier made faster, slower or
 * left as they were). */
#pragma once

#include <cstddef>
#include <vector>

#include "report/results.h"

namespace uopfuzz::report {

/// The median (mean of the two middle values for an even count); NaN for no values.
double median(std::vector<double> values);

/// The Q-quantile (0 <= Q <= 1) by linear interpolation between order statistics, the
/// definition numpy and R use by default; NaN for no values.
double quantile(std::vector<double> values, double q);

/// original_ns / rewritten_ns: the medians the comparison reports, so the speedup plot
/// and the latency bars can never disagree. Falls back to the file's "speedup" when a
/// median is not positive (a zero-time run), and 0 when both are unusable.
double speedup_of(const Comparison& c);

enum class SpeedupClass { Faster, Slower, Unchanged };

/// Unchanged: the simplifier left the graph as it was (any difference is noise), or the
/// speedup is within a factor 1 + TOLERANCE of 1. Otherwise faster (> 1) or slower (< 1).
SpeedupClass classify_speedup(const Comparison& c, double tolerance);

struct SpeedupSummary {
  size_t count = 0, faster = 0, slower = 0, unchanged = 0;
  // Over every comparison with a usable speedup (unchanged graphs included, as they are
  // part of what the simplifier did); NaN when there is none.
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
};

SpeedupSummary summarize_speedups(const std::vector<Comparison>& comparisons, double tolerance);

}  // namespace uopfuzz::report
