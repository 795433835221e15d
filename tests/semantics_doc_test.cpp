// SEMANTICS.md is the contract: every op in ops.def and every dtype in dtypes.def must
// have its own `### NAME` section, so adding one without defining it fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"

namespace uopfuzz::ir {
namespace {

// The `### NAME` titles, each with the `## Part` it stands under.
std::vector<std::pair<std::string, std::string>> titled_sections() {
  std::ifstream f(std::string(UOPFUZZ_SOURCE_DIR) + "/SEMANTICS.md");
  EXPECT_TRUE(f.good()) << "SEMANTICS.md is missing";
  std::vector<std::pair<std::string, std::string>> sections;
  std::string line, part;
  while (std::getline(f, line)) {
    if (line.rfind("## ", 0) == 0) part = line.substr(3);
    if (line.rfind("### ", 0) == 0) sections.emplace_back(line.substr(4), part);
  }
  return sections;
}

std::set<std::string> section_titles() {
  std::set<std::string> titles;
  for (const auto& [title, part] : titled_sections()) titles.insert(title);
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
                                       "Inputs",
                                       "Quantized types",
                                       "Tensor evaluation",
                                       "PARAM as a tensor input",
                                       "CONST as a constant tensor",
                                       "Elementwise ALU ops",
                                       "Programs",
                                       "When a lowering is correct"};
  for (const std::string& t : section_titles()) {
    if (prose.count(t)) continue;
    EXPECT_TRUE(parse_op(t).has_value() || DType::parse(t).has_value())
        << "section '### " << t << "' names no op or dtype";
  }
}

TEST(SemanticsDoc, TensorAndScheduleOpsAreDefinedUnderTensorPrograms) {
  // The ops only tensor programs (and their lowering) use, and the shared ones in their
  // tensor reading, are defined in the "Tensor programs" part, not among the kernel ops.
  std::set<std::string> tensor_part;
  for (const auto& [title, part] : titled_sections())
    if (part == "Tensor programs") tensor_part.insert(title);
  for (int i = 0; i < kOpCount; ++i) {
    Op op = static_cast<Op>(i);
    if (!op_in(op, Tensor) && !op_in(op, Schedule)) continue;
    std::string name(op_name(op));
    EXPECT_TRUE(tensor_part.count(name))
        << "SEMANTICS.md has no '### " << name << "' under '## Tensor programs'";
  }
  for (const char* shared : {"Tensor evaluation", "PARAM as a tensor input",
                             "CONST as a constant tensor", "Elementwise ALU ops"})
    EXPECT_TRUE(tensor_part.count(shared))
        << "SEMANTICS.md has no '### " << shared << "' under '## Tensor programs'";
}

}  // namespace
}  // namespace uopfuzz::ir
