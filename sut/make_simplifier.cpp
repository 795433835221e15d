#include <fmt/format.h>

#include "sut/simplifier_under_test.h"

namespace uopfuzz::sut {

Result<std::shared_ptr<Simplifier>> make_simplifier(std::string_view spec,
                                                    const ExternalOptions& options) {
  (void)options;
  if (spec == "builtin") return builtin();
  if (spec == "tinygrad" || spec.starts_with("external:"))
    return Error{fmt::format("simplifier '{}': external simplifiers are not built yet", spec)};
  return Error{fmt::format(
      "unknown simplifier '{}' (expected builtin, tinygrad or external:CMD)", spec)};
}

}  // namespace uopfuzz::sut
