// Root causes (fuzz/root_causes.h): the file's entries, its errors with their lines, and how
// a finding is matched to the cause that explains it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/root_causes.h"

namespace uopfuzz::fuzz {
namespace {

std::string write_temp(const std::string& text) {
  static int n = 0;
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("uopfuzz-root-causes-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + ".md"))
          .string();
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kFile = R"(# Root causes

A preamble with - a: list that is not a key.

## cast-fold
- verdict: real
- where: uop/symbolic.py:147
- signatures: mismatch/uop/symbolic.py:150/*, `mismatch/uop/symbolic.py:263/*`
- bounds: CAST

The CAST-of-CONST fold keeps the value unwrapped.
- a list in the prose: not a key

## signed-wrap
- verdict: difference
- signatures: *symbolic.py:1*

Declared in SEMANTICS.md.
)";

TEST(FuzzRootCauses, ReadsEntriesKeysAndTitles) {
  auto causes = read_root_causes(write_temp(kFile));
  ASSERT_TRUE(causes.ok()) << causes.error().message;
  ASSERT_EQ(causes->causes.size(), 2u);
  const RootCause& cast = causes->causes[0];
  EXPECT_EQ(cast.id, "cast-fold");
  EXPECT_EQ(cast.verdict, "real");
  EXPECT_EQ(cast.title, "The CAST-of-CONST fold keeps the value unwrapped.");
  ASSERT_EQ(cast.signatures.size(), 2u);
  EXPECT_EQ(cast.signatures[1], "mismatch/uop/symbolic.py:263/*");  // backquotes dropped
  EXPECT_EQ(cast.keys.at("where"), "uop/symbolic.py:147");
  EXPECT_EQ(cast.keys.count("a list in the prose"), 0u);
  EXPECT_EQ(cast.line, 5);
  EXPECT_EQ(causes->find("signed-wrap")->verdict, "difference");
  EXPECT_EQ(causes->find("nothing"), nullptr);
}

TEST(FuzzRootCauses, ABoundsDiagnosisIsMatchedBeforeTheSignature) {
  auto causes = read_root_causes(write_temp(kFile));
  ASSERT_TRUE(causes.ok());
  // By signature: the first entry whose pattern matches.
  EXPECT_EQ(causes->explain("mismatch/uop/symbolic.py:263/oracle", "")->id, "cast-fold");
  EXPECT_EQ(causes->explain("mismatch/uop/symbolic.py:116/cpu", "")->id, "signed-wrap");
  EXPECT_EQ(causes->explain("mismatch/codegen/simplify.py:96/oracle", ""), nullptr);
  // A diagnosis naming a CAST wins over a signature that another entry explains.
  EXPECT_EQ(causes
                ->explain("mismatch/uop/symbolic.py:116/oracle",
                          "seed 0: ...; unsound-bounds: CAST of [1, 1] claimed [2, 2], value 1")
                ->id,
            "cast-fold");
  // So does the op of a bounds finding's signature.
  EXPECT_EQ(causes->explain("unsound-bounds/tinygrad/CAST", "")->id, "cast-fold");
  EXPECT_EQ(causes->explain("unsound-bounds/tinygrad/ADD", ""), nullptr);
}

TEST(FuzzRootCauses, NoFileIsNoCausesAndBadFilesSayTheLine) {
  auto none = read_root_causes("/nonexistent/root-causes.md");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->causes.empty());
  auto bad_verdict = read_root_causes(write_temp("## a\n- verdict: maybe\n"));
  ASSERT_FALSE(bad_verdict.ok());
  EXPECT_EQ(bad_verdict.error().loc.line, 2);
  auto no_verdict = read_root_causes(write_temp("## a\n- where: x\n\n## b\n- verdict: real\n"));
  ASSERT_FALSE(no_verdict.ok());
  EXPECT_EQ(no_verdict.error().loc.line, 1);
  EXPECT_NE(no_verdict.error().message.find("'a'"), std::string::npos);
  auto twice = read_root_causes(write_temp("## a\n- verdict: real\n## a\n- verdict: real\n"));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().loc.line, 3);
  EXPECT_FALSE(read_root_causes(write_temp("## a b\n- verdict: real\n")).ok());
}

TEST(FuzzRootCauses, GlobAndDiagnosisParsing) {
  EXPECT_TRUE(glob_match("a*c", "abbbc"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("mismatch/*/oracle", "mismatch/uop/symbolic.py:1/oracle"));
  EXPECT_FALSE(glob_match("mismatch/*/oracle", "mismatch/uop/symbolic.py:1/cpu"));
  EXPECT_FALSE(glob_match("a*b", "acbc"));
  EXPECT_EQ(unsound_bounds_op("x; unsound-bounds: MAX of [0, 1] claimed [0, 0], value 1"), "MAX");
  EXPECT_EQ(unsound_bounds_op("no diagnosis"), "");
}

}  // namespace
}  // namespace uopfuzz::fuzz
