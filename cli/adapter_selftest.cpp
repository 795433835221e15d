#include "cli/adapter_selftest.h"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/command.h"
#include "sut/external.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;

/// The adapter's planted bugs: the first word of each line of its `--list-bugs` (`name:
/// what it breaks`, or `name: [tensor] what it breaks` for a bug that tensor programs show;
/// the names are those of its hello's `bugs:` line); an error when it cannot be run.
struct ListedBugs {
  std::vector<std::string> names;
  std::set<std::string> tensor;  ///< those shown by tensor programs run through its pipeline
};
Result<ListedBugs> tinygrad_bugs(const sut::ExternalOptions& external) {
  sut::ExternalOptions plain = external;
  plain.adapter_bugs.clear();
  auto command = sut::tinygrad_command(plain);
  if (!command.ok()) return command.error();
  FILE* pipe = ::popen((*command + " --list-bugs").c_str(), "r");
  if (!pipe) return Error{"cannot run the tinygrad adapter to list its bugs"};
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = ::pclose(pipe);
  if (status != 0)
    return Error{fmt::format("the tinygrad adapter's --list-bugs failed (status {})", status)};
  ListedBugs bugs;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const std::string name = line.substr(0, line.find_first_of(": \t"));
    if (name.empty()) continue;
    bugs.names.push_back(name);
    if (line.find(": [tensor]") == name.size()) bugs.tensor.insert(name);
  }
  return bugs;
}

void print_row(const fuzz::AdapterSelftestRow& row) {
  const fuzz::NewFinding* f = row.finding ? &*row.finding : nullptr;
  std::string sig = !row.error.empty() ? "error: " + row.error : f ? f->signature.text() : "";
  if (f && !row.found) sig += fmt::format(" [another finding; {} in all]", row.new_findings);
  fmt::print("{:<28} {:<7} {:>9.2f} {:>8} {:>6}  {}\n", row.bug,
             row.found ? "yes"
             : f       ? "OTHER"
                       : "NO",
             row.seconds, row.graphs, f ? std::to_string(f->nodes_reduced) : "-", sig);
}

json row_json(const fuzz::AdapterSelftestRow& row) {
  json j = {{"bug", row.bug},
            {"kind", "adapter"},
            {"found", row.found},
            {"graphs", row.graphs},
            {"seconds", row.seconds}};
  if (!row.error.empty()) j["error"] = row.error;
  if (const auto& f = row.finding) {
    j["nodes_found"] = f->nodes_found;
    j["nodes_reduced"] = f->nodes_reduced;
    j["signature"] = f->signature.text();
    j["case"] = f->reduced_text;
  }
  return j;
}

}  // namespace

int run_adapter_selftest(const fuzz::SelftestOptions& o, const std::string& spec,
                         const sut::ExternalOptions& external, const std::string& json_path) {
  // Made once without a bug: the same check a campaign makes, so a missing tinygrad is told
  // apart (skipped) from a planted bug that is missed.
  sut::ExternalOptions plain = external;
  plain.adapter_bugs.clear();
  auto sut = sut::make_simplifier(spec, plain);
  if (!sut.ok()) {
    fmt::print(stderr, "selftest: skipped: {}\n", sut.error().message);
    return kExitSkipped;
  }
  const std::string version = (*sut)->version();
  std::vector<std::string> bugs = external.adapter_bugs;
  std::set<std::string> tensor_bugs;
  if (spec == "tinygrad") {
    auto listed = tinygrad_bugs(external);
    if (!listed.ok()) {
      fmt::print(stderr, "selftest: skipped: {}\n", listed.error().message);
      return kExitSkipped;
    }
    if (bugs.empty()) bugs = listed->names;
    tensor_bugs = listed->tensor;
  } else if (bugs.empty()) {
    fmt::print(stderr, "error: name the planted bugs of {} with --adapter-bug\n", spec);
    return kExitBadInput;
  }
  if (bugs.empty()) {
    fmt::print(stderr, "error: {} lists no planted bugs\n", spec);
    return kExitBadInput;
  }
  fmt::print("selftest of {} ({}): {} planted bug(s), {:.0f}s each at most\n", spec,
             version.empty() ? "version unknown" : version, bugs.size(), o.seconds_per_bug);
  fmt::print("{:<28} {:<7} {:>9} {:>8} {:>6}  {}\n", "bug", "found", "time (s)", "graphs", "nodes",
             "signature");
  const fuzz::AdapterSelftestResult r =
      fuzz::run_adapter_selftest(o, spec, external, bugs, tensor_bugs, print_row);
  fmt::print("selftest: {} found, {} missed\n", r.rows.size() - size_t(r.missed), r.missed);
  if (!json_path.empty()) {
    json rows = json::array();
    for (const auto& row : r.rows) rows.push_back(row_json(row));
    std::ofstream out(json_path);
    out << json{{"simplifier", spec}, {"version", version},
                {"seed", o.seed},     {"seconds_per_bug", o.seconds_per_bug},
                {"bugs", rows},       {"missed", r.missed}}
               .dump(2)
        << "\n";
  }
  return r.missed ? kExitFinding : kExitOk;
}

}  // namespace uopfuzz::cli
