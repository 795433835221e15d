/** \file Near misses of the simplifier's multi-operand and gated rules: each registered row
 * (gen/near_miss.def) names a rule and one of its side conditions, and build_near_miss() makes a
 * small kernel holding the rule's matching shape with exactly that condition broken, everything
 * else as the exact match would be. A rule that forgot the condition fires on it and the
 * differential check sees the wrong value; a correct rule declines. The same draws with
 * `broken` false give the exact match, so a test can show the shape still reaches its rule.
 *
 * The kernels are defined by construction (divisors are nonzero constants, loads are in
 * bounds), and deterministic: the same entropy gives the same kernel text. */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gen/entropy.h"
#include "ir/kernel.h"
#include "ir/uop.h"

namespace uopfuzz::gen {

enum class NearMiss : uint8_t {
#define NEAR_MISS(e, rule, condition, breaks) e,
#include "gen/near_miss.def"
#undef NEAR_MISS
};

struct NearMissRow {
  NearMiss id;
  std::string_view rule;       ///< the rule's name (simplify --list-rules)
  std::string_view condition;  ///< the side condition the near miss breaks
  std::string_view breaks;     ///< the shape built, in one line
};

/// Every registered row, in .def order.
const std::vector<NearMissRow>& near_miss_rows();
const NearMissRow& near_miss_row(NearMiss m);
/// "rule:condition": the row's name in the campaign's tally (fuzz --json near_misses).
std::string near_miss_name(NearMiss m);

/// The header key (@near-miss) a generated near miss carries its row name under.
inline constexpr std::string_view kNearMissKey = "near-miss";

/// Row `m`'s kernel from `entropy`: the near miss, or with `broken` false the exact match made
/// from the same draws. Its header names the row (@near-miss) only when broken.
ir::Kernel build_near_miss(ir::Context& ctx, NearMiss m, Entropy& entropy, bool broken = true);

/// A row drawn uniformly from `entropy`, and its near miss.
ir::Kernel draw_near_miss(ir::Context& ctx, Entropy& entropy);

}  // namespace uopfuzz::gen
