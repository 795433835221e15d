/** \file The "context" block of every results file (docs/results-format.md): Google
 * Benchmark's own keys, then the machine, the commit, the date and the devices, so that
 * results from many machines and runs can be put side by side on one dashboard. */
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace uopfuzz::bench {

/// A backend and the device it ran on.
struct MeasuredDevice {
  std::string backend;
  backends::DeviceDescription device;
  std::string error;  ///< why the device could not be opened ("" when it could)
};

/// Describes each named backend's device; a backend whose device cannot be opened is
/// listed with `error` set and "unavailable: <error>" as its device name.
std::vector<MeasuredDevice> describe_devices(const std::vector<std::string>& backend_names);

/// The commit this binary was built from ("-dirty" when the tree had changes; "unknown"
/// outside git), as recorded when CMake last configured the build.
std::string build_commit();

/// The context block. `cases` and `reps` are left out when empty / 0 (fuzz summaries).
nlohmann::ordered_json context_json(const std::string& executable,
                                    const std::vector<MeasuredDevice>& devices,
                                    const std::string& cases = "", int reps = 0);

}  // namespace uopfuzz::bench
