/** \file The oracle: a reference interpreter, the executable form of SEMANTICS.md.
 *
 * Lifecycle: Program::compile(root) once per graph (the graph must pass ir::verify),
 * then run(inputs) any number of times. Compilation turns the graph into nested loop
 * scopes of flat instructions: each pure node is computed once per iteration of the
 * innermost loop that binds one of its ranges (ir/loop_plan.h, Pinning::None), so loop
 * invariants are computed once.
 * Because that may compute values no effect needs (SEMANTICS.md, "Evaluation" is
 * demand-driven), an undefined computation only poisons its result; the run reports UB
 * when an effect uses a poisoned value, naming the node and iteration where it arose.
 *
 * Undefined behaviour is reported as a value (node + iteration), never by crashing.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/result.h"
#include "ir/run_io.h"
#include "ir/uop.h"

namespace uopfuzz::oracle {

// Run inputs and outputs are every executor's (ir/run_io.h); the oracle's names for them.
using ir::Inputs;
using ir::make_inputs;
using ir::RunOutput;
using ir::RunStatus;
using ir::UbReport;

struct RunOptions {
  /// Stop with RunStatus::StepLimit after this many instructions (no run hangs).
  uint64_t max_steps = 2'000'000'000;
  /// Record the least and greatest value of every integer node (RunOutput::observed): the
  /// values a simplifier's claimed bounds are checked against. Off, it costs one branch.
  bool observe_values = false;
};

class Program {
 public:
  /// Fails (as a value) on graphs deeper than the oracle's recursion limit or not verified.
  static Result<Program> compile(ir::UOp root);
  /// compile() for a graph the caller has just run through ir::verify without errors:
  /// verifying is a good part of compiling a small graph, and a differential check
  /// verifies the rewrite before it compiles it. An unverified graph is not allowed here.
  static Result<Program> compile_verified(ir::UOp root);
  /// Fails on inputs that do not fit the kernel: a missing or mis-sized buffer, a
  /// missing VAR, a VAR value outside its bounds.
  Result<RunOutput> run(const Inputs& inputs, const RunOptions& options = {}) const;

  struct Impl;
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

 private:
  explicit Program(std::unique_ptr<Impl> impl);
  /// The compiler proper: `topo` and `open` are toposort(root) and open_ranges(topo).
  static Result<Program> build(ir::UOp root, std::vector<ir::UOp> topo,
                               ir::NodeMap<ir::RangeSet> open);
  std::unique_ptr<Impl> impl_;
};

/// Compile and run once.
Result<RunOutput> run(ir::UOp root, const Inputs& inputs, const RunOptions& options = {});

}  // namespace uopfuzz::oracle
