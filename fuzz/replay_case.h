/** \file Judging one replayed corpus case (`uopfuzz replay`): its header's expectations on
 * the oracle, then the differential or program check its header asks for, with the
 * simplifier it names. What the command prints about a case comes back as notes: the
 * caller prints them (on stderr). */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/corpus_header.h"
#include "ir/kernel.h"
#include "ir/result.h"
#include "schedule/lower.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::fuzz {

/// How a replayed case came out.
enum class ReplayVerdict {
  Pass,
  Fail,     ///< a finding: an expectation or the check fails
  Error,    ///< the case cannot be read or run
  Skipped,  ///< the simplifier it records cannot be made here, or declines it
  /// A finding of an external simplifier that still shows (same kind as its @signature): a
  /// known bug of that simplifier (uopfuzz does not own its fix), not a failure.
  Known,
};

/// The simplifiers cases name (@simplifier, else the default), each made once and shared
/// by all its cases (one child process for all of them).
class ReplaySimplifiers {
 public:
  /// `default_spec`: the simplifier of a case that names none; `options`: how external ones run.
  ReplaySimplifiers(std::string default_spec, sut::ExternalOptions options);
  /// The one `recorded` names ("" : the default) at the stage the case ran ("" : the
  /// options' stage), or why it cannot be made.
  Result<std::shared_ptr<sut::Simplifier>> get(const std::string& recorded,
                                               const std::string& stage = "");
  /// How the external simplifiers run.
  const sut::ExternalOptions& options() const { return options_; }

 private:
  std::string default_spec_;
  sut::ExternalOptions options_;
  std::map<std::pair<std::string, std::string>, Result<std::shared_ptr<sut::Simplifier>>> made_;
};

/// Lowering options given explicitly (--pcontig, --split-reduce-threshold): each wins over
/// the value the case records.
struct LoweringOverrides {
  std::optional<int> pcontig;
  std::optional<int64_t> split_reduce_threshold;
};

/// The lowering of a case: its recorded options, then the ones given.
schedule::LowerOptions lower_with_overrides(const CorpusHeader& recorded,
                                            const LoweringOverrides& given);

/// One case loaded from `file` (its text, parsed into `kernel`): its header's expectations
/// on the oracle (a tensor program: its @output values and @kernels count), then, for a case
/// whose header says `@check clean`, the check with the faithful simplifier and lowering or
/// the simplifier its @simplifier names. `cause`: a Known case's root cause; `notes`: what
/// to print about it, one line each.
ReplayVerdict replay_case(const std::string& file, ir::Context& ctx, const ir::Kernel& kernel,
                          const std::string& text, ReplaySimplifiers& simplifiers,
                          const LoweringOverrides& lowering, std::string& cause,
                          std::vector<std::string>& notes);

}  // namespace uopfuzz::fuzz
