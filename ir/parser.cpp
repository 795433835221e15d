#include "ir/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "ir/run_io.h"
#include "ir/tensor.h"

namespace uopfuzz::ir {
namespace {

struct Token {
  std::string_view text;
  int col;  // 1-based
};

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

bool valid_identifier(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  for (char c : s)
    if (!is_name_char(c)) return false;
  return true;
}

std::string quoted(std::string_view s) {
  // Error messages echo input; keep them one printable line.
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
  if (s.size() > 40) out += "...";
  return "'" + out + "'";
}

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
std::optional<std::string> parse_literal(DType dt, std::string_view s, Value& out) {
  switch (dt.kind()) {
    case DTypeKind::Bool:
      if (s == "true" || s == "1") {
        out = Value::of_int(1);
        return std::nullopt;
      }
      if (s == "false" || s == "0") {
        out = Value::of_int(0);
        return std::nullopt;
      }
      return "expected true or false";
    case DTypeKind::Unsigned: {
      uint64_t v;
      bool too_big;
      if (!parse_int(s, v, &too_big))
        return too_big ? fmt::format("{} does not fit in {}", quoted(s), dt.name())
                       : fmt::format("expected an unsigned integer literal, got {}", quoted(s));
      if (dt.bits() < 64 && v > static_cast<uint64_t>(dt.int_max()))
        return fmt::format("{} does not fit in {}", quoted(s), dt.name());
      out = Value::of_uint(v);
      return std::nullopt;
    }
    case DTypeKind::Signed:
    case DTypeKind::Index: {
      int64_t v;
      bool too_big;
      if (!parse_int(s, v, &too_big))
        return too_big ? fmt::format("{} does not fit in {}", quoted(s), dt.name())
                       : fmt::format("expected an integer literal, got {}", quoted(s));
      if (v < dt.int_min() || v > dt.int_max())
        return fmt::format("{} does not fit in {}", quoted(s), dt.name());
      out = Value::of_int(v);
      return std::nullopt;
    }
    case DTypeKind::Float: {
      std::string_view t = s;
      bool neg = !t.empty() && t[0] == '-';
      if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
      double v;
      // from_chars accepts its own '-', so a second sign would slip through ("--5" as 5).
      if (!t.empty() && (t[0] == '-' || t[0] == '+'))
        return fmt::format("expected a float literal, got {}", quoted(s));
      // A well-formed literal outside the dtype's range rounds as any value does: to
      // +-inf on overflow, to 0 or a denormal on underflow (from_chars leaves it unset).
      auto out_of_range = [&] { return std::strtod(std::string(t).c_str(), nullptr); };
      if (t == "inf") {
        v = INFINITY;
      } else if (t == "nan") {
        v = NAN;
      } else if (dt.bytes() != 4) {
        // float64, and float16 (one rounding, decimal -> double -> half, is as close to
        // correct as it gets; the printer's shortest form of a half still reads back exactly).
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (p != t.data() + t.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
          return fmt::format("expected a float literal, got {}", quoted(s));
        if (ec == std::errc::result_out_of_range) v = out_of_range();
      } else {
        // float32 read at float precision: correctly rounded, and the printer's shortest form reads
        // back exactly.
        float f;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
        if (p != t.data() + t.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
          return fmt::format("expected a float literal, got {}", quoted(s));
        if (ec == std::errc::result_out_of_range) f = static_cast<float>(out_of_range());
        v = f;
      }
      out = round_float(dt, neg ? -v : v);
      return std::nullopt;
    }
    // A quantized literal is the stored integer (SEMANTICS.md, "Quantized types").
    case DTypeKind::Quantized: return parse_literal(dt.storage(), s, out);
    case DTypeKind::Void: return fmt::format("no literal has dtype {}", dt.name());
  }
  return fmt::format("no literal has dtype {}", dt.name());
}

class Parser {
 public:
  Parser(Context& ctx, std::string_view text) : ctx_(ctx), text_(text) {}

  Result<ParsedKernel> run() {
    size_t pos = 0;
    int line_no = 0;
    while (pos <= text_.size()) {
      size_t nl = text_.find('\n', pos);
      std::string_view line =
          text_.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (auto err = parse_line(line_no, line)) return *err;
      // A final newline ends the last line; it does not start an empty one.
      if (nl == std::string_view::npos || nl + 1 == text_.size()) break;
      pos = nl + 1;
    }
    return finish(line_no);
  }

 private:
  using Failure = std::optional<Error>;

  Error fail(int line, int col, std::string msg) {
    return Error{std::move(msg), SourceLoc{line, col}};
  }

  std::vector<Token> tokenize(std::string_view line) {
    std::vector<Token> toks;
    size_t i = 0;
    while (i < line.size()) {
      char c = line[i];
      if (c == '#') break;
      if (c == ' ' || c == '\t') {
        ++i;
        continue;
      }
      size_t start = i;
      // Brackets and commas are their own tokens (for @output lists).
      if (c == '[' || c == ']' || c == ',') {
        toks.push_back({line.substr(i, 1), static_cast<int>(i) + 1});
        ++i;
        continue;
      }
      // A quantized dtype's parameters, qint8<0.03,0>, stay in one token: its comma is
      // not a list separator.
      bool in_angle = false;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '#' &&
             (in_angle || (line[i] != '[' && line[i] != ']' && line[i] != ','))) {
        if (line[i] == '<') in_angle = true;
        if (line[i] == '>') in_angle = false;
        ++i;
      }
      toks.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
    }
    return toks;
  }

  Failure parse_line(int ln, std::string_view line) {
    std::vector<Token> toks = tokenize(line);
    if (toks.empty()) return std::nullopt;
    if (toks[0].text[0] == '@') {
      if (!nodes_.empty())
        return fail(ln, toks[0].col, "header lines (@...) must come before the first node");
      return parse_header(ln, line, toks);
    }
    return parse_node(ln, toks);
  }

  Failure parse_header(int ln, std::string_view line, const std::vector<Token>& toks) {
    std::string_view key = toks[0].text.substr(1);
    if (!valid_identifier(key))
      return fail(ln, toks[0].col,
                  fmt::format("expected a header key after '@', got {}", quoted(key)));
    if (toks.size() < 2)
      return fail(ln, toks[0].col + static_cast<int>(toks[0].text.size()),
                  fmt::format("expected a value after @{}", key));
    // The value is the rest of the line after the key, without the comment.
    size_t vstart = static_cast<size_t>(toks[1].col - 1);
    size_t vend = line.find('#', vstart);
    std::string_view value = line.substr(
        vstart, vend == std::string_view::npos ? std::string_view::npos : vend - vstart);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    KernelHeader& h = header_;
    const int vcol = toks[1].col;
    auto once = [&](bool& seen) -> Failure {
      if (seen) return fail(ln, toks[0].col, fmt::format("duplicate @{}", key));
      seen = true;
      return std::nullopt;
    };
    if (key == "name") {
      if (auto e = once(seen_name_)) return e;
      h.name = std::string(value);
    } else if (key == "seed") {
      if (auto e = once(seen_seed_)) return e;
      uint64_t s;
      if (toks.size() != 2 || !parse_int(toks[1].text, s))
        return fail(ln, vcol,
                    fmt::format("expected an unsigned integer seed, got {}", quoted(value)));
      h.seed = s;
    } else if (key == "expect") {
      if (auto e = once(h.expect_given)) return e;
      if (value == "ok")
        h.expect = Expect::Ok;
      else if (value == "ub")
        h.expect = Expect::Ub;
      else
        return fail(ln, vcol,
                    fmt::format("expected 'ok' or 'ub' after @expect, got {}", quoted(value)));
    } else if (key == "var") {
      std::string_view t = toks[1].text;
      size_t eq = t.find('=');
      int64_t v;
      if (toks.size() != 2 || eq == std::string_view::npos || !parse_int(t.substr(eq + 1), v) ||
          !valid_identifier(t.substr(0, eq)))
        return fail(ln, vcol,
                    fmt::format("expected NAME=INTEGER after @var, got {}", quoted(value)));
      for (const auto& [n, _] : h.vars)
        if (n == t.substr(0, eq)) return fail(ln, vcol, fmt::format("duplicate @var {}", n));
      h.vars.emplace_back(std::string(t.substr(0, eq)), v);
    } else if (key == "output" || key == "input") {
      const bool output = key == "output";
      int slot;
      if (!parse_int(toks[1].text, slot) || slot < 0)
        return fail(ln, vcol,
                    fmt::format("expected {} slot number, got {}",
                                output ? "an output" : "an input", quoted(toks[1].text)));
      if (toks.size() < 4 || toks[2].text != "[" || toks.back().text != "]")
        return fail(
            ln, toks.size() > 2 ? toks[2].col : vcol,
            fmt::format("expected a list of values in brackets: @{} SLOT [v, v, ...]", key));
      PendingValues out{slot, {}, ln, vcol};
      for (size_t i = 3; i + 1 < toks.size(); ++i) {
        bool expect_value = (i - 3) % 2 == 0;
        if (expect_value == (toks[i].text == ","))
          return fail(ln, toks[i].col, expect_value ? "expected a value" : "expected ',' or ']'");
        if (expect_value) out.values.push_back(toks[i]);
      }
      if (toks.size() > 4 && toks[toks.size() - 2].text == ",")
        return fail(ln, toks.back().col, "expected a value before ']'");
      std::vector<PendingValues>& lines = output ? outputs_ : inputs_;
      for (const auto& o : lines)
        if (o.slot == slot)
          return fail(ln, vcol, fmt::format("duplicate @{} for slot {}", key, slot));
      lines.push_back(std::move(out));
    } else {
      h.extra.emplace_back(std::string(key), std::string(value));
    }
    return std::nullopt;
  }

  Failure parse_node(int ln, const std::vector<Token>& toks) {
    const Token& name = toks[0];
    if (name.text[0] != '%' || !valid_identifier(name.text.substr(1)))
      return fail(
          ln, name.col,
          fmt::format("expected a node name like %3 or a header line, got {}", quoted(name.text)));
    if (toks.size() < 2 || toks[1].text != "=")
      return fail(ln, toks.size() < 2 ? name.col + int(name.text.size()) : toks[1].col,
                  "expected '=' after the node name");
    if (toks.size() < 3) return fail(ln, toks[1].col + 1, "expected an op name after '='");
    const Token& op_tok = toks[2];
    auto op = parse_op(op_tok.text);
    if (!op) return fail(ln, op_tok.col, fmt::format("unknown op {}", quoted(op_tok.text)));
    // Split off ": dtype" at the end.
    size_t colon = toks.size();
    for (size_t i = 3; i < toks.size(); ++i)
      if (toks[i].text == ":") colon = i;
    if (colon == toks.size()) {
      const Token& last = toks.back();
      return fail(ln, last.col + static_cast<int>(last.text.size()),
                  "expected ': dtype' at the end of the node");
    }
    if (colon + 1 == toks.size())
      return fail(ln, toks[colon].col + 1, "expected a dtype after ':'");
    // Reported at the dtype, as for a kernel: only a shape may follow it.
    if (colon + 2 < toks.size() && toks[colon + 2].text != "[")
      return fail(ln, toks[colon + 1].col,
                  "expected exactly one dtype after ':' (a tensor's shape follows it as [4,5])");
    auto dt = DType::parse(toks[colon + 1].text);
    if (!dt)
      return fail(ln, toks[colon + 1].col,
                  fmt::format("unknown dtype {}", quoted(toks[colon + 1].text)));
    // A tensor's shape follows its dtype: `: float32[4,5]`, `: int32[]` for rank 0.
    std::optional<Shape> shape;
    if (colon + 2 < toks.size()) {
      std::vector<Token> dims;
      size_t end = toks.size();
      if (auto e = take_list(ln, toks, colon + 2, dims, end)) return e;
      if (end != toks.size()) return fail(ln, toks[end].col, "expected nothing after the shape");
      shape.emplace();
      if (!shaped_) shaped_ = SourceLoc{ln, toks[colon + 2].col};
      for (const Token& d : dims) {
        int64_t v;
        if (!parse_int(d.text, v) || v < 0 || v > (int64_t{1} << 31))
          return fail(
              ln, d.col,
              fmt::format("expected a size in 0..2^31 in the shape, got {}", quoted(d.text)));
        shape->push_back(v);
      }
      if (shape->size() > 16) return fail(ln, toks[colon + 2].col, "a shape has at most 16 dims");
    }

    std::vector<UOp> src;
    size_t i = 3;
    for (; i < colon && toks[i].text[0] == '%'; ++i) {
      auto it = names_.find(std::string(toks[i].text.substr(1)));
      if (it == names_.end())
        return fail(ln, toks[i].col, fmt::format("use of undefined node {}", quoted(toks[i].text)));
      src.push_back(it->second);
    }
    const int nsrc = static_cast<int>(src.size());
    if (nsrc < op_min_src(*op) || (op_max_src(*op) >= 0 && nsrc > op_max_src(*op))) {
      std::string want = op_max_src(*op) < 0 ? fmt::format("at least {}", op_min_src(*op))
                         : op_min_src(*op) == op_max_src(*op)
                             ? fmt::format("{}", op_min_src(*op))
                             : fmt::format("{} to {}", op_min_src(*op), op_max_src(*op));
      return fail(ln, op_tok.col,
                  fmt::format("{} takes {} operand(s), got {}", op_tok.text, want, nsrc));
    }
    // Arguments: a `key=[a,b,...]` list becomes one entry of `lists`, the rest are tokens.
    std::vector<Token> rest;
    std::map<std::string_view, ListArg> lists;
    for (size_t j = i; j < colon; ++j) {
      const Token& t = toks[j];
      if (t.text[0] == '%')
        return fail(ln, t.col, "operands (%...) must come before the op's arguments");
      if (t.text.size() > 1 && t.text.back() == '=' && j + 1 < colon && toks[j + 1].text == "[") {
        ListArg l{t, {}};
        size_t end = colon;
        if (auto e = take_list(ln, toks, j + 1, l.items, end)) return e;
        if (end > colon) return fail(ln, t.col, "expected ']' before ':'");
        std::string_view key = t.text.substr(0, t.text.size() - 1);
        if (!lists.emplace(key, std::move(l)).second)
          return fail(ln, t.col, fmt::format("duplicate argument {}", quoted(key)));
        j = end - 1;
        continue;
      }
      if (t.text == "[" || t.text == "]" || t.text == ",")
        return fail(ln, t.col,
                    fmt::format("unexpected {} (lists are written key=[a,b])", quoted(t.text)));
      rest.push_back(t);
    }
    Arg arg;
    if (auto e = parse_arg(ln, *op, *dt, rest, lists, op_tok, src, shape, arg)) return e;
    if (!lists.empty())
      return fail(
          ln, lists.begin()->second.key.col,
          fmt::format("{} takes no argument {}", op_name(*op), quoted(lists.begin()->first)));

    std::string key(name.text.substr(1));
    if (auto it = lines_.find(key); it != lines_.end())
      return fail(ln, name.col,
                  fmt::format("redefinition of %{} (first defined on line {})", key, it->second));
    // RESHAPE, EXPAND, PARAM and CONST declare their shape; every other tensor op's shape
    // follows from its operands and must match what the line says (the verifier reports
    // a mismatch through the graph: the node keeps the declared shape).
    UOp u =
        ctx_.make(*op, *dt, std::move(src), std::move(arg), shape ? std::move(*shape) : Shape{});
    // Whether the file is a tensor program is known at its root; until then, remember
    // the tensors written without a shape (kernel ops are left to the verifier).
    if (!shape && (op_in(*op, Tensor | Alu) || *op == Op::Param || *op == Op::Const) &&
        *op != Op::Realize)
      shapeless_.push_back(
          SourceLoc{ln, toks[colon + 1].col + static_cast<int>(toks[colon + 1].text.size())});
    names_.emplace(key, u);
    lines_.emplace(key, ln);
    where_.emplace(u, SourceLoc{ln, op_tok.col});
    nodes_.push_back(u);
    last_loc_ = SourceLoc{ln, op_tok.col};
    return std::nullopt;
  }

  /// `[a,b,...]` starting at toks[open]: the items, and `end` one past the ']'.
  Failure take_list(int ln, const std::vector<Token>& toks, size_t open, std::vector<Token>& items,
                    size_t& end) {
    size_t j = open + 1;
    for (; j < toks.size() && toks[j].text != "]"; ++j) {
      bool expect_value = (j - open - 1) % 2 == 0;
      if (expect_value == (toks[j].text == ",") || toks[j].text == "[")
        return fail(ln, toks[j].col, expect_value ? "expected a list item" : "expected ',' or ']'");
      if (expect_value) items.push_back(toks[j]);
    }
    if (j == toks.size()) return fail(ln, toks[open].col, "'[' without its ']'");
    if (j > open + 1 && toks[j - 1].text == ",")
      return fail(ln, toks[j].col, "expected a list item before ']'");
    end = j + 1;
    return std::nullopt;
  }

  struct ListArg {
    Token key;
    std::vector<Token> items;
  };

  Failure parse_arg(int ln, Op op, DType dt, const std::vector<Token>& rest,
                    std::map<std::string_view, ListArg>& lists, const Token& op_tok,
                    const std::vector<UOp>& src, const std::optional<Shape>& shape, Arg& arg) {
    // key=value arguments and bare words, each at most once.
    std::map<std::string_view, Token> kv;
    std::vector<Token> bare;
    for (const Token& t : rest) {
      size_t eq = t.text.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        bare.push_back(t);
        continue;
      }
      if (!kv.emplace(t.text.substr(0, eq),
                      Token{t.text.substr(eq + 1), t.col + static_cast<int>(eq) + 1})
               .second)
        return fail(ln, t.col, fmt::format("duplicate argument {}", quoted(t.text.substr(0, eq))));
    }
    auto take_int = [&](std::string_view key, bool required,
                        std::optional<int64_t>& out) -> Failure {
      auto it = kv.find(key);
      if (it == kv.end()) {
        if (required)
          return fail(ln, op_tok.col, fmt::format("{} needs {}=<integer>", op_name(op), key));
        return std::nullopt;
      }
      int64_t v;
      if (!parse_int(it->second.text, v))
        return fail(
            ln, it->second.col,
            fmt::format("expected an integer for {}, got {}", key, quoted(it->second.text)));
      out = v;
      kv.erase(it);
      return std::nullopt;
    };
    auto leftovers = [&]() -> Failure {
      if (!kv.empty())
        return fail(ln, kv.begin()->second.col - static_cast<int>(kv.begin()->first.size()) - 1,
                    fmt::format("{} takes no argument {}", op_name(op), quoted(kv.begin()->first)));
      if (!bare.empty())
        return fail(ln, bare[0].col,
                    fmt::format("unexpected {} in {}", quoted(bare[0].text), op_name(op)));
      return std::nullopt;
    };

    auto take_ints = [&](std::string_view key, std::vector<int64_t>& out) -> Failure {
      auto it = lists.find(key);
      if (it == lists.end())
        return fail(ln, op_tok.col, fmt::format("{} needs {}=[...]", op_name(op), key));
      for (const Token& t : it->second.items) {
        int64_t v;
        if (!parse_int(t.text, v))
          return fail(ln, t.col,
                      fmt::format("expected an integer in {}, got {}", key, quoted(t.text)));
        out.push_back(v);
      }
      lists.erase(it);
      return std::nullopt;
    };
    auto take_pairs = [&](std::string_view key, PadArg& out) -> Failure {
      auto it = lists.find(key);
      if (it == lists.end())
        return fail(ln, op_tok.col,
                    fmt::format("{} needs {}=[a:b,...] (one pair per dim)", op_name(op), key));
      for (const Token& t : it->second.items) {
        size_t c = t.text.find(':');
        int64_t a, b;
        if (c == std::string_view::npos || !parse_int(t.text.substr(0, c), a) ||
            !parse_int(t.text.substr(c + 1), b))
          return fail(ln, t.col,
                      fmt::format("expected a pair like 1:2 in {}, got {}", key, quoted(t.text)));
        out.pairs.emplace_back(a, b);
      }
      lists.erase(it);
      return std::nullopt;
    };
    const size_t src_rank = src.empty() ? 0 : src[0].shape().size();

    switch (op_kind(op)) {
      case OpKind::Leaf:
        switch (leaf_op(op)) {
          case LeafOp::Const: {
            if (bare.size() != 1 || !kv.empty())
              return fail(ln, op_tok.col, "CONST takes exactly one literal value");
            Value v;
            if (auto e = parse_literal(dt, bare[0].text, v)) return fail(ln, bare[0].col, *e);
            arg = ConstArg{v};
            return std::nullopt;
          }
          case LeafOp::Param: {
            ParamArg p;
            std::optional<int64_t> slot, size;
            if (auto e = take_int("slot", true, slot)) return e;
            // A tensor input's size is its shape's element count.
            if (auto e = take_int("size", !shape, size)) return e;
            if (!size) size = numel(*shape);
            if (auto e = take_int("vmin", false, p.vmin)) return e;
            if (auto e = take_int("vmax", false, p.vmax)) return e;
            if (auto e = take_int("multiple_of", false, p.multiple_of)) return e;
            if (*slot < 0 || *slot > 4096)
              return fail(ln, op_tok.col, fmt::format("PARAM slot {} is outside 0..4096", *slot));
            p.slot = static_cast<int>(*slot);
            p.size = *size;
            if (bare.size() != 1 || (bare[0].text != "in" && bare[0].text != "out"))
              return fail(ln, bare.empty() ? op_tok.col : bare[0].col,
                          "PARAM needs exactly one of 'in' or 'out'");
            p.output = bare[0].text == "out";
            bare.clear();
            if (auto e = leftovers()) return e;
            arg = p;
            return std::nullopt;
          }
          case LeafOp::Var: {
            VarArg v;
            auto it = kv.find("name");
            if (it == kv.end()) return fail(ln, op_tok.col, "VAR needs name=<identifier>");
            if (!valid_identifier(it->second.text))
              return fail(ln, it->second.col,
                          fmt::format("bad VAR name {}", quoted(it->second.text)));
            v.name = std::string(it->second.text);
            kv.erase(it);
            std::optional<int64_t> lo, hi;
            if (auto e = take_int("min", true, lo)) return e;
            if (auto e = take_int("max", true, hi)) return e;
            if (auto e = take_int("multiple_of", false, v.multiple_of)) return e;
            v.min = *lo;
            v.max = *hi;
            if (auto e = leftovers()) return e;
            arg = std::move(v);
            return std::nullopt;
          }
          case LeafOp::Invalid: return leftovers();
        }
        break;
      case OpKind::Structural:
        switch (structural_op(op)) {
          case StructuralOp::Range: {
            RangeArg r;
            auto it = kv.find("axis");
            if (it == kv.end()) return fail(ln, op_tok.col, "RANGE needs axis=<id>[.<sub-id>...]");
            std::string_view ax = it->second.text;
            while (true) {
              size_t dot = ax.find('.');
              int32_t id;
              if (!parse_int(ax.substr(0, dot), id) || id < 0 || r.axis.size() >= 16)
                return fail(ln, it->second.col,
                            fmt::format("expected axis ids like 0 or 3.1, got {}",
                                        quoted(it->second.text)));
              r.axis.push_back(id);
              if (dot == std::string_view::npos) break;
              ax.remove_prefix(dot + 1);
            }
            kv.erase(it);
            if (bare.size() != 1)
              return fail(ln, bare.empty() ? op_tok.col : bare[1].col,
                          "RANGE needs exactly one axis type (LOOP, REDUCE, GLOBAL, ...)");
            auto t = parse_axis_type(bare[0].text);
            if (!t)
              return fail(ln, bare[0].col,
                          fmt::format("unknown axis type {}", quoted(bare[0].text)));
            r.type = *t;
            bare.clear();
            if (auto e = leftovers()) return e;
            arg = std::move(r);
            return std::nullopt;
          }
          case StructuralOp::Reduce: {
            auto it = kv.find("op");
            if (it == kv.end()) return fail(ln, op_tok.col, "REDUCE needs op=ADD|MUL|MAX|MIN");
            auto rop = parse_op(it->second.text);
            if (!rop || (*rop != Op::Add && *rop != Op::Mul && *rop != Op::Max && *rop != Op::Min))
              return fail(ln, it->second.col,
                          fmt::format("REDUCE op must be ADD, MUL, MAX or MIN, got {}",
                                      quoted(it->second.text)));
            kv.erase(it);
            if (auto e = leftovers()) return e;
            arg = ReduceArg{*rop};
            return std::nullopt;
          }
          case StructuralOp::Index:
          case StructuralOp::Load:
          case StructuralOp::Store:
          case StructuralOp::End:
          case StructuralOp::Sink: return leftovers();
        }
        break;
      case OpKind::Alu: return leftovers();
      case OpKind::Tensor:
        switch (tensor_op(op)) {
          case TensorOp::Permute: {
            AxesArg a;
            if (auto e = take_ints("order", a.axes)) return e;
            if (auto e = leftovers()) return e;
            arg = std::move(a);
            return std::nullopt;
          }
          case TensorOp::Flip: {
            AxesArg a;
            if (auto e = take_ints("axes", a.axes)) return e;
            if (auto e = leftovers()) return e;
            arg = std::move(a);
            return std::nullopt;
          }
          case TensorOp::Pad:
          case TensorOp::Shrink: {
            PadArg p;
            if (auto e = take_pairs(op == Op::Pad ? "pad" : "shrink", p)) return e;
            if (auto e = leftovers()) return e;
            arg = std::move(p);
            return std::nullopt;
          }
          case TensorOp::ReduceAxis: {
            ReduceAxisArg r;
            auto it = kv.find("op");
            if (it == kv.end()) return fail(ln, op_tok.col, "REDUCE_AXIS needs op=ADD|MUL|MAX|MIN");
            auto rop = parse_op(it->second.text);
            if (!rop || (*rop != Op::Add && *rop != Op::Mul && *rop != Op::Max && *rop != Op::Min))
              return fail(ln, it->second.col,
                          fmt::format("REDUCE_AXIS op must be ADD, MUL, MAX or MIN, got {}",
                                      quoted(it->second.text)));
            r.op = *rop;
            kv.erase(it);
            // `axes=all` is spelling only: inside the graph the list is explicit, and an empty
            // list reduces nothing.
            if (auto all = kv.find("axes"); all != kv.end()) {
              if (all->second.text != "all")
                return fail(ln, all->second.col,
                            fmt::format("expected axes=[...] or axes=all, got {}",
                                        quoted(all->second.text)));
              for (size_t d = 0; d < src_rank; ++d) r.axes.push_back(static_cast<int64_t>(d));
              kv.erase(all);
            } else if (auto e = take_ints("axes", r.axes)) {
              return e;
            }
            if (auto e = leftovers()) return e;
            arg = std::move(r);
            return std::nullopt;
          }
          case TensorOp::Reshape:
          case TensorOp::Expand:
            if (!shape)
              return fail(
                  ln, op_tok.col,
                  fmt::format("{} takes its target from the shape after ':' (e.g. : float32[3,4])",
                              op_name(op)));
            return leftovers();
          case TensorOp::Contiguous:
          case TensorOp::Realize: return leftovers();
        }
        break;
      case OpKind::Schedule: {
        BufferizeArg b;
        std::optional<int64_t> output;
        if (auto e = take_int("output", false, output)) return e;
        if (output) b.output = static_cast<int>(*output);
        if (auto keep = std::find_if(bare.begin(), bare.end(),
                                     [](const Token& t) { return t.text == "keep"; });
            keep != bare.end()) {
          b.removable = false;
          bare.erase(keep);
        }
        if (auto e = leftovers()) return e;
        arg = b;
        return std::nullopt;
      }
    }
    return leftovers();
  }

  Result<ParsedKernel> finish(int last_line) {
    if (nodes_.empty())
      return fail(last_line, 1, "expected at least one node (the file has no SINK)");
    UOp root = nodes_.back();
    if (root.op() != Op::Sink && root.op() != Op::Realize)
      return fail(last_loc_.line, last_loc_.col,
                  fmt::format("the last node must be the root: a SINK (a kernel) or a REALIZE "
                              "(a tensor program), got {}",
                              op_name(root.op())));
    const bool tensor = root.op() == Op::Realize;
    if (!tensor && shaped_)
      return fail(shaped_->line, shaped_->col,
                  "a kernel's node has no shape (shapes are for tensor programs, rooted at "
                  "REALIZE)");
    if (tensor && !shapeless_.empty())
      return fail(shapeless_[0].line, shapeless_[0].col,
                  "a tensor program's node needs a shape after its dtype, e.g. : int32[3,4] "
                  "(: int32[] for rank 0)");
    ParsedKernel pk;
    pk.kernel.root = root;
    pk.kernel.header = std::move(header_);
    // Expected outputs are typed by their PARAM.
    std::map<int, UOp> params;
    for (UOp u : nodes_)
      if (u.op() == Op::Param) params.emplace(u.arg<ParamArg>().slot, u);
    // A tensor program's @output K is its K-th realized output.
    for (const PendingValues& o : outputs_) {
      if (!tensor) continue;
      if (o.slot >= static_cast<int>(root.num_src()))
        return fail(
            o.line, o.col,
            fmt::format("@output names output {}; REALIZE lists {}", o.slot, root.num_src()));
      UOp t = root.src(static_cast<size_t>(o.slot));
      if (static_cast<int64_t>(o.values.size()) != numel(t.shape()))
        return fail(o.line, o.col,
                    fmt::format("@output {} lists {} values; the output {} has {}", o.slot,
                                o.values.size(), shape_text(t.shape()), numel(t.shape())));
      ExpectedOutput eo{o.slot, {}};
      for (const Token& tok : o.values) {
        Value v;
        if (auto e = parse_literal(t.dtype(), tok.text, v)) return fail(o.line, tok.col, *e);
        eo.values.push_back(v);
      }
      pk.kernel.header.outputs.push_back(std::move(eo));
    }
    for (const PendingValues& o : outputs_) {
      if (tensor) continue;
      auto it = params.find(o.slot);
      if (it == params.end() || !it->second.arg<ParamArg>().output)
        return fail(o.line, o.col,
                    fmt::format("@output names slot {}, which is not an output PARAM", o.slot));
      const ParamArg& p = it->second.arg<ParamArg>();
      if (static_cast<int64_t>(o.values.size()) != p.size)
        return fail(o.line, o.col,
                    fmt::format("@output {} lists {} values; the PARAM has size {}", o.slot,
                                o.values.size(), p.size));
      ExpectedOutput eo{o.slot, {}};
      for (const Token& t : o.values) {
        Value v;
        if (auto e = parse_literal(it->second.dtype(), t.text, v)) return fail(o.line, t.col, *e);
        eo.values.push_back(v);
      }
      pk.kernel.header.outputs.push_back(std::move(eo));
    }
    for (const PendingValues& in : inputs_) {
      auto it = params.find(in.slot);
      if (it == params.end() || it->second.arg<ParamArg>().output)
        return fail(in.line, in.col,
                    fmt::format("@input names slot {}, which is not an input PARAM", in.slot));
      const ParamArg& p = it->second.arg<ParamArg>();
      if (static_cast<int64_t>(in.values.size()) != p.size)
        return fail(in.line, in.col,
                    fmt::format("@input {} lists {} values; the PARAM has size {}", in.slot,
                                in.values.size(), p.size));
      GivenInput given{in.slot, it->second.dtype(), {}};
      for (const Token& t : in.values) {
        Value v;
        if (auto e = parse_literal(it->second.dtype(), t.text, v)) return fail(in.line, t.col, *e);
        if (auto e = input_value_problem(it->second, v))
          return fail(in.line, t.col, fmt::format("@input {}: {}", in.slot, *e));
        given.values.push_back(v);
      }
      pk.kernel.header.inputs.push_back(std::move(given));
    }
    pk.where = std::move(where_);
    return pk;
  }

  struct PendingValues {
    int slot;
    std::vector<Token> values;
    int line, col;
  };

  Context& ctx_;
  std::string_view text_;
  KernelHeader header_;
  bool seen_name_ = false, seen_seed_ = false;
  std::vector<PendingValues> outputs_, inputs_;
  std::unordered_map<std::string, UOp> names_;
  std::unordered_map<std::string, int> lines_;
  std::unordered_map<UOp, SourceLoc, UOpHash> where_;
  std::vector<UOp> nodes_;
  std::optional<SourceLoc> shaped_;   ///< the first shape written, if any
  std::vector<SourceLoc> shapeless_;  ///< just past the dtype of each tensor without a shape
  SourceLoc last_loc_;
};

}  // namespace

Result<ParsedKernel> parse_kernel(Context& ctx, std::string_view text) {
  return Parser(ctx, text).run();
}

}  // namespace uopfuzz::ir
