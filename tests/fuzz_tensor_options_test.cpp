// The lowering options of tensor programs: @pcontig, @split-reduce-threshold, @lower-disable
// and @kernels read back as written and are rejected out of range; a campaign draws pcontig,
// the split threshold and a rule switched off per program from the graph seed, reproducibly
// and with the spread it documents, records them in the program's header and its corpus
// entry, and checks the program with them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/corpus_header.h"
#include "fuzz/tensor_graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "schedule/lower.h"

namespace uopfuzz::fuzz {
namespace {

// x = [1, 2, 3, 4] summed: a tensor program small enough for every check.
const char* kProgram =
    "@name sum4\n"
    "%x = CONST 2 : int32[4]\n"
    "%s = REDUCE_AXIS %x op=ADD axes=all : int32[1]\n"
    "%out = RESHAPE %s : int32[]\n"
    "%r = REALIZE %out : void\n";

Result<CorpusHeader> read_text(const std::string& text) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << text;
  if (!parsed.ok()) return parsed.error();
  return read_corpus_header(parsed->kernel.header, text);
}

TEST(FuzzTensorOptions, LoweringLinesRoundTrip) {
  CorpusHeader h;
  h.found_by = "uopfuzz fuzz --level tensor";
  h.details = "-";
  h.pcontig = 3;
  h.split_reduce_threshold = 64;
  h.lower_disabled = {"index_const", "split_reduce"};
  h.kernels = 2;
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, kProgram);
  ASSERT_TRUE(parsed.ok());
  ir::Kernel k = parsed->kernel;
  k.header.extra = corpus_header_lines(h);
  const std::string text = ir::print_kernel(k);
  EXPECT_NE(text.find("@pcontig 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@split-reduce-threshold 64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@kernels 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@lower-disable index_const split_reduce\n"), std::string::npos) << text;
  auto back = read_text(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  CorpusHeader want = h;
  want.details = "";  // "-" is how an empty text is written
  EXPECT_EQ(*back, want);
}

TEST(FuzzTensorOptions, AbsentLinesLeaveTheDefaults) {
  auto read = read_text(kProgram);
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->pcontig);
  EXPECT_FALSE(read->split_reduce_threshold);
  EXPECT_FALSE(read->kernels);
  const schedule::LowerOptions lo = with_recorded_lowering({}, *read);
  EXPECT_EQ(lo.pcontig, 0);
  EXPECT_EQ(lo.split_reduce_threshold, 32768);
}

TEST(FuzzTensorOptions, RecordedValuesReplaceOnlyTheirOwn) {
  CorpusHeader h;
  h.split_reduce_threshold = 16;
  schedule::LowerOptions base;
  base.pcontig = 4;
  const schedule::LowerOptions lo = with_recorded_lowering(base, h);
  EXPECT_EQ(lo.pcontig, 4);
  EXPECT_EQ(lo.split_reduce_threshold, 16);
}

TEST(FuzzTensorOptions, OutOfRangeValuesAreErrorsAtTheirLine) {
  const std::map<std::string, std::string> bad = {
      {"@pcontig 5", "@pcontig"},
      {"@pcontig -1", "@pcontig"},
      {"@pcontig high", "@pcontig"},
      {"@split-reduce-threshold 0", "@split-reduce"},
      {"@kernels two", "@kernels"},
      {"@kernels 0", "@kernels"},
      {"@lower-disable index_const no_such_rule", "@lower-disable"}};
  for (const auto& [line, key] : bad) {
    const std::string text = std::string("@name bad\n") + line + "\n" + (kProgram + 11);
    auto read = read_text(text);
    ASSERT_FALSE(read.ok()) << line;
    EXPECT_EQ(read.error().loc.line, 2) << line;
    EXPECT_EQ(read.error().message.rfind(key, 0), 0u) << read.error().message;
  }
}

TEST(FuzzTensorOptions, DrawsAreReproducibleAndSpreadAsDocumented) {
  CampaignOptions o;
  std::map<int, int> levels;
  std::map<int64_t, int> thresholds;
  constexpr int kDraws = 4000;
  for (uint64_t seed = 0; seed < kDraws; ++seed) {
    const schedule::LowerOptions lo = lowering_for(o, seed * 0x9e3779b97f4a7c15ull + 7);
    EXPECT_EQ(lo, lowering_for(o, seed * 0x9e3779b97f4a7c15ull + 7));
    ++levels[lo.pcontig];
    ++thresholds[lo.split_reduce_threshold];
  }
  // Half at tinygrad's default, an eighth at each other level (binomial sd ~ 32 and ~ 21).
  EXPECT_NEAR(levels[0], kDraws / 2, 200);
  for (int level = 1; level <= 4; ++level) EXPECT_NEAR(levels[level], kDraws / 8, 120) << level;
  EXPECT_EQ(levels.size(), 5u);
  // A quarter at the default threshold, the rest the powers of two 16..4096.
  EXPECT_NEAR(thresholds[32768], kDraws / 4, 200);
  std::set<int64_t> small;
  for (const auto& [t, n] : thresholds)
    if (t != 32768) small.insert(t);
  EXPECT_EQ(small, (std::set<int64_t>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096}));
}

// One program in kLoweringRuleOffEvery lowers without one tensor rule, each rule in turn
// (the paths a rule's firing hides must be right too); the other draws are unchanged.
TEST(FuzzTensorOptions, OneProgramInEightLowersWithoutOneTensorRule) {
  CampaignOptions o;
  const std::vector<std::string> names = schedule::tensor_rule_names();
  std::map<std::string, int> off;
  int with_off = 0;
  constexpr int kDraws = 8000;
  for (uint64_t seed = 0; seed < kDraws; ++seed) {
    const schedule::LowerOptions lo = lowering_for(o, seed);
    if (lo.disabled.empty()) continue;
    ++with_off;
    ASSERT_EQ(lo.disabled.size(), 1u);
    ++off[*lo.disabled.begin()];
    CampaignOptions fixed = o;
    fixed.vary_lowering.rule_off = false;
    const schedule::LowerOptions without = lowering_for(fixed, seed);
    EXPECT_TRUE(without.disabled.empty());
    EXPECT_EQ(without.pcontig, lo.pcontig);
    EXPECT_EQ(without.split_reduce_threshold, lo.split_reduce_threshold);
  }
  EXPECT_NEAR(with_off, kDraws / static_cast<int>(kLoweringRuleOffEvery), 100);  // sd ~ 30
  EXPECT_EQ(off.size(), names.size());
  for (const std::string& name : names) EXPECT_GT(off[name], 0) << name;
}

TEST(FuzzTensorOptions, ARuleSwitchedOffTravelsWithTheProgram) {
  CampaignOptions o;
  o.level = Level::Tensor;
  o.tensor_source = [](ir::Context& ctx, uint64_t) {
    return ir::parse_kernel(ctx, kProgram)->kernel;
  };
  uint64_t seed = 0;
  while (lowering_for(o, seed).disabled.empty()) ++seed;
  const std::set<std::string> drawn = lowering_for(o, seed).disabled;
  ir::Context ctx;
  const std::string text = ir::print_kernel(campaign_tensor_program(o, ctx, seed));
  ir::Context ctx2;
  auto back = ir::parse_kernel(ctx2, text);
  ASSERT_TRUE(back.ok()) << text;
  const check::ProgramCheckOptions po = program_options_for(o, back->kernel);
  EXPECT_EQ(po.lower.disabled, drawn) << text;
  NewFinding f;
  f.signature.kind = check::FindingKind::Mismatch;
  f.signature.culprit = "lowering";
  auto recorded = read_corpus_header(tensor_corpus_entry(back->kernel, f, o, po).header);
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(std::set<std::string>(recorded->lower_disabled.begin(), recorded->lower_disabled.end()),
            drawn);
}

TEST(FuzzTensorOptions, AnOptionNotDrawnIsTheCampaignsOwn) {
  CampaignOptions o;
  o.lower.pcontig = 2;
  o.lower.split_reduce_threshold = 100;
  o.vary_lowering = {false, false, false};
  std::set<int64_t> drawn_thresholds;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    EXPECT_EQ(lowering_for(o, seed).pcontig, 2);
    EXPECT_EQ(lowering_for(o, seed).split_reduce_threshold, 100);
  }
  o.vary_lowering.split_reduce_threshold = true;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    EXPECT_EQ(lowering_for(o, seed).pcontig, 2);
    drawn_thresholds.insert(lowering_for(o, seed).split_reduce_threshold);
  }
  EXPECT_GT(drawn_thresholds.size(), 5u);
}

TEST(FuzzTensorOptions, ACampaignsProgramCarriesAndUsesItsOptions) {
  CampaignOptions o;
  o.level = Level::Tensor;
  o.tensor_source = [](ir::Context& ctx, uint64_t) {
    return ir::parse_kernel(ctx, kProgram)->kernel;
  };
  // A seed whose draw differs from the defaults in both options.
  uint64_t seed = 0;
  while (lowering_for(o, seed).pcontig == 0 ||
         lowering_for(o, seed).split_reduce_threshold == 32768)
    ++seed;
  const schedule::LowerOptions drawn = lowering_for(o, seed);
  ir::Context ctx;
  const ir::Kernel k = campaign_tensor_program(o, ctx, seed);
  // Printed and parsed (as a minimized case travels), the program still says them.
  const std::string text = ir::print_kernel(k);
  ir::Context ctx2;
  auto back = ir::parse_kernel(ctx2, text);
  ASSERT_TRUE(back.ok()) << text;
  const check::ProgramCheckOptions po = program_options_for(o, back->kernel);
  EXPECT_EQ(po.lower.pcontig, drawn.pcontig) << text;
  EXPECT_EQ(po.lower.split_reduce_threshold, drawn.split_reduce_threshold) << text;

  NewFinding f;
  f.signature.kind = check::FindingKind::Mismatch;
  f.signature.culprit = "lowering";
  const ir::Kernel entry = tensor_corpus_entry(back->kernel, f, o, po);
  auto recorded = read_corpus_header(entry.header);
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(recorded->pcontig, drawn.pcontig);
  EXPECT_EQ(recorded->split_reduce_threshold, drawn.split_reduce_threshold);
}

TEST(FuzzTensorOptions, TensorRulesCountTowardsRareRulesOnlyWhenProgramsRan) {
  const std::string split = "split_reduce";
  const std::vector<std::string> names = schedule::tensor_rule_names();
  ASSERT_NE(std::find(names.begin(), names.end(), split), names.end());
  CampaignProgress p;
  auto listed = [&](const std::string& rule) {
    for (const auto& [name, n] : rules_below(p, 100))
      if (name == rule) return static_cast<int64_t>(n);
    return int64_t{-1};
  };
  EXPECT_EQ(listed(split), -1);
  p.tensor_programs = 3;
  p.rule_hits[split] = 7;
  EXPECT_EQ(listed(split), 7);
  p.rule_hits[split] = 100;
  EXPECT_EQ(listed(split), -1);
}

}  // namespace
}  // namespace uopfuzz::fuzz
