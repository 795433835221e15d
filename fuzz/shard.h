/** \file Sharded campaigns: N machines split one campaign (one seed) by graph index, with no
 * coordination; shard K of N checks the graph indices i with i % N == K. The shard comes
 * from a flag (`K/N`) or from the variables that job-array engines set. */
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ir/result.h"

namespace uopfuzz::fuzz {

struct Shard {
  uint64_t index = 0, count = 1;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// `K/N` with 0 <= K < N (both decimal); an error saying what was expected otherwise.
Result<Shard> parse_shard(std::string_view text);

/// The shard the environment gives (`getenv` returns null for an unset variable):
///  - UOPFUZZ_SHARD=K/N, set by hand or by a CI matrix;
///  - Slurm job arrays: SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN (0 if unset) of
///    SLURM_ARRAY_TASK_COUNT;
///  - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX of UOPFUZZ_SHARD_COUNT (the Job's
///    completions; Kubernetes sets the index only, so the manifest sets the count).
/// The first that is set wins; an error when none is, or when one is malformed.
Result<Shard> shard_from_environment(const std::function<const char*(const char*)>& getenv);

}  // namespace uopfuzz::fuzz
