#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>

#include "ir/analysis.h"
#include "ir/graph.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::sut {

namespace {

class Builtin final : public Simplifier {
 public:
  std::string name() const override { return "builtin"; }
  std::string version() override { return "uopfuzz"; }
  Capabilities capabilities() override {
    Capabilities c{true, true, true, true, true};
    c.bounds = true;
    return c;
  }
  Outcome simplify(ir::Context& ctx, ir::UOp root,
                   const simplifier::SimplifyOptions& options) override {
    return simplify_with(nullptr, ctx, root, options);
  }
};

}  // namespace

std::shared_ptr<Simplifier> builtin() {
  static const std::shared_ptr<Simplifier> one = std::make_shared<Builtin>();
  return one;
}

namespace {

/// The divisors the built-in rules ask `divides` about in `topo`: the CONST divisors and
/// moduli, and the multiple_of of VARs and PARAMs (at most kMaxDivisors, the largest).
std::vector<int64_t> asked_divisors(const std::vector<ir::UOp>& topo) {
  constexpr size_t kMaxDivisors = 8;  // a few per graph; each is asked of every index node
  std::vector<int64_t> out;
  auto add = [&](std::optional<int64_t> v) {
    if (v && *v > 1) out.push_back(*v);
  };
  for (ir::UOp u : topo) {
    const ir::Op op = u.op();
    if (op == ir::Op::Var) add(u.arg<ir::VarArg>().multiple_of);
    if (op == ir::Op::Param) add(u.arg<ir::ParamArg>().multiple_of);
    const bool divides_by_operand = op == ir::Op::Cdiv || op == ir::Op::Cmod ||
                                    op == ir::Op::FloorDiv || op == ir::Op::FloorMod;
    if (!divides_by_operand || u.src(1).op() != ir::Op::Const) continue;
    const ir::Value d = u.src(1).const_value();
    if (u.src(1).dtype().kind() != ir::DTypeKind::Unsigned)
      add(d.i);
    else if (d.u <= static_cast<uint64_t>(INT64_MAX))
      add(static_cast<int64_t>(d.u));
  }
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() > kMaxDivisors) out.resize(kMaxDivisors);
  return out;
}

}  // namespace

std::vector<ClaimedBounds> builtin_bounds(ir::UOp root) {
  std::vector<ClaimedBounds> out;
  ir::Analysis analysis;
  const std::vector<ir::UOp> topo = ir::toposort(root);
  const std::vector<int64_t> divisors = asked_divisors(topo);
  for (ir::UOp u : topo) {
    const ir::DType dt = u.dtype();
    if (!dt.is_int() && !dt.is_bool()) continue;
    const ir::Interval b = analysis.bounds(u);
    __int128 hi = b.hi;
    if (dt == ir::dtypes::UInt64 && b.hi == INT64_MAX) hi = static_cast<__int128>(UINT64_MAX);
    ClaimedBounds claim{u, b.lo, hi, 1};
    // Every divisor proven is claimed at once, as their least common multiple (while it
    // fits: past that, the claims made so far).
    for (int64_t d : divisors) {
      if (!dt.is_int() || !analysis.divides(u, d)) continue;
      const __int128 both =
          static_cast<__int128>(claim.multiple_of) / std::gcd(claim.multiple_of, d) * d;
      if (both <= INT64_MAX) claim.multiple_of = static_cast<int64_t>(both);
    }
    out.push_back(claim);
  }
  return out;
}

Outcome simplify_with(Simplifier* sut, ir::Context& ctx, ir::UOp root,
                      const simplifier::SimplifyOptions& options) {
  if (sut) return sut->simplify(ctx, root, options);
  // The built-in path stays a direct call: no virtual dispatch or copies in the hot loop.
  Outcome out{simplifier::simplify(ctx, root, options), std::nullopt, 0, 0, {}};
  if (options.bounds) {
    out.bounds = builtin_bounds(root);
    // An unchanged graph's values were checked against the same claims already.
    if (out.result.root != root) out.rewrite_bounds = builtin_bounds(out.result.root);
  }
  return out;
}

RunAnswer Simplifier::run(ir::Context&, ir::UOp, const ir::Inputs&, const RunRequest&) {
  RunAnswer out;
  out.failure = Failure{FailureKind::Unsupported,
                        fmt::format("[no-run] {} runs no graph end to end", name()), "", ""};
  return out;
}

std::string_view failure_kind_name(FailureKind k) {
  switch (k) {
    case FailureKind::Unsupported: return "unsupported";
    case FailureKind::Crash: return "crash";
    case FailureKind::Hang: return "hang";
    case FailureKind::Protocol: return "protocol";
  }
  return "?";
}

std::string decline_class(std::string_view reason) {
  const size_t close = reason.find(']');
  if (!reason.starts_with('[') || close == std::string_view::npos || close < 2)
    return "unclassified";
  const std::string_view id = reason.substr(1, close - 1);
  for (char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
      return "unclassified";
  return std::string(id);
}

}  // namespace uopfuzz::sut
