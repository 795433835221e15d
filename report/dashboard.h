/** \file The dashboard: results files from any number of runs and machines rendered as
 * one self-contained HTML page (inline CSS and SVG, no scripts needed to read it, nothing
 * fetched), grouped by backend and device, ordered by date and labelled by commit. */
#pragma once

#include <string>
#include <vector>

#include "report/results.h"

namespace uopfuzz::report {

/// A plotted device and case set: the dashboard draws one latency, speedup and history
/// plot per key. Runs over different case sets (the examples, generated kernels) are not
/// comparable, so each set gets plots of its own.
struct DeviceKey {
  std::string backend;
  std::string device;
  std::string cases;  ///< the bench run's context.cases ("" when a file does not say)
  auto operator<=>(const DeviceKey&) const = default;
};

struct DashboardOptions {
  /// Where the page will be written; links to corpus cases are made relative to its
  /// directory (see link_to), so the page and the corpus can move together.
  std::string output_path = "dashboard.html";
  /// Shown in the title; "" means now, in UTC. Tests pass a fixed one.
  std::string generated_at;
  std::string title = "uopfuzz dashboard";
  /// A speedup within a factor 1 + this of 1 counts as unchanged (see classify_speedup).
  double unchanged_tolerance = 0.02;
};

/// The devices (with their case sets) that bench data (benchmarks or comparisons) in RUNS
/// measured, sorted.
std::vector<DeviceKey> bench_devices(const std::vector<LoadedResults>& runs);

/// Every backend/device any run names (its context.devices or its bench rows), sorted;
/// `cases` is left empty.
std::vector<DeviceKey> all_devices(const std::vector<LoadedResults>& runs);

/// The bench runs over DEVICE's case set that measured it, in date order (the history
/// plot's points).
std::vector<const LoadedResults*> runs_of_device(const std::vector<LoadedResults>& runs,
                                                 const DeviceKey& device);

/// DEVICE's comparisons in RUN.
std::vector<Comparison> comparisons_of(const LoadedResults& run, const DeviceKey& device);

/// The whole page. Sections (by id): runs, latency, speedup, regressions, history.
/// Every string from the results files is HTML-escaped.
std::string render_dashboard(const std::vector<LoadedResults>& runs,
                             const DashboardOptions& options);

}  // namespace uopfuzz::report
