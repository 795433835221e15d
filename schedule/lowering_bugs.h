/** \file Planted lowering bugs (schedule/lowering_bugs.def): known-wrong variants of the
 * lowering that selftest must find, as simplifier/bugs.h does for rules. */
#pragma once

#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace uopfuzz::schedule {

enum class LoweringBug : uint8_t {
#define LOWERING_BUG(e, name, doc) e,
#include "schedule/lowering_bugs.def"
#undef LOWERING_BUG
};

using LoweringBugSet = std::set<LoweringBug>;

std::string_view lowering_bug_name(LoweringBug b);
std::string_view lowering_bug_doc(LoweringBug b);
std::optional<LoweringBug> parse_lowering_bug(std::string_view name);
const std::vector<LoweringBug>& all_lowering_bugs();

}  // namespace uopfuzz::schedule
