#include "cli/run_output.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/command.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "report/run_json.h"

namespace uopfuzz::cli {

/// What ran: the backend, or for a tensor program the tensor oracle or the lowered Program.
std::string backend_label(const RunFlags& f, const LoadedKernel& k) {
  if (!ir::is_tensor_program(k.parsed.kernel.root)) return f.backend.empty() ? "oracle" : f.backend;
  return f.backend.empty() ? "tensor-oracle" : f.backend + " (lowered)";
}

/// Prints the run as `--json` asks, or as text. `failed_kernel`: a lowered Program's kernel
/// that hit UB (its nodes are not the file's), else -1.
void print_run(const RunFlags& f, const LoadedKernel& k, uint64_t seed, const check::CaseRun& c,
               int failed_kernel, const std::string& label) {
  const ir::KernelHeader& h = k.parsed.kernel.header;
  const oracle::RunOutput& out = c.run;
  const std::string backend = label.empty() ? backend_label(f, k) : label;
  auto name_of = [&](ir::UOp u) {
    if (k.names.count(u)) return fmt::format("%{}", k.names.at(u));
    return fmt::format("kernel {} node {}", failed_kernel, ir::describe(u));
  };
  auto line_of = [&](ir::UOp u) { return k.parsed.where.count(u) ? k.parsed.where.at(u).line : 0; };
  const bool pass = c.verdict.pass;
  if (f.json) {
    fmt::print(
        "{}\n",
        report::run_json(f.file, h, backend, seed, c, failed_kernel, name_of, line_of).dump(2));
    return;
  }
  // A device of an external simplifier counts no steps of ours.
  fmt::print("{} ({}, seed {}): {}{}\n", h.name.empty() ? f.file : h.name, backend, seed,
             report::status_name(out.status),
             label.empty() ? fmt::format(" after {} steps", out.steps) : "");
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

/// A graph run end to end by a simplifier that runs whole graphs (tinygrad: its scheduler,
/// codegen and devices): each device's outputs, checked against the header's expectations
/// like the oracle's. Exit 1 when a device raises or misses them.
int run_on_devices(const RunFlags& f, const LoadedKernel& k, uint64_t seed,
                   const std::map<std::string, int64_t>& vars, sut::Simplifier& sim) {
  const ir::Kernel& graph = k.parsed.kernel;
  const ir::Inputs inputs = ir::make_inputs(graph, seed, vars);
  sut::RunRequest request;
  request.program = ir::is_tensor_program(graph.root);
  sut::RunAnswer answer = sim.run(*k.ctx, graph.root, inputs, request);
  if (answer.failure) {
    fmt::print(stderr, "{}: error: {} cannot run it: {}: {}\n", f.file, sim.name(),
               sut::failure_kind_name(answer.failure->kind), answer.failure->reason);
    if (!answer.failure->log.empty() && answer.failure->kind != sut::FailureKind::Unsupported)
      fmt::print(stderr, "{}\n", answer.failure->log);
    return answer.failure->kind == sut::FailureKind::Unsupported ? kExitBadInput : kExitFinding;
  }
  bool pass = true;
  for (const sut::DeviceRun& d : answer.devices) {
    const std::string label = fmt::format("{} {} on {}", sim.name(), sim.version(), d.device);
    if (d.failure) {
      fmt::print("{} ({}, seed {}): raised: {}\n",
                 graph.header.name.empty() ? f.file : graph.header.name, label, seed,
                 d.failure->reason);
      if (!d.failure->where.empty()) fmt::print("  where: {}\n", d.failure->where);
      pass = false;
      continue;
    }
    check::CaseRun c;
    c.inputs = inputs;
    c.run.outputs = d.outputs;
    c.verdict = check::check_expectations(graph.header, c.run, check::OutputTolerance{});
    print_run(f, k, seed, c, -1, label);
    pass = pass && c.verdict.pass;
  }
  if (!f.json) {
    if (answer.program)
      fmt::print("  {} scheduled {} kernel{} ({} buffers)\n", sim.name(),
                 answer.program->kernels.size(), answer.program->kernels.size() == 1 ? "" : "s",
                 answer.program->buffers.size());
    else if (!answer.program_missing.empty())
      fmt::print("  {}'s kernels have no .uop form: {}\n", sim.name(), answer.program_missing);
    if (f.dump_ir && answer.program) fmt::print("{}", ir::print_program(*answer.program));
  }
  return pass ? kExitOk : kExitFinding;
}

}  // namespace uopfuzz::cli
