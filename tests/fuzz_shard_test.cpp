// Sharded campaigns (fuzz/shard.h): K/N from a flag or from the job-array engines'
// variables, and N shards that check disjoint graph sets whose union is the whole campaign.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "fuzz/campaign.h"
#include "fuzz/corpus_merge.h"
#include "fuzz/shard.h"
#include "gen/generator.h"

namespace uopfuzz::fuzz {
namespace {

TEST(Shard, ParsesKOfNAndRefusesTheRest) {
  auto s = parse_shard("2/5");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 5u);
  EXPECT_EQ(s->text(), "2/5");
  for (const char* bad : {"5/5", "1/0", "", "3", "/4", "1/", "-1/4", "1/4x", "a/b", "1//4"}) {
    auto r = parse_shard(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("K"), std::string::npos) << r.error().message;
    }
  }
}

using Env = std::map<std::string, std::string>;

Result<Shard> from(const Env& env) {
  return shard_from_environment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(Shard, ComesFromTheJobArrayEnginesVariables) {
  auto slurm = from({{"SLURM_ARRAY_TASK_ID", "7"},
                     {"SLURM_ARRAY_TASK_MIN", "5"},
                     {"SLURM_ARRAY_TASK_COUNT", "4"}});
  ASSERT_TRUE(slurm.ok()) << slurm.error().message;
  EXPECT_EQ(slurm->text(), "2/4");  // ids 5..8: task 7 is the third
  auto k8s = from({{"JOB_COMPLETION_INDEX", "0"}, {"UOPFUZZ_SHARD_COUNT", "3"}});
  ASSERT_TRUE(k8s.ok()) << k8s.error().message;
  EXPECT_EQ(k8s->text(), "0/3");
  // The explicit variable wins over an engine's.
  auto both =
      from({{"UOPFUZZ_SHARD", "1/2"}, {"JOB_COMPLETION_INDEX", "0"}, {"UOPFUZZ_SHARD_COUNT", "3"}});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->text(), "1/2");
  // Missing or malformed pieces are errors that name the variable.
  for (const Env& bad :
       {Env{}, Env{{"JOB_COMPLETION_INDEX", "1"}}, Env{{"SLURM_ARRAY_TASK_ID", "1"}},
        Env{{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "2"}},
        Env{{"JOB_COMPLETION_INDEX", "3"}, {"UOPFUZZ_SHARD_COUNT", "3"}},
        Env{{"UOPFUZZ_SHARD", "2"}}}) {
    auto r = from(bad);
    EXPECT_FALSE(r.ok()) << (bad.empty() ? "(empty)" : bad.begin()->first);
  }
  EXPECT_NE(from({{"JOB_COMPLETION_INDEX", "1"}}).error().message.find("UOPFUZZ_SHARD_COUNT"),
            std::string::npos);
}

// The graph seeds a campaign asks its source for (one per generated kernel).
std::multiset<uint64_t> seeds_checked(const CampaignOptions& o) {
  std::multiset<uint64_t> seen;
  const gen::GenPolicy policy;
  GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    seen.insert(gs);
    return gen::generate(ctx, policy, gs).kernel;
  };
  run_campaign(o, source);
  return seen;
}

TEST(Shard, ShardsSplitTheCampaignWithNothingTwiceAndNothingLeftOut) {
  CampaignOptions o;
  o.seconds = 120;
  o.max_graphs = 90;
  o.level = Level::Kernel;  // every graph from the source (tensor programs have their own)
  o.check.seeds = 1;
  const std::multiset<uint64_t> whole = seeds_checked(o);
  ASSERT_EQ(whole.size(), 90u);
  std::multiset<uint64_t> joined;
  for (uint64_t k = 0; k < 3; ++k) {
    CampaignOptions part = o;
    part.shard = {k, 3};
    const std::multiset<uint64_t> mine = seeds_checked(part);
    EXPECT_EQ(mine.size(), 30u) << "shard " << k;
    for (uint64_t gs : mine) {
      EXPECT_EQ(joined.count(gs), 0u) << "shard " << k << " checks a graph another did";
      joined.insert(gs);
    }
    // Shard k's graphs are those of the indices k, k+3, ...
    for (uint64_t i = k; i < 90; i += 3) EXPECT_EQ(mine.count(graph_seed(o.seed, i)), 1u);
  }
  EXPECT_EQ(joined, whole);
}

// In isolated workers too: each shard checks its third, whatever the number of jobs.
TEST(Shard, IsolatedWorkersCheckTheirShardsIndices) {
  uint64_t total = 0;
  for (uint64_t k = 0; k < 3; ++k) {
    CampaignOptions o;
    o.seconds = 120;
    o.max_graphs = 61;
    o.level = Level::Kernel;
    o.check.seeds = 1;
    o.isolate = true;
    o.jobs = 2;
    o.shard = {k, 3};
    const gen::GenPolicy policy;
    CampaignResult r = run_campaign(
        o, [&](ir::Context& ctx, uint64_t gs) { return gen::generate(ctx, policy, gs).kernel; });
    EXPECT_EQ(r.totals.graphs, k == 0 ? 21u : 20u) << "shard " << k;  // 0..60: 21, 20, 20
    total += r.totals.graphs;
  }
  EXPECT_EQ(total, 61u);
}

// corpus merge: the smallest case of each signature, per folder; hidden temporaries unread;
// a larger case already in the output replaced; a second merge changes nothing.
namespace fs = std::filesystem;

void put(const fs::path& dir, const std::string& name, const std::string& signature, int nodes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name);
  if (!signature.empty()) out << "@signature " << signature << "\n";
  for (int i = 0; i < nodes; ++i) out << "%" << i << " = CONST " << i << " : int32\n";
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

TEST(CorpusMerge, KeepsTheSmallestCasePerSignatureAndIsIdempotent) {
  const fs::path root = fs::temp_directory_path() / ("uopfuzz_merge_" + std::to_string(::getpid()));
  fs::remove_all(root);
  put(root / "a", "big.uop", "mismatch/x/oracle", 9);
  put(root / "b", "small.uop", "mismatch/x/oracle", 4);
  put(root / "b", "other.uop", "ub-introduced/y/oracle", 5);
  put(root / "a" / "tinygrad", "tg.uop", "mismatch/x/oracle", 7);  // another folder: kept
  put(root / "a", "unsigned.uop", "", 3);                          // its own signature
  put(root / "b", ".half.uop.123.tmp", "mismatch/x/oracle", 1);    // a writer's temporary
  put(root / "out", "old.uop", "ub-introduced/y/oracle", 8);       // larger: replaced
  auto st = merge_corpora({(root / "a").string(), (root / "b").string()}, (root / "out").string());
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(files_in(root / "out"),
            (std::set<std::string>{"small.uop", "other.uop", "unsigned.uop", "tinygrad/tg.uop"}));
  EXPECT_EQ(st->signatures, 4u);
  EXPECT_EQ(st->written, 4u);
  EXPECT_EQ(st->removed, 1u);
  auto again =
      merge_corpora({(root / "a").string(), (root / "b").string()}, (root / "out").string());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->written, 0u);
  EXPECT_EQ(again->removed, 0u);
  EXPECT_EQ(again->unchanged, 4u);
  EXPECT_EQ(files_in(root / "out").size(), 4u);
  // A source that is not a directory is an error naming it.
  auto bad = merge_corpora({(root / "missing").string()}, (root / "out").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("missing"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace uopfuzz::fuzz
