/** \file The program-level differential check: a tensor program (rooted at REALIZE) is
 * evaluated by the tensor oracle (the reference), lowered (schedule::lower), simplified
 * kernel by kernel (schedule::simplify_program) and run (backends::run_program) on the
 * oracle backend and on every other backend of CheckOptions::backends.
 *
 * Outputs compare bit for bit (after NaN canonicalization), with a backend's declared ULPs
 * and sign-of-zero freedom, except a float output stored straight from a reassociable sum
 * (backends/float_sums.h): the lowering may add its terms in another order than the tensor
 * oracle, so it compares within the reassociated-sum bound (SEMANTICS.md).
 *
 * A program the tensor oracle, the lowering or a backend cannot handle yet ("unsupported:
 * ...") is not a finding: it is reported as unsupported, with the reason.
 *
 * Blame (the signature's culprit): the lowered, unsimplified program is compared with the
 * reference first; if it is already wrong the culprit is the planted lowering bug whose
 * absence alone hides it, else the first tensor-stage rule that fired (in
 * schedule::tensor_rule_names() order) whose switching off alone hides it, else "lowering".
 * Otherwise kernels are simplified one by one in order and the first kernel whose simplification
 * shows the finding has its rewrite trace replayed (the pipeline stopped after k steps, bisected),
 * as check::signature_of does for a kernel; the rule of the first bad step is the culprit. When the
 * replay cannot show it, rule bisection over the rules that fired is the fallback.
 *
 * Each lowered kernel goes through the simplifier under test (CheckOptions::simplifier). A
 * kernel it declines (unsupported) makes the whole program unsupported, with its reason; a
 * crash, hang or protocol failure is a finding, signed as check::signature_of signs one. An
 * external simplifier's step is replayed and its rules bisected as that function does.
 *
 * Latency (CheckOptions::latency set): a program that checks clean has its tensor-stage
 * decisions timed against their alternatives on the latency backend, on the first seed the
 * reference ran (check/program_latency.h); a confirmed slowdown is signed
 * latency/<rule or planted bug>/<backend>.
 */
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/dedup.h"
#include "check/differential.h"
#include "check/program_latency.h"
#include "ir/kernel.h"
#include "schedule/lower.h"

namespace uopfuzz::check {

struct ProgramCheckOptions {
  /// Simplifier switches (planted rule bugs), input seeds, step limit, backends.
  CheckOptions check;
  schedule::LowerOptions lower;  ///< planted lowering bugs, pcontig, split threshold
};

struct ProgramCheckResult {
  FindingKind kind = FindingKind::None;
  std::string details;  ///< one line a person can read
  std::string backend = "oracle";
  /// Set when the program could not be checked (not a finding): why.
  std::optional<std::string> unsupported;
  std::vector<std::string> notes;  ///< e.g. a backend skipped because it cannot run a kernel
  std::optional<Mismatch> mismatch;
  check::BackendTimes backend_times;  ///< the compiled backends the program ran on, and how long
  bool lowering_wrong = false;  ///< the unsimplified lowering alone disagrees with the reference
  schedule::SimplifiedProgram simplified;
  /// Tensor-stage rule hits of the lowering (schedule::LowerReport::hits; names from
  /// schedule::tensor_rule_names()).
  std::map<std::string, uint64_t> lowering_hits;
  /// The simplifier under test gave no rewrite of a kernel: Unsupported sets `unsupported`
  /// (not a finding); Crash, Hang and Protocol set kind Crash, Timeout, Protocol.
  std::optional<sut::Failure> simplifier_failure;
  double child_seconds = 0;     ///< time spent in an external simplifier's process
  double protocol_seconds = 0;  ///< of the check's own time, spent on the protocol
  size_t kernels = 0;
  int seeds_run = 0;      ///< seeds where the reference ran without undefined behaviour
  int seeds_skipped = 0;  ///< seeds whose tensor program is undefined
  /// With CheckOptions::latency, on a program that checks clean: its lowering decisions
  /// timed (check/program_latency.h); a confirmed slowdown is kind Latency, its culprit the
  /// decision's rule or planted bug.
  std::optional<ProgramLatency> latency;
  /// A metamorphic finding (check/quant_metamorphic.h): kind Mismatch, details starting
  /// "metamorphic: ", and the one-reduce program that shows it, its inputs given.
  std::optional<ir::Kernel> metamorphic_witness;
  /// Set when the check names the culprit itself (a whole-pipeline run: the stage that broke,
  /// check/pipeline_check.h); sign_program_finding takes it as it is.
  std::string culprit;
};

ProgramCheckResult check_program(ir::Context& ctx, const ir::Kernel& program,
                                 const ProgramCheckOptions& options = {});

/// The outputs (by REALIZE index) of the verified tensor program `program` on `inputs`
/// through the path check_program checks: lowered under options.lower, each kernel rewritten
/// by options.check's simplifier under test, run on the oracle backend. Fails when that path
/// does: the lowering or the runner (a message starting "unsupported" where it cannot take
/// the program), the simplifier under test, a kernel that does not verify, UB, the step limit.
Result<std::map<int, ir::Buffer>> run_under_test(ir::Context& ctx, const ir::Kernel& program,
                                                 const ProgramCheckOptions& options,
                                                 const ir::Inputs& inputs);

/// The comparison alone, on a given lowering of `program` (a hand-made Program, or one read
/// with ir::parse_program): `lowered` runs, as it is, on the oracle and options.backends and
/// is compared with the tensor oracle like check_program's simplified program.
ProgramCheckResult compare_lowered(ir::Context& ctx, const ir::Kernel& program,
                                   const ir::Program& lowered, const CheckOptions& options = {});

/// The first tensor-stage rule (schedule::tensor_rule_names() order) that fired in the
/// lowering of `program` under options.lower and whose switching off alone makes that
/// lowering agree with the tensor oracle on `backend`; "" when none does. Counts its checks
/// in sig.checks_run. sign_program_finding's blame for a wrong lowering that no planted
/// lowering bug explains.
std::string tensor_rule_culprit(ir::Context& ctx, const ir::Kernel& program,
                                const ProgramCheckOptions& options, const std::string& backend,
                                Signature& sig);

/// The reassociated-sum bounds of output `output` (a REALIZE index) of `lowered` run on
/// `inputs`, when the kernel that writes it stores a reassociable sum there (the program is
/// run on the oracle kernel by kernel, so the bounds are those of the inputs that kernel
/// really reads); nullopt when it stores none, or the program does not run.
std::optional<std::vector<double>> output_sum_bounds(ir::Context& ctx, const ir::Program& lowered,
                                                     const ir::Inputs& inputs, int output,
                                                     uint64_t max_steps);

/// Signs `found`, a finding of check_program on `program` (see the file comment).
Signature sign_program_finding(ir::Context& ctx, const ir::Kernel& program,
                               const ProgramCheckOptions& options, const ProgramCheckResult& found);

}  // namespace uopfuzz::check
