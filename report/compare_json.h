/** \file The JSON of `--compare A,B` (fuzz and check): each side's figures, the strength
 * tally per rule family and the lowering tally (fuzz/compare.h). */
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "check/strength.h"
#include "fuzz/compare.h"

namespace uopfuzz::report {

/// The strength tally: which side leaves less, per rule family, with examples.
nlohmann::ordered_json strength_json(const check::StrengthTally& t);

/// One side of a comparison over `graphs` graphs: its rewrites, declines, findings and time.
nlohmann::ordered_json side_json(const fuzz::CompareSide& s, uint64_t graphs);

/// The lowering tally: where each side's tensor programs give fewer kernels or buffers.
nlohmann::ordered_json lowering_json(const fuzz::LoweringTally& t);

}  // namespace uopfuzz::report
