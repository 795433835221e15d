/** \file The oracle (oracle::Program) seen through the Backend interface. */
#pragma once

#include <memory>

#include "backends/backend.h"

namespace uopfuzz::backends {

std::unique_ptr<Backend> make_oracle_backend();

}  // namespace uopfuzz::backends
