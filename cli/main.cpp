// The uopfuzz command line: one subcommand per cli/cmd_<name>.cpp, listed in
// cli/commands.def. Subcommands only parse flags, call the libraries and print.
// Exit status: 0 ok, 1 a finding (undefined behaviour, output mismatch, step limit),
// 2 bad input or usage.

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backends/vulkan/device_info.h"
#include "cli/command.h"
#include "cli/version.h"

namespace uopfuzz::cli {

int main(int argc, char** argv) {
  CLI::App app{"uopfuzz: differential fuzzing and benchmarks for a UOp kernel-graph simplifier"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("uopfuzz ") + kVersion);
  app.footer("Exit status: 0 ok, 1 finding, 2 bad input or usage.");

  Invocation invocation;
  invocation.command_line = "uopfuzz";
  for (int i = 1; i < argc; ++i) invocation.command_line += std::string(" ") + argv[i];

  std::vector<std::pair<CLI::App*, Action>> commands;
#define UOPFUZZ_COMMAND(name, help)                           \
  {                                                           \
    CLI::App* cmd = app.add_subcommand(#name, help);          \
    commands.emplace_back(cmd, add_##name(*cmd, invocation)); \
  }
#include "cli/commands.def"
#undef UOPFUZZ_COMMAND

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  // The Vulkan backend's device, in this process and in forked workers.
  if (!invocation.device.empty()) backends::vulkan::set_device_choice(invocation.device);
  for (auto& [cmd, action] : commands)
    if (*cmd) return action();
  return kExitBadInput;
}

}  // namespace uopfuzz::cli

int main(int argc, char** argv) {
  return uopfuzz::cli::main(argc, argv);
}
