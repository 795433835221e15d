#include <fmt/format.h>

#include <cstdint>

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

std::vector<ClaimedBounds> builtin_bounds(ir::UOp root) {
  std::vector<ClaimedBounds> out;
  ir::Analysis analysis;
  for (ir::UOp u : ir::toposort(root)) {
    const ir::DType dt = u.dtype();
    if (!dt.is_int() && !dt.is_bool()) continue;
    const ir::Interval b = analysis.bounds(u);
    __int128 hi = b.hi;
    if (dt == ir::dtypes::UInt64 && b.hi == INT64_MAX) hi = static_cast<__int128>(UINT64_MAX);
    out.push_back(ClaimedBounds{u, b.lo, hi});
  }
  return out;
}

Outcome simplify_with(Simplifier* sut, ir::Context& ctx, ir::UOp root,
                      const simplifier::SimplifyOptions& options) {
  if (sut) return sut->simplify(ctx, root, options);
  // The built-in path stays a direct call: no virtual dispatch or copies in the hot loop.
  Outcome out{simplifier::simplify(ctx, root, options), std::nullopt, 0, 0, {}};
  if (options.bounds) out.bounds = builtin_bounds(root);
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
