#include "fuzz/root_causes.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

namespace uopfuzz::fuzz {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// "a, b ,c" -> {"a", "b", "c"}; a value in backquotes loses them (Markdown code).
std::vector<std::string> comma_list(std::string_view value) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= value.size()) {
    const size_t comma = std::min(value.find(',', at), value.size());
    std::string_view item = trim(value.substr(at, comma - at));
    if (item.size() >= 2 && item.front() == '`' && item.back() == '`')
      item = item.substr(1, item.size() - 2);
    if (!item.empty()) out.emplace_back(item);
    at = comma + 1;
  }
  return out;
}

bool valid_id(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy with one backtrack point: enough for '*' alone.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p, ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string unsound_bounds_op(std::string_view details) {
  constexpr std::string_view kTag = "unsound-bounds: ";
  const size_t at = details.find(kTag);
  if (at == std::string_view::npos) return "";
  std::string_view rest = details.substr(at + kTag.size());
  const size_t end = rest.find_first_of(" ,;");
  return std::string(rest.substr(0, end));
}

const RootCause* RootCauses::find(std::string_view id) const {
  for (const RootCause& c : causes)
    if (c.id == id) return &c;
  return nullptr;
}

const RootCause* RootCauses::explain(std::string_view signature, std::string_view details) const {
  // The signature of a bounds finding names the op itself (unsound-bounds/<sut>/<OP>).
  std::string op = unsound_bounds_op(details);
  if (op.empty() && signature.starts_with("unsound-bounds/"))
    op = std::string(signature.substr(signature.rfind('/') + 1));
  if (!op.empty())
    for (const RootCause& c : causes)
      for (const std::string& b : c.bounds_ops)
        if (glob_match(b, op)) return &c;
  for (const RootCause& c : causes)
    for (const std::string& s : c.signatures)
      if (glob_match(s, signature)) return &c;
  return nullptr;
}

std::string root_causes_path(const std::string& findings_dir) {
  return (std::filesystem::path(findings_dir) / "root-causes.md").string();
}

Result<RootCauses> read_root_causes(const std::string& path) {
  RootCauses out;
  std::ifstream in(path);
  if (!in) return out;
  out.path = path;
  std::set<std::string> ids;
  std::string line;
  int number = 0;
  RootCause* current = nullptr;
  bool in_paragraph = false;
  auto fail = [&](std::string why) { return Error{why, SourceLoc{number, 0}}; };
  auto finish = [&]() -> std::optional<Error> {
    if (current && current->verdict.empty())
      return Error{
          fmt::format("root cause '{}' has no '- verdict: real|difference' line", current->id),
          SourceLoc{current->line, 0}};
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++number;
    std::string_view l = trim(line);
    if (l.starts_with("## ")) {
      if (auto e = finish()) return *e;
      const std::string id(trim(l.substr(3)));
      if (!valid_id(id))
        return fail(fmt::format("root cause id '{}' must be letters, digits, '-' and '_'", id));
      if (!ids.insert(id).second) return fail(fmt::format("root cause '{}' is listed twice", id));
      current = &out.causes.emplace_back();
      current->id = id;
      current->line = number;
      in_paragraph = false;
      continue;
    }
    if (l.starts_with("# ")) {
      if (auto e = finish()) return *e;
      current = nullptr;  // a top-level heading ends the entries above it
      continue;
    }
    if (!current) continue;  // the file's preamble
    if (l.starts_with("- ") && !in_paragraph) {
      std::string_view kv = l.substr(2);
      const size_t colon = kv.find(':');
      if (colon == std::string_view::npos) continue;  // a list in the prose
      const std::string key(trim(kv.substr(0, colon)));
      const std::string value(trim(kv.substr(colon + 1)));
      current->keys[key] = value;
      if (key == "verdict") {
        if (value != "real" && value != "difference")
          return fail(fmt::format("verdict '{}': expected real or difference", value));
        current->verdict = value;
      } else if (key == "signatures") {
        current->signatures = comma_list(value);
      } else if (key == "bounds") {
        current->bounds_ops = comma_list(value);
      }
      continue;
    }
    if (l.empty()) continue;
    if (!in_paragraph && current->title.empty()) current->title = std::string(l);
    in_paragraph = true;
  }
  if (auto e = finish()) return *e;
  return out;
}

}  // namespace uopfuzz::fuzz
