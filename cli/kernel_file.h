/** \file A .uop file loaded for a subcommand: parsed and verified, every problem printed as
 * `file:line:col: error: ...`. */
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/parser.h"

namespace uopfuzz::cli {

struct LoadedKernel {
  std::unique_ptr<ir::Context> ctx = std::make_unique<ir::Context>();
  ir::ParsedKernel parsed;
  std::string text;                                        ///< the file as read
  std::unordered_map<ir::UOp, size_t, ir::UOpHash> names;  ///< printed name %k of each node
};

/// Loads PATH, or prints why it cannot (on stderr) and returns nullopt.
std::optional<LoadedKernel> load_kernel(const std::string& path);

}  // namespace uopfuzz::cli
