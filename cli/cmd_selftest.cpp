// uopfuzz selftest: a campaign per planted bug (and a tensor-level campaign per planted
// lowering bug); every one must be found.

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backends/vulkan/device_info.h"
#include "cli/adapter_selftest.h"
#include "cli/command.h"
#include "cli/compare_flags.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "fuzz/selftest.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;

struct SelftestFlags {
  fuzz::SelftestOptions options;
  std::string json_path;
  std::string only;  ///< "kernel", "lowering", or "" for both
  SimplifierFlags simplifier;
  LoweringOptionFlags lowering;
};

// Every line of `text` indented by four spaces (a case printed under a table row).
std::string indent(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += "    " + line + "\n";
  return out;
}

// " (1.50x slower, p=0.001; rerun ...)": a latency finding's measurements.
std::string latency_text(const fuzz::NewFinding* f) {
  if (!f || !f->latency) return "";
  return fmt::format(" ({:.2f}x slower, p={:.2g}; rerun {:.2f}x, p={:.2g})", f->latency->ratio,
                     f->latency->p_value, f->latency->rerun_ratio, f->latency->rerun_p_value);
}

// One planted bug's table row: found, seconds to find, graphs tried, nodes left, signature.
template <class Row>
void print_table_row(const Row& row, std::string_view bug, const std::string& sig) {
  const fuzz::NewFinding* f = row.finding ? &*row.finding : nullptr;
  fmt::print("{:<28} {:<7} {:>9} {:>8} {:>6}  {}\n", bug,
             row.found ? "yes"
             : f       ? "OTHER"
                       : "NO",
             f ? fmt::format("{:.2f}", f->seconds) : "-", row.graphs,
             f ? std::to_string(f->nodes_reduced) : "-", sig);
}

void print_row(const fuzz::SelftestRow& row) {
  const fuzz::NewFinding* f = row.finding ? &*row.finding : nullptr;
  std::string sig = f ? f->signature.text() + latency_text(f) : "";
  if (f && !row.found) sig += fmt::format(" [a real finding; {} in all]", row.new_findings);
  print_table_row(row, row.bug.name, sig);
  if (row.found && row.bug.kind == simplifier::BugKind::Latency)
    fmt::print("{}", indent(f->reduced_text));
}

void print_lowering_row(const fuzz::LoweringSelftestRow& row) {
  const fuzz::NewFinding* f = row.finding ? &*row.finding : nullptr;
  std::string sig = f ? f->signature.text() : "";
  if (f && !row.found) sig += fmt::format(" [another finding; {} in all]", row.new_findings);
  print_table_row(row, schedule::lowering_bug_name(row.bug), sig + latency_text(f));
}

// A row in --json; a lowering bug's latency finding leaves out the p-values.
template <class Row>
json row_json(const Row& row, std::string_view bug, std::string_view kind) {
  json j = {{"bug", bug}, {"kind", kind}, {"found", row.found}, {"graphs", row.graphs}};
  if (const auto& f = row.finding) {
    j["seconds"] = f->seconds;
    j["nodes_found"] = f->nodes_found;
    j["nodes_reduced"] = f->nodes_reduced;
    j["signature"] = f->signature.text();
    j["case"] = f->reduced_text;
    if (f->latency && kind == "lowering")
      j["latency"] = {{"backend", f->signature.backend},
                      {"ratio", f->latency->ratio},
                      {"rerun_ratio", f->latency->rerun_ratio}};
    else if (f->latency)
      j["latency"] = {{"backend", f->signature.backend},
                      {"ratio", f->latency->ratio},
                      {"p_value", f->latency->p_value},
                      {"rerun_ratio", f->latency->rerun_ratio},
                      {"rerun_p_value", f->latency->rerun_p_value}};
  }
  return j;
}

int run_selftest(const SelftestFlags& f) {
  fuzz::SelftestOptions o = f.options;
  if (!valid_backends(o.backends)) return kExitBadInput;
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  o.pcontig = f.lowering.pcontig;
  o.split_reduce_threshold = f.lowering.split_reduce_threshold;
  // An external simplifier's own planted bugs (--adapter-bug narrows them), a campaign each.
  if (f.simplifier.external())
    return run_adapter_selftest(o, f.simplifier.spec, external_options(f.simplifier), f.json_path);
  if (!is_compiled_backend(o.latency_backend)) {
    fmt::print(stderr, "error: --latency-backend must be a compiled backend (available: {})\n",
               backend_list());
    return kExitBadInput;
  }
  // Its campaigns compile each Vulkan kernel for a few runs, as fuzz's do (cmd_fuzz.cpp).
  if (o.latency_backend != "vulkan") backends::vulkan::prefer_fast_shader_compiles();
  fmt::print("{:<28} {:<7} {:>9} {:>8} {:>6}  {}\n", "bug", "found", "time (s)", "graphs", "nodes",
             "signature");
  fuzz::SelftestResult r;
  if (f.only != "lowering") r = fuzz::run_selftest(o, print_row);
  fuzz::LoweringSelftestResult lr;
  if (f.only != "kernel") lr = fuzz::run_lowering_selftest(o, print_lowering_row);
  const size_t bugs = r.rows.size() + lr.rows.size();
  const int missed = r.missed + lr.missed;
  fmt::print("selftest: {} found, {} missed; median time to find {:.2f}s{}\n", bugs - missed,
             missed, r.median_seconds,
             lr.rows.empty() ? "" : fmt::format(" (lowering bugs: {:.2f}s)", lr.median_seconds));
  if (!f.json_path.empty()) {
    json rows = json::array();
    for (const auto& row : r.rows)
      rows.push_back(row_json(row, row.bug.name, simplifier::bug_kind_name(row.bug.kind)));
    for (const auto& row : lr.rows)
      rows.push_back(row_json(row, schedule::lowering_bug_name(row.bug), "lowering"));
    std::ofstream out(f.json_path);
    out << json{{"seed", o.seed},
                {"seconds_per_bug", o.seconds_per_bug},
                {"bugs", rows},
                {"missed", missed},
                {"median_seconds", r.median_seconds},
                {"median_seconds_lowering", lr.median_seconds}}
               .dump(2)
        << "\n";
  }
  return missed ? kExitFinding : kExitOk;
}

}  // namespace

Action add_selftest(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<SelftestFlags>();
  fuzz::SelftestOptions& o = f->options;
  cmd.add_option("--time-per-bug", o.seconds_per_bug, "seconds each campaign may take")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "campaign seed")->capture_default_str();
  cmd.add_option("--json", f->json_path, "write the table as JSON to this file");
  cmd.add_option("--backends", o.backends,
                 "backends each graph is checked on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--latency-backend", o.latency_backend,
                 "backend the latency detector times kernels on (latency bugs)")
      ->capture_default_str();
  cmd.add_option("--timeout", o.graph_timeout,
                 "seconds one check may take before it counts as a hang (default: 2 on the oracle "
                 "alone, 10 with a compiled backend)");
  cmd.add_option("--only", f->only,
                 "run only the planted simplifier bugs (kernel) or only the planted lowering bugs "
                 "(lowering, tensor-level campaigns); default: both")
      ->check(CLI::IsMember({"kernel", "lowering"}));
  add_simplifier_flags(cmd, f->simplifier);
  add_lowering_option_flags(cmd, f->lowering, nullptr);
  add_device_flag(cmd, invocation.device);
  return [f] { return run_selftest(*f); };
}

}  // namespace uopfuzz::cli
