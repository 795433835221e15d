// No literal probabilities in the generators' sources: every chance and every weight is a
// named policy field (GenPolicy, its weight tables, TensorGenPolicy, InstanceWeights), so a
// reader, a tuner and `fuzz --json` see each one by its name. The rule, checked on every
// gen/*.cpp and gen/**/*.cpp (the policy headers hold the values and are not scanned):
//   - no numeric literal other than 0 inside the parentheses of chance(...);
//   - no numeric literal other than 0 inside the braces of pick({...}).
// A 0 switches an option off where it cannot occur (`ranges.empty() ? 0.0 : w.range`).
// A fair choice between equivalent spellings is coin(), not chance(0.5).
// And every policy struct's UOPFUZZ_FIELDS(...) (gen/fields.h) names each data member it
// declares, so `fuzz --json` records every knob.
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

/// A struct that names its fields with UOPFUZZ_FIELDS: the data members its body declares at
/// its own level, and the names the macro lists.
struct FieldLists {
  std::string name;
  std::vector<std::string> declared, named;
};

std::string trimmed(const std::string& s) {
  const size_t first = s.find_first_not_of(" \n\t");
  return first == std::string::npos ? "" : s.substr(first, s.find_last_not_of(" \n\t") - first + 1);
}

/// `text` split at the commas outside brackets (a shift's << and >> are not brackets).
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool shift = (c == '<' || c == '>') &&
                       ((i + 1 < text.size() && text[i + 1] == c) || (i > 0 && text[i - 1] == c));
    if (!shift && (c == '(' || c == '<' || c == '[')) ++depth;
    if (!shift && (c == ')' || c == '>' || c == ']')) --depth;
    if (c == ',' && depth == 0)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

/// The members one declaration statement declares (`double a = 3, b = 2` -> a, b); none for
/// a function, a type, a static or a using.
std::vector<std::string> declared_names(const std::string& statement) {
  const std::string s = trimmed(statement);
  for (const char* skip : {"static", "using", "template", "friend", "enum", "struct", "typedef"})
    if (s.starts_with(skip)) return {};
  const size_t paren = s.find('('), equals = s.find('=');
  if (s.empty() || (paren != std::string::npos && paren < equals)) return {};
  std::vector<std::string> names;
  static const std::regex last_identifier(R"((\w+)\s*(\[[^\]]*\])?\s*$)");
  for (const std::string& part : split_top_level(s)) {
    const std::string declarator = part.substr(0, part.find('='));
    std::smatch m;
    if (std::regex_search(declarator, m, last_identifier)) names.push_back(m[1]);
  }
  return names;
}

/// Every struct in `text` whose body holds UOPFUZZ_FIELDS(...).
std::vector<FieldLists> field_lists(const std::string& text) {
  const std::string code = code_only(text);
  std::vector<FieldLists> found;
  static const std::regex open(R"(\bstruct\s+(\w+)\s*\{)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), open); it != std::sregex_iterator();
       ++it) {
    const std::string braced =
        balanced(code, static_cast<size_t>(it->position(0) + it->length(0) - 1));
    std::string body = braced.size() >= 2 ? braced.substr(1, braced.size() - 2) : "";
    const size_t macro = body.find("UOPFUZZ_FIELDS(");
    if (macro == std::string::npos) continue;
    FieldLists lists{(*it)[1]};
    const size_t args_at = macro + std::string("UOPFUZZ_FIELDS").size();
    const std::string args = balanced(body, args_at);
    for (const std::string& name : split_top_level(args.substr(1, args.size() - 2)))
      lists.named.push_back(trimmed(name));
    body.replace(macro, args_at - macro + args.size(), args_at - macro + args.size(), ' ');
    std::string statement;
    int depth = 0;
    bool function_body = false;
    for (const char c : body) {  // statements at the struct's own level; bodies skipped
      if (depth > 0) {
        if (c == '{') ++depth;
        if (c == '}' && --depth == 0 && function_body) statement.clear();
        continue;
      }
      if (c == '{') {  // a function's body, or a member's brace initializer
        depth = 1;
        const size_t paren = statement.find('('), equals = statement.find('=');
        function_body = paren != std::string::npos && paren < equals;
      } else if (c == ';') {
        for (const std::string& name : declared_names(statement)) lists.declared.push_back(name);
        statement.clear();
      } else {
        statement += c;
      }
    }
    found.push_back(std::move(lists));
  }
  return found;
}

/// "<struct>: <what is wrong>" for each struct whose UOPFUZZ_FIELDS is not exactly its members.
std::vector<std::string> field_list_errors(const std::string& text) {
  std::vector<std::string> errors;
  for (FieldLists& f : field_lists(text)) {
    for (const std::string& d : f.declared)
      if (std::count(f.named.begin(), f.named.end(), d) != 1)
        errors.push_back(f.name + ": " + d + " is declared but not named once in UOPFUZZ_FIELDS");
    for (const std::string& n : f.named)
      if (std::find(f.declared.begin(), f.declared.end(), n) == f.declared.end())
        errors.push_back(f.name + ": " + n + " is named in UOPFUZZ_FIELDS but not a member");
  }
  return errors;
}

TEST(GenPolicyFields, FindsAMemberTheListLeavesOut) {
  const std::string planted =
      "struct A {\n"
      "  double add = 3, sub = 2;  ///< int sneaky = 1;\n"
      "  int64_t big = int64_t{1} << 40;\n"
      "  Table table{.x = 1, .y = 2};\n"
      "  double of(int k) const { double local = 0; return local; }\n"
      "  static constexpr int kNotAField = 1;\n"
      "  UOPFUZZ_FIELDS(add, sub, big, table)\n"
      "};\n"
      "struct B {\n"
      "  double kept = 1, dropped = 2;\n"
      "  UOPFUZZ_FIELDS(kept, ghost)\n"
      "};\n";
  const auto lists = field_lists(planted);
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].declared, (std::vector<std::string>{"add", "sub", "big", "table"}));
  const auto errors = field_list_errors(planted);
  ASSERT_EQ(errors.size(), 2u) << listed(errors);
  EXPECT_EQ(errors[0], "B: dropped is declared but not named once in UOPFUZZ_FIELDS");
  EXPECT_EQ(errors[1], "B: ghost is named in UOPFUZZ_FIELDS but not a member");
}

TEST(GenPolicyFields, EveryPolicyStructNamesEachOfItsMembers) {
  const fs::path gen = fs::path(UOPFUZZ_SOURCE_DIR) / "gen";
  std::vector<std::string> errors;
  int structs = 0;
  for (const auto& entry : fs::recursive_directory_iterator(gen)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".h") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    structs += static_cast<int>(field_lists(text.str()).size());
    for (const std::string& e : field_list_errors(text.str()))
      errors.push_back(fs::relative(entry.path(), UOPFUZZ_SOURCE_DIR).string() + ": " + e);
  }
  EXPECT_GE(structs, 40) << "the policy structs were not found";
  EXPECT_TRUE(errors.empty()) << listed(errors);
}

}  // namespace
}  // namespace uopfuzz
