/** \file Planted lowering bugs (schedule/lowering_bugs.def): known-wrong variants of the
 * lowering that selftest must find, as simplifier/bugs.h does for rules. */
#pragma once

#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "simplifier/bugs.h"

namespace uopfuzz::schedule {

enum class LoweringBug : uint8_t {
#define LOWERING_BUG(e, name, kind, doc) e,
#include "schedule/lowering_bugs.def"
#undef LOWERING_BUG
};

using LoweringBugSet = std::set<LoweringBug>;

std::string_view lowering_bug_name(LoweringBug b);
std::string_view lowering_bug_doc(LoweringBug b);
simplifier::BugKind lowering_bug_kind(LoweringBug b);
std::optional<LoweringBug> parse_lowering_bug(std::string_view name);
const std::vector<LoweringBug>& all_lowering_bugs();

}  // namespace uopfuzz::schedule
