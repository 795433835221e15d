// uopfuzz parse FILE: the canonical form of a .uop file, or of a Program's text.

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/kernel_file.h"
#include "ir/printer.h"
#include "ir/program.h"

namespace uopfuzz::cli {

Action add_parse(CLI::App& cmd, Invocation&) {
  auto file = std::make_shared<std::string>();
  cmd.add_option("FILE", *file,
                 "the .uop file (a kernel or a tensor program), or a Program's text as "
                 "`simplify` prints it for a tensor program")
      ->required();
  return [file] {
    if (is_program_file(*file)) {
      auto p = load_program(*file);
      if (!p) return kExitBadInput;
      fmt::print("{}", ir::print_program(p->program));
      return kExitOk;
    }
    auto k = load_kernel(*file);
    if (!k) return kExitBadInput;
    fmt::print("{}", ir::print_kernel(k->parsed.kernel));
    return kExitOk;
  };
}

}  // namespace uopfuzz::cli
