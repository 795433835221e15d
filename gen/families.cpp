// The rule families of the kernel generator (generator.h, GenPolicy), placed at an
// expression position each with its probability: the table is gen/kernel_families.def, each
// family's builder is in gen/families/<name>.cpp. The determinism rules of builder.cpp hold
// there too: no call has two arguments that draw entropy.
#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::family(DType dt, const Scope& s, int depth) {
#define KERNEL_FAMILY(name, knob, fits, if_null, what)               \
  if (fits(dt, s) && e_.chance(p_.knob)) {                           \
    if (UOp u = name(dt, s, depth)) return u;                        \
    if (FamilyIfNull::if_null == FamilyIfNull::GiveUp) return UOp(); \
  }
#include "gen/kernel_families.def"
#undef KERNEL_FAMILY
  return UOp();
}

}  // namespace uopfuzz::gen
