#include "fuzz/corpus.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "fuzz/isolate.h"
#include "ir/hash.h"
#include "ir/printer.h"

namespace uopfuzz::fuzz {

std::string content_hash(const ir::Kernel& kernel) {
  return fmt::format("{:016x}", ir::fnv1a(ir::print_graph(kernel.root)));
}

Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{fmt::format("cannot create {}: {}", dir, ec.message())};
  const std::string path = (std::filesystem::path(dir) / name).string();
  // Hidden temporary in the same directory (rename is atomic only within a filesystem).
  const std::string tmp =
      (std::filesystem::path(dir) / fmt::format(".{}.{}.tmp", name, ::getpid())).string();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("cannot create {}: {}", tmp, std::strerror(errno))};
  bool ok = write_all(fd, text) && ::fsync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Error{fmt::format("cannot write {}: {}", path, why)};
  }
  // Make the rename itself durable.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return path;
}

Result<std::string> write_case(const std::string& dir, const ir::Kernel& kernel) {
  if (auto problem = ir::check_header(kernel)) return Error{"cannot write the case: " + *problem};
  const std::string name = content_hash(kernel) + ".uop";
  std::error_code ec;
  const std::string path = (std::filesystem::path(dir) / name).string();
  if (std::filesystem::exists(path, ec)) return path;
  return write_file_atomically(dir, name, ir::print_kernel(kernel));
}

int remove_stale_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 6 || name[0] != '.' || !name.ends_with(".tmp")) continue;
    // ".<hash>.uop.<pid>.tmp": the writer's pid sits between the last two dots.
    const std::string stem = name.substr(0, name.size() - 4);
    const size_t dot = stem.rfind('.');
    if (dot == std::string::npos) continue;
    const int pid = std::atoi(stem.c_str() + dot + 1);
    if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) {
      std::error_code rm;
      removed += std::filesystem::remove(e.path(), rm) ? 1 : 0;
    }
  }
  return removed;
}

}  // namespace uopfuzz::fuzz
