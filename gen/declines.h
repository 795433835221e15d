/** \file The shapes a simplifier under test always declines (its hello's `declines:` words,
 * docs/external-simplifier.md) and the GenPolicy that generates none of them: a campaign
 * spends its graphs on kernels the simplifier takes. */
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gen/policy.h"

namespace uopfuzz::gen {

/// One shape a policy stopped generating, for the campaign's line and its JSON.
struct AvoidedShape {
  std::string shape;  ///< the hello's word: "quantized", "range-end-0", ...
  std::string knobs;  ///< the GenPolicy knobs set to 0 for it
};

/// The shape words avoid_declined_shapes knows, in the order it applies them.
std::vector<std::string> known_declined_shapes();

/// Sets to 0 the knobs of `policy` that generate each shape in `declined` it knows
/// (known_declined_shapes(); other words are ignored, for hellos newer than this uopfuzz).
/// Returns what it turned off, in known_declined_shapes()'s order; empty (and `policy`
/// unchanged) when `declined` names none it knows.
///   quantized          quantized outputs and DEQUANTIZE positions (kernels and tensor programs)
///   range-end-0        CONST range ends of 0 (the generator's, the range-end and wrap-in-reduce
///                      mutators')
///   range-end-1        range ends of 1: CONST, a VAR pinned to [1, 1], a loop budget of 1, the
///                      mutators' ends of 1
///   range-closed-twice a store nest reusing an earlier output's range, a second store
///                      over a gated store's ranges
std::vector<AvoidedShape> avoid_declined_shapes(GenPolicy& policy,
                                                const std::set<std::string>& declined);

}  // namespace uopfuzz::gen
