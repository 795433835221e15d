/** \file Merging corpora from many machines (sharded campaigns, nightly runs): one case per
 * signature, the smallest, in the output corpus. */
#pragma once

#include <string>
#include <vector>

#include "ir/result.h"

namespace uopfuzz::fuzz {

struct MergeStats {
  size_t cases_read = 0;  ///< .uop files seen in the sources and the output
  size_t signatures = 0;  ///< distinct (folder, signature) pairs: the output's case count
  size_t written = 0;     ///< cases copied into the output
  size_t removed = 0;     ///< output cases dropped for a smaller one of their signature
  size_t unchanged = 0;   ///< signatures whose output case was already the smallest
};

/// Unions the .uop cases of `sources` into `out` (created if needed): for each signature
/// (a case's @signature line; a case without one counts as its own), within each folder
/// (the corpus itself, or one level below it, e.g. tinygrad/), the case with the fewest
/// nodes is kept, ties going to the smaller file name, and the output's other cases of
/// that signature are removed. Copies are written atomically and keep their file names;
/// hidden files (a writer's temporaries) are never read, so shards may still be writing.
/// Merging again changes nothing. An error when a source is not a readable directory.
Result<MergeStats> merge_corpora(const std::vector<std::string>& sources, const std::string& out);

}  // namespace uopfuzz::fuzz
