/** \file The latency detector on whole Programs, and the timing of a lowering's tensor-stage
 * decisions (keep a buffer or inline it, split a reduce or not) against their alternatives.
 *
 * A Program's time is the sum of its kernels' times on one backend, the kernels run in order
 * on intermediates allocated once: the Program is run once untimed so that every kernel reads
 * the values it would really read, and each timed run then times each kernel on those
 * buffers. CompiledProgram wraps that as a backends::Kernel, so that check/latency.h's rounds
 * (ABBA interleaving, batching, Mann-Whitney, confirmation rerun) time whole Programs with
 * the very statistics they use for kernels.
 *
 * A decision is timed as "the Program lowered as found" (rewritten) against "the Program
 * lowered without it" (original): for each planted lowering bug switched on, the lowering
 * with that bug off; for each tensor-stage rule that fired, the lowering with that rule
 * switched off (schedule::LowerOptions::disabled). Both sides are simplified alike. A
 * confirmed slowdown of the Program as found is a latency finding whose culprit is the
 * bug's or the rule's name.
 */
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "check/latency.h"
#include "ir/kernel.h"
#include "ir/program.h"
#include "schedule/lower.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::check {

/// A Program compiled on one backend, run as one unit. Not thread-safe, like any Kernel.
class CompiledProgram final : public backends::Kernel {
 public:
  /// Compiles every kernel; a kernel the backend cannot take fails it with its error.
  static Result<std::unique_ptr<CompiledProgram>> compile(backends::Backend& backend,
                                                          const ir::Program& program);
  /// Outputs by the tensor program's REALIZE index (not by a kernel's slot).
  Result<ir::RunOutput> run(const ir::Inputs& inputs,
                            const backends::RunOptions& options = {}) override;
  /// Seconds per run of the whole Program: the sum of its kernels' times. The intermediates
  /// are computed once per `inputs` object (a run that is not timed) and reused.
  Result<std::vector<double>> time(const ir::Inputs& inputs, int reps,
                                   const backends::RunOptions& options = {}) override;
  /// Per run of the last time(): the sum of the kernels' device-clock times, where every
  /// kernel has one; else empty.
  std::vector<double> device_times() const override { return device_times_; }
  size_t kernels() const { return compiled_.size(); }

 private:
  CompiledProgram() = default;
  /// Runs the Program once on `inputs`, keeping each kernel's bound inputs for timing.
  std::optional<Error> bind(const ir::Inputs& inputs, const backends::RunOptions& options,
                            std::map<int, ir::Buffer>* outputs);

  ir::Program program_;
  std::vector<std::shared_ptr<backends::Kernel>> compiled_;
  std::vector<ir::Inputs> bound_;  ///< kernel k's inputs, intermediates included
  const ir::Inputs* bound_from_ = nullptr;
  std::vector<double> device_times_;
};

/// Times `rewritten` against `original` (both Programs of one tensor program, whose inputs
/// by PARAM slot are `inputs`) on options.backend: detect_regression on whole Programs.
Result<LatencyVerdict> detect_program_regression(const ir::Program& original,
                                                 const ir::Program& rewritten,
                                                 const ir::Inputs& inputs,
                                                 const LatencyOptions& options);

/// One decision timed: the Program as found against the one without `culprit`.
struct DecisionTiming {
  std::string culprit;  ///< a planted lowering bug's name or a tensor-stage rule's
  LatencyVerdict verdict;
  size_t kernels_found = 0, kernels_without = 0;  ///< kernel counts of the two Programs
};

struct ProgramLatency {
  std::vector<DecisionTiming> timed;  ///< in the order they were timed
  /// The decision whose Program is confirmed slower (an index into `timed`); timing stops
  /// at the first.
  std::optional<size_t> regressed;
  std::vector<std::string> notes;  ///< alternatives not timed, and why
  const DecisionTiming* finding() const { return regressed ? &timed[*regressed] : nullptr; }
};

/// Times each decision of lowering `program` under `lower` (planted bugs first, then the
/// rules that fired, in tensor_rule_names() order) on options.backend with `inputs`, both
/// Programs simplified with `simplify` (the built-in simplifier). Errors: the lowering as
/// found fails, the backend is unknown or cannot compile or time a kernel it supports.
Result<ProgramLatency> time_lowering_decisions(ir::Context& ctx, const ir::Kernel& program,
                                               const schedule::LowerOptions& lower,
                                               const simplifier::SimplifyOptions& simplify,
                                               const ir::Inputs& inputs,
                                               const LatencyOptions& options);

}  // namespace uopfuzz::check
