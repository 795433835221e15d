/** \file A fuzz campaign: generate, check, sign, shrink, keep.
 *
 * For each graph seed: a fresh Context, a generated kernel, the differential check; a
 * finding is signed by trace replay (check/dedup.h), and the first case of each
 * signature is reduced and written to the corpus (atomically) before the campaign goes
 * on. The same seed gives the same sequence of graphs on any machine.
 *
 * With `isolate`, graphs are checked in forked worker processes (fuzz/process_pool.h,
 * `jobs` of them; worker w takes graphs w, w+jobs, w+2*jobs, ...). A worker that dies or runs past
 * `graph_timeout_s` on one graph is replaced by a new one that goes on after that graph,
 * and the graph becomes a finding of kind crash or timeout, signed by the rule that was
 * running (fuzz/isolate.h) and reduced in a separate triage process whose every attempt
 * runs in its own child. Only the parent writes the corpus, so one signature is one file.
 *
 * With `mutation.share` > 0 (rule-coverage-guided mutation, Fuzzilli's approach): each
 * checker (each worker) keeps a small corpus of the clean graphs that first made a rule fire,
 * or a pair of rules fire together; once it holds one, graph i is, with probability `share`
 * (drawn from graph i's seed), a mutant (gen/mutate.h) of a corpus graph instead, the parent
 * drawn with weight toward graphs that fire the rules this checker has seen fire least. A
 * graph that is not a mutant is the generated graph i, as without mutation; a mutation that
 * is rejected falls back to it. A mutant is a function of its parent's text, a donor's text
 * and a seed (MutantRecipe), which is how an isolated worker's crash on one is reproduced.
 *
 * At the tensor level (or for the tensor share of a mixed campaign) graph i is a tensor
 * program from CampaignOptions::tensor_source, checked by check::check_program and signed by
 * check::sign_program_finding; its findings are reduced and kept like a kernel's. Which
 * level graph i gets is a function of the campaign seed and i alone.
 */
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "check/dedup.h"
#include "check/program_check.h"
#include "fuzz/executor_schedule.h"
#include "fuzz/shard.h"
#include "gen/policy.h"
#include "ir/kernel.h"
#include "reduce/reducer.h"

namespace uopfuzz::fuzz {

/// Builds the kernel for one graph seed (the generator, or a test's stand-in). It must
/// be a function of the seed alone: isolated workers call it in separate processes.
using GraphSource = std::function<ir::Kernel(ir::Context&, uint64_t graph_seed)>;
/// Shrinks a finding's kernel while `still` holds (the reducer, or none). The campaign
/// supplies the predicate: keeps_finding for the check's kinds, an isolated re-run for
/// crashes and hangs.
using Shrinker =
    std::function<ir::Kernel(ir::Context&, const ir::Kernel&, const reduce::Interesting& still)>;

/// The usual shrinker: reduce::reduce with a time budget.
Shrinker reducer_shrinker(double max_seconds = 10);

/// Rule-coverage-guided mutation (see the file comment).
struct MutationOptions {
  double share = 0;          ///< chance that a graph is a mutant once the corpus has one (0: off)
  size_t corpus_size = 256;  ///< graphs each checker keeps to mutate
  gen::GenPolicy policy;     ///< its repair settings (check_seeds, max_repairs) serve mutants
};

/// What makes one mutant again: gen::mutate(parent, donor, seed) on the parsed texts.
struct MutantRecipe {
  std::string parent_text, donor_text;
  uint64_t seed = 0;
};

/// The mutant a recipe makes, in `ctx` (nullopt: the texts do not parse or it is rejected).
std::optional<ir::Kernel> make_mutant(ir::Context& ctx, const MutantRecipe& recipe,
                                      const gen::GenPolicy& policy);

/// Which graphs a campaign tries: kernels, tensor programs (lowered, then checked by
/// check::check_program), or both (graph i is a tensor program when is_tensor_graph says so).
enum class Level : uint8_t { Kernel, Tensor, Mixed };
std::string_view level_name(Level level);
std::optional<Level> parse_level(std::string_view name);

struct CampaignOptions {
  double seconds = 60;      ///< wall-clock budget
  uint64_t max_graphs = 0;  ///< 0: until the time is up; else graph indices below it
  /// This run checks the graph indices i with i % shard.count == shard.index: N machines
  /// given 0/N .. N-1/N split one campaign (same seed) with no coordination, and together
  /// check what one machine would (mutants aside: each draws from the graphs it has seen).
  Shard shard;
  uint64_t seed = 1;          ///< campaign seed: graph i uses graph_seed(seed, i)
  check::CheckOptions check;  ///< simplifier switches (planted bugs), input seeds
  /// Compiled backends that check a share of the graphs, in a share of the time, beside
  /// check.backends, which check every graph (fuzz/executor_schedule.h).
  ExecutorSchedule schedule;
  /// The level compiling backends compile graph i at: nullopt draws it from the graph's
  /// seed (cpu_opt_for), a value fixes it for every graph.
  std::optional<backends::OptLevel> opt_level;
  /// Where new findings go ("" : not written); an external simplifier's go to its own
  /// folder below it (findings_dir).
  std::string corpus_dir;
  std::string found_by;  ///< recorded in each case's header (e.g. the command)
  /// Ends the campaign once a new finding (signature) it returns true for is kept (the
  /// parent calls it; nullptr: never). The selftest stops at the first finding that is
  /// its planted bug rather than a real one.
  std::function<bool(const struct NewFinding&)> stop_when;
  bool isolate = false;         ///< check in forked workers: crashes and hangs become findings
  int jobs = 1;                 ///< worker processes (isolate only)
  double graph_timeout_s = 10;  ///< isolate: seconds one graph may take before it is a hang
  double triage_timeout_s = 1;  ///< isolate: limit for each re-run while reducing a crash or hang
  /// With check.latency: graph i is timed only when i % latency_every == 0 (a sample of
  /// the same graphs whatever the number of jobs), so that throughput stays useful.
  uint64_t latency_every = 1;
  MutationOptions mutation;  ///< off unless mutation.share > 0 (kernels only)
  Level level = Level::Kernel;
  /// Builds the tensor program for one graph seed (a function of the seed alone, like the
  /// GraphSource); needed unless level is Kernel.
  GraphSource tensor_source;
  schedule::LowerOptions lower;  ///< planted lowering bugs (tensor programs)
  /// Which lowering options each tensor program draws from its graph seed
  /// (fuzz/tensor_graph.h, lowering_for) instead of taking `lower`'s: a command switches a
  /// draw off when its option is given explicitly.
  struct LoweringVariation {
    bool pcontig = true;
    bool split_reduce_threshold = true;
    /// One program in kLoweringRuleOffEvery lowers with one tensor rule switched off:
    /// every rule is an optimization, so the lowering must be right without each of them
    /// (the paths a rule's firing otherwise hides).
    bool rule_off = true;
  } vary_lowering;
  /// Called about twice a second, and once at the end.
  std::function<void(const struct CampaignProgress&)> on_progress;
};

/// What the latency detector measured on a finding's minimized case (check/latency.h).
struct LatencyFigures {
  double ratio = 1, p_value = 1;  ///< first round: median ratio rewritten/original, U test
  double rerun_ratio = 1, rerun_p_value = 1;  ///< the confirming rerun
  bool confirmed = false;                     ///< confirmed on the minimized case itself
};

/// The figures of a detector's verdict.
LatencyFigures latency_figures(const check::LatencyVerdict& v);

struct NewFinding {
  check::Signature signature;
  uint64_t graph_seed = 0;
  uint64_t graph_index = 0;  ///< how many graphs the campaign had tried before it
  double seconds = 0;        ///< time into the campaign when it was found
  size_t nodes_found = 0, nodes_reduced = 0;
  std::string details;       ///< the check's one-line description
  std::string reduced_text;  ///< the minimized case as .uop text ("" when none could be made)
  std::string corpus_text;   ///< the corpus entry: reduced_text with its replay header
  std::string path;          ///< corpus file ("" when not written)
  std::string write_error;   ///< why it could not be written, if so
  std::optional<LatencyFigures> latency;  ///< latency findings only
  bool tensor = false;                    ///< a tensor program's (its lowering's) finding
};

/// How often each value was seen: exact medians that add up across worker processes
/// (graph sizes and run lengths repeat a lot, so it stays far smaller than the stream).
struct Histogram {
  std::map<uint64_t, uint64_t> counts;
  void add(uint64_t value, uint64_t times = 1) { counts[value] += times; }
  /// The lower median (the middle value of an odd count); 0 when empty.
  uint64_t median() const {
    uint64_t n = 0, seen = 0;
    for (const auto& [v, c] : counts) n += c;
    for (const auto& [v, c] : counts)
      if ((seen += c) * 2 >= n) return v;
    return 0;
  }
};

struct CampaignProgress {
  double seconds = 0;
  uint64_t graphs = 0;
  /// What a typical checked graph is, to read the throughput by: medians (the lower
  /// middle value; 0 before any) of the original graph's node count, and of its loop
  /// iterations and oracle steps on the first input seed (graphs whose check ran it).
  uint64_t median_nodes = 0;
  uint64_t median_iterations = 0;
  uint64_t median_steps = 0;
  uint64_t findings = 0;       ///< all findings, duplicates included
  uint64_t workers_lost = 0;   ///< isolate: workers that crashed or hung (each one a finding)
  uint64_t latency_timed = 0;  ///< graphs the latency detector timed (check.latency; sampled)
  int jobs = 1;
  uint64_t mutated = 0;           ///< graphs that were mutants (the rest were generated)
  uint64_t mutants_rejected = 0;  ///< mutant turns whose mutation was rejected (generated instead)
  std::map<std::string, uint64_t> by_signature;
  std::map<std::string, uint64_t> rule_hits;
  /// Generated near misses (gen/near_miss.h) by row name, "rule:condition".
  std::map<std::string, uint64_t> near_misses;
  ir::GateCounts gate_counts;          ///< each rule's gates: how often they accepted and declined
  Histogram nodes, iterations, steps;  ///< what the medians above are taken from
  /// Graphs by size, with the seconds workers spent generating and checking them (their
  /// rates differ by orders of magnitude): large when the original ran kLargeIterations or
  /// more loop iterations on the first input seed, else small.
  uint64_t small_graphs = 0, large_graphs = 0;
  double small_seconds = 0, large_seconds = 0;
  /// Tensor programs among the graphs (the rest are kernels, counted small or large above),
  /// the seconds spent on them, those no part of the pipeline could take yet (unsupported:
  /// not findings), and their node counts.
  uint64_t tensor_programs = 0, tensor_unsupported = 0;
  double tensor_seconds = 0;
  Histogram tensor_nodes;
  /// The simplifier under test (check.simplifier): its name and version ("" until a worker
  /// has asked it), the graphs it declined by reason (counted, never findings: a tensor
  /// program with a declined kernel counts once), and the seconds its requests spent in
  /// its process and, of the rest, on the protocol (both 0 for the built-in one).
  std::string simplifier = "builtin";
  std::string simplifier_version;
  std::map<std::string, uint64_t> unsupported;
  double child_seconds = 0, protocol_seconds = 0;
  /// Each compiled backend: the graphs checked on it (every one listed in check.backends,
  /// the picked ones of schedule.backends) and the seconds spent compiling and running
  /// there. The oracle's are the rest: every graph, and the worker time not counted here.
  struct Executor {
    uint64_t graphs = 0;
    double seconds = 0;
  };
  std::map<std::string, Executor> executors;
  /// Compile times in microseconds by "backend/level" (cpu/O2): one per check's compile of
  /// a kernel's original and rewrite together.
  std::map<std::string, Histogram> compile_us;
};

/// The seconds workers spent on graphs (generating, simplifying, checking everywhere).
inline double worker_seconds(const CampaignProgress& p) {
  return p.small_seconds + p.large_seconds + p.tensor_seconds;
}

/// Loop iterations from which a graph counts as large (CampaignProgress::large_graphs).
inline constexpr uint64_t kLargeIterations = 10'000;

/// Graphs per second of worker time (0 when none took any time).
inline double graphs_per_second(uint64_t graphs, double seconds) {
  return seconds > 0 ? double(graphs) / seconds : 0;
}

struct CampaignResult {
  CampaignProgress totals;
  std::vector<NewFinding> new_findings;  ///< one per signature, in the order found
};

uint64_t graph_seed(uint64_t campaign_seed, uint64_t index);

/// The compile level of the graph with seed `graph_seed` when a campaign draws it: O0 .. O3
/// in the shares kOptLevelShares: O0 most (the fast instruction selector and register
/// allocator: a different code generator, and a compile six times cheaper than O2's), O2
/// (the level everything else compiles at) a quarter, O3 (unrolling and the SLP vectorizer
/// too, twice O2's compile) the least.
inline constexpr std::array<double, backends::kOptLevelCount> kOptLevelShares{0.50, 0.15, 0.25,
                                                                              0.10};
backends::OptLevel drawn_opt_level(uint64_t graph_seed);

/// `o.opt_level` when fixed, else drawn_opt_level(graph_seed).
backends::OptLevel opt_level_for(const CampaignOptions& o, uint64_t graph_seed);

/// Where a campaign with `corpus_dir` keeps the findings of `simplifier` (a name as
/// sut::Simplifier::name gives it): corpus_dir itself for the built-in one, else the
/// subfolder named after it ("tinygrad"; "external" for every external:CMD).
std::string findings_dir(const std::string& corpus_dir, const std::string& simplifier);

/// Whether graph i of a campaign at `level` with seed `campaign_seed` is a tensor program:
/// at Mixed, one graph in four, drawn from the graph's seed.
bool is_tensor_graph(Level level, uint64_t campaign_seed, uint64_t index);

/// Every rule that fired fewer than `target` times (zero included), by name, except the
/// rules that cannot fire or only record (simplifier/unfireable.h), then the tensor-stage
/// rules (schedule::tensor_rule_names()) when tensor programs were checked. The built-in rules
/// only: empty for a campaign of an external simplifier (its rules are the ones it hit).
std::vector<std::pair<std::string, uint64_t>> rules_below(const CampaignProgress& p,
                                                          uint64_t target);

CampaignResult run_campaign(const CampaignOptions& options, const GraphSource& source,
                            const Shrinker& shrink = {});

}  // namespace uopfuzz::fuzz
