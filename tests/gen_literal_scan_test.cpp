// No literal probabilities in the generators' sources: every chance and every weight is a
// named policy field (GenPolicy, its weight tables, TensorGenPolicy, InstanceWeights), so a
// reader, a tuner and `fuzz --json` see each one by its name. The rule, checked on every
// gen/*.cpp and gen/**/*.cpp (the policy headers hold the values and are not scanned):
//   - no numeric literal other than 0 inside the parentheses of chance(...);
//   - no numeric literal other than 0 inside the braces of pick({...}).
// A 0 switches an option off where it cannot occur (`ranges.empty() ? 0.0 : w.range`).
// A fair choice between equivalent spellings is coin(), not chance(0.5).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace uopfuzz {
namespace {

namespace fs = std::filesystem;

/// `text` with its comments blanked (newlines kept, so line numbers stay), string and
/// character literals blanked too.
std::string code_only(const std::string& text) {
  std::string out = text;
  enum class In { Code, Line, Block, String, Char } in = In::Code;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i], next = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (in) {
      case In::Code:
        if (c == '/' && next == '/')
          in = In::Line, out[i] = ' ';
        else if (c == '/' && next == '*')
          in = In::Block, out[i] = ' ';
        else if (c == '"')
          in = In::String;
        else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(out[i - 1]))))
          in = In::Char;  // 1'000'000 is a digit separator, not a character literal
        break;
      case In::Line:
        if (c == '\n')
          in = In::Code;
        else
          out[i] = ' ';
        break;
      case In::Block:
        if (c == '*' && next == '/')
          in = In::Code, out[i] = out[i + 1] = ' ', ++i;
        else if (c != '\n')
          out[i] = ' ';
        break;
      case In::String:
      case In::Char:
        if (c == '\\')
          out[i] = ' ', out[i + 1] = ' ', ++i;
        else if (c == (in == In::String ? '"' : '\''))
          in = In::Code;
        else
          out[i] = ' ';
        break;
    }
  }
  return out;
}

/// The text from the bracket at `open` to its matching close (empty: unbalanced).
std::string balanced(const std::string& code, size_t open) {
  const char o = code[open], c = o == '(' ? ')' : '}';
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == o) ++depth;
    if (code[i] == c && --depth == 0) return code.substr(open, i - open + 1);
  }
  return "";
}

/// Does `args` hold a numeric literal other than 0 (not part of an identifier or a member,
/// not an operand of a comparison: `s.size() >= 2 ? w.permute : 0.0` draws no literal)?
bool has_nonzero_literal(const std::string& args) {
  static const std::regex number(
      R"(((<|>|<=|>=|==|!=)\s*)?(^|[^\w.])((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)[fFuUlL]*)");
  for (auto it = std::sregex_iterator(args.begin(), args.end(), number);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[2].matched) continue;  // compared, not drawn
    if (std::stod((*it)[4].str()) != 0) return true;
  }
  return false;
}

/// `text` on one line, its runs of whitespace one space each.
std::string one_line(const std::string& text) {
  return std::regex_replace(text, std::regex(R"(\s+)"), " ");
}

/// "line N: <call>" for each literal probability or weight in `text`.
std::vector<std::string> literal_probabilities(const std::string& text) {
  const std::string code = code_only(text);
  std::vector<std::string> found;
  static const std::regex call(R"(\b(chance\s*\(|pick\s*\(\s*\{))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator();
       ++it) {
    const size_t at = static_cast<size_t>(it->position(0));
    const size_t open = at + it->length(0) - 1;  // the ( of chance, the { of pick
    const std::string args = balanced(code, open);
    if (!has_nonzero_literal(args)) continue;
    const auto line = 1 + std::count(code.begin(), code.begin() + static_cast<long>(at), '\n');
    const std::string close = code[open] == '{' ? ")" : "";
    found.push_back("line " + std::to_string(line) + ": " +
                    one_line(code.substr(at, open - at) + args + close));
  }
  return found;
}

/// The tensor-program generator's files (TensorGenPolicy's side of gen/): gen/tensor*,
/// gen/tensor/, gen/mutate*.
bool tensor_side(const fs::path& relative_to_gen) {
  for (const auto& part : relative_to_gen) {
    const std::string name = part.string();
    if (name.starts_with("tensor") || name.starts_with("mutat")) return true;
  }
  return false;
}

/// "gen/<file>:<line>: <call>" for every literal probability in the kernel side's sources
/// (or the tensor side's).
std::vector<std::string> scan_gen(bool tensor) {
  const fs::path gen = fs::path(UOPFUZZ_SOURCE_DIR) / "gen";
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(gen)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".cpp") continue;
    if (tensor_side(fs::relative(entry.path(), gen)) != tensor) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string rel = fs::relative(entry.path(), UOPFUZZ_SOURCE_DIR).string();
    for (const std::string& f : literal_probabilities(text.str()))
      found.push_back(rel + ":" + f.substr(5));
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string listed(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "  " + x + "\n";
  return s;
}

TEST(GenLiteralScan, FindsAPlantedLiteralAndNotANamedKnob) {
  const std::string planted =
      "UOp f() {\n"
      "  if (e_.chance(p_.p_gather)) return a;  // chance(0.3) in a comment is fine\n"
      "  if (e_.chance(0.3)) return b;\n"
      "  switch (e_.pick({w.x, s.empty() ? 0.0 : w.y})) {}\n"
      "  switch (e_.pick({2, w.y, 1.5})) {}\n"
      "  const char* s = \"chance(0.5)\";\n"
      "  return coin() ? x : y;\n"
      "}\n";
  const auto found = literal_probabilities(planted);
  ASSERT_EQ(found.size(), 2u) << listed(found);
  EXPECT_EQ(found[0], "line 3: chance(0.3)");
  EXPECT_EQ(found[1], "line 5: pick({2, w.y, 1.5})");
  EXPECT_TRUE(literal_probabilities("x = e_.chance(w_.p_expr_leaf) && chance(kNever1);").empty());
  EXPECT_EQ(literal_probabilities("e.chance(.25)").size(), 1u);
  EXPECT_EQ(literal_probabilities("e.chance(1e-3)").size(), 1u);
  EXPECT_TRUE(literal_probabilities("e_.pick({w.a, s.size() >= 2 ? w.b : 0.0})").empty());
  EXPECT_EQ(literal_probabilities("e_.pick({w.a,\n  n > 2 ? 1.5 : w.b})").size(), 1u);
}

TEST(GenLiteralScan, KernelGeneratorHasNoLiteralProbabilities) {
  const auto found = scan_gen(false);
  EXPECT_TRUE(found.empty()) << "literal probabilities (make each a named policy field, or "
                                "coin() for a fair choice between equivalent spellings):\n"
                             << listed(found);
}

TEST(GenLiteralScan, TensorGeneratorHasNoLiteralProbabilities) {
  const auto found = scan_gen(true);
  EXPECT_TRUE(found.empty()) << "literal probabilities in the tensor generator's files "
                                "(TensorGenPolicy's fields, or coin()):\n"
                             << listed(found);
}

}  // namespace
}  // namespace uopfuzz
