#include "cli/compare_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "fuzz/compare.h"
#include "report/compare_json.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;
using Pair = std::array<std::shared_ptr<sut::Simplifier>, 2>;

std::optional<Pair> make_pair(const std::vector<std::string>& specs,
                              const sut::ExternalOptions& external) {
  if (specs.size() != 2) {
    fmt::print(stderr, "error: --compare takes two simplifiers, e.g. --compare builtin,tinygrad\n");
    return std::nullopt;
  }
  Pair pair;
  for (size_t s = 0; s < 2; ++s) {
    auto made = sut::make_simplifier(specs[s], external);
    if (!made.ok()) {
      fmt::print(stderr, "error: {}\n", made.error().message);
      return std::nullopt;
    }
    pair[s] = *made;
  }
  return pair;
}

std::string version_of(const fuzz::CompareSide& s) {
  return s.version.empty() ? s.name : fmt::format("{} {}", s.name, s.version);
}

/// The family table: kernels where each side leaves less, and what each leaves in all.
void print_strength(const check::StrengthTally& t) {
  fmt::print(
      "  strength: {} kernel(s) compared, {} differ; {} not compared (declined, failed or "
      "a finding on one side)\n",
      t.compared, t.differences, t.not_compared);
  const std::string a_less = t.a + " less", b_less = t.b + " less";
  fmt::print("  {:<27} {:>16} {:>16} {:>14} {:>14}\n", "family (fewer is stronger)", a_less, b_less,
             "left: " + t.a, "left: " + t.b);
  for (check::StrengthFamily f : check::all_strength_families()) {
    const auto& fam = t.families[size_t(f)];
    fmt::print("  {:<27} {:>16} {:>16} {:>14} {:>14}\n", check::strength_family_name(f),
               fam.a_stronger, fam.b_stronger, fam.a_left, fam.b_left);
  }
  for (check::StrengthFamily f : check::all_strength_families()) {
    const auto& fam = t.families[size_t(f)];
    if (!fam.a_examples.empty())
      fmt::print("    {} stronger in {}: {}\n", t.a, check::strength_family_name(f),
                 fmt::join(fam.a_examples, "; "));
    if (!fam.b_examples.empty())
      fmt::print("    {} stronger in {}: {}\n", t.b, check::strength_family_name(f),
                 fmt::join(fam.b_examples, "; "));
  }
}

void print_side(const fuzz::CompareSide& s, uint64_t graphs, uint64_t seed) {
  uint64_t declined = 0;
  for (const auto& [reason, n] : s.unsupported) declined += n;
  std::string findings;
  for (const auto& [key, n] : s.findings)
    findings += fmt::format(" {}x{} (first: graph {})", key, n, s.first_graph.at(key));
  fmt::print(
      "  {}: {} rewritten, {} declined, {} rules hit, findings:{}; {:.2f} ms per kernel checked "
      "({:.2f} ms in its process, {:.3f} ms on the protocol)\n",
      version_of(s), s.rewrites, declined, s.rule_hits.size(),
      findings.empty() ? " none" : findings, graphs ? 1e3 * s.check_seconds / double(graphs) : 0.0,
      graphs ? 1e3 * s.child_seconds / double(graphs) : 0.0,
      graphs ? 1e3 * s.protocol_seconds / double(graphs) : 0.0);
  std::vector<std::pair<uint64_t, std::string>> reasons;
  for (const auto& [reason, n] : s.unsupported) reasons.emplace_back(n, reason);
  std::sort(reasons.rbegin(), reasons.rend());
  for (const auto& [key, details] : s.first_details) fmt::print("    first {}: {}\n", key, details);
  for (size_t i = 0; i < std::min<size_t>(reasons.size(), 5); ++i)
    fmt::print("    declined {}x: {}\n", reasons[i].first, reasons[i].second);
  if (!findings.empty())
    fmt::print(
        "    to minimize and keep them: uopfuzz fuzz --simplifier {} --seed {} --level kernel "
        "--mutate-share 0 (the same graphs)\n",
        s.name, seed);
}

/// Tensor programs: how many kernels and intermediate buffers each lowering made.
void print_lowering(const fuzz::LoweringTally& t, const std::array<fuzz::CompareSide, 2>& sides) {
  fmt::print(
      "lowering: {} programs compared ({} not: declined, a finding, or kernels not known), {} "
      "differ (choices of the lowering, never findings)\n",
      t.compared, t.not_compared, t.differences);
  for (const auto& [name, f] :
       {std::pair{"kernels", &t.kernels}, std::pair{"intermediate buffers", &t.intermediates}}) {
    fmt::print("  {}: {} made {} in all, {} made {}; fewer: {} in {} programs, {} in {}\n", name,
               sides[0].name, f->a_total, sides[1].name, f->b_total, sides[0].name, f->a_fewer,
               sides[1].name, f->b_fewer);
    if (!f->a_examples.empty())
      fmt::print("    {} fewer first in: {}\n", sides[0].name, fmt::join(f->a_examples, "; "));
    if (!f->b_examples.empty())
      fmt::print("    {} fewer first in: {}\n", sides[1].name, fmt::join(f->b_examples, "; "));
  }
}

}  // namespace

void add_compare_flag(CLI::App& cmd, std::vector<std::string>& specs) {
  cmd.add_option("--compare", specs,
                 "A,B: check each kernel with both simplifiers and count where one leaves "
                 "reduce loops, ranges, stores, ALU ops or loads the other removes (strength "
                 "differences per rule family, never findings)")
      ->delimiter(',')
      ->expected(2);
}

int run_fuzz_compare(const std::vector<std::string>& specs, const sut::ExternalOptions& external,
                     const check::CheckOptions& check, uint64_t seed, double seconds,
                     uint64_t max_graphs, const fuzz::GraphSource& source,
                     const std::string& json_path, const fuzz::GraphSource& tensor_source) {
  auto pair = make_pair(specs, external);
  if (!pair) return kExitBadInput;
  fuzz::CompareOptions o;
  o.simplifiers = *pair;
  o.check = check;
  o.seed = seed;
  o.seconds = seconds;
  o.max_graphs = max_graphs;
  o.tensor_source = tensor_source;
  const bool tty = ::isatty(STDOUT_FILENO);
  double last_line = -10;
  o.on_progress = [&](const fuzz::CompareProgress& p) {
    const std::string line =
        fmt::format("[{:6.1f}s] {} kernels ({:.1f}/s), {} compared, {} differ, findings {} / {}",
                    p.seconds, p.graphs, p.graphs / std::max(p.seconds, 1e-9), p.strength.compared,
                    p.strength.differences, p.sides[0].findings.size(), p.sides[1].findings.size());
    if (tty) {
      fmt::print("\r{:<100}", line);
      std::fflush(stdout);
    } else if (p.seconds - last_line >= 5) {
      last_line = p.seconds;
      fmt::print("{}\n", line);
    }
  };
  const fuzz::CompareProgress p = fuzz::run_comparison(o, source);
  if (tty) fmt::print("\n");
  fmt::print("compare: {} kernels in {:.1f}s ({:.1f}/s), seed {}: {} against {}\n", p.graphs,
             p.seconds, p.graphs / std::max(p.seconds, 1e-9), seed, version_of(p.sides[0]),
             version_of(p.sides[1]));
  for (const auto& side : p.sides) print_side(side, p.graphs, seed);
  if (tensor_source)
    print_lowering(p.lowering, p.sides);
  else
    print_strength(p.strength);
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    json j{{"seed", seed},
           {"seconds", p.seconds},
           {"graphs", p.graphs},
           {"sides",
            {report::side_json(p.sides[0], p.graphs), report::side_json(p.sides[1], p.graphs)}}};
    if (tensor_source)
      j["lowering"] = report::lowering_json(p.lowering);
    else
      j["strength"] = report::strength_json(p.strength);
    out << j.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "error: cannot write {}\n", json_path);
      return kExitBadInput;
    }
  }
  const bool findings = !p.sides[0].findings.empty() || !p.sides[1].findings.empty();
  return findings ? kExitFinding : kExitOk;
}

int run_check_compare(const std::vector<std::string>& specs, const sut::ExternalOptions& external,
                      const std::string& file, ir::Context& ctx, const ir::Kernel& kernel,
                      const check::CheckOptions& check, bool as_json) {
  auto pair = make_pair(specs, external);
  if (!pair) return kExitBadInput;
  const fuzz::KernelComparison c = fuzz::compare_kernel(ctx, kernel, check, *pair);
  check::StrengthTally t;
  t.a = (*pair)[0]->name();
  t.b = (*pair)[1]->name();
  if (c.strength)
    t.add(*c.strength, file);
  else
    ++t.not_compared;
  bool finding = false;
  json sides = json::array();
  for (size_t s = 0; s < 2; ++s) {
    const check::CheckResult& r = c.results[s];
    finding = finding || r.kind != check::FindingKind::None;
    std::string verdict =
        r.simplifier_failure
            ? fmt::format("{}: {}", sut::failure_kind_name(r.simplifier_failure->kind),
                          r.simplifier_failure->reason)
            : std::string(check::finding_kind_name(r.kind));
    if (as_json) {
      json j = {{"simplifier", (*pair)[s]->name()},
                {"finding", check::finding_kind_name(r.kind)},
                {"backend", r.backend},
                {"details", r.details},
                {"rules", r.simplified.hits}};
      if (r.simplifier_failure)
        j["failure"] = {{"kind", sut::failure_kind_name(r.simplifier_failure->kind)},
                        {"reason", r.simplifier_failure->reason}};
      if (c.strength) {
        const check::Leftover& l = s == 0 ? c.strength->a : c.strength->b;
        j["left"] = {
            {"nodes", l.nodes},   {"reduces", l.reduces},         {"reduce_trips", l.reduce_trips},
            {"ranges", l.ranges}, {"store_trips", l.store_trips}, {"alus", l.alus},
            {"loads", l.loads}};
      }
      sides.push_back(j);
    } else {
      fmt::print("{}: {}: {}{}\n", file, (*pair)[s]->name(), verdict == "none" ? "ok" : verdict,
                 r.kind == check::FindingKind::None ? "" : " (" + r.details + ")");
      if (c.strength) {
        const check::Leftover& l = s == 0 ? c.strength->a : c.strength->b;
        fmt::print(
            "  leaves {} nodes: {} reduce(s) of {} trips, {} range(s), {} store iterations, {} "
            "ALU ops, {} loads\n",
            l.nodes, l.reduces, l.reduce_trips, l.ranges, l.store_trips, l.alus, l.loads);
      }
    }
  }
  if (as_json)
    fmt::print(
        "{}\n",
        json{{"file", file}, {"sides", sides}, {"strength", report::strength_json(t)}}.dump(2));
  else
    print_strength(t);
  return finding ? kExitFinding : kExitOk;
}

}  // namespace uopfuzz::cli
