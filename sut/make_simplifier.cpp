#include <fmt/format.h>

#include "sut/external.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::sut {

Result<std::shared_ptr<Simplifier>> make_simplifier(std::string_view spec,
                                                    const ExternalOptions& options) {
  if (spec == "builtin") return builtin();
  if (spec == "tinygrad") {
    auto command = tinygrad_command(options);
    if (!command.ok()) return command.error();
    return make_external("tinygrad", std::move(*command), options);
  }
  if (spec.starts_with("external:")) {
    std::string command(spec.substr(9));
    if (command.find_first_not_of(" \t") == std::string::npos)
      return Error{"--simplifier external:CMD needs a command after 'external:'"};
    return make_external(std::string(spec), std::move(command), options);
  }
  return Error{
      fmt::format("unknown simplifier '{}' (expected builtin, tinygrad or external:CMD)", spec)};
}

}  // namespace uopfuzz::sut
