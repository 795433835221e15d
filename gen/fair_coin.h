/** \file coin(): a fair choice between equivalent spellings (which side, which sign, which of
 * two operands), as the tensor generator and the mutators draw it. Not a knob, so not a policy
 * field; the same draw as chance(0.5), so moving a chance(0.5) here keeps every draw.
 */
#pragma once

#include "gen/entropy.h"

namespace uopfuzz::gen {

inline bool coin(Entropy& e) {
  return e.chance(0.5);
}

}  // namespace uopfuzz::gen
