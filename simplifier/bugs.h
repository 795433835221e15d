/** \file The catalogue of planted bugs (bugs.def) and the set switched on for one run. */
#pragma once

#include <bitset>
#include <optional>
#include <string_view>
#include <vector>

namespace uopfuzz::simplifier {

enum class Bug : uint8_t {
#define BUG(e, name, kind, what, noticed_by) e,
#include "simplifier/bugs.def"
#undef BUG
  kCount
};

/// Result: outputs change (or UB / a verifier failure appears). Latency: results stay
/// right, the rewrite is slower. Crash: the simplifier crashes or hangs, which only a
/// campaign's process isolation (fuzz/isolate.h) can observe.
enum class BugKind : uint8_t { Result, Latency, Crash };

struct BugInfo {
  Bug bug;
  std::string_view name, what, noticed_by;
  BugKind kind;
};

const std::vector<BugInfo>& all_bugs();
std::string_view bug_kind_name(BugKind k);  ///< "result", "latency", "crash"
std::optional<Bug> parse_bug(std::string_view name);

/// The bugs switched on for a simplify run (none by default: the faithful simplifier).
class BugSet {
 public:
  BugSet() = default;
  BugSet& enable(Bug b) {
    bits_.set(static_cast<size_t>(b));
    return *this;
  }
  bool has(Bug b) const { return bits_.test(static_cast<size_t>(b)); }
  bool any() const { return bits_.any(); }

 private:
  std::bitset<static_cast<size_t>(Bug::kCount)> bits_;
};

}  // namespace uopfuzz::simplifier
