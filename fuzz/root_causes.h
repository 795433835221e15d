/** \file The root causes of an external simplifier's findings: one Markdown file per findings
 * folder (corpus/findings/<simplifier>/root-causes.md) that says, for each bug or declared
 * difference, why its findings happen, and which findings it explains. A campaign names the
 * root cause of each finding it makes and reports as new only those that map to none; a
 * replay groups the known bugs it still sees by root cause.
 *
 * The file is for people first. An entry is a `## <id>` heading, then `- key: value` lines
 * that uopfuzz reads, then free paragraphs:
 *
 *     ## cast-const-fold-unwrapped
 *     - verdict: real
 *     - where: uop/symbolic.py:147, the CAST-of-CONST fold (`root.const_like(c.val)`)
 *     - signatures: mismatch/uop/symbolic.py:150*, mismatch/uop/symbolic.py:263*
 *     - bounds: CAST
 *     - cases: cast_const_fold_unwrapped_uint64, cast_const_fold_unwrapped_int64_max
 *     - upstream: found on a9069c1; not checked against a newer tinygrad
 *
 * `signatures` are patterns over a finding's signature (`*` matches any run of characters);
 * `bounds` the ops whose unsound bounds (a finding's `unsound-bounds: OP ...` diagnosis) the
 * cause explains; the diagnosis is matched first, as the sharper of the two. Other keys
 * (where, cases, upstream, declared-by) are kept for the reports.
 */
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/result.h"

namespace uopfuzz::fuzz {

struct RootCause {
  std::string id;
  std::string verdict;  ///< "real" (the simplifier's bug) or "difference" (a declared one)
  std::string title;    ///< the first line of its first paragraph, for listings
  std::vector<std::string> signatures;      ///< patterns over finding signatures
  std::vector<std::string> bounds_ops;      ///< ops named by an unsound-bounds diagnosis
  std::map<std::string, std::string> keys;  ///< every `- key: value` line, as written
  int line = 0;                             ///< its heading's line in the file
};

struct RootCauses {
  std::string path;  ///< the file read ("" when there was none)
  std::vector<RootCause> causes;

  const RootCause* find(std::string_view id) const;
  /// The cause that explains a finding with this signature and details (where an
  /// `unsound-bounds: OP ...` diagnosis is looked for), or null: a new root cause.
  const RootCause* explain(std::string_view signature, std::string_view details) const;
};

/// Where the root causes of the findings in `findings_dir` are kept.
std::string root_causes_path(const std::string& findings_dir);

/// The root causes `path` lists; an empty list (not an error) when there is no such file.
/// Errors (with the line): a key line outside an entry, a verdict other than real or
/// difference, an entry without a verdict, an id given twice, an id that is not made of
/// letters, digits, '-' and '_'.
Result<RootCauses> read_root_causes(const std::string& path);

/// Whether `text` matches `pattern`, where `*` matches any run of characters.
bool glob_match(std::string_view pattern, std::string_view text);

/// The op an `unsound-bounds: OP ...` diagnosis in `details` names ("" when none).
std::string unsound_bounds_op(std::string_view details);

}  // namespace uopfuzz::fuzz
