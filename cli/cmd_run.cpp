// uopfuzz run FILE: a kernel's outputs on one backend, and its header's expectations.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "check/expectations.h"
#include "cli/command.h"
#include "cli/kernel_file.h"
#include "cli/shared_flags.h"

namespace uopfuzz::cli {
namespace {

using json = nlohmann::ordered_json;

struct RunFlags {
  std::string file;
  std::string backend = "oracle";
  std::optional<uint64_t> seed;
  std::vector<std::string> vars;
  bool json = false;
  uint64_t max_steps = 2'000'000'000;
  bool dump_ir = false;
  int threads = 1;
};

json value_json(ir::DType dt, ir::Value v) {
  switch (dt.kind()) {
    case ir::DTypeKind::Bool: return v.i != 0;
    case ir::DTypeKind::Unsigned: return v.u;
    case ir::DTypeKind::Float:
      // JSON has no NaN or infinity.
      if (std::isnan(v.f) || std::isinf(v.f)) return ir::format_value(dt, v);
      return v.f;
    case ir::DTypeKind::Void:
    case ir::DTypeKind::Signed:
    case ir::DTypeKind::Index: return v.i;
  }
  return v.i;
}

/// The header's @var values overridden by --var NAME=V, or nullopt (and a printed error).
std::optional<std::map<std::string, int64_t>> var_values(const ir::KernelHeader& h,
                                                         const std::vector<std::string>& flags) {
  std::map<std::string, int64_t> vars(h.vars.begin(), h.vars.end());
  for (const std::string& kv : flags) {
    size_t eq = kv.find('=');
    int64_t v = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      const char* b = kv.data() + eq + 1;
      auto [p, ec] = std::from_chars(b, kv.data() + kv.size(), v);
      ok = ec == std::errc() && p == kv.data() + kv.size();
    }
    if (!ok) {
      fmt::print(stderr, "error: --var expects NAME=INTEGER, got '{}'\n", kv);
      return std::nullopt;
    }
    vars[kv.substr(0, eq)] = v;
  }
  return vars;
}

const char* status_name(oracle::RunStatus s) {
  switch (s) {
    case oracle::RunStatus::Ok: return "ok";
    case oracle::RunStatus::Ub: return "ub";
    case oracle::RunStatus::StepLimit: return "step-limit";
  }
  return "?";
}

/// Prints the run as `--json` asks, or as text.
void print_run(const RunFlags& f, const LoadedKernel& k, uint64_t seed, const check::CaseRun& c) {
  const ir::KernelHeader& h = k.parsed.kernel.header;
  const oracle::RunOutput& out = c.run;
  auto name_of = [&](ir::UOp u) { return fmt::format("%{}", k.names.at(u)); };
  auto line_of = [&](ir::UOp u) { return k.parsed.where.count(u) ? k.parsed.where.at(u).line : 0; };
  const bool pass = c.verdict.pass;
  if (f.json) {
    json mismatches = json::array();
    for (const auto& m : c.verdict.mismatches)
      mismatches.push_back(
          {{"slot", m.slot}, {"index", m.index}, {"expected", m.expected}, {"got", m.got}});
    json j;
    j["file"] = f.file;
    j["name"] = h.name;
    j["backend"] = f.backend;
    j["seed"] = seed;
    j["vars"] = c.inputs.vars;
    j["status"] = status_name(out.status);
    j["steps"] = out.steps;
    if (out.ub) {
      json it = json::array();
      for (auto [r, v] : out.ub->iteration) it.push_back({{"range", name_of(r)}, {"value", v}});
      j["ub"] = {{"node", name_of(out.ub->node)},
                 {"op", ir::op_name(out.ub->node.op())},
                 {"line", line_of(out.ub->node)},
                 {"what", out.ub->what},
                 {"iteration", it}};
    }
    json outputs = json::array();
    for (const auto& [slot, buf] : out.outputs) {
      json values = json::array();
      for (size_t i = 0; i < buf.size(); ++i) values.push_back(value_json(buf.dtype(), buf.get(i)));
      outputs.push_back({{"slot", slot}, {"dtype", buf.dtype().name()}, {"values", values}});
    }
    j["outputs"] = outputs;
    j["expected"] = {{"outcome", h.expect == ir::Expect::Ub ? "ub" : "ok"},
                     {"outputs_checked", !h.outputs.empty()},
                     {"mismatches", mismatches},
                     {"pass", pass}};
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("{} ({}, seed {}): {} after {} steps\n", h.name.empty() ? f.file : h.name, f.backend,
             seed, status_name(out.status), out.steps);
  if (out.ub) {
    std::string where;
    for (auto [r, v] : out.ub->iteration) where += fmt::format(" {}={}", name_of(r), v);
    fmt::print("  undefined behaviour at {} ({}, line {}): {}{}\n", name_of(out.ub->node),
               ir::op_name(out.ub->node.op()), line_of(out.ub->node), out.ub->what,
               where.empty() ? "" : " at" + where);
  }
  for (const auto& [slot, buf] : out.outputs) {
    std::string vals;
    const size_t shown = std::min<size_t>(buf.size(), 16);
    for (size_t i = 0; i < shown; ++i)
      vals += (i ? ", " : "") + ir::format_value(buf.dtype(), buf.get(i));
    if (buf.size() > shown) vals += fmt::format(", ... ({} more)", buf.size() - shown);
    fmt::print("  out[{}] {} x {}: [{}]\n", slot, buf.size(), buf.dtype().name(), vals);
  }
  for (const auto& m : c.verdict.mismatches)
    fmt::print("  MISMATCH out[{}][{}]: expected {}, got {}\n", m.slot, m.index, m.expected, m.got);
  if (h.expect_given || !h.outputs.empty())
    fmt::print("  expectation ({}{}): {}\n", h.expect == ir::Expect::Ub ? "ub" : "ok",
               h.outputs.empty() ? "" : " with outputs", pass ? "met" : "NOT met");
}

int run_run(const RunFlags& f) {
  if (!valid_backends({f.backend})) return kExitBadInput;
  if (f.threads < 1) {
    fmt::print(stderr, "error: --threads must be at least 1\n");
    return kExitBadInput;
  }
  auto k = load_kernel(f.file);
  if (!k) return kExitBadInput;
  const ir::Kernel& kernel = k->parsed.kernel;
  auto vars = var_values(kernel.header, f.vars);
  if (!vars) return kExitBadInput;
  check::CaseRunOptions o;
  o.backend = f.backend;
  o.seed = f.seed.value_or(kernel.header.seed.value_or(0));
  o.vars = std::move(*vars);
  o.max_steps = f.max_steps;
  o.threads = f.threads;
  o.keep_listing = f.dump_ir;
  auto ran = check::run_case(*k->ctx, kernel, o);
  if (auto* e = std::get_if<check::CaseError>(&ran)) {
    fmt::print(stderr, "{}: error: {}\n", f.file, e->message);
    return e->finding ? kExitFinding : kExitBadInput;
  }
  const check::CaseRun& c = std::get<check::CaseRun>(ran);
  if (c.backend_skipped)
    fmt::print(stderr, "{}: note: not run on {}: the oracle found the kernel {}\n", f.file,
               f.backend,
               c.run.status == oracle::RunStatus::Ub ? "has undefined behaviour"
                                                     : "runs past the step limit");
  if (f.dump_ir && !c.listing.empty()) fmt::print("{}", c.listing);
  print_run(f, *k, o.seed, c);
  return c.verdict.pass ? kExitOk : kExitFinding;
}

}  // namespace

Action add_run(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<RunFlags>();
  cmd.add_option("FILE", f->file, "the .uop file")->required();
  cmd.add_option("--backend", f->backend, "backend to run on (available: " + backend_list() + ")")
      ->capture_default_str();
  cmd.add_flag("--dump-ir", f->dump_ir,
               "print the backend's listing (cpu: LLVM IR as lowered and as optimized; vulkan: "
               "GLSL and SPIR-V)");
  cmd.add_option("--threads", f->threads, "threads a compiled backend may use")
      ->capture_default_str();
  cmd.add_option("--seed", f->seed, "input-fill seed (default: the file's @seed, else 0)");
  cmd.add_option("--var", f->vars,
                 "VAR value NAME=V (repeatable; default: the file's @var, else seed-derived)");
  cmd.add_flag("--json", f->json, "print the result as JSON (schema in README)");
  cmd.add_option("--max-steps", f->max_steps, "stop after this many interpreter steps")
      ->capture_default_str();
  add_device_flag(cmd, invocation.device);
  return [f] { return run_run(*f); };
}

}  // namespace uopfuzz::cli
