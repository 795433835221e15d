#include "fuzz/corpus_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fuzz/corpus.h"

namespace uopfuzz::fuzz {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string folder;  ///< "" or the subfolder below the corpus (an external simplifier's)
  std::string name;    ///< file name
  std::string text;
  size_t nodes = 0;
  bool in_out = false;
};

/// The @signature of a case's text, else "file:<name>" (a case that is its own signature).
std::string signature_of(const std::string& text, const std::string& name, size_t& nodes) {
  std::istringstream lines(text);
  std::string signature = "file:" + name;
  nodes = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("%")) ++nodes;
    if (line.starts_with("@signature ")) signature = line.substr(11);
  }
  return signature;
}

bool readable_case(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();
  return e.is_regular_file() && !name.starts_with(".") && e.path().extension() == ".uop";
}

/// Adds the cases of `dir` and of its subfolders (one level) to `by_key`.
Result<size_t> collect(const std::string& dir, bool in_out,
                       std::map<std::string, std::vector<Case>>& by_key) {
  size_t read = 0;
  auto add_folder = [&](const fs::path& path, const std::string& folder) -> Result<size_t> {
    std::error_code ec;
    fs::directory_iterator it(path, ec);
    if (ec) return Error{fmt::format("cannot read {}: {}", path.string(), ec.message())};
    for (const auto& e : it) {
      if (!readable_case(e)) continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      if (!in) return Error{fmt::format("cannot read {}", e.path().string())};
      Case c{folder, e.path().filename().string(), ss.str(), 0, in_out};
      const std::string key = folder + "\n" + signature_of(c.text, c.name, c.nodes);
      by_key[key].push_back(std::move(c));
      ++read;
    }
    return read;
  };
  if (auto top = add_folder(dir, ""); !top) return top.error();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && !e.path().filename().string().starts_with("."))
      if (auto sub = add_folder(e.path(), e.path().filename().string()); !sub) return sub.error();
  return read;
}

}  // namespace

Result<MergeStats> merge_corpora(const std::vector<std::string>& sources, const std::string& out) {
  std::map<std::string, std::vector<Case>> by_key;
  MergeStats st;
  for (const std::string& src : sources) {
    std::error_code ec;
    if (!fs::is_directory(src, ec)) return Error{fmt::format("{}: not a corpus directory", src)};
    if (fs::exists(out, ec) && fs::equivalent(src, out, ec)) continue;  // read as the output
    auto n = collect(src, false, by_key);
    if (!n) return n.error();
    st.cases_read += *n;
  }
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    auto n = collect(out, true, by_key);
    if (!n) return n.error();
    st.cases_read += *n;
  } else if (fs::exists(out, ec)) {
    return Error{fmt::format("{}: exists and is not a directory", out)};
  }
  for (auto& [key, cases] : by_key) {
    ++st.signatures;
    // Fewest nodes, then the smaller name; the output's own copy of that file first.
    const Case& best =
        *std::min_element(cases.begin(), cases.end(), [](const Case& a, const Case& b) {
          return std::tie(a.nodes, a.name, b.in_out) < std::tie(b.nodes, b.name, a.in_out);
        });
    const fs::path folder = fs::path(out) / best.folder;
    if (best.in_out) {
      ++st.unchanged;
    } else {
      auto written = write_file_atomically(folder.string(), best.name, best.text);
      if (!written) return written.error();
      ++st.written;
    }
    for (const Case& c : cases)
      if (c.in_out && c.name != best.name) {
        std::error_code rm;
        if (fs::remove(folder / c.name, rm)) ++st.removed;
      }
  }
  return st;
}

}  // namespace uopfuzz::fuzz
