/** \file The simplifier under test, as a value: the built-in C++ rules in process, or an
 * external simplifier (another project's rewriter, tinygrad's first) behind the protocol of
 * docs/external-simplifier.md. Everything downstream of the rewrite (check, dedup, reduce,
 * corpus, latency) takes one of these and treats both alike.
 *
 * An external simplifier is one persistent child process per worker: the first request in
 * a process starts it, later requests reuse it, and a request made in a forked worker starts
 * that worker's own child (the parent's pipes are never shared). When the child crashes,
 * hangs past the per-graph timeout or answers something unparsable, the request fails with
 * that kind (a finding of its own) and the next request starts a fresh child.
 */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"
#include "ir/result.h"
#include "ir/run_io.h"
#include "ir/uop.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::sut {

/// Why a simplifier under test gave no rewrite.
enum class FailureKind : uint8_t {
  Unsupported,  ///< it declines the kernel with a reason: counted per reason, not a finding
  Crash,        ///< it raised an error, or its process died
  Hang,         ///< no answer within the per-graph timeout
  Protocol,     ///< an answer that is not a frame of the protocol, or a kernel that does not parse
};
std::string_view failure_kind_name(FailureKind k);  ///< "unsupported", "crash", "hang", "protocol"

struct Failure {
  FailureKind kind = FailureKind::Crash;
  std::string reason;  ///< one line: the unsupported reason, the error, the exit status
  /// Where in the simplifier's own source a crash was raised ("file:line"), when it says;
  /// it tells two crash bugs apart in a signature.
  std::string where;
  std::string log;  ///< what the child wrote (its traceback, the tail of its stderr)
};

/// What a simplifier believes of one integer or bool node of the graph it was given: every
/// value the node takes lies in [lo, hi] (plain integers; an unsigned 64-bit value keeps
/// its whole range) and is a multiple of `multiple_of` (1: no claim).
struct ClaimedBounds {
  ir::UOp node;
  __int128 lo = 0, hi = 0;
  int64_t multiple_of = 1;
};

struct Outcome {
  /// The rewrite (root, converged, hits; the built-in one also fills stages, gates and the
  /// trace). Meaningful only when !failure.
  simplifier::SimplifyResult result;
  std::optional<Failure> failure;
  /// Seconds the request spent in another process: 0 in process; for an external one, from
  /// sending the request to its last frame (the rest of the check's time is ours).
  double child_seconds = 0;
  double protocol_seconds = 0;  ///< of those, ours: printing the request, parsing the answer
  /// With SimplifyOptions::bounds, from a simplifier that can say them: its bounds of the
  /// original graph's nodes (the check holds the oracle's values against them).
  std::vector<ClaimedBounds> bounds;
  /// ... and of the rewrite's nodes, from a simplifier whose analysis can be asked about any
  /// graph (the built-in one): a wrong fact about a node only a rewrite creates is as wrong.
  std::vector<ClaimedBounds> rewrite_bounds;
};

/// Which SimplifyOptions a simplifier honours. An option it does not honour is ignored, so
/// the callers that need one (planted bugs, trace replay, rule bisection) ask first.
struct Capabilities {
  bool bugs = false;        ///< SimplifyOptions::bugs: the built-in planted bugs
  bool disable = false;     ///< SimplifyOptions::disabled: rules switched off by name
  bool stop_after = false;  ///< SimplifyOptions::stop_after: the graph after k rule applications
  bool trace = false;       ///< SimplifyOptions::trace: each application's node and rule
  bool stages = false;      ///< optimize=false and final_stage_only
  /// Its float rewrites need not keep the sign of zero (x+0 -> x): a declared difference of
  /// semantics, so its rewrite's float outputs compare with +0 matching -0.
  bool zero_sign_free = false;
  /// It reports the bounds it believes of each node of the graph it is given
  /// (SimplifyOptions::bounds, Outcome::bounds).
  bool bounds = false;
  /// Shape families it always declines at its stage (its hello's `declines:` words:
  /// "quantized", "range-end-0", ...): a campaign generates none of those it knows
  /// (gen/declines.h) and ignores the rest.
  std::set<std::string> declines;
  /// It runs a whole graph end to end on devices of its own (its hello's `run` capability,
  /// docs/external-simplifier.md, "Runs"): Simplifier::run.
  bool run = false;
  bool split_reduce_threshold = false;  ///< RunRequest::split_reduce_threshold
  /// Its devices that run here, in its order of preference (the hello's `devices:`).
  std::vector<std::string> devices;
  /// The work a device takes at most (the hello's `device-limits: PYTHON=20000`): a tensor
  /// program's elements over all its nodes, a kernel's loop iterations on the oracle. A
  /// device an emulator makes slow is not asked to run more; one not named has no limit.
  std::map<std::string, int64_t> device_limits;
  /// The spellings of a graph it can build in its own IR where `.uop` has one (the hello's
  /// `forms:`, SimplifyOptions::forms): a campaign asks for some of them per graph.
  std::vector<std::string> forms;
};

/// What one of its devices computed in a run.
struct DeviceRun {
  std::string device;  ///< the simplifier's name for it ("PYTHON", "CPU")
  /// By REALIZE index for a tensor program, by output PARAM slot for a kernel; set unless
  /// `failure` is.
  std::map<int, ir::Buffer> outputs;
  std::optional<Failure> failure;  ///< a Crash: it raised scheduling, compiling or running there
};

/// A run of a whole graph through the simplifier's own pipeline (Simplifier::run).
struct RunRequest {
  std::vector<std::string> devices;  ///< some of Capabilities::devices; empty: all of them
  bool program = false;              ///< a tensor program: hand back the kernels it scheduled
  /// Its own knob for splitting a reduce in two kernels, where it has one (the hello's
  /// `split-reduce-threshold` capability): the program's drawn LowerOptions value, so
  /// that small generated programs reach its split reduce as they reach ours.
  std::optional<int64_t> split_reduce_threshold;
  std::vector<std::string> forms;  ///< of a kernel: as SimplifyOptions::forms
};

struct RunAnswer {
  std::vector<DeviceRun> devices;  ///< one per device that ran, in the order they answered
  /// With RunRequest::program: the kernels it scheduled, as a Program (verified by the
  /// caller), or why `.uop` cannot express them.
  std::optional<ir::Program> program;
  std::string program_missing;
  std::map<std::string, uint64_t> hits;  ///< the rules that fired anywhere in its pipeline
  /// No run at all: it declined the graph (Unsupported), raised before any device's work,
  /// hung, or broke the protocol.
  std::optional<Failure> failure;
  double child_seconds = 0, protocol_seconds = 0;
};

/// The class of an `unsupported` reason: the id in brackets it starts with (`[quantized]
/// quantized dtype qint8 ...` -> "quantized"), else "unclassified". A campaign counts its
/// declines per class.
std::string decline_class(std::string_view reason);

class Simplifier {
 public:
  virtual ~Simplifier() = default;
  /// "builtin", "tinygrad", or "external:CMD": what `--simplifier` took, as corpus headers
  /// and JSON record it.
  virtual std::string name() const = 0;
  /// What version of it runs ("uopfuzz <git describe>", a tinygrad commit); an external one
  /// learns it from its child's hello, so this may start the child. "" when unknown.
  virtual std::string version() = 0;
  virtual Capabilities capabilities() = 0;
  /// Which of its stages runs, for a simplifier that has several (its hello's `stage:`;
  /// the tinygrad adapter's "symbolic" or "full"); "" when it names none.
  virtual std::string stage() { return ""; }
  /// The rewrite of the kernel rooted at `root` (a SINK), made in `ctx`.
  virtual Outcome simplify(ir::Context& ctx, ir::UOp root,
                           const simplifier::SimplifyOptions& options) = 0;
  /// The graph rooted at `root` (a tensor program, or a kernel at a `pipeline` stage) run
  /// end to end on `inputs` by the simplifier's own pipeline and devices. Only for one with
  /// Capabilities::run; any other answers Unsupported.
  virtual RunAnswer run(ir::Context& ctx, ir::UOp root, const ir::Inputs& inputs,
                        const RunRequest& request);
};

/// The built-in simplifier (simplifier::simplify, in process, every capability).
std::shared_ptr<Simplifier> builtin();

/// How to start and run an external simplifier.
struct ExternalOptions {
  double timeout_s = 10;          ///< seconds one request may take before it is a hang
  double startup_timeout_s = 60;  ///< seconds the child may take to say hello
  // The tinygrad adapter (adapters/tinygrad/):
  std::string tinygrad_path;  ///< a tinygrad checkout ("" : $TINYGRAD_PATH, else an importable one)
  std::string tinygrad_stage = "symbolic";  ///< "symbolic" or "full"
  std::vector<std::string> adapter_bugs;    ///< the adapter's planted bugs to switch on
  std::string python = "python3";
};

/// The simplifier `spec` names: "builtin", "tinygrad" or "external:CMD" (CMD run by
/// /bin/sh). Errors: an unknown spec; for tinygrad, no tinygrad found (the message says how
/// to point at one) or no adapter script. An external child is started lazily, on first use.
Result<std::shared_ptr<Simplifier>> make_simplifier(std::string_view spec,
                                                    const ExternalOptions& options = {});

/// The built-in simplifier's bounds of `root`'s integer and bool nodes (ir/analysis), as
/// claims: a uint64 interval capped at INT64_MAX (the analysis's documented cap, which its
/// rules respect) claims nothing above its lower bound. A node's `multiple_of` is the
/// largest of the graph's divisors and moduli (the CONST operands of IDIV and MOD, and the
/// multiple_of of its VARs and PARAMs: what the rules ask `divides` about) that the
/// analysis proves divides it.
std::vector<ClaimedBounds> builtin_bounds(ir::UOp root);

/// The rewrite of `root` by `sut`, or by the built-in simplifier when `sut` is null: the
/// one call site every check goes through.
Outcome simplify_with(Simplifier* sut, ir::Context& ctx, ir::UOp root,
                      const simplifier::SimplifyOptions& options);

}  // namespace uopfuzz::sut
