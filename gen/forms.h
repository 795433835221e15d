/** \file The spellings of a kernel an external simplifier is asked to build in its own IR.

A simplifier's IR can be wider than `.uop`'s: tinygrad's spec lets a gated index's
`Invalid` flow through ALU ops, sit on a stored value, nest, or swap branches, where `.uop`
has one spelling (SEMANTICS.md, INVALID), and its rules exist to move it back. A hello
names such forms (`forms:`, docs/external-simplifier.md, "Forms"); a kernel's `@forms` line
asks for some of them, the simplifier builds them from the kernel it is sent, and the oracle's
result on the `.uop` kernel stays the expected one. A campaign draws them here. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gen/policy.h"
#include "ir/kernel.h"

namespace uopfuzz::gen {

/// Turns on what only a simplifier offering `offered` needs generated: float-var's leaves
/// (LeafWeights::float_var, as likely as an integer VAR leaf). Without it the policy, and
/// so every graph, stays as it was.
void prepare_for_forms(GenPolicy& policy, const std::vector<std::string>& offered);

/// Whether `kernel` has a gated access (an INDEX of a `WHERE(valid, idx, INVALID)`): the
/// gate-* forms spell those.
bool has_gated_access(const ir::Kernel& kernel);

/// Whether `kernel` has a CAST of a VAR to a float dtype: the float-var form spells those.
bool has_float_cast_of_var(const ir::Kernel& kernel);

/// The forms this uopfuzz knows (the adapter's words) that have something to spell in
/// `kernel`, among `offered`, in its order. A word it does not know is never asked for.
std::vector<std::string> applicable_forms(const ir::Kernel& kernel,
                                          const std::vector<std::string>& offered);

/// With probability `policy.p_external_forms`, when some of `offered` apply to `kernel`
/// (applicable_forms), a `@forms` line naming some of those (each with p_each_form, at least
/// one, in `offered`'s order) is added to its header. Draws from `seed` alone, so a graph
/// seed gives the same forms whatever else the campaign does. True when it added one.
bool draw_forms(ir::Kernel& kernel, const std::vector<std::string>& offered,
                const GenPolicy& policy, uint64_t seed);

}  // namespace uopfuzz::gen
