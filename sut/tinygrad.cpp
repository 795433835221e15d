#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "sut/external.h"

extern char** environ;

namespace uopfuzz::sut {

namespace {

namespace fs = std::filesystem;

constexpr const char* kScript = "uopfuzz_tinygrad.py";

bool holds_tinygrad(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "tinygrad" / "__init__.py", ec);
}

bool holds_adapter(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kScript, ec);
}

/// Whether `python -c "import tinygrad"` succeeds (its output discarded).
bool tinygrad_importable(const std::string& python) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd : {0, 1, 2})
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  std::string py = python, dash_c = "-c", code = "import tinygrad";
  char* argv[] = {py.data(), dash_c.data(), code.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/// The adapter's folder: $UOPFUZZ_TINYGRAD_ADAPTER, else this source tree's, else the one
/// installed beside the executable (../adapters/tinygrad).
Result<fs::path> adapter_folder() {
  if (const char* env = std::getenv("UOPFUZZ_TINYGRAD_ADAPTER"); env && *env) {
    if (holds_adapter(env)) return fs::path(env);
    return Error{fmt::format("UOPFUZZ_TINYGRAD_ADAPTER={}: no {} there", env, kScript)};
  }
  std::vector<fs::path> tried;
#ifdef UOPFUZZ_SOURCE_DIR
  tried.push_back(fs::path(UOPFUZZ_SOURCE_DIR) / "adapters" / "tinygrad");
#endif
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back(exe.parent_path().parent_path() / "adapters" / "tinygrad");
  for (const fs::path& dir : tried)
    if (holds_adapter(dir)) return dir;
  std::string where;
  for (const fs::path& dir : tried) where += (where.empty() ? "" : ", ") + dir.string();
  return Error{fmt::format(
      "the tinygrad adapter ({}) is in none of: {}; set UOPFUZZ_TINYGRAD_ADAPTER to its folder",
      kScript, where)};
}

/// The tinygrad checkout to import ("" : an importable one), or why there is none.
Result<std::string> find_tinygrad(const ExternalOptions& options) {
  if (!options.tinygrad_path.empty()) {
    if (holds_tinygrad(options.tinygrad_path)) return options.tinygrad_path;
    return Error{fmt::format(
        "--tinygrad {}: no tinygrad/__init__.py there (give the folder holding the tinygrad/ "
        "package)",
        options.tinygrad_path)};
  }
  if (const char* env = std::getenv("TINYGRAD_PATH"); env && *env) {
    if (holds_tinygrad(env)) return std::string(env);
    return Error{
        fmt::format("TINYGRAD_PATH={}: no tinygrad/__init__.py there (give the folder holding the "
                    "tinygrad/ package)",
                    env)};
  }
  if (tinygrad_importable(options.python)) return std::string();
  return Error{fmt::format(
      "--simplifier tinygrad: no tinygrad found. Point uopfuzz at a tinygrad checkout (the "
      "folder holding the tinygrad/ package) with --tinygrad PATH or TINYGRAD_PATH=<checkout>, "
      "e.g. TINYGRAD_PATH=../shared/vendor/tinygrad, or make `{} -c \"import tinygrad\"` work",
      options.python)};
}

}  // namespace

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<std::string> tinygrad_command(const ExternalOptions& options, const std::string& extra) {
  if (options.tinygrad_stage != "symbolic" && options.tinygrad_stage != "full" &&
      options.tinygrad_stage != "pipeline")
    return Error{fmt::format("unknown tinygrad stage '{}' (expected symbolic, full or pipeline)",
                             options.tinygrad_stage)};
  auto tinygrad = find_tinygrad(options);
  if (!tinygrad.ok()) return tinygrad.error();
  auto adapter = adapter_folder();
  if (!adapter.ok()) return adapter.error();
  // exec: the shell becomes python, so the child uopfuzz waits for is the adapter itself.
  std::string command =
      fmt::format("exec {} {} --stage {}", shell_quote(options.python),
                  shell_quote((*adapter / kScript).string()), shell_quote(options.tinygrad_stage));
  if (!tinygrad->empty()) command += " --tinygrad " + shell_quote(*tinygrad);
  for (const std::string& bug : options.adapter_bugs) command += " --bug " + shell_quote(bug);
  if (!extra.empty()) command += " " + extra;
  return command;
}

}  // namespace uopfuzz::sut
