/** \file --inject-lowering-bug: the planted lowering bugs (schedule/lowering_bugs.def) a
 * command that lowers tensor programs switches on. */
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "schedule/lowering_bugs.h"

namespace uopfuzz::cli {

inline void add_lowering_bug_flag(CLI::App& cmd, std::vector<std::string>& names) {
  std::string known;
  for (schedule::LoweringBug b : schedule::all_lowering_bugs())
    known += fmt::format("{}{}", known.empty() ? "" : ", ", schedule::lowering_bug_name(b));
  cmd.add_option(
      "--inject-lowering-bug", names,
      "switch on a planted lowering bug for tensor programs (repeatable: " + known + ")");
}

/// The set the names give; nullopt (and an error on stderr) for an unknown name.
inline std::optional<schedule::LoweringBugSet> lowering_bugs(
    const std::vector<std::string>& names) {
  schedule::LoweringBugSet bugs;
  for (const std::string& n : names) {
    auto b = schedule::parse_lowering_bug(n);
    if (!b) {
      fmt::print(stderr, "error: unknown planted lowering bug '{}' (see --help)\n", n);
      return std::nullopt;
    }
    bugs.insert(*b);
  }
  return bugs;
}

}  // namespace uopfuzz::cli
