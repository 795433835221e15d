// uopfuzz dashboard FILES -o OUTPUT: results files rendered as one HTML page.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/command.h"
#include "report/dashboard.h"
#include "report/results.h"

namespace uopfuzz::cli {
namespace {

struct DashboardFlags {
  std::vector<std::string> paths;
  std::string output;
};

/// Loads every results file (a directory: its *.json files, not recursively), then
/// writes the dashboard to OUTPUT. Any file that is not a results file is reported, each
/// on its own `FILE: error:` line, and nothing is written: exit 2.
int run_dashboard(const DashboardFlags& f) {
  std::vector<std::string> files;
  bool bad = false;
  for (const std::string& p : f.paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      files.push_back(p);  // load_results reports a missing file
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json")
        found.push_back(e.path().string());
    if (found.empty()) {
      fmt::print(stderr, "{}: error: no *.json files in the directory\n", p);
      bad = true;
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<report::LoadedResults> runs;
  for (const std::string& file : files) {
    auto r = report::load_results(file);
    if (!r) {
      // The library's message starts with the path; "error:" goes after it, as elsewhere.
      std::string why = r.error().message;
      if (why.starts_with(file + ": ")) why.erase(0, file.size() + 2);
      fmt::print(stderr, "{}: error: {}\n", file, why);
      bad = true;
      continue;
    }
    runs.push_back(std::move(r.value()));
  }
  if (bad) return kExitBadInput;
  report::DashboardOptions opts;
  opts.output_path = f.output;
  std::string html = report::render_dashboard(runs, opts);
  std::ofstream out(f.output, std::ios::binary | std::ios::trunc);
  out << html;
  out.close();
  if (!out) {
    fmt::print(stderr, "{}: error: cannot write the dashboard\n", f.output);
    return kExitBadInput;
  }
  size_t bench = std::count_if(runs.begin(), runs.end(),
                               [](const auto& r) { return r.kind == report::ResultsKind::Bench; });
  fmt::print("dashboard: {} runs ({} bench, {} fuzz), {} devices -> {}\n", runs.size(), bench,
             runs.size() - bench, report::all_devices(runs).size(), f.output);
  return kExitOk;
}

}  // namespace

Action add_dashboard(CLI::App& cmd, Invocation&) {
  auto f = std::make_shared<DashboardFlags>();
  cmd.add_option("FILES", f->paths, "results files, or directories of them (their *.json files)")
      ->required();
  cmd.add_option("-o,--output", f->output, "the HTML file to write")->required();
  return [f] { return run_dashboard(*f); };
}

}  // namespace uopfuzz::cli
