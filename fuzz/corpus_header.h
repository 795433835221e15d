/** \file The metadata lines of a findings-corpus case (@signature, @check, @check-backends,
 * @check-latency, @found-by, ...): written by a campaign into the case's header, read back by
 * `uopfuzz replay`, which re-checks the case as they ask. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "check/differential.h"
#include "ir/kernel.h"
#include "ir/result.h"
#include "schedule/lower.h"

namespace uopfuzz::fuzz {

/// The pcontig levels buffer removal tells apart (schedule::LowerOptions::pcontig).
inline constexpr int kMinPcontig = 0;
inline constexpr int kMaxPcontig = 4;

/// A latency finding: the replay re-times the case on `backend` (with the faithful
/// simplifier there must be no confirmed regression). The figures are the detector's
/// when the case was found, kept to 3 digits.
struct CorpusLatency {
  std::string backend;                        ///< @check-latency: a compiled backend
  double ratio = 1, p_value = 1;              ///< @latency-ratio, @latency-p
  double rerun_ratio = 1, rerun_p_value = 1;  ///< @latency-rerun-ratio, @latency-rerun-p
  bool confirmed = false;                     ///< @latency-confirmed yes|no
  friend bool operator==(const CorpusLatency&, const CorpusLatency&) = default;
};

struct CorpusHeader {
  std::string signature;  ///< @signature kind/rule/backend ("" when absent)
  /// @check clean: the faithful simplifier's rewrite must pass the differential check on
  /// the case (the bug it found stays fixed).
  bool check_clean = false;
  /// @check-backends oracle,cpu: where that check runs (empty: the check's default).
  std::vector<std::string> check_backends;
  std::string found_by;                ///< @found-by: the command that found it
  std::optional<uint64_t> graph_seed;  ///< @graph-seed: the generator's seed of the graph
  std::string details;                 ///< @details: the check's one-line description
  std::optional<CorpusLatency> latency;
  /// @simplifier: the simplifier under test that made the finding ("" : the built-in one,
  /// which writes no line, so that its cases read as they always have), and
  /// @simplifier-version: what version of it ran ("" when not known).
  std::string simplifier;
  std::string simplifier_version;
  /// @simplifier-stage: which of its stages ran, for a simplifier that has several (the
  /// tinygrad adapter's symbolic or full; "" : its default).
  std::string simplifier_stage;
  /// @forms: the spellings of the kernel the external simplifier was asked to build in its
  /// own IR (SimplifyOptions::forms), space-separated; the replay asks for them again.
  std::vector<std::string> forms;
  /// @verdict real|difference and @root-cause ID: a triaged finding of an external
  /// simplifier; the ID is an entry of root-causes.md beside it (fuzz/root_causes.h).
  std::string verdict;
  std::string root_cause;
  /// @pcontig and @split-reduce-threshold: the lowering options a tensor program was found
  /// (or is meant to be run) at; absent: schedule::LowerOptions' defaults.
  std::optional<int> pcontig;
  std::optional<int64_t> split_reduce_threshold;
  /// @lower-disable RULE...: tensor rules the lowering ran without (LowerOptions::disabled).
  std::vector<std::string> lower_disabled;
  /// @kernels: how many kernels the program lowers to at those options (a tensor example).
  std::optional<int64_t> kernels;
  /// @cpu-opt O0..O3: the level the cpu compiled the case at when it was found (the
  /// replay compiles it there; absent: the default, O2).
  std::optional<backends::OptLevel> cpu_opt;
  friend bool operator==(const CorpusHeader&, const CorpusHeader&) = default;
};

/// Records the simplifier under test of `options` in `header` (nothing for the built-in
/// one); asks an external simplifier for its version.
void record_simplifier(CorpusHeader& header, const check::CheckOptions& options);

/// The words of a kernel header's `@forms` line (SimplifyOptions::forms; none: empty).
std::vector<std::string> recorded_forms(const ir::KernelHeader& header);

/// The header lines (ir::KernelHeader::extra) that say `header`, in a fixed order; absent
/// fields have no line. Free text (found-by, details) is made one printable line: '#'
/// (a comment) and line breaks become blanks, and an empty text is written "-".
std::vector<std::pair<std::string, std::string>> corpus_header_lines(const CorpusHeader& header);

/// Records the lowering options `options` says (pcontig, split-reduce threshold, rules
/// switched off) in `header`.
void record_lowering(CorpusHeader& header, const schedule::LowerOptions& options);

/// `options` with the lowering options `header` records.
schedule::LowerOptions with_recorded_lowering(schedule::LowerOptions options,
                                              const CorpusHeader& header);

/// Reads the corpus lines of a parsed case's header; other keys are ignored. `text` is
/// the case's .uop text: errors carry the line of the offending key in Error::loc
/// (line 0 without it). Errors: a value that is not what its key needs (@check not
/// "clean", @check-backends not registered backends separated by commas, @check-latency
/// not a compiled backend, a number that does not parse, @latency-confirmed not yes or no,
/// latency figures without @check-latency, @pcontig outside kMinPcontig..kMaxPcontig,
/// @split-reduce-threshold or @kernels below 1, @lower-disable naming no tensor rule).
Result<CorpusHeader> read_corpus_header(const ir::KernelHeader& header, std::string_view text = {});

/// The differential check a replay runs on a case whose header says check_clean: the
/// faithful simplifier (the built-in one; a case with @simplifier: the caller sets
/// CheckOptions::simplifier to that one) on the case's @seed and @var values, on check_backends
/// (when given), the rewrite re-timed on the latency backend for a latency finding.
check::CheckOptions replay_check_options(const CorpusHeader& corpus,
                                         const ir::KernelHeader& header);

}  // namespace uopfuzz::fuzz
