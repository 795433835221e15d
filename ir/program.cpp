#include "ir/program.h"

namespace uopfuzz::ir {

std::string print_program(const Program& program) {
  return "# (the Program printer is not written yet)\n";
}

Result<Program> parse_program(Context& ctx, std::string_view text) {
  return Error{"the Program parser is not written yet"};
}

}  // namespace uopfuzz::ir
