/** \file The differential check: simplify a kernel, then run the original and the rewrite
 * on the oracle over several input seeds and classify what differs.
 *
 * With more backends (CheckOptions::backends), the original on the oracle stays the
 * reference: on each seed where the oracle ran the original without UB, every other
 * backend runs the original, and the rewrite too where the oracle ran it without UB,
 * and each output is compared with the reference (SEMANTICS.md, "Comparing results",
 * with the backend's declared tolerance). A difference is a finding of that backend
 * (CheckResult::backend). A backend that cannot run a graph (an unsupported dtype or
 * op) is skipped with the reason in CheckResult::notes, never silently.
 *
 * One function serves the CLI (`uopfuzz check`), tests and, later, fuzz campaigns.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "check/latency.h"
#include "ir/kernel.h"
#include "simplifier/simplifier.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::check {

enum class FindingKind : uint8_t {
  None,
  Mismatch,         ///< an output element differs (bitwise; SEMANTICS.md "Comparing results")
  UbIntroduced,     ///< the rewrite has undefined behaviour where the original has none
  VerifierFailure,  ///< the rewrite does not pass ir::verify
  NonConvergence,   ///< a stage hit its rewrite cap
  RewriteError,     ///< the rewrite cannot even be run (e.g. a VAR it invented)
  // Only a campaign's isolation (fuzz/isolate.h) sees these: check_kernel itself dies.
  Crash,         ///< the check's process died of a signal (or a sanitizer's report)
  Timeout,       ///< the check ran past the per-graph time limit (a hang)
  BackendError,  ///< a backend failed to compile or run a graph the oracle runs
  Latency,       ///< the rewrite is slower, confirmed by the detector (check/latency.h)
  /// The rewrite ran past the oracle's step limit on a seed where the original finished:
  /// a loop the rewrite made endless, or far longer (never a clean pass).
  RewriteStepLimit,
  /// Simplifying the converged rewrite again changes it (check/idempotence.h).
  NotIdempotent,
  /// The external simplifier under test answered something that is not the protocol's
  /// (docs/external-simplifier.md). Its crashes are Crash and its hangs Timeout; all three
  /// are signed "<kind>/external[@where]/<simplifier>" with no replay.
  Protocol,
  /// The oracle computed a value outside the bounds the simplifier claimed for its node
  /// (check/bounds_check.h): a wrong fact, though no output differs (yet). Signed
  /// "unsound-bounds/<simplifier>/<OP>", the op whose bounds were wrong.
  UnsoundBounds,
};
std::string_view finding_kind_name(FindingKind k);

struct Mismatch {
  uint64_t seed = 0;
  int slot = 0;
  size_t index = 0;
  std::string expected, got;  ///< formatted values: original, rewrite
};

/// Where a check's time on compiled backends went (a campaign's per-executor figures).
struct BackendTimes {
  std::map<std::string, double> seconds;  ///< backend -> seconds compiling and running there
  /// "backend/level" (cpu/O2) -> seconds of one compile of the check's graphs (a kernel's
  /// original and rewrite together); only backends with Capabilities::opt_levels.
  std::vector<std::pair<std::string, double>> compiles;
};

/// Backends that check only the graphs `pick` chooses (a campaign's compiled backends in
/// their share of the time, fuzz/executor_schedule.h), beside CheckOptions::backends, which
/// check every graph. Asked once the rewrite is known: `changed` says whether the rewrite
/// differs from the original, `hits` which rules it took.
struct SampledBackends {
  std::vector<std::string> names;
  std::function<bool(const std::string& backend, bool changed,
                     const std::map<std::string, uint64_t>& hits)>
      pick;
};

/// Seconds of the steady clock since `t` (the times in BackendTimes and a campaign's).
double seconds_since(std::chrono::steady_clock::time_point t);

/// Appends `name` to `backends` unless it is listed already.
void add_backend(std::vector<std::string>& backends, const std::string& name);

struct CheckOptions {
  /// The simplifier under test (sut/simplifier_under_test.h); null: the built-in one,
  /// called directly. Shared: a campaign's checks reuse one external child per process.
  std::shared_ptr<sut::Simplifier> simplifier;
  simplifier::SimplifyOptions simplify;
  int seeds = 3;  ///< input seeds tried: base_seed, base_seed+1, ...
  uint64_t base_seed = 0;
  std::map<std::string, int64_t> vars;  ///< fixed VAR values (others are seed-derived)
  uint64_t max_steps = 200'000'000;     ///< per oracle run
  /// Backends (backends/registry.h) both graphs run on; "oracle" is always the reference.
  std::vector<std::string> backends{"oracle"};
  /// More backends, each for the graphs it picks (none when unset or `pick` is empty).
  SampledBackends sampled;
  int threads = 1;  ///< threads a compiled backend may use per run
  /// The level backends with Capabilities::opt_levels (cpu) compile both graphs at: a
  /// fuzzing dimension (a campaign draws it per graph; corpus headers keep it as @cpu-opt).
  backends::OptLevel opt_level = backends::OptLevel::O2;
  /// When set, a rewrite that changed the graph and checks clean is also timed against the
  /// original on `latency->backend` (on the first input seed both ran without UB); a
  /// confirmed regression is a finding of kind Latency there.
  std::optional<LatencyOptions> latency;
  /// Hold the simplifier's bounds of the original's nodes against the values the oracle
  /// computes (check/bounds_check.h): a value outside them is an UnsoundBounds finding,
  /// and a wrong rewrite's details name the innermost such node. Needs a simplifier with
  /// Capabilities::bounds (the built-in one answers from ir/analysis).
  bool check_bounds = false;
};

struct CheckResult {
  FindingKind kind = FindingKind::None;
  std::string details;             ///< one line a person can read
  std::string backend = "oracle";  ///< where the finding showed (the signature's backend field)
  std::vector<std::string> notes;  ///< e.g. a backend skipped because it cannot run a dtype
  simplifier::SimplifyResult simplified;
  std::optional<Mismatch> mismatch;
  int seeds_run = 0;      ///< seeds where both sides ran
  int seeds_skipped = 0;  ///< seeds where the original itself has UB or hits the step limit
  /// The work of the original's run on the first input seed (base_seed), whatever its
  /// status, for campaign statistics; both 0 unless original_ran.
  bool original_ran = false;
  uint64_t original_steps = 0;            ///< oracle instructions executed
  uint64_t original_iterations = 0;       ///< loop iterations (oracle::RunOutput::iterations)
  std::optional<LatencyVerdict> latency;  ///< the detector's verdict, when it ran
  /// The simplifier under test gave no rewrite: Unsupported leaves kind None (counted by
  /// reason, not a finding); Crash, Hang and Protocol set kind Crash, Timeout, Protocol.
  std::optional<sut::Failure> simplifier_failure;
  double child_seconds = 0;     ///< time spent in an external simplifier's process
  double protocol_seconds = 0;  ///< of the check's own time, spent on the protocol
  BackendTimes backend_times;   ///< the compiled backends both graphs ran on, and how long
  /// With check_bounds: the first seed's innermost value outside its claimed bounds (the
  /// op an UnsoundBounds finding is signed by, and a wrong rewrite's diagnosis).
  std::string unsound_bounds_op;
  /// Set when the check names the culprit itself (a whole-pipeline run,
  /// check/pipeline_check.h); signature_of takes it as it is.
  std::string culprit;
};

/// The first element where `got` differs from the reference `want` under a tolerance of
/// `ulps` float ULPs (0: bit for bit after NaN canonicalization); nullopt when none.
/// How far a backend's float outputs may be from the oracle's (SEMANTICS.md, "Backend
/// tolerances and capabilities"); the default is bit for bit.
struct Tolerance {
  Tolerance(int max_ulps = 0, bool sign_of_zero_free = false)  // NOLINT: implicit by design
      : ulps(max_ulps), zero_sign_free(sign_of_zero_free) {}
  int ulps;             ///< finite floats at most this many ULPs apart agree
  bool zero_sign_free;  ///< +0 and -0 agree (a backend that does not keep the sign of zero)
  /// Per element: reassociated float sums agree when at most this far apart
  /// (backends::sum_bounds; +inf: any value but NaN). NaN still only matches NaN.
  const std::vector<double>* sum_bounds = nullptr;
};
std::optional<size_t> first_difference(const ir::Buffer& want, const ir::Buffer* got,
                                       Tolerance tolerance = {});

/// How one backend's outputs for one graph and inputs compare with the oracle's: the
/// ULPs and sign of zero it declares, and the bounds of its reassociated float sums
/// (backends/float_sums.h). Default-constructed: bit for bit (the oracle's own).
struct OutputTolerance {
  Tolerance declared;
  std::map<int, std::vector<double>> sum_bounds;  ///< by output slot
  /// The tolerance for output `slot` (its sum bounds point into this object).
  Tolerance at(int slot) const;
};
/// Errors: the sum bounds cannot be computed (the magnitude graph does not run).
Result<OutputTolerance> output_tolerance(ir::Context& ctx, backends::Backend& backend,
                                         ir::UOp graph, const oracle::Inputs& inputs);
/// Whether `got` agrees with element i of `want` under `tolerance` (first_difference's test).
bool agrees_at(const ir::Buffer& want, size_t i, ir::Value got, Tolerance tolerance = {});

CheckResult check_kernel(ir::Context& ctx, const ir::Kernel& kernel,
                         const CheckOptions& options = {});

/// Called at the start of every check_kernel in this process (nullptr: none). A campaign's
/// isolated worker restarts its hang timer there, so that signing and shrinking a finding
/// (many checks, each compiling on every backend) is timed check by check, not as one.
void set_check_started_hook(void (*hook)());

}  // namespace uopfuzz::check
