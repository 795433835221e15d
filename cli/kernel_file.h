/** \file A .uop file loaded for a subcommand: parsed and verified, every problem printed as
 * `file:line:col: error: ...`. */
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/parser.h"
#include "ir/program.h"

namespace uopfuzz::cli {

struct LoadedKernel {
  std::unique_ptr<ir::Context> ctx = std::make_unique<ir::Context>();
  ir::ParsedKernel parsed;
  std::string text;                                        ///< the file as read
  std::unordered_map<ir::UOp, size_t, ir::UOpHash> names;  ///< printed name %k of each node
};

/// Loads PATH, or prints why it cannot (on stderr) and returns nullopt.
std::optional<LoadedKernel> load_kernel(const std::string& path);

struct LoadedProgram {
  std::unique_ptr<ir::Context> ctx = std::make_unique<ir::Context>();
  ir::Program program;
};

/// Whether PATH holds a Program's text (what `simplify` prints for a tensor program) rather
/// than a .uop file: its first line that is not blank or a comment is a @buffer line (a
/// kernel block cut out of it, from @kernel on, is a .uop file).
bool is_program_file(const std::string& path);
/// Loads a Program's text from PATH, or prints why it cannot (on stderr) and returns nullopt.
std::optional<LoadedProgram> load_program(const std::string& path);

}  // namespace uopfuzz::cli
