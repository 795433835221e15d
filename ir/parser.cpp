#include "ir/parser.h"

#include <fmt/format.h>

#include <map>

#include "ir/parse_text.h"
#include "ir/run_io.h"
#include "ir/tensor.h"

namespace uopfuzz::ir::parse {
namespace {

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
      ExpectedOutput eo{o.slot, {}};
      if (auto e = param_values(params, o, true, eo.values)) return *e;
      pk.kernel.header.outputs.push_back(std::move(eo));
    }
    for (const PendingValues& in : inputs_) {
      GivenInput given{in.slot, {}, {}};
      if (auto e = param_values(params, in, false, given.values)) return *e;
      given.dtype = params.at(in.slot).dtype();
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

  /// A kernel's @output or @input line: its values, typed by the PARAM of its slot.
  static Failure param_values(const std::map<int, UOp>& params, const PendingValues& pv,
                              bool output, std::vector<Value>& values) {
    const char* key = output ? "output" : "input";
    auto it = params.find(pv.slot);
    if (it == params.end() || it->second.arg<ParamArg>().output != output)
      return fail(pv.line, pv.col,
                  fmt::format("@{} names slot {}, which is not an {} PARAM", key, pv.slot, key));
    const ParamArg& p = it->second.arg<ParamArg>();
    if (static_cast<int64_t>(pv.values.size()) != p.size)
      return fail(pv.line, pv.col,
                  fmt::format("@{} {} lists {} values; the PARAM has size {}", key, pv.slot,
                              pv.values.size(), p.size));
    for (const Token& t : pv.values) {
      Value v;
      if (auto e = parse_literal(it->second.dtype(), t.text, v)) return fail(pv.line, t.col, *e);
      if (!output)
        if (auto e = input_value_problem(it->second, v))
          return fail(pv.line, t.col, fmt::format("@input {}: {}", pv.slot, *e));
      values.push_back(v);
    }
    return std::nullopt;
  }

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
}  // namespace uopfuzz::ir::parse

namespace uopfuzz::ir {

Result<ParsedKernel> parse_kernel(Context& ctx, std::string_view text) {
  return parse::Parser(ctx, text).run();
}

}  // namespace uopfuzz::ir
