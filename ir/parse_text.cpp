#include "ir/parse_text.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "ir/tensor.h"

namespace uopfuzz::ir::parse {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

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

}  // namespace uopfuzz::ir::parse
