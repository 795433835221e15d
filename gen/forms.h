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

/// Whether `kernel` has a gated access (an INDEX of a `WHERE(valid, idx, INVALID)`): the
/// forms spell only those.
bool has_gated_access(const ir::Kernel& kernel);

/// With probability `policy.p_external_forms`, when `kernel` has a gated access and `offered`
/// is not empty, a `@forms` line naming some of `offered` (each with p_each_form, at least
/// one, in `offered`'s order) is added to its header. Draws from `seed` alone, so a graph
/// seed gives the same forms whatever else the campaign does. True when it added one.
bool draw_forms(ir::Kernel& kernel, const std::vector<std::string>& offered,
                const GenPolicy& policy, uint64_t seed);

}  // namespace uopfuzz::gen
