#include <fmt/format.h>

#include <algorithm>

#include "ir/parse_text.h"
#include "ir/tensor.h"

namespace uopfuzz::ir::parse {

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
  auto take_int = [&](std::string_view key, bool required, std::optional<int64_t>& out) -> Failure {
    auto it = kv.find(key);
    if (it == kv.end()) {
      if (required)
        return fail(ln, op_tok.col, fmt::format("{} needs {}=<integer>", op_name(op), key));
      return std::nullopt;
    }
    int64_t v;
    if (!parse_int(it->second.text, v))
      return fail(ln, it->second.col,
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
              return fail(
                  ln, it->second.col,
                  fmt::format("expected axis ids like 0 or 3.1, got {}", quoted(it->second.text)));
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
            return fail(ln, bare[0].col, fmt::format("unknown axis type {}", quoted(bare[0].text)));
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
              return fail(
                  ln, all->second.col,
                  fmt::format("expected axes=[...] or axes=all, got {}", quoted(all->second.text)));
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

}  // namespace uopfuzz::ir::parse
