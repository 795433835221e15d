// uopfuzz check FILE: the simplifier's rewrite compared with the original; for a tensor
// program, its lowered and simplified kernels compared with the tensor oracle.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "check/differential.h"
#include "check/program_check.h"
#include "cli/command.h"
#include "cli/compare_flags.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "ir/tensor.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;

struct CheckFlags {
  std::string file;
  SimplifyFlags simplify;
  int seeds = 3;
  std::optional<uint64_t> seed;
  bool json = false;
  std::vector<std::string> backends{"oracle"};
  LatencyFlags latency;
  std::vector<std::string> lowering_bugs;
  LoweringOptionFlags lowering;
  std::vector<std::string> compare;
  bool check_bounds = true;
};

json round_json(const check::LatencyRound& r) {
  return {{"ratio", r.ratio},
          {"p_value", r.test.p_greater},
          {"exact_p", r.test.exact},
          {"regressed", r.regressed},
          {"runs_per_sample", r.runs_per_sample},
          {"clock", r.device_clock ? "device" : "host"},
          {"original_seconds", r.original},
          {"rewritten_seconds", r.rewritten}};
}

json latency_json(const check::LatencyVerdict& v) {
  json j = {{"confirmed", v.confirmed}, {"first", round_json(v.first)}};
  if (v.rerun) j["rerun"] = round_json(*v.rerun);
  return j;
}

// Each lowering decision timed against its alternative (the Program without it).
json decisions_json(const check::ProgramLatency& l) {
  json timed = json::array();
  for (const check::DecisionTiming& d : l.timed)
    timed.push_back({{"culprit", d.culprit},
                     {"kernels_with", d.kernels_found},
                     {"kernels_without", d.kernels_without},
                     {"verdict", latency_json(d.verdict)}});
  return timed;
}

void print_json(const std::string& file, const check::CheckResult& r) {
  json j;
  j["file"] = file;
  j["finding"] = check::finding_kind_name(r.kind);
  j["backend"] = r.backend;
  j["notes"] = r.notes;
  j["details"] = r.details;
  j["seeds_run"] = r.seeds_run;
  j["seeds_skipped"] = r.seeds_skipped;
  j["rules"] = r.simplified.hits;
  if (const auto& sf = r.simplifier_failure)
    j["simplifier_failure"] = {
        {"kind", sut::failure_kind_name(sf->kind)}, {"reason", sf->reason}, {"where", sf->where}};
  if (r.mismatch)
    j["mismatch"] = {{"seed", r.mismatch->seed},
                     {"slot", r.mismatch->slot},
                     {"index", r.mismatch->index},
                     {"original", r.mismatch->expected},
                     {"rewrite", r.mismatch->got}};
  if (r.latency) j["latency"] = latency_json(*r.latency);
  fmt::print("{}\n", j.dump(2));
}

void print_text(const CheckFlags& f, const check::CheckResult& r) {
  if (r.simplifier_failure && r.kind == check::FindingKind::None) {
    fmt::print("{}: unsupported: {}\n", f.file, r.simplifier_failure->reason);
    return;
  }
  std::string rules;
  for (const auto& [name, n] : r.simplified.hits)
    rules += fmt::format("{}{} ({})", rules.empty() ? "" : ", ", name, n);
  if (r.kind == check::FindingKind::None) {
    fmt::print(
        "{}: ok: rewrite agrees with the original on {} seed(s){} (rules: {}; backends: {})\n",
        f.file, r.seeds_run, r.seeds_skipped ? fmt::format(", {} skipped", r.seeds_skipped) : "",
        rules.empty() ? "none" : rules, fmt::join(f.backends, ", "));
  } else {
    fmt::print("{}: FINDING {}{}: {}\n  rules that fired: {}\n", f.file,
               check::finding_kind_name(r.kind), r.backend == "oracle" ? "" : " on " + r.backend,
               r.details, rules.empty() ? "none" : rules);
  }
  for (const auto& n : r.notes) fmt::print("  note: {}\n", n);
  if (r.latency && r.kind == check::FindingKind::None)
    fmt::print("  latency on {}: {}\n", f.latency.options.backend, r.latency->summary());
}

// A tensor program: lowered, simplified kernel by kernel, run, compared with the tensor oracle.
int run_program_check(const CheckFlags& f, ir::Context& ctx, const ir::Kernel& program,
                      check::ProgramCheckOptions po) {
  auto r = check::check_program(ctx, program, po);
  std::optional<check::Signature> sig;
  if (r.kind != check::FindingKind::None) sig = check::sign_program_finding(ctx, program, po, r);
  if (f.json) {
    json j;
    j["file"] = f.file;
    j["level"] = "tensor";
    j["finding"] = check::finding_kind_name(r.kind);
    j["backend"] = r.backend;
    j["unsupported"] = r.unsupported ? json(*r.unsupported) : json(nullptr);
    j["signature"] = sig ? json(sig->text()) : json(nullptr);
    j["notes"] = r.notes;
    j["details"] = r.details;
    j["kernels"] = r.kernels;
    j["seeds_run"] = r.seeds_run;
    j["seeds_skipped"] = r.seeds_skipped;
    j["rules"] = r.simplified.hits;
    j["lowering"] = {{"pcontig", po.lower.pcontig},
                     {"split_reduce_threshold", po.lower.split_reduce_threshold},
                     {"rules", r.lowering_hits}};
    if (r.latency) j["latency"] = decisions_json(*r.latency);
    if (r.mismatch)
      j["mismatch"] = {{"seed", r.mismatch->seed},
                       {"output", r.mismatch->slot},
                       {"index", r.mismatch->index},
                       {"tensor_oracle", r.mismatch->expected},
                       {"lowered", r.mismatch->got}};
    fmt::print("{}\n", j.dump(2));
  } else if (r.unsupported) {
    fmt::print("{}: unsupported: {}\n", f.file, *r.unsupported);
  } else if (r.kind == check::FindingKind::None) {
    fmt::print("{}: ok: {} kernel(s) agree with the tensor oracle on {} seed(s){} (backends: {})\n",
               f.file, r.kernels, r.seeds_run,
               r.seeds_skipped ? fmt::format(", {} skipped", r.seeds_skipped) : "",
               fmt::join(f.backends, ", "));
  } else {
    fmt::print("{}: FINDING {} (signature {}): {}\n", f.file, check::finding_kind_name(r.kind),
               sig->text(), r.details);
  }
  if (!f.json)
    for (const auto& n : r.notes) fmt::print("  note: {}\n", n);
  if (!f.json && r.latency)
    for (const check::DecisionTiming& d : r.latency->timed)
      fmt::print("  latency on {}: with {} ({} kernel(s)) vs without ({}): {}\n",
                 f.latency.options.backend, d.culprit, d.kernels_found, d.kernels_without,
                 d.verdict.summary());
  if (r.unsupported) return kExitBadInput;
  return r.kind == check::FindingKind::None ? kExitOk : kExitFinding;
}

int run_check(const CheckFlags& f) {
  auto opts = simplify_options(f.simplify);
  if (!opts) return kExitBadInput;
  auto latency = latency_options(f.latency);
  if (!latency) return kExitBadInput;
  if (!valid_backends(f.backends)) return kExitBadInput;
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  if (f.seeds < 1) {
    fmt::print(stderr, "error: --seeds must be at least 1\n");
    return kExitBadInput;
  }
  auto under_test = simplifier_under_test(f.simplify.simplifier, *opts);
  if (!under_test) return kExitBadInput;
  auto k = load_kernel(f.file);
  if (!k) return kExitBadInput;
  const ir::Kernel& kernel = k->parsed.kernel;
  check::CheckOptions co;
  co.simplifier = *under_test;
  co.simplify = *opts;
  co.seeds = f.seeds;
  co.base_seed = f.seed.value_or(kernel.header.seed.value_or(0));
  co.vars.insert(kernel.header.vars.begin(), kernel.header.vars.end());
  co.simplify.forms = fuzz::recorded_forms(kernel.header);
  co.backends = f.backends;
  co.latency = *latency;
  co.check_bounds = f.check_bounds;
  auto lowering = lowering_bugs(f.lowering_bugs);
  if (!lowering) return kExitBadInput;
  if (ir::is_tensor_program(kernel.root)) {
    auto recorded = fuzz::read_corpus_header(kernel.header, k->text);
    if (!recorded) {
      fmt::print(stderr, "{}:{}: error: {}\n", f.file, recorded.error().loc.line,
                 recorded.error().message);
      return kExitBadInput;
    }
    schedule::LowerOptions lo;
    lo.bugs = *lowering;
    return run_program_check(f, *k->ctx, kernel, {co, lower_options(lo, f.lowering, *recorded)});
  }
  if (!f.compare.empty())
    return run_check_compare(f.compare, external_options(f.simplify.simplifier), f.file, *k->ctx,
                             kernel, co, f.json);
  auto r = check::check_kernel(*k->ctx, kernel, co);
  if (f.json)
    print_json(f.file, r);
  else
    print_text(f, r);
  // Declined by the simplifier under test: nothing was checked (not a pass, not a finding).
  if (r.simplifier_failure && r.kind == check::FindingKind::None) return kExitBadInput;
  return r.kind == check::FindingKind::None ? kExitOk : kExitFinding;
}

}  // namespace

Action add_check(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<CheckFlags>();
  cmd.add_option("FILE", f->file, "the .uop file (a kernel, or a tensor program: root REALIZE)")
      ->required();
  add_simplify_flags(cmd, f->simplify);
  cmd.add_option("--seeds", f->seeds, "number of input seeds to compare on")->capture_default_str();
  cmd.add_option("--seed", f->seed, "first input seed (default: the file's @seed, else 0)");
  cmd.add_flag("--json", f->json, "print the verdict as JSON");
  cmd.add_option("--backends", f->backends,
                 "backends both graphs run on (available: " + backend_list() + ")")
      ->delimiter(',')
      ->capture_default_str();
  add_latency_flags(cmd, f->latency);
  add_lowering_bug_flag(cmd, f->lowering_bugs);
  add_lowering_option_flags(cmd, f->lowering, "the file's");
  add_compare_flag(cmd, f->compare);
  cmd.add_flag("--check-bounds,!--no-check-bounds", f->check_bounds,
               "hold the simplifier's bounds of each node against the oracle's values (on by "
               "default)");
  add_device_flag(cmd, invocation.device);
  return [f] { return run_check(*f); };
}

}  // namespace uopfuzz::cli
