#include "bench/lowering_beside.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "check/program_latency.h"

namespace uopfuzz::bench {

LoweringCounts counts_of(const ir::Program& program) {
  LoweringCounts c{program.kernels.size(), 0};
  for (const ir::ProgramBuffer& b : program.buffers)
    if (b.role == ir::ProgramBuffer::Role::Intermediate) ++c.intermediates;
  return c;
}

std::string output_disagreement(const std::map<int, ir::Buffer>& a,
                                const std::map<int, ir::Buffer>& b, double tolerance) {
  for (const auto& [slot, buf] : a) {
    auto it = b.find(slot);
    if (it == b.end()) return fmt::format("output {} is missing", slot);
    const ir::Buffer& other = it->second;
    if (other.size() != buf.size()) return fmt::format("output {} differs in size", slot);
    for (size_t i = 0; i < buf.size(); ++i) {
      const ir::Value x = buf.get(i), y = other.get(i);
      if (buf.dtype().is_float()) {
        const double scale = std::max({1.0, std::fabs(x.f), std::fabs(y.f)});
        if (std::isnan(x.f) != std::isnan(y.f) || std::fabs(x.f - y.f) > tolerance * scale)
          return fmt::format("output {}[{}]: {} vs {}", slot, i, x.f, y.f);
      } else if (!ir::same_bits(x, y)) {
        return fmt::format("output {}[{}] differs", slot, i);
      }
    }
  }
  return "";
}

namespace {

/// The device whose schedule is asked for: a compiled CPU device schedules for a machine
/// like ours, and an emulated one would take minutes to run a real-size program.
std::string device_to_schedule_for(const sut::Capabilities& caps) {
  if (std::find(caps.devices.begin(), caps.devices.end(), "CPU") != caps.devices.end())
    return "CPU";
  return caps.devices.empty() ? "" : caps.devices.front();
}

/// `inputs` with every buffer's values zero. Its schedule depends on the program's shapes
/// and dtypes, not on the values; and the adapter declines a run whose values its devices
/// may compute differently from the tensor oracle (a float sum whose order moves a digit),
/// which zeros never do. Its kernels are checked on the real inputs, on our backend.
ir::Inputs zeros_like(const ir::Inputs& inputs) {
  ir::Inputs z;
  z.vars = inputs.vars;
  for (const auto& [slot, buf] : inputs.buffers)
    z.buffers.emplace(slot, ir::Buffer(buf.dtype(), buf.size()));
  return z;
}

}  // namespace

Result<LoweringBeside> lowering_beside(sut::Simplifier& sim, ir::Context& ctx, ir::UOp root,
                                       const ir::Inputs& inputs, backends::Backend& backend,
                                       const OurLowering& ours, double tolerance,
                                       const check::LatencyOptions& latency) {
  const std::string who = sim.name();
  const sut::Capabilities caps = sim.capabilities();
  if (!caps.run) return Error{fmt::format("{} runs no tensor program (no `run` capability)", who)};
  LoweringBeside out;
  out.simplifier = who;
  out.scheduled_for = device_to_schedule_for(caps);
  if (out.scheduled_for.empty()) return Error{fmt::format("{} names no device", who)};
  sut::RunRequest request;
  request.devices = {out.scheduled_for};
  request.program = true;
  sut::RunAnswer answer = sim.run(ctx, root, zeros_like(inputs), request);
  if (answer.failure)
    return Error{fmt::format("{} did not schedule it ({}): {}", who,
                             sut::failure_kind_name(answer.failure->kind), answer.failure->reason)};
  if (!answer.program)
    return Error{
        fmt::format("{}'s kernels have no .uop form: {}", who,
                    answer.program_missing.empty() ? "none handed back" : answer.program_missing)};
  if (auto faults = ir::verify_program(*answer.program); !faults.empty())
    return Error{fmt::format("{}'s kernels, as handed back, are not a valid Program: {}", who,
                             faults.front())};
  auto theirs = check::CompiledProgram::compile(backend, *answer.program);
  if (!theirs)
    return Error{fmt::format("{}'s kernels do not compile on {}: {}", who, backend.name(),
                             theirs.error().message)};
  auto ran = (*theirs)->run(inputs);
  if (!ran) return Error{fmt::format("{}'s kernels fail to run: {}", who, ran.error().message)};
  if (auto d = output_disagreement(*ours.outputs, ran->outputs, tolerance); !d.empty())
    return Error{fmt::format("{}'s kernels disagree with ours, not timed: {}", who, d)};
  check::LatencyOptions lo = latency;
  lo.confirm = false;  // one round: a comparison of two lowerings, not a regression verdict
  auto verdict = check::detect_regression(*ours.compiled, **theirs, inputs, lo);
  if (!verdict) return Error{"timing failed: " + verdict.error().message};
  const check::LatencyRound& r = verdict->first;
  out.ours_ns = check::median(r.original) * 1e9;
  out.theirs_ns = check::median(r.rewritten) * 1e9;
  out.ratio = out.theirs_ns > 0 ? out.ours_ns / out.theirs_ns : 0;
  out.ours = counts_of(*ours.program);
  out.theirs = counts_of(*answer.program);
  out.device_clock = r.device_clock;
  return out;
}

}  // namespace uopfuzz::bench
