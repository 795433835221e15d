/** \file The oracle: a reference interpreter, the executable form of SEMANTICS.md.
 *
 * Lifecycle: Program::compile(root) once per graph (the graph must pass ir::verify),
 * then run(inputs) any number of times. Compilation turns the graph into nested loop
 * scopes of flat instructions: each pure node is computed once per iteration of the
 * innermost loop that binds one of its ranges, so loop invariants are computed once.
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
#include "ir/uop.h"

namespace uopfuzz::oracle {

/// Input buffers by PARAM slot and VAR values by name.
struct Inputs {
  std::map<int, ir::Buffer> buffers;
  std::map<std::string, int64_t> vars;
};

struct UbReport {
  ir::UOp node;      ///< the node whose evaluation was undefined
  std::string what;  ///< e.g. "division by zero", "out-of-bounds load: index 12, size 10"
  /// The loop iteration it happened in: each enclosing RANGE and its value, outermost first.
  std::vector<std::pair<ir::UOp, int64_t>> iteration;
};

enum class RunStatus : uint8_t { Ok, Ub, StepLimit };

struct RunOutput {
  RunStatus status = RunStatus::Ok;
  std::map<int, ir::Buffer> outputs;  ///< by slot; meaningful when status == Ok
  std::optional<UbReport> ub;
  uint64_t steps = 0;       ///< instructions executed
  uint64_t iterations = 0;  ///< loop iterations run: passes through a loop body, all loops (nested ones per pass)
};

struct RunOptions {
  /// Stop with RunStatus::StepLimit after this many instructions (no run hangs).
  uint64_t max_steps = 2'000'000'000;
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
  static Result<Program> build(ir::UOp root, std::vector<ir::UOp> topo, ir::NodeMap<ir::RangeSet> open);
  std::unique_ptr<Impl> impl_;
};

/// Compile and run once.
Result<RunOutput> run(ir::UOp root, const Inputs& inputs, const RunOptions& options = {});

/// Deterministic inputs for a kernel (SEMANTICS.md, "Inputs"): every input PARAM
/// filled and every VAR given a value, all derived from `seed` alone. Values given in
/// `vars` are kept as they are.
Inputs make_inputs(ir::UOp root, uint64_t seed, const std::map<std::string, int64_t>& vars = {});

}  // namespace uopfuzz::oracle
