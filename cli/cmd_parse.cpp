// uopfuzz parse FILE: the canonical form of a .uop file.

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/kernel_file.h"
#include "ir/printer.h"

namespace uopfuzz::cli {

Action add_parse(CLI::App& cmd, Invocation&) {
  auto file = std::make_shared<std::string>();
  cmd.add_option("FILE", *file, "the .uop file")->required();
  return [file] {
    auto k = load_kernel(*file);
    if (!k) return kExitBadInput;
    fmt::print("{}", ir::print_kernel(k->parsed.kernel));
    return kExitOk;
  };
}

}  // namespace uopfuzz::cli
