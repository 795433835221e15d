/** \file The flags of a command that lowers tensor programs: --inject-lowering-bug (the
 * planted lowering bugs of schedule/lowering_bugs.def), --pcontig and
 * --split-reduce-threshold (schedule::LowerOptions). */
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/corpus_header.h"
#include "schedule/lower.h"
#include "schedule/lowering_bugs.h"

namespace uopfuzz::cli {

inline void add_lowering_bug_flag(CLI::App& cmd, std::vector<std::string>& names) {
  std::string known;
  for (schedule::LoweringBug b : schedule::all_lowering_bugs())
    known += fmt::format("{}{}", known.empty() ? "" : ", ", schedule::lowering_bug_name(b));
  cmd.add_option(
      "--inject-lowering-bug", names,
      "switch on a planted lowering bug for tensor programs (repeatable: " + known + ")");
}

/// The set the names give; nullopt (and an error on stderr) for an unknown name.
inline std::optional<schedule::LoweringBugSet> lowering_bugs(
    const std::vector<std::string>& names) {
  schedule::LoweringBugSet bugs;
  for (const std::string& n : names) {
    auto b = schedule::parse_lowering_bug(n);
    if (!b) {
      fmt::print(stderr, "error: unknown planted lowering bug '{}' (see --help)\n", n);
      return std::nullopt;
    }
    bugs.insert(*b);
  }
  return bugs;
}

/// --pcontig and --split-reduce-threshold: unset unless given, so that a file's recorded
/// value (@pcontig, @split-reduce-threshold) applies where the flag is absent.
struct LoweringOptionFlags {
  std::optional<int> pcontig;
  std::optional<int64_t> split_reduce_threshold;
};

/// `recorded_in`: whose header a value comes from when the flag is absent ("the file's");
/// null for a campaign, which draws them per tensor program (fuzz::lowering_for).
inline void add_lowering_option_flags(CLI::App& cmd, LoweringOptionFlags& f,
                                      const char* recorded_in) {
  const schedule::LowerOptions d;
  const std::string from = recorded_in ? fmt::format("{} @", recorded_in) : "";
  cmd.add_option(
      "--pcontig", f.pcontig,
      fmt::format("buffer removal's level for a buffer with a reduce in scope, {}..{}: up to 2 "
                  "keeps it, above it the input/output ratio decides (default: {})",
                  fuzz::kMinPcontig, fuzz::kMaxPcontig,
                  recorded_in ? fmt::format("{}pcontig, else {}", from, d.pcontig)
                              : "drawn per tensor program from its seed: half 0, the rest 1..4"));
  cmd.add_option(
      "--split-reduce-threshold", f.split_reduce_threshold,
      fmt::format("split a reduce whose input has this many times its output's elements, at "
                  "least 1 (default: {})",
                  recorded_in ? fmt::format("{}split-reduce-threshold, else {}", from,
                                            d.split_reduce_threshold)
                              : "drawn per tensor program from its seed: three in four 16..4096, "
                                "else 32768"));
}

/// Whether the given values are in range; prints what is not.
inline bool valid_lowering_options(const LoweringOptionFlags& f) {
  if (f.pcontig && (*f.pcontig < fuzz::kMinPcontig || *f.pcontig > fuzz::kMaxPcontig)) {
    fmt::print(stderr, "error: --pcontig must be in {}..{}, not {}\n", fuzz::kMinPcontig,
               fuzz::kMaxPcontig, *f.pcontig);
    return false;
  }
  if (f.split_reduce_threshold && *f.split_reduce_threshold < 1) {
    fmt::print(stderr, "error: --split-reduce-threshold must be at least 1, not {}\n",
               *f.split_reduce_threshold);
    return false;
  }
  return true;
}

/// `base` with the file's recorded options, then the flags given (a flag wins over the file).
inline schedule::LowerOptions lower_options(schedule::LowerOptions base,
                                            const LoweringOptionFlags& f,
                                            const fuzz::CorpusHeader& recorded = {}) {
  base = fuzz::with_recorded_lowering(std::move(base), recorded);
  if (f.pcontig) base.pcontig = *f.pcontig;
  if (f.split_reduce_threshold) base.split_reduce_threshold = *f.split_reduce_threshold;
  return base;
}

}  // namespace uopfuzz::cli
