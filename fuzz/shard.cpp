#include "fuzz/shard.h"

#include <charconv>

namespace uopfuzz::fuzz {
namespace {

bool parse_u64(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

Result<Shard> checked(uint64_t index, uint64_t count, const std::string& where) {
  if (count < 1 || index >= count)
    return Error{where + ": the shard index must be below the shard count (0 <= K < N), got " +
                 std::to_string(index) + " of " + std::to_string(count)};
  return Shard{index, count};
}

}  // namespace

Result<Shard> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  uint64_t k = 0, n = 0;
  if (slash == std::string_view::npos || !parse_u64(text.substr(0, slash), k) ||
      !parse_u64(text.substr(slash + 1), n))
    return Error{"expected a shard K/N (two decimal numbers, e.g. 0/4), got '" + std::string(text) +
                 "'"};
  return checked(k, n, "shard '" + std::string(text) + "'");
}

Result<Shard> shard_from_environment(const std::function<const char*(const char*)>& getenv) {
  auto number = [&](const char* name, uint64_t& out) -> Result<bool> {
    const char* v = getenv(name);
    if (!v) return false;
    if (!parse_u64(v, out)) return Error{std::string("$") + name + " is not a number: '" + v + "'"};
    return true;
  };
  if (const char* v = getenv("UOPFUZZ_SHARD")) {
    auto s = parse_shard(v);
    if (!s) return Error{"$UOPFUZZ_SHARD: " + s.error().message};
    return s;
  }
  uint64_t id = 0, min = 0, count = 0;
  auto slurm = number("SLURM_ARRAY_TASK_ID", id);
  if (!slurm) return slurm.error();
  if (*slurm) {
    auto has_min = number("SLURM_ARRAY_TASK_MIN", min);
    auto has_count = number("SLURM_ARRAY_TASK_COUNT", count);
    if (!has_min) return has_min.error();
    if (!has_count) return has_count.error();
    if (!*has_count) return Error{"$SLURM_ARRAY_TASK_ID is set but $SLURM_ARRAY_TASK_COUNT is not"};
    if (id < min) return Error{"$SLURM_ARRAY_TASK_ID is below $SLURM_ARRAY_TASK_MIN"};
    // Ids run from MIN with step 1 (--array=MIN-MAX); a step or a list would skip shards.
    return checked(id - min, count, "Slurm array task");
  }
  auto k8s = number("JOB_COMPLETION_INDEX", id);
  if (!k8s) return k8s.error();
  if (*k8s) {
    auto has_count = number("UOPFUZZ_SHARD_COUNT", count);
    if (!has_count) return has_count.error();
    if (!*has_count)
      return Error{
          "$JOB_COMPLETION_INDEX is set but $UOPFUZZ_SHARD_COUNT is not (set it to the Job's "
          "completions)"};
    return checked(id, count, "Kubernetes Indexed Job");
  }
  return Error{
      "no shard in the environment: set UOPFUZZ_SHARD=K/N, or run as a Slurm array task "
      "(SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job "
      "(JOB_COMPLETION_INDEX with UOPFUZZ_SHARD_COUNT)"};
}

}  // namespace uopfuzz::fuzz
