/** \file The one list of backends: every CLI flag and the differential check look names up here. */
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"

namespace uopfuzz::backends {

/// Every backend's name, in registry order ("oracle" first).
const std::vector<std::string>& backend_names();

/// The process-wide backend of that name, or nullptr. Created on first use.
Backend* find_backend(std::string_view name);

}  // namespace uopfuzz::backends
