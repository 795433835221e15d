#include "cli/kernel_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/graph.h"
#include "ir/verify.h"

namespace uopfuzz::cli {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The file's text, or none after saying on stderr that it cannot be read.
std::optional<std::string> read_or_report(const std::string& path) {
  auto text = read_file(path);
  if (!text)
    fmt::print(stderr,
               "{}: error: cannot read the file (missing, unreadable or not a regular file)\n",
               path);
  return text;
}

std::nullopt_t report_parse_error(const std::string& path, const Error& e) {
  fmt::print(stderr, "{}:{}:{}: error: {}\n", path, e.loc.line, e.loc.col, e.message);
  return std::nullopt;
}

}  // namespace

bool is_program_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return false;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == '#') continue;
    return first == "@buffer";
  }
  return false;
}

std::optional<LoadedProgram> load_program(const std::string& path) {
  auto text = read_or_report(path);
  if (!text) return std::nullopt;
  LoadedProgram p;
  auto parsed = ir::parse_program(*p.ctx, *text);
  if (!parsed) return report_parse_error(path, parsed.error());
  p.program = std::move(*parsed);
  return p;
}

std::optional<LoadedKernel> load_kernel(const std::string& path) {
  auto text = read_or_report(path);
  if (!text) return std::nullopt;
  LoadedKernel k;
  auto parsed = ir::parse_kernel(*k.ctx, *text);
  if (!parsed) return report_parse_error(path, parsed.error());
  k.parsed = std::move(parsed.value());
  k.text = std::move(*text);
  auto errors = ir::verify(k.parsed.kernel.root);
  for (const auto& e : errors) {
    SourceLoc loc = k.parsed.where.count(e.node) ? k.parsed.where.at(e.node) : SourceLoc{};
    fmt::print(stderr, "{}:{}:{}: error: [{}] {}\n", path, loc.line, loc.col,
               ir::verify_rule_name(e.rule), e.message);
  }
  if (!errors.empty()) return std::nullopt;
  for (ir::UOp u : ir::toposort(k.parsed.kernel.root)) k.names.emplace(u, k.names.size());
  return k;
}

}  // namespace uopfuzz::cli
