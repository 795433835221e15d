#include "simplifier/bugs.h"

namespace uopfuzz::simplifier {

const std::vector<BugInfo>& all_bugs() {
  static const std::vector<BugInfo> all = {
#define BUG(e, name, kind, what, noticed_by) {Bug::e, name, what, noticed_by, BugKind::kind},
#include "simplifier/bugs.def"
#undef BUG
  };
  return all;
}

std::string_view bug_kind_name(BugKind k) {
  switch (k) {
    case BugKind::Result: return "result";
    case BugKind::Latency: return "latency";
    case BugKind::Crash: return "crash";
  }
  return "?";
}

std::optional<Bug> parse_bug(std::string_view name) {
  for (const auto& b : all_bugs())
    if (b.name == name) return b.bug;
  return std::nullopt;
}

}  // namespace uopfuzz::simplifier
