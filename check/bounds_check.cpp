#include "check/bounds_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "ir/graph.h"
#include "ir/node_map.h"

namespace uopfuzz::check {
namespace {

/// The values a node of a sized signed dtype can hold.
std::pair<__int128, __int128> dtype_range(ir::DType dt) {
  return {dt.int_min(), dt.int_max()};
}

std::string interval_text(__int128 lo, __int128 hi) {
  return fmt::format("[{}, {}]", int128_text(lo), int128_text(hi));
}

}  // namespace

std::string int128_text(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v) : v;
  std::string digits;
  while (m) {
    digits += static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  }
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::optional<BoundsViolation> find_unsound_bounds(ir::UOp root,
                                                   const std::vector<sut::ClaimedBounds>& claims,
                                                   const std::vector<ir::ObservedRange>& observed) {
  if (claims.empty() || observed.empty()) return std::nullopt;
  const std::vector<ir::UOp> topo = ir::toposort(root);
  ir::NodeMap<const sut::ClaimedBounds*> claim(topo.size());
  for (const sut::ClaimedBounds& c : claims) claim[c.node] = &c;
  ir::NodeMap<const ir::ObservedRange*> seen(topo.size());
  for (const ir::ObservedRange& o : observed) seen[o.node] = &o;
  ir::NodeMap<bool> declared_apart(topo.size());  // claims past the dtype, and all they feed
  for (ir::UOp u : topo) {
    bool apart = false;
    for (ir::UOp s : u.src()) apart = apart || declared_apart[s];
    const sut::ClaimedBounds* c = claim[u];
    // Signed overflow is undefined in C, and a simplifier may assume it away; here sized
    // signed integers wrap (SEMANTICS.md). Unsigned wrapping is defined in both: a claim
    // that ignores it is wrong.
    if (c && u.dtype().kind() == ir::DTypeKind::Signed) {
      const auto [min, max] = dtype_range(u.dtype());
      apart = apart || c->lo < min || c->hi > max;
    }
    declared_apart[u] = apart;
    const ir::ObservedRange* o = seen[u];
    if (apart || !c || !o) continue;
    if (o->lo >= c->lo && o->hi <= c->hi) continue;
    BoundsViolation v{u, c->lo, c->hi, o->lo < c->lo ? o->lo : o->hi, ""};
    std::string operands;
    for (ir::UOp s : u.src()) {
      const sut::ClaimedBounds* sc = claim[s];
      operands +=
          (operands.empty() ? "" : ", ") + (sc ? interval_text(sc->lo, sc->hi) : std::string("?"));
    }
    v.text = fmt::format("unsound-bounds: {} of {} claimed {}, value {}", ir::op_name(u.op()),
                         operands.empty() ? "no operands" : operands, interval_text(c->lo, c->hi),
                         int128_text(v.value));
    return v;
  }
  return std::nullopt;
}

}  // namespace uopfuzz::check
