#include "check/program_latency.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/program_runner.h"
#include "backends/registry.h"
#include "ir/graph.h"
#include "schedule/split_reduce.h"

namespace uopfuzz::check {

using namespace ir;

Result<std::unique_ptr<CompiledProgram>> CompiledProgram::compile(backends::Backend& backend,
                                                                  const Program& program) {
  std::unique_ptr<CompiledProgram> p(new CompiledProgram());
  p->program_ = program;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    auto compiled = backend.compile(program.kernels[k].root);
    if (!compiled) {
      // Keep "unsupported:" first, so that a caller can tell a capability from a failure.
      Error e = compiled.error();
      e.message = backends::is_unsupported(e)
                      ? fmt::format("{} (kernel {})", e.message, k)
                      : fmt::format("kernel {} does not compile: {}", k, e.message);
      return e;
    }
    p->compiled_.push_back(*compiled);
  }
  return p;
}

std::optional<Error> CompiledProgram::bind(const Inputs& inputs,
                                           const backends::RunOptions& options,
                                           std::map<int, Buffer>* outputs) {
  Result<std::vector<Buffer>> storage = backends::program_storage(program_, inputs);
  if (!storage) return storage.error();
  bound_.assign(program_.kernels.size(), Inputs{});
  bound_from_ = nullptr;
  for (size_t k = 0; k < program_.kernels.size(); ++k) {
    Inputs& in = bound_[k];
    in.vars = inputs.vars;
    Result<std::map<int, int>> written = backends::bind_kernel(program_, k, *storage, in);
    if (!written) return written.error();
    auto ran = compiled_[k]->run(in, options);
    if (!ran) return Error{fmt::format("kernel {}: {}", k, ran.error().message)};
    if (ran->status != RunStatus::Ok)
      return Error{fmt::format("kernel {} did not finish (undefined behaviour or step limit)", k)};
    if (auto e = backends::store_outputs(k, *written, *ran, *storage)) return e;
  }
  if (outputs)
    for (size_t i = 0; i < program_.buffers.size(); ++i)
      if (program_.buffers[i].role == ProgramBuffer::Role::Output)
        (*outputs)[program_.buffers[i].index] = (*storage)[i];
  bound_from_ = &inputs;
  return std::nullopt;
}

Result<RunOutput> CompiledProgram::run(const Inputs& inputs, const backends::RunOptions& options) {
  RunOutput out;
  if (auto e = bind(inputs, options, &out.outputs)) return *e;
  return out;
}

Result<std::vector<double>> CompiledProgram::time(const Inputs& inputs, int reps,
                                                  const backends::RunOptions& options) {
  if (bound_from_ != &inputs)
    if (auto e = bind(inputs, options, nullptr)) return *e;
  std::vector<double> host(static_cast<size_t>(std::max(reps, 0)), 0.0);
  std::vector<double> device(host.size(), 0.0);
  bool every_kernel_has_a_device_clock = true;
  for (int r = 0; r < reps; ++r)
    // In order, one run of each kernel: a consumer runs right after its producer, as in a
    // real run of the Program (what its caches hold is part of its time).
    for (size_t k = 0; k < compiled_.size(); ++k) {
      auto t = compiled_[k]->time(bound_[k], 1, options);
      if (!t) return Error{fmt::format("kernel {}: {}", k, t.error().message)};
      if (!t->empty()) host[r] += t->front();
      std::vector<double> d = compiled_[k]->device_times();
      if (d.empty())
        every_kernel_has_a_device_clock = false;
      else
        device[r] += d.front();
    }
  device_times_.clear();
  if (every_kernel_has_a_device_clock && !compiled_.empty()) device_times_ = std::move(device);
  return host;
}

Result<LatencyVerdict> detect_program_regression(const Program& original, const Program& rewritten,
                                                 const Inputs& inputs,
                                                 const LatencyOptions& options) {
  backends::Backend* backend = backends::find_backend(options.backend);
  if (!backend) return Error{fmt::format("no backend named '{}'", options.backend)};
  auto a = CompiledProgram::compile(*backend, original);
  if (!a) return a.error();
  auto b = CompiledProgram::compile(*backend, rewritten);
  if (!b) return b.error();
  return detect_regression(**a, **b, inputs, options);
}

namespace {

// A lowering's alternative to the Program as found: what is switched off, and the options.
struct Alternative {
  std::string culprit;
  schedule::LowerOptions lower;
};

std::vector<Alternative> alternatives(const schedule::LowerOptions& lower,
                                      const schedule::LowerReport& report) {
  std::vector<Alternative> out;
  for (schedule::LoweringBug b : lower.bugs) {
    Alternative a{std::string(schedule::lowering_bug_name(b)), lower};
    a.lower.bugs.erase(b);
    out.push_back(std::move(a));
  }
  // With planted bugs on the question is theirs (selftest): the faithful rules' own cost
  // decisions would answer another one first.
  if (!lower.bugs.empty()) return out;
  for (const std::string& rule : schedule::tensor_rule_names()) {
    auto hit = report.hits.find(rule);
    if (hit == report.hits.end() || hit->second == 0 || lower.disabled.count(rule)) continue;
    // Below the default threshold a split is what the option asked for (campaigns lower it
    // to reach the rule on small shapes), not the rule's own cost decision.
    if (rule == schedule::kSplitReduceRule &&
        lower.split_reduce_threshold < schedule::LowerOptions{}.split_reduce_threshold)
      continue;
    Alternative a{rule, lower};
    a.lower.disabled.insert(rule);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

Result<ProgramLatency> time_lowering_decisions(Context& ctx, const Kernel& program,
                                               const schedule::LowerOptions& lower,
                                               const simplifier::SimplifyOptions& simplify,
                                               const Inputs& inputs,
                                               const LatencyOptions& options) {
  ProgramLatency out;
  backends::Backend* backend = backends::find_backend(options.backend);
  if (!backend) return Error{fmt::format("no backend named '{}'", options.backend)};
  schedule::LowerReport report;
  auto found = schedule::lower(ctx, program.root, lower, &report);
  if (!found) return Error{"the lowering as found fails: " + found.error().message};
  const Program as_found = schedule::simplify_program(ctx, *found, simplify).program;
  const std::string found_text = print_program(as_found);
  std::unique_ptr<CompiledProgram> compiled_found;
  for (Alternative& alt : alternatives(lower, report)) {
    auto without = schedule::lower(ctx, program.root, alt.lower);
    if (!without) {
      out.notes.push_back(
          fmt::format("without {}: not timed ({})", alt.culprit, without.error().message));
      continue;
    }
    const Program other = schedule::simplify_program(ctx, *without, simplify).program;
    if (print_program(other) == found_text) continue;  // the decision changed nothing
    if (!compiled_found) {
      auto c = CompiledProgram::compile(*backend, as_found);
      if (!c) {
        if (!backends::is_unsupported(c.error())) return c.error();
        out.notes.push_back(fmt::format("{}: not timed ({})", options.backend, c.error().message));
        return out;
      }
      compiled_found = std::move(*c);
    }
    auto compiled_other = CompiledProgram::compile(*backend, other);
    if (!compiled_other) {
      if (!backends::is_unsupported(compiled_other.error())) return compiled_other.error();
      out.notes.push_back(fmt::format("without {}: not timed on {} ({})", alt.culprit,
                                      options.backend, compiled_other.error().message));
      continue;
    }
    auto verdict = detect_regression(**compiled_other, *compiled_found, inputs, options);
    if (!verdict)
      return Error{
          fmt::format("timing without {} failed: {}", alt.culprit, verdict.error().message)};
    out.timed.push_back(DecisionTiming{alt.culprit, std::move(*verdict), as_found.kernels.size(),
                                       other.kernels.size()});
    if (out.timed.back().verdict.confirmed) {
      out.regressed = out.timed.size() - 1;
      break;
    }
  }
  return out;
}

}  // namespace uopfuzz::check
