/** \file Results files (docs/results-format.md) loaded into plain structs: the bench
 * results of `uopfuzz bench` and the fuzz summaries of `uopfuzz fuzz --json`, told apart by
 * their keys, each with the shared context block that says when, where and from which
 * commit the run came. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/result.h"

namespace uopfuzz::report {

/// One entry of context.devices: what a run measured or checked on.
struct Device {
  std::string backend;  // "cpu", "vulkan", ...
  std::string device;   // the name the dashboard groups by
  std::string driver;
  std::string driver_info;
  std::string api_version;
  std::string device_type;
};

struct RunContext {
  std::string date;                      // ISO 8601, as written
  std::optional<int64_t> epoch_seconds;  // `date` parsed (UTC); runs are ordered by it
  std::string host_name;
  std::string executable;
  std::string uopfuzz_version;
  std::string commit;  // full hash, maybe with "-dirty"; "unknown" outside git
  std::string machine;
  std::string cases;            // bench only
  std::optional<int64_t> reps;  // bench only
  std::vector<Device> devices;
};

/// One row of "benchmarks": the median of `iterations` samples of one variant of one case.
struct Benchmark {
  std::string name;
  std::string measure;  // "run" or "compile"
  std::string backend;
  std::string device;
  std::string case_name;
  std::string variant;  // "original" or "rewritten"
  std::string clock;    // "host" or "device"
  int64_t iterations = 0;
  // Times in nanoseconds, converted from the file's time_unit so that runs written with
  // different units compare.
  double real_time_ns = 0;
  std::optional<double> min_ns, max_ns;
  std::vector<double> samples_ns;
};

/// One row of "comparisons": rewritten vs original run time of one case on one device.
struct Comparison {
  std::string backend;
  std::string device;
  std::string case_name;
  double original_ns = 0;
  double rewritten_ns = 0;
  double speedup = 0;             // original_ns / rewritten_ns as the file states it
  std::optional<double> p_value;  // absent (or null) when the test could not run
  bool regressed = false;
  bool confirmed = false;
  bool rewrite_changed = true;
  std::string corpus_case;  // "" when there is none
};

/// The detector's numbers for a latency finding (both the finding run and the rerun).
struct LatencyStats {
  double ratio = 0;  // rewritten / original
  std::optional<double> p_value;
  std::optional<double> confirm_ratio, confirm_p_value;
  /// Whether the minimized case itself measured as a confirmed regression when it was
  /// written (a campaign's finding was confirmed when found; its case may not repeat it).
  bool confirmed = true;
};

struct FuzzFinding {
  std::string signature;  // kind/culprit rule/backend
  std::string kind;       // "latency", "mismatch", ...
  std::string backend;
  std::optional<int64_t> graph_index;
  std::optional<uint64_t> graph_seed;
  std::optional<double> seconds;
  std::optional<int64_t> nodes_found, nodes_reduced;
  std::string path;         // the minimized case; "" when it was not written
  std::string write_error;  // why it was not written; "" when it was (or was not asked for)
  std::string details;
  /// An external simplifier's finding: the root cause (root-causes.md) that explains it, ""
  /// when none does (a new root cause), and the standalone reproducer written for it.
  std::string root_cause;
  std::string reproducer;
  std::optional<LatencyStats> latency;  // latency findings only
  /// "tensor": a tensor program's finding (a latency one timed its whole Programs);
  /// "" : a kernel's.
  std::string level;
};

struct FuzzSummary {
  std::optional<uint64_t> seed;
  double seconds = 0;
  int64_t graphs = 0;
  double graphs_per_second = 0;
  int64_t jobs = 1;
  std::vector<std::string> backends;
  bool latency = false;
  int64_t workers_lost = 0;   // isolated workers lost to crashes or hangs
  int64_t latency_timed = 0;  // graphs the latency detector timed
  // The typical graph: medians of node count, loop iterations and oracle steps.
  int64_t median_nodes = 0, median_iterations = 0, median_steps = 0;
  // Graphs by size (large: 10^4 or more loop iterations of the original on the first
  // seed) and each class's rate in graphs per second of worker time.
  int64_t small_graphs = 0, large_graphs = 0;
  double small_graphs_per_second = 0, large_graphs_per_second = 0;
  int64_t findings = 0;
  std::vector<std::pair<std::string, int64_t>> by_signature;  // in file order
  std::vector<std::pair<std::string, int64_t>> rule_hits;     // in file order
  std::vector<std::pair<std::string, int64_t>> near_misses;   // generated near misses by row
  // Gate coverage: each gated rule's gates, in its gate order, as {accepted, declined};
  // and the gates ("rule#i") never seen declining, never seen accepting.
  std::vector<std::pair<std::string, std::vector<std::pair<int64_t, int64_t>>>> gate_counts;
  std::vector<std::string> gates_never_declined, gates_never_accepted;
  std::vector<FuzzFinding> new_findings;
  // Rule-coverage-guided mutation: the share asked for, the graphs that were mutants (the
  // rest were generated), and the coverage target: every rule that fired fewer than
  // rule_hit_target times, and the rules that cannot fire, each with the reason.
  double mutate_share = 0;
  int64_t graphs_mutated = 0;
  int64_t rule_hit_target = 0;
  std::vector<std::pair<std::string, int64_t>> rules_below_target;  // in file order
  std::vector<std::pair<std::string, std::string>> unfireable_rules;
};

/// One entry of "roofline" (a suite run): a backend's measured streaming bandwidth and
/// arithmetic rate; both absent (error set) where they could not be measured.
struct RooflineRow {
  std::string backend, device;
  std::optional<double> gbps, gops, balance;
  std::string error;
};

/// One variant of a suite case at one size: its median time, what it achieved and the
/// fraction of its roofline bound (absent when the backend's roofline was not measured).
struct SuiteVariant {
  double ns = 0, gbps = 0, gops = 0;
  std::optional<double> fraction;
};

/// A suite point's "other_lowering" (`bench --suite real --tinygrad-lowering`): another
/// simplifier's lowering of the tensor program, timed beside ours (our rewritten Program).
struct OtherLowering {
  std::string simplifier;                        ///< "tinygrad"
  double ours_ns = 0, theirs_ns = 0, ratio = 0;  ///< ratio = ours_ns / theirs_ns
  int64_t kernels_ours = 0, kernels_theirs = 0, intermediates_ours = 0, intermediates_theirs = 0;
};

/// One entry of "suite_points": a suite case at one size on one device.
struct SuitePoint {
  std::string case_name, form, backend, device;
  int64_t size = 0, bytes = 0, ops = 0;
  std::string bound;  // "memory", "compute" or "unknown"
  SuiteVariant original, rewritten;
  double speedup = 0;
  bool confirmed = false, rewrite_changed = true;
  int64_t kernels_original = 1, kernels_rewritten = 1;
  std::optional<OtherLowering> other_lowering;
};

/// One entry of "size_regressions": a confirmed regression and the smallest size showing it.
struct SizeRegression {
  std::string case_name, backend, device;
  int64_t found_at = 0, smallest = 0;
  double ratio = 0;
};

enum class ResultsKind { Bench, Fuzz };

struct LoadedResults {
  std::string path;  // as given to load_results
  ResultsKind kind = ResultsKind::Bench;
  RunContext context;
  // kind == Bench:
  std::vector<Benchmark> benchmarks;
  std::vector<Comparison> comparisons;
  // A suite run (`bench --suite`): its preset ("" for other bench runs), rooflines, points.
  std::string suite_preset;
  std::vector<RooflineRow> roofline;
  std::vector<SuitePoint> suite_points;
  std::vector<SizeRegression> size_regressions;
  // kind == Fuzz:
  FuzzSummary fuzz;
};

/// Parses the text of one results file. The error is "not a uopfuzz results file: WHY",
/// WHY naming the offending key (e.g. "comparisons[2].speedup: expected a number, got
/// string"); Error::loc is the JSON syntax error's line and column when there is one.
/// Keys the format marks as optional may be missing; a key that is present must have its
/// documented type, so that a dashboard never draws a silently defaulted number.
Result<LoadedResults> parse_results(std::string_view text, const std::string& path);

/// The text of a fuzz summary (`uopfuzz fuzz --json`) that parse_results reads back as
/// `summary`: `context` is the context block as JSON text (bench/run_context.h writes
/// it; it is copied as it is). Optional numbers of `summary` that are absent are left out.
std::string fuzz_summary_json(const FuzzSummary& summary, std::string_view context);

/// Reads and parses PATH. Errors: "PATH: not a uopfuzz results file: WHY" or
/// "PATH: cannot read the file".
Result<LoadedResults> load_results(const std::string& path);

/// Seconds since 1970-01-01 UTC of an ISO 8601 date-time "YYYY-MM-DDTHH:MM:SS[.frac]"
/// followed by "Z", "+HH:MM", "-HH:MM" or nothing (then UTC); nullopt when malformed.
std::optional<int64_t> parse_iso8601(std::string_view date);

/// The first 7 characters of a commit hash, keeping a "-dirty" suffix; other strings
/// ("unknown", "") as they are.
std::string short_commit(const std::string& commit);

/// Runs in date order (files whose date does not parse last, then by path): the order of
/// every "across runs" view.
std::vector<const LoadedResults*> by_date(const std::vector<LoadedResults>& runs);

}  // namespace uopfuzz::report
