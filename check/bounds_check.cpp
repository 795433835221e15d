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

/// "[lo, hi]", and " multiple of m" where the claim says so.
std::string claim_text(const sut::ClaimedBounds& c) {
  std::string text = interval_text(c.lo, c.hi);
  if (c.multiple_of > 1) text += fmt::format(" multiple of {}", c.multiple_of);
  return text;
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
    const bool in_interval = o->lo >= c->lo && o->hi <= c->hi;
    const bool is_multiple = c->multiple_of <= 1 || o->gcd % c->multiple_of == 0;
    if (in_interval && is_multiple) continue;
    BoundsViolation v{u, c->lo, c->hi, o->lo < c->lo ? o->lo : o->hi, ""};
    std::string operands;
    for (ir::UOp s : u.src()) {
      const sut::ClaimedBounds* sc = claim[s];
      operands += (operands.empty() ? "" : ", ") + (sc ? claim_text(*sc) : std::string("?"));
    }
    if (operands.empty()) operands = "no operands";
    if (in_interval)  // the interval holds; the divisibility claim does not
      v.text = fmt::format("unsound-bounds: {} of {} claimed {}, values in [{}, {}] with gcd {}",
                           ir::op_name(u.op()), operands, claim_text(*c), int128_text(o->lo),
                           int128_text(o->hi), int128_text(static_cast<__int128>(o->gcd)));
    else
      v.text = fmt::format("unsound-bounds: {} of {} claimed {}, value {}", ir::op_name(u.op()),
                           operands, claim_text(*c), int128_text(v.value));
    return v;
  }
  return std::nullopt;
}

}  // namespace uopfuzz::check
