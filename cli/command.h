/** \file What each subcommand file provides to the dispatcher in main.cpp: a function that adds its
 * flags to its CLI11 subcommand and returns the action that runs it. */
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace uopfuzz::cli {

// The exit status of every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFinding = 1;  // undefined behaviour, output mismatch, step limit, ...
constexpr int kExitBadInput = 2;

/// What the dispatcher knows before any subcommand runs.
struct Invocation {
  std::string command_line;  ///< "uopfuzz ARGS...", as a finding records it
  std::string device;        ///< --device, shared by the subcommands that take it ("" when absent)
};

/// Runs a subcommand whose flags CLI11 has parsed; returns the exit status.
using Action = std::function<int()>;

// add_<name>(cmd, invocation): adds the subcommand's flags to `cmd` (created by main.cpp
// with the name and help of commands.def) and returns its action. The flags live as long
// as the action.
#define UOPFUZZ_COMMAND(name, help) Action add_##name(CLI::App& cmd, Invocation& invocation);
#include "cli/commands.def"
#undef UOPFUZZ_COMMAND

}  // namespace uopfuzz::cli
