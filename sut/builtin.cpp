#include "sut/simplifier_under_test.h"

namespace uopfuzz::sut {

namespace {

class Builtin final : public Simplifier {
 public:
  std::string name() const override { return "builtin"; }
  std::string version() override { return "uopfuzz"; }
  Capabilities capabilities() override { return {true, true, true, true, true}; }
  Outcome simplify(ir::Context& ctx, ir::UOp root,
                   const simplifier::SimplifyOptions& options) override {
    return Outcome{simplifier::simplify(ctx, root, options), std::nullopt, 0, 0};
  }
};

}  // namespace

std::shared_ptr<Simplifier> builtin() {
  static const std::shared_ptr<Simplifier> one = std::make_shared<Builtin>();
  return one;
}

Outcome simplify_with(Simplifier* sut, ir::Context& ctx, ir::UOp root,
                      const simplifier::SimplifyOptions& options) {
  // The built-in path stays a direct call: no virtual dispatch or copies in the hot loop.
  if (!sut) return Outcome{simplifier::simplify(ctx, root, options), std::nullopt, 0, 0};
  return sut->simplify(ctx, root, options);
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

}  // namespace uopfuzz::sut
