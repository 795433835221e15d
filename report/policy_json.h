/** \file The generator's policy as JSON, for `fuzz --json` (its "policy" object): every field
 * of GenPolicy by its name, each weight table a nested object. The fields come from each
 * policy struct's fields() visitor (gen/policy.h, gen/kernel_weights.h), so a new knob is
 * recorded once it is listed there. */
#pragma once

#include <nlohmann/json.hpp>

#include "gen/policy.h"

namespace uopfuzz::report {

/// {"max_positions": 40, ..., "dtypes": {"bool_": 0.5, ...}, ..., "tensor": {...}}: a nested
/// struct is an object when it has a fields() visitor, and is left out until it has one.
nlohmann::ordered_json policy_json(const gen::GenPolicy& policy);

}  // namespace uopfuzz::report
