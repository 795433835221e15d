// Tensor programs in campaigns: which graphs are tensor programs, per-level counts, and a
// tensor finding reduced, written to the corpus and replayed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "check/program_check.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus_header.h"
#include "gen/generator.h"
#include "gen/tensor_gen.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/run_io.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::fuzz {
namespace {

TEST(TensorCampaign, LevelOfEachGraphIsAFunctionOfSeedAndIndex) {
  int tensor = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    EXPECT_FALSE(is_tensor_graph(Level::Kernel, 7, i));
    EXPECT_TRUE(is_tensor_graph(Level::Tensor, 7, i));
    const bool t = is_tensor_graph(Level::Mixed, 7, i);
    EXPECT_EQ(t, is_tensor_graph(Level::Mixed, 7, i));
    tensor += t;
  }
  // One in four, drawn: 500 expected, a binomial's standard deviation is about 19.
  EXPECT_GT(tensor, 400);
  EXPECT_LT(tensor, 600);
  // Another campaign seed draws another set.
  int differ = 0;
  for (uint64_t i = 0; i < 200; ++i)
    differ += is_tensor_graph(Level::Mixed, 7, i) != is_tensor_graph(Level::Mixed, 8, i);
  EXPECT_GT(differ, 0);
}

TEST(TensorCampaign, LevelNamesRoundTrip) {
  for (Level l : {Level::Kernel, Level::Tensor, Level::Mixed})
    EXPECT_EQ(parse_level(level_name(l)), l);
  EXPECT_FALSE(parse_level("program").has_value());
}

const char* kSmallProgram =
    "%0 = PARAM slot=0 in : int32[3,4]\n"
    "%1 = REDUCE_AXIS %0 op=ADD axes=[1] : int32[3,1]\n"
    "%2 = REALIZE %1 : void\n";

TEST(TensorCampaign, MixedCampaignCountsEachLevel) {
  // A stand-in tensor source (a fixed program) and the kernel generator: a mixed campaign
  // sends exactly the graphs is_tensor_graph picks to the program check, twice alike.
  uint64_t expected = 0;
  for (uint64_t i = 0; i < 40; ++i) expected += is_tensor_graph(Level::Mixed, 3, i);
  ASSERT_GT(expected, 0u);
  gen::GenPolicy policy;
  CampaignProgress runs[2];
  for (CampaignProgress& p : runs) {
    CampaignOptions o;
    o.seconds = 120;
    o.max_graphs = 40;
    o.seed = 3;
    o.level = Level::Mixed;
    o.check.seeds = 1;
    o.tensor_source = [](ir::Context& ctx, uint64_t) {
      return ir::parse_kernel(ctx, kSmallProgram)->kernel;
    };
    p = run_campaign(o, [&](ir::Context& ctx, uint64_t gs) {
          return gen::generate(ctx, policy, gs).kernel;
        }).totals;
    EXPECT_EQ(p.graphs, 40u);
    EXPECT_EQ(p.tensor_programs, expected);
    EXPECT_EQ(p.small_graphs + p.large_graphs, 40u - expected);
    EXPECT_EQ(p.tensor_nodes.median(), 3u);
  }
  EXPECT_EQ(runs[0].tensor_unsupported, runs[1].tensor_unsupported);
  EXPECT_EQ(runs[0].by_signature, runs[1].by_signature);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(TensorCampaign, ALoweringFindingIsReducedWrittenAndReplays) {
  const auto dir = std::filesystem::temp_directory_path() / "uopfuzz_tensor_campaign_test";
  std::filesystem::remove_all(dir);
  gen::GenPolicy policy;
  CampaignOptions o;
  o.seconds = 60;
  o.max_graphs = 300;
  o.seed = 1;
  o.level = Level::Tensor;
  o.check.seeds = 2;
  o.lower.bugs.insert(schedule::LoweringBug::FlipNoSizeMinusOne);
  o.corpus_dir = dir.string();
  o.tensor_source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate_tensor_program(ctx, policy, gs).program;
  };
  o.stop_when = [](const NewFinding& f) { return f.signature.culprit == "flip-no-size-minus-one"; };
  CampaignResult r = run_campaign(
      o, [&](ir::Context& ctx, uint64_t gs) { return gen::generate(ctx, policy, gs).kernel; },
      reducer_shrinker(20));
  ASSERT_LT(r.totals.tensor_unsupported, r.totals.tensor_programs)
      << "every tensor program was unsupported";
  ASSERT_FALSE(r.new_findings.empty());
  const NewFinding& f = r.new_findings.back();
  ASSERT_EQ(f.signature.culprit, "flip-no-size-minus-one") << f.details;
  // A constant behind the flipped buffer folds away (BUFFERIZE(CONST) -> CONST), hiding the
  // bug: the reduced case keeps a value computed from an input, a few nodes more.
  EXPECT_LE(f.nodes_reduced, 9u) << f.reduced_text;
  ASSERT_FALSE(f.path.empty()) << f.write_error;

  // The written case: a tensor program whose recorded outputs hold on the tensor oracle,
  // which the faithful pipeline passes and the planted bug still fails, with that signature.
  ir::Context ctx;
  const std::string text = read_file(f.path);
  auto parsed = ir::parse_kernel(ctx, text);
  ASSERT_TRUE(parsed.ok()) << text;
  const ir::Kernel& k = parsed->kernel;
  ASSERT_FALSE(k.header.outputs.empty()) << text;
  auto run = oracle::eval_tensor_program(k.root, ir::make_inputs(k, k.header.seed.value_or(0)));
  ASSERT_TRUE(run.ok());
  for (const ir::ExpectedOutput& want : k.header.outputs) {
    const ir::Buffer& got = run->outputs.at(want.slot);
    ASSERT_EQ(got.size(), want.values.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(check::agrees_at(got, i, want.values[i])) << text;
  }
  auto corpus = read_corpus_header(k.header, text);
  ASSERT_TRUE(corpus.ok());
  EXPECT_TRUE(corpus->check_clean);
  EXPECT_EQ(corpus->signature, f.signature.text());
  check::ProgramCheckOptions faithful;
  faithful.check = replay_check_options(*corpus, k.header);
  EXPECT_EQ(check::check_program(ctx, k, faithful).kind, check::FindingKind::None);
  check::ProgramCheckOptions buggy = faithful;
  buggy.lower.bugs = o.lower.bugs;
  check::ProgramCheckResult again = check::check_program(ctx, k, buggy);
  ASSERT_NE(again.kind, check::FindingKind::None);
  EXPECT_EQ(check::sign_program_finding(ctx, k, buggy, again).text(), f.signature.text());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace uopfuzz::fuzz
