#include "schedule/lowering_bugs.h"

#include <iterator>

namespace uopfuzz::schedule {
namespace {

constexpr std::string_view kNames[] = {
#define LOWERING_BUG(e, name, kind, doc) name,
#include "schedule/lowering_bugs.def"
#undef LOWERING_BUG
};
constexpr simplifier::BugKind kKinds[] = {
#define LOWERING_BUG(e, name, kind, doc) simplifier::BugKind::kind,
#include "schedule/lowering_bugs.def"
#undef LOWERING_BUG
};
constexpr std::string_view kDocs[] = {
#define LOWERING_BUG(e, name, kind, doc) doc,
#include "schedule/lowering_bugs.def"
#undef LOWERING_BUG
};

}  // namespace

std::string_view lowering_bug_name(LoweringBug b) {
  return kNames[static_cast<size_t>(b)];
}
simplifier::BugKind lowering_bug_kind(LoweringBug b) {
  return kKinds[static_cast<size_t>(b)];
}
std::string_view lowering_bug_doc(LoweringBug b) {
  return kDocs[static_cast<size_t>(b)];
}
std::optional<LoweringBug> parse_lowering_bug(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == name) return static_cast<LoweringBug>(i);
  return std::nullopt;
}
const std::vector<LoweringBug>& all_lowering_bugs() {
  static const std::vector<LoweringBug> all = {
#define LOWERING_BUG(e, name, kind, doc) LoweringBug::e,
#include "schedule/lowering_bugs.def"
#undef LOWERING_BUG
  };
  return all;
}

}  // namespace uopfuzz::schedule
