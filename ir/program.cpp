#include "ir/program.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <optional>
#include <set>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "ir/verify.h"

namespace uopfuzz::ir {
namespace {

const char* role_name(ProgramBuffer::Role r) {
  switch (r) {
    case ProgramBuffer::Role::Input: return "input";
    case ProgramBuffer::Role::Output: return "output";
    case ProgramBuffer::Role::Intermediate: return "intermediate";
  }
  return "?";
}

/// "input 0", "output 1", "intermediate": what a buffer is to the tensor program.
std::string role_text(const ProgramBuffer& b) {
  if (b.role == ProgramBuffer::Role::Intermediate) return role_name(b.role);
  return fmt::format("{} {}", role_name(b.role), b.index);
}

std::string buffer_line(size_t id, const ProgramBuffer& b) {
  // The size is implied by the shape; it is spelled out only where the two differ.
  std::string size = b.size == numel(b.shape) ? "" : fmt::format(" size={}", b.size);
  return fmt::format("@buffer {} {}{} : {}{}\n", id, role_text(b), size, b.dtype.name(),
                     shape_text(b.shape));
}

/// The PARAM nodes of a kernel by slot (the first one of each slot).
std::map<int, UOp> params_by_slot(UOp root) {
  std::map<int, UOp> params;
  for (UOp u : toposort(root))
    if (u.op() == Op::Param) params.emplace(u.arg<ParamArg>().slot, u);
  return params;
}

}  // namespace

std::string print_program(const Program& program) {
  auto count = [](size_t n, std::string_view what) {
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  std::string out = fmt::format("# Program: {}, {}\n", count(program.buffers.size(), "buffer"),
                                count(program.kernels.size(), "kernel"));
  for (size_t i = 0; i < program.buffers.size(); ++i) out += buffer_line(i, program.buffers[i]);
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const ProgramKernel& kernel = program.kernels[k];
    // From `@kernel` to its SINK a block is a .uop kernel on its own (`uopfuzz run` keeps the
    // @kernel and @slot lines as extra header lines), so it can be cut out and run alone.
    out += fmt::format("\n@kernel {}\n", k);
    for (const auto& [slot, buffer] : kernel.buffer_of_slot) {
      const bool known = buffer >= 0 && static_cast<size_t>(buffer) < program.buffers.size();
      out += fmt::format(
          "@slot {} buffer={}  # {}\n", slot, buffer,
          known ? role_text(program.buffers[static_cast<size_t>(buffer)]) : "no such buffer");
    }
    out += print_graph(kernel.root);
  }
  return out;
}

namespace {

struct Token {
  std::string_view text;
  int col = 0;
};

/// The words of a line up to its comment, split at blanks.
std::vector<Token> words(std::string_view line) {
  std::vector<Token> toks;
  size_t i = 0;
  while (i < line.size() && line[i] != '#') {
    if (line[i] == ' ' || line[i] == '\t') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '#') ++i;
    toks.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return toks;
}

template <class T>
bool parse_number(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string quoted(std::string_view s) {
  return fmt::format("'{}'", s);
}

/// One line of the text, numbered from 1.
struct Line {
  std::string_view text;
  int number = 0;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0;
  int n = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, ++n});
    if (nl == std::string_view::npos || nl + 1 == text.size()) break;
    pos = nl + 1;
  }
  return lines;
}

class ProgramParser {
 public:
  ProgramParser(Context& ctx, std::string_view text) : ctx_(ctx), lines_(split_lines(text)) {}

  Result<Program> run() {
    size_t i = 0;
    for (; i < lines_.size(); ++i) {
      std::vector<Token> toks = words(lines_[i].text);
      if (toks.empty()) continue;
      if (toks[0].text == "@kernel") break;
      if (toks[0].text != "@buffer")
        return fail(lines_[i], toks[0].col,
                    fmt::format("expected a @buffer line or a @kernel block, got {}",
                                quoted(toks[0].text)));
      if (auto e = parse_buffer(lines_[i], toks)) return *e;
    }
    while (i < lines_.size()) {
      size_t end = i + 1;
      while (end < lines_.size()) {
        std::vector<Token> toks = words(lines_[end].text);
        if (!toks.empty() && toks[0].text == "@kernel") break;
        ++end;
      }
      if (auto e = parse_kernel_block(i, end)) return *e;
      i = end;
    }
    return std::move(program_);
  }

 private:
  static Error fail(const Line& line, int col, std::string message) {
    return Error{std::move(message), SourceLoc{line.number, col}};
  }

  /// `@buffer ID ROLE [INDEX] [size=N] : DTYPE[SHAPE]`
  std::optional<Error> parse_buffer(const Line& line, const std::vector<Token>& toks) {
    auto at = [&](size_t k) {
      return k < toks.size() ? toks[k].col
                             : toks.back().col + static_cast<int>(toks.back().text.size()) + 1;
    };
    size_t id = 0;
    if (toks.size() < 2 || !parse_number(toks[1].text, id))
      return fail(line, at(1), "expected a buffer number after @buffer");
    if (id != program_.buffers.size())
      return fail(line, toks[1].col,
                  fmt::format("expected buffer {} (buffers are numbered in order from 0), got {}",
                              program_.buffers.size(), id));
    ProgramBuffer b;
    size_t k = 2;
    std::string_view role = k < toks.size() ? toks[k].text : "";
    if (role == "input") {
      b.role = ProgramBuffer::Role::Input;
    } else if (role == "output") {
      b.role = ProgramBuffer::Role::Output;
    } else if (role == "intermediate") {
      b.role = ProgramBuffer::Role::Intermediate;
    } else {
      return fail(line, at(k),
                  fmt::format("expected the buffer's role (input, output or intermediate), got {}",
                              quoted(role)));
    }
    ++k;
    if (b.role != ProgramBuffer::Role::Intermediate) {
      if (k >= toks.size() || !parse_number(toks[k].text, b.index) || b.index < 0)
        return fail(line, at(k),
                    fmt::format("expected the {} number after '{}'",
                                b.role == ProgramBuffer::Role::Input ? "input PARAM slot"
                                                                     : "REALIZE output",
                                role));
      for (const ProgramBuffer& other : program_.buffers)
        if (other.role == b.role && other.index == b.index)
          return fail(line, toks[k].col, fmt::format("a second buffer for {}", role_text(b)));
      ++k;
    }
    std::optional<int64_t> size;
    if (k < toks.size() && toks[k].text.starts_with("size=")) {
      int64_t n = 0;
      if (!parse_number(toks[k].text.substr(5), n) || n < 0)
        return fail(line, toks[k].col,
                    fmt::format("expected size=N with N >= 0, got {}", quoted(toks[k].text)));
      size = n;
      ++k;
    }
    if (k >= toks.size() || toks[k].text != ":")
      return fail(line, at(k), "expected ': dtype[shape]' (e.g. : float32[3,4])");
    ++k;
    // The rest of the line, blanks dropped, is the dtype and the shape.
    std::string type;
    for (size_t j = k; j < toks.size(); ++j) type += toks[j].text;
    const int type_col = at(k);
    size_t open = type.find('[');
    if (open == std::string::npos || type.back() != ']')
      return fail(
          line, type_col,
          fmt::format("expected a dtype and a shape like float32[3,4], got {}", quoted(type)));
    auto dt = DType::parse(std::string_view(type).substr(0, open));
    if (!dt)
      return fail(line, type_col, fmt::format("unknown dtype {}", quoted(type.substr(0, open))));
    b.dtype = *dt;
    std::string_view dims = std::string_view(type).substr(open + 1, type.size() - open - 2);
    while (!dims.empty()) {
      size_t comma = dims.find(',');
      std::string_view d = dims.substr(0, comma);
      int64_t v = 0;
      if (!parse_number(d, v) || v < 0)
        return fail(line, type_col,
                    fmt::format("expected a size >= 0 in the shape, got {}", quoted(d)));
      b.shape.push_back(v);
      if (comma == std::string_view::npos) break;
      dims.remove_prefix(comma + 1);
      if (dims.empty()) return fail(line, type_col, "expected a size after ',' in the shape");
    }
    b.size = size.value_or(numel(b.shape));
    program_.buffers.push_back(std::move(b));
    return std::nullopt;
  }

  /// Lines [begin, end): `@kernel K`, its `@slot S buffer=B` lines, then the kernel's nodes.
  std::optional<Error> parse_kernel_block(size_t begin, size_t end) {
    const Line& head = lines_[begin];
    std::vector<Token> toks = words(head.text);
    size_t k = 0;
    if (toks.size() != 2 || !parse_number(toks[1].text, k))
      return fail(head, toks.size() > 1 ? toks[1].col : toks[0].col,
                  "expected '@kernel K' with the kernel's number");
    if (k != program_.kernels.size())
      return fail(head, toks[1].col,
                  fmt::format("expected kernel {} (kernels are numbered in order from 0), got {}",
                              program_.kernels.size(), k));
    ProgramKernel kernel;
    std::map<int, SourceLoc> slot_where;
    for (size_t i = begin + 1; i < end; ++i) {
      std::vector<Token> t = words(lines_[i].text);
      if (t.empty()) continue;
      if (t[0].text[0] != '@') break;  // the nodes begin
      if (t[0].text != "@slot")
        return fail(lines_[i], t[0].col,
                    fmt::format("a Program's kernel has only @slot header lines, got {}",
                                quoted(t[0].text)));
      int slot = 0, buffer = 0;
      if (t.size() != 3 || !parse_number(t[1].text, slot) || !t[2].text.starts_with("buffer=") ||
          !parse_number(t[2].text.substr(7), buffer))
        return fail(lines_[i], t[0].col, "expected '@slot S buffer=B'");
      if (buffer < 0 || static_cast<size_t>(buffer) >= program_.buffers.size())
        return fail(
            lines_[i], t[2].col,
            fmt::format("no buffer {} (the table lists {})", buffer, program_.buffers.size()));
      if (!kernel.buffer_of_slot.emplace(slot, buffer).second)
        return fail(lines_[i], t[1].col, fmt::format("duplicate @slot {}", slot));
      slot_where[slot] = SourceLoc{lines_[i].number, t[1].col};
    }
    // The kernel parser reads the whole block (it keeps @kernel and @slot as extra header
    // lines), so its line numbers are the block's: shift them to the file's.
    std::string block;
    for (size_t i = begin; i < end; ++i) {
      block += lines_[i].text;
      block += '\n';
    }
    const int shift = head.number - 1;
    auto parsed = parse_kernel(ctx_, block);
    if (!parsed) {
      Error e = parsed.error();
      if (e.loc.line > 0) e.loc.line += shift;
      return e;
    }
    const ParsedKernel& pk = parsed.value();
    auto loc_of = [&](UOp u) {
      SourceLoc loc = pk.where.count(u) ? pk.where.at(u) : SourceLoc{};
      if (loc.line > 0) loc.line += shift;
      return loc;
    };
    if (pk.kernel.root.op() != Op::Sink)
      return Error{"a Program's kernel is rooted at a SINK", loc_of(pk.kernel.root)};
    for (const auto& e : verify(pk.kernel.root))
      return Error{fmt::format("[{}] {}", verify_rule_name(e.rule), e.message), loc_of(e.node)};
    kernel.root = pk.kernel.root;
    const std::map<int, UOp> params = params_by_slot(kernel.root);
    if (auto e = check_slots(kernel, params, slot_where, loc_of)) return e;
    for (const auto& [slot, buffer] : kernel.buffer_of_slot)
      if (params.at(slot).arg<ParamArg>().output) written_.insert(buffer);
    program_.kernels.push_back(std::move(kernel));
    return std::nullopt;
  }

  /// Every PARAM has a buffer of its dtype and size, and reads one that is there to read.
  std::optional<Error> check_slots(const ProgramKernel& kernel, const std::map<int, UOp>& params,
                                   const std::map<int, SourceLoc>& slot_where,
                                   const std::function<SourceLoc(UOp)>& loc_of) {
    for (const auto& [slot, param] : params)
      if (!kernel.buffer_of_slot.count(slot))
        return Error{fmt::format("PARAM slot {} has no @slot line", slot), loc_of(param)};
    for (const auto& [slot, buffer] : kernel.buffer_of_slot) {
      const SourceLoc where = slot_where.at(slot);
      auto it = params.find(slot);
      if (it == params.end())
        return Error{fmt::format("@slot {}: the kernel has no PARAM slot={}", slot, slot), where};
      const ParamArg& p = it->second.arg<ParamArg>();
      const ProgramBuffer& b = program_.buffers[static_cast<size_t>(buffer)];
      if (it->second.dtype() != b.dtype || p.size != b.size)
        return Error{fmt::format("@slot {}: the PARAM is {} x {}, buffer {} is {} x {}", slot,
                                 p.size, it->second.dtype().name(), buffer, b.size, b.dtype.name()),
                     where};
      if (p.output && b.role == ProgramBuffer::Role::Input)
        return Error{fmt::format("@slot {}: the kernel writes buffer {}, an input", slot, buffer),
                     where};
      if (!p.output && b.role != ProgramBuffer::Role::Input && !written_.count(buffer))
        return Error{fmt::format("@slot {}: the kernel reads buffer {}, which no earlier kernel "
                                 "writes",
                                 slot, buffer),
                     where};
    }
    return std::nullopt;
  }

  Context& ctx_;
  std::vector<Line> lines_;
  Program program_;
  std::set<int> written_;  ///< buffers some kernel so far writes
};

}  // namespace

std::vector<std::string> verify_program(const Program& program) {
  std::vector<std::string> errors;
  std::vector<bool> written(program.buffers.size(), false);
  for (size_t b = 0; b < program.buffers.size(); ++b)
    written[b] = program.buffers[b].role == ProgramBuffer::Role::Input;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const ProgramKernel& kernel = program.kernels[k];
    if (std::vector<VerifyError> e = verify(kernel.root); !e.empty()) {
      errors.push_back(fmt::format("kernel {} does not verify: {}", k, e.front().message));
      continue;
    }
    std::vector<size_t> stores;
    for (UOp u : toposort(kernel.root)) {
      if (u.op() != Op::Param) continue;
      const ParamArg& p = u.arg<ParamArg>();
      auto slot = kernel.buffer_of_slot.find(p.slot);
      if (slot == kernel.buffer_of_slot.end() || slot->second < 0 ||
          static_cast<size_t>(slot->second) >= program.buffers.size()) {
        errors.push_back(fmt::format("kernel {} slot {} is bound to no buffer", k, p.slot));
        continue;
      }
      const size_t b = static_cast<size_t>(slot->second);
      const ProgramBuffer& buf = program.buffers[b];
      if (buf.dtype != u.dtype() || buf.size != p.size)
        errors.push_back(fmt::format("kernel {} slot {} ({} x {}) is bound to buffer {} ({} x {})",
                                     k, p.slot, p.size, u.dtype().name(), b, buf.size,
                                     buf.dtype.name()));
      if (p.output) {
        if (buf.role == ProgramBuffer::Role::Input)
          errors.push_back(fmt::format("kernel {} writes input buffer {}", k, b));
        stores.push_back(b);
      } else if (!written[b]) {
        errors.push_back(
            fmt::format("kernel {} reads buffer {}, which no earlier kernel writes", k, b));
      }
    }
    for (size_t b : stores) written[b] = true;
  }
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const ProgramBuffer& buf = program.buffers[b];
    if (buf.role == ProgramBuffer::Role::Output && buf.size > 0 && !written[b])
      errors.push_back(fmt::format("output {} (buffer {}) is written by no kernel", buf.index, b));
  }
  return errors;
}

Result<Program> parse_program(Context& ctx, std::string_view text) {
  return ProgramParser(ctx, text).run();
}

}  // namespace uopfuzz::ir
