#include "report/html.h"

#include <fmt/format.h>

#include <filesystem>

namespace uopfuzz::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string url_escape_path(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep)
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string link_to(const std::string& path, const std::string& output_path) {
  namespace fs = std::filesystem;
  if (path.empty()) return "";
  fs::path p(path);
  if (p.is_absolute()) return url_escape_path(p.lexically_normal().string());
  std::error_code ec;
  fs::path base = fs::absolute(fs::path(output_path), ec).parent_path();
  fs::path target = ec ? fs::path() : fs::absolute(p, ec);
  if (ec) return url_escape_path(path);
  // proximate resolves symlinks where the paths exist and falls back to the lexical
  // answer where they do not (a case from another machine's corpus).
  fs::path rel = fs::proximate(target, base, ec);
  if (ec || rel.empty())
    rel = target.lexically_normal().lexically_proximate(base.lexically_normal());
  return url_escape_path(rel.generic_string());
}

}  // namespace uopfuzz::report
