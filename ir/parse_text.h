/** \file The pieces of the .uop parser (ir/parser.cpp) that read one token or one line:
 * tokens, names, integers and literals (ir/parse_text.cpp), and each op's arguments
 * (ir/parse_args.cpp). Internal to the parser; everyone else calls ir::parse_kernel. */
#pragma once

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/kernel.h"
#include "ir/result.h"

namespace uopfuzz::ir::parse {

struct Token {
  std::string_view text;
  int col;  // 1-based
};

/// A `key=[a,b,...]` argument: the key's token and the list's items.
struct ListArg {
  Token key;
  std::vector<Token> items;
};

using Failure = std::optional<Error>;

inline Error fail(int line, int col, std::string msg) {
  return Error{std::move(msg), SourceLoc{line, col}};
}

bool valid_identifier(std::string_view s);

/// The input echoed in an error message: quoted, at most 40 characters, printable.
std::string quoted(std::string_view s);

/// A line's tokens, up to a '#' comment.
std::vector<Token> tokenize(std::string_view line);

/// A whole decimal integer with an optional sign. `out_of_range` tells a well-formed
/// literal too big for Int apart from a malformed one.
template <class Int>
bool parse_int(std::string_view s, Int& out, bool* out_of_range = nullptr) {
  if (out_of_range) *out_of_range = false;
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s[0] == '-') return false;  // "+-5" is not a number
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec == std::errc::result_out_of_range && p == s.data() + s.size() && out_of_range)
    *out_of_range = true;
  return ec == std::errc() && p == s.data() + s.size();
}

/// A literal of dtype `dt`, canonicalized. Returns an error text on failure.
std::optional<std::string> parse_literal(DType dt, std::string_view s, Value& out);

/// The argument of `op` on line `ln` from the tokens between its operands and ':'
/// (`rest`) and its `key=[...]` lists; what it takes is erased from `lists`.
Failure parse_arg(int ln, Op op, DType dt, const std::vector<Token>& rest,
                  std::map<std::string_view, ListArg>& lists, const Token& op_tok,
                  const std::vector<UOp>& src, const std::optional<Shape>& shape, Arg& arg);

}  // namespace uopfuzz::ir::parse
