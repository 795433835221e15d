/** \file The dashboard's roofline view (section id "roofline"): for suite runs (`uopfuzz
 * bench --suite`), each backend's measured bandwidth and arithmetic rate, each case's
 * fraction of its roofline bound per device (original against rewritten, at the largest
 * size measured), every case and size in a table (with, where the run has it, the tensor
 * programs' time, kernels and buffers against tinygrad's lowering), the fractions' trend over
 * commits, and the regressions the size search minimized. */
#pragma once

#include <string>
#include <vector>

#include "report/results.h"

namespace uopfuzz::report {

/// The device's latest suite run's points at each case's largest size, in case order of
/// the file; the dashboard's fraction bars.
std::vector<SuitePoint> largest_points(const LoadedResults& run, const std::string& backend,
                                       const std::string& device);

/// The section's HTML; "no suite results" when no run is a suite run.
std::string roofline_section(const std::vector<LoadedResults>& all);

}  // namespace uopfuzz::report
