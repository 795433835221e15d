// SEMANTICS.md is the contract: every op in ops.def and every dtype in dtypes.def must
// have its own `### NAME` section, so adding one without defining it fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "ir/dtype.h"
#include "ir/ops.h"

namespace uopfuzz::ir {
namespace {

std::set<std::string> section_titles() {
  std::ifstream f(std::string(UOPFUZZ_SOURCE_DIR) + "/SEMANTICS.md");
  EXPECT_TRUE(f.good()) << "SEMANTICS.md is missing";
  std::set<std::string> titles;
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("### ", 0) == 0) titles.insert(line.substr(4));
  return titles;
}

TEST(SemanticsDoc, EveryOpHasASection) {
  auto titles = section_titles();
  for (int i = 0; i < kOpCount; ++i) {
    std::string name(op_name(static_cast<Op>(i)));
    EXPECT_TRUE(titles.count(name)) << "SEMANTICS.md has no '### " << name << "' section";
  }
}

TEST(SemanticsDoc, EveryDtypeHasASection) {
  auto titles = section_titles();
  for (DType dt : all_dtypes()) {
    std::string name(dt.name());
    EXPECT_TRUE(titles.count(name)) << "SEMANTICS.md has no '### " << name << "' section";
  }
}

TEST(SemanticsDoc, NoSectionNamesAnUnknownOpOrDtype) {
  // Catches a renamed op whose old section lingers. Non-op sections are listed here.
  const std::set<std::string> prose = {"Evaluation",
                                       "Undefined behaviour",
                                       "Order of effects",
                                       "Comparing results",
                                       "Backend tolerances and capabilities",
                                       "Reassociated float sums",
                                       "Timing",
                                       "Inputs"};
  for (const std::string& t : section_titles()) {
    if (prose.count(t)) continue;
    EXPECT_TRUE(parse_op(t).has_value() || DType::parse(t).has_value())
        << "section '### " << t << "' names no op or dtype";
  }
}

}  // namespace
}  // namespace uopfuzz::ir
