// `fuzz --json` records the generator's policy: every GenPolicy field by its name, weight
// tables as nested objects, and a changed field shows its new value.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fuzz/shard.h"
#include "gen/policy.h"
#include "report/campaign_json.h"
#include "report/policy_json.h"

namespace uopfuzz::report {
namespace {

TEST(PolicyJson, NamesEachFieldWithItsValue) {
  gen::GenPolicy p;
  const auto defaults = policy_json(p);
  ASSERT_TRUE(defaults.contains("p_gather"));
  EXPECT_EQ(defaults["p_gather"].get<double>(), p.p_gather);
  EXPECT_EQ(defaults["max_positions"].get<int>(), p.max_positions);
  EXPECT_EQ(defaults["inexact_floats"].get<bool>(), p.inexact_floats);
  ASSERT_TRUE(defaults["edge_pairs"].is_object());
  EXPECT_EQ(defaults["edge_pairs"]["special_ops"]["sin"].get<double>(),
            p.edge_pairs.special_ops.sin);
  EXPECT_EQ(defaults["dtypes"]["int32"].get<double>(), p.dtypes.int32);
  ASSERT_TRUE(defaults["tensor"].is_object());  // TensorGenPolicy's own fields() visitor
  EXPECT_FALSE(defaults["tensor"].empty());

  p.p_gather = 0.625;
  p.max_range_end = 77;
  p.edge_pairs.special_ops.sin = 9.5;
  const auto changed = policy_json(p);
  EXPECT_EQ(changed["p_gather"].get<double>(), 0.625);
  EXPECT_EQ(changed["max_range_end"].get<int64_t>(), 77);
  EXPECT_EQ(changed["edge_pairs"]["special_ops"]["sin"].get<double>(), 9.5);
  EXPECT_NE(changed, defaults);
}

TEST(PolicyJson, NoFieldIsListedTwice) {
  // ordered_json keeps one entry per key: a field listed twice would leave fewer keys than
  // fields() calls.
  int calls = 0;
  gen::GenPolicy{}.fields([&](const char* /*name*/, const auto& /*value*/) { ++calls; });
  EXPECT_EQ(static_cast<size_t>(calls),
            policy_json(gen::GenPolicy{}).size() +
                (policy_json(gen::GenPolicy{}).contains("tensor") ? 0 : 1));
}

TEST(PolicyJson, TheCampaignDocumentCarriesThePolicy) {
  gen::GenPolicy p;
  p.p_bound_sum = 0.375;
  const auto doc = campaign_document(FuzzSummary{}, "{}", "O2", fuzz::Shard{},
                                     fuzz::CampaignProgress{}, {}, {}, p, "");
  ASSERT_TRUE(doc.contains("policy"));
  EXPECT_EQ(doc["policy"]["p_bound_sum"].get<double>(), 0.375);
  EXPECT_EQ(doc["policy"], policy_json(p));
}

}  // namespace
}  // namespace uopfuzz::report
