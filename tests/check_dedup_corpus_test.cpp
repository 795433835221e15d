// Dedup signatures name the rule at fault; corpus writes are atomic and content-named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "bug_examples.h"
#include "check/dedup.h"
#include "fuzz/corpus.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace uopfuzz {
namespace {

ir::Kernel load_example(ir::Context& ctx, const std::string& name) {
  auto p = ir::parse_kernel(ctx, test_support::read_example(name));
  EXPECT_TRUE(p.ok()) << name;
  return p->kernel;
}

check::Signature signature_for(const std::string& example, const std::string& bug) {
  ir::Context ctx;
  ir::Kernel k = load_example(ctx, example);
  check::CheckOptions o;
  o.simplify.bugs.enable(*simplifier::parse_bug(bug));
  o.vars.insert(k.header.vars.begin(), k.header.vars.end());
  o.base_seed = k.header.seed.value_or(0);
  auto found = check::check_kernel(ctx, k, o);
  EXPECT_NE(found.kind, check::FindingKind::None) << bug;
  return check::signature_of(ctx, k, o, found);
}

// Each planted bug is signed by the rule that carries it (trace replay: a flatten fault
// after a split is the flatten's, no longer the split's that enables it).
TEST(Dedup, SignatureNamesTheRuleAtFault) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"range_mod_nondivisible", "split-no-divisibility", "mismatch/split_range/oracle"},
      {"range_mod_split", "flatten-first-range-only", "verifier-failure/flatten_range/oracle"},
      {"adjacent_merge", "merge-wrong-end", "ub-introduced/merge_adjacent/oracle"},
      {"gated_shrink_ungated", "shrink-despite-ungated", "mismatch/shrink_range/oracle"},
      {"mod_negative", "mod-ignores-negative", "mismatch/mod_one_period/oracle"},
      {"unparented_max", "unparented-max-multiplies", "mismatch/reduce_unparented/oracle"},
      {"window_sum", "bound-off-by-one", "mismatch/bound_upper/oracle"},
      {"gather_oob", "gather-no-bounds-check", "mismatch/gather_ne/oracle"},
      {"lift_mul_negative", "lift-mul-nonpositive", "mismatch/lift_mul_lt/oracle"},
  };
  for (const auto& [example, bug, want] : cases)
    EXPECT_EQ(signature_for(example, bug).text(), want) << bug;
}

TEST(Dedup, TwoCasesOfOneBugShareASignatureAndTwoBugsDoNot) {
  auto a = signature_for("range_mod_nondivisible", "split-no-divisibility");
  auto b = signature_for("range_mod_var_end", "split-dynamic-end");
  auto c = signature_for("gated_two_guards", "shrink-smallest-guard");
  auto d = signature_for("gated_shrink_ungated", "shrink-despite-ungated");
  EXPECT_EQ(c.text(), d.text());  // both faults live in the shrink: one signature family
  EXPECT_NE(a.text(), c.text());
  EXPECT_EQ(a.text(), b.text());
}

class Corpus : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("uopfuzz_corpus_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(Corpus, WritesOneCompleteFileNamedByTheGraphHash) {
  ir::Context ctx;
  ir::Kernel k = load_example(ctx, "window_sum");
  k.header.extra.emplace_back("signature", "mismatch/bound_upper/oracle");
  auto path = fuzz::write_case(dir_.string(), k);
  ASSERT_TRUE(path.ok()) << path.error().message;
  EXPECT_EQ(std::filesystem::path(*path).filename().string(), fuzz::content_hash(k) + ".uop");
  // It parses back to the same kernel, header included.
  std::ifstream f(*path);
  std::stringstream ss;
  ss << f.rdbuf();
  ir::Context ctx2;
  auto back = ir::parse_kernel(ctx2, ss.str());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(ir::print_kernel(back->kernel), ir::print_kernel(k));
  // Writing the same graph again (other header) keeps the one file; no temporaries remain.
  k.header.extra.back().second = "other";
  auto again = fuzz::write_case(dir_.string(), k);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *path);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".uop") << e.path();
  }
  EXPECT_EQ(files, 1);
}

TEST_F(Corpus, DifferentGraphsGetDifferentNames) {
  ir::Context ctx;
  auto a = fuzz::write_case(dir_.string(), load_example(ctx, "window_sum"));
  auto b = fuzz::write_case(dir_.string(), load_example(ctx, "gather_sum"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST_F(Corpus, RefusesAHeaderThatWouldNotReadBack) {
  ir::Context ctx;
  ir::Kernel k = load_example(ctx, "window_sum");
  k.header.name = "two\nlines";
  auto r = fuzz::write_case(dir_.string(), k);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("@name"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / (fuzz::content_hash(k) + ".uop")));
}

TEST(CorpusErrors, UnwritableDirectoryIsAnError) {
  ir::Context ctx;
  auto r = fuzz::write_case("/proc/uopfuzz-cannot-exist", load_example(ctx, "window_sum"));
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace uopfuzz

namespace uopfuzz::check {
namespace {

// Outputs compare bit for bit; a backend's declared tolerance loosens only what it says.
TEST(Compare, ToleranceLoosensOnlyWhatItDeclares) {
  ir::Buffer want(ir::dtypes::Float32, 2), got(ir::dtypes::Float32, 2);
  want.set(0, ir::Value::of_float(0.0));
  got.set(0, ir::Value::of_float(-0.0));
  want.set(1, ir::Value::of_float(1.0));
  got.set(1, ir::Value::of_float(1.0));
  EXPECT_EQ(first_difference(want, &got), std::optional<size_t>(0));          // -0 is not +0
  EXPECT_EQ(first_difference(want, &got, Tolerance(1)), std::nullopt);        // -0 is 1 ULP from +0
  EXPECT_EQ(first_difference(want, &got, Tolerance(0, true)), std::nullopt);  // unless declared
  got.set(1, ir::Value::of_float(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(first_difference(want, &got, Tolerance(0, true)), std::optional<size_t>(1));
  EXPECT_EQ(first_difference(want, &got, Tolerance(1, true)), std::nullopt);
  got.set(1, ir::Value::of_float(std::nan("")));
  EXPECT_EQ(first_difference(want, &got, Tolerance(1000, true)),
            std::optional<size_t>(1));  // NaN never passes
}

}  // namespace
}  // namespace uopfuzz::check
