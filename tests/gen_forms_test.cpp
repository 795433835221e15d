// The campaign's draw of an external simplifier's forms (gen/forms.h): only forms that
// have something to spell in the kernel (a gated access, a float CAST of a VAR), only words
// the hello offers and this uopfuzz knows, at least one, the same for the same seed, and in
// about p_external_forms of the kernels that qualify.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "gen/forms.h"
#include "gen/generator.h"
#include "ir/parser.h"

namespace uopfuzz::gen {
namespace {

const std::vector<std::string> kOffered = {"gate-value", "gate-nest",       "gate-sink",
                                           "gate-flip",  "form-from-later", "float-var"};

std::vector<std::string> forms_line(const ir::Kernel& k) {
  std::vector<std::string> words;
  for (const auto& [key, value] : k.header.extra)
    if (key == "forms") {
      size_t at = 0;
      while (at < value.size()) {
        const size_t end = std::min(value.find(' ', at), value.size());
        words.push_back(value.substr(at, end - at));
        at = end + 1;
      }
    }
  return words;
}

TEST(GenForms, AKernelWithoutAGatedAccessGetsNone) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx,
                                 "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n"
                                 "%2 = INDEX %0 %1 : int32\n%3 = CONST 7 : int32\n"
                                 "%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n");
  ASSERT_TRUE(parsed.ok());
  ir::Kernel k = parsed->kernel;
  EXPECT_FALSE(has_gated_access(k));
  EXPECT_FALSE(has_float_cast_of_var(k));
  EXPECT_TRUE(applicable_forms(k, kOffered).empty());
  GenPolicy always;
  always.p_external_forms = 1;
  EXPECT_FALSE(draw_forms(k, kOffered, always, 1));
  EXPECT_TRUE(forms_line(k).empty());
}

TEST(GenForms, DrawsOfferedWordsInAboutTheirShareAndRepeatsPerSeed) {
  GenPolicy policy;
  prepare_for_forms(policy, kOffered);
  int gated = 0, drawn = 0, float_vars = 0;
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 600; ++seed) {
    ir::Context ctx;
    ir::Kernel k = generate(ctx, policy, seed).kernel;
    const auto applicable = applicable_forms(k, kOffered);
    const bool has = !applicable.empty();
    EXPECT_EQ(has, has_gated_access(k) || has_float_cast_of_var(k)) << seed;
    float_vars += has_float_cast_of_var(k);
    ir::Kernel again = k;
    const bool added = draw_forms(k, kOffered, policy, seed);
    EXPECT_EQ(draw_forms(again, kOffered, policy, seed), added) << seed;
    EXPECT_EQ(forms_line(again), forms_line(k)) << seed;
    if (!has) {
      EXPECT_FALSE(added) << seed;
      continue;
    }
    ++gated;
    if (!added) continue;
    ++drawn;
    const auto words = forms_line(k);
    ASSERT_FALSE(words.empty()) << seed;
    for (const std::string& w : words) {
      EXPECT_NE(std::find(applicable.begin(), applicable.end(), w), applicable.end()) << w;
      seen.insert(w);
    }
  }
  ASSERT_GT(gated, 60) << "the generator makes gated accesses often";
  EXPECT_GT(drawn, gated * 3 / 10);
  EXPECT_LT(drawn, gated * 7 / 10);
  EXPECT_GT(float_vars, 10) << "the generator casts variables to floats often enough";
  EXPECT_FALSE(seen.contains("form-from-later")) << "a word uopfuzz does not know";
  EXPECT_EQ(seen.size(), kOffered.size() - 1) << "every known offered form is drawn";
  // Only what is offered.
  ir::Context ctx;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    ir::Kernel k = generate(ctx, policy, seed).kernel;
    draw_forms(k, {"gate-flip"}, policy, seed);
    for (const std::string& w : forms_line(k)) EXPECT_EQ(w, "gate-flip");
  }
}

}  // namespace
}  // namespace uopfuzz::gen
