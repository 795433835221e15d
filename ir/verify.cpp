#include "ir/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/quant.h"
#include "ir/tensor.h"

namespace uopfuzz::ir {
namespace {

constexpr std::string_view kRuleNames[] = {
#define RULE(e, name, doc) name,
#include "ir/verify_rules.def"
#undef RULE
};
constexpr std::string_view kRuleDocs[] = {
#define RULE(e, name, doc) doc,
#include "ir/verify_rules.def"
#undef RULE
};

constexpr int64_t kMaxBufferElems = int64_t{1} << 31;
// What the .uop format can spell (parser.cpp): a verified graph must print to text that
// parses back, so slots, axis ids and VAR names are held to the parser's limits.
constexpr int kMaxSlot = 4096;
constexpr size_t kMaxAxisDepth = 16;
constexpr size_t kMaxRank = 16;

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-'))
      return false;
  return true;
}

class Verifier {
 public:
  Verifier(UOp root, const std::vector<UOp>& topo, const NodeMap<RangeSet>& open)
      : root_(root), topo_(topo), open_(open) {}

  std::vector<VerifyError> run() {
    tensor_ = root_.op() == Op::Realize;
    if (root_.op() != Op::Sink && !tensor_)
      add(root_, VerifyRule::Root,
          "the root must be a SINK (a kernel) or a REALIZE (a tensor program)");
    // Every later check reads args by their op's kind: a node whose arg is of the wrong
    // kind (only possible for graphs built in code) stops verification here.
    bool wrong_args = false;
    for (UOp u : topo_)
      if (u.arg().index() != expected_arg_kind(u.op())) {
        add(u, VerifyRule::Arity,
            fmt::format("{} carries the wrong kind of argument", op_name(u.op())));
        wrong_args = true;
      }
    if (wrong_args) return std::move(errors_);
    if (tensor_) {
      for (UOp u : topo_) {
        check_quantized_dtype(u);
        check_tensor_node(u);
      }
      return std::move(errors_);
    }
    users_.reserve(topo_.size());
    for (UOp u : topo_)
      for (UOp s : u.src()) users_[s].push_back(u);
    for (UOp u : topo_) {
      check_quantized_dtype(u);
      check_node(u);
    }
    check_scopes();
    return std::move(errors_);
  }

 private:
  static size_t expected_arg_kind(Op op) {
    switch (op_kind(op)) {
      case OpKind::Leaf:
        switch (leaf_op(op)) {
          case LeafOp::Const: return variant_index<ConstArg>();
          case LeafOp::Param: return variant_index<ParamArg>();
          case LeafOp::Var: return variant_index<VarArg>();
          case LeafOp::Invalid: return variant_index<std::monostate>();
        }
        break;
      case OpKind::Structural:
        switch (structural_op(op)) {
          case StructuralOp::Range: return variant_index<RangeArg>();
          case StructuralOp::Reduce: return variant_index<ReduceArg>();
          case StructuralOp::Index:
          case StructuralOp::Load:
          case StructuralOp::Store:
          case StructuralOp::End:
          case StructuralOp::Sink: return variant_index<std::monostate>();
        }
        break;
      case OpKind::Alu: return variant_index<std::monostate>();
      case OpKind::Tensor:
        switch (tensor_op(op)) {
          case TensorOp::Permute:
          case TensorOp::Flip: return variant_index<AxesArg>();
          case TensorOp::Pad:
          case TensorOp::Shrink: return variant_index<PadArg>();
          case TensorOp::ReduceAxis: return variant_index<ReduceAxisArg>();
          case TensorOp::Reshape:
          case TensorOp::Expand:
          case TensorOp::Contiguous:
          case TensorOp::Realize: return variant_index<std::monostate>();
        }
        break;
      case OpKind::Schedule: return variant_index<BufferizeArg>();
    }
    return variant_index<std::monostate>();
  }
  template <class T>
  static size_t variant_index() {
    return Arg(std::in_place_type<T>).index();
  }

  void add(UOp u, VerifyRule r, std::string msg) { errors_.push_back({u, r, std::move(msg)}); }
  bool tensor_ = false;  ///< the graph is a tensor program (rooted at REALIZE)

  void check_node(UOp u) {
    const int n = static_cast<int>(u.num_src());
    if (n < op_min_src(u.op()) || (op_max_src(u.op()) >= 0 && n > op_max_src(u.op()))) {
      add(u, VerifyRule::Arity, fmt::format("{} has {} sources", op_name(u.op()), n));
      return;  // the checks below index sources
    }
    if (u.op() == Op::Sink && u != root_)
      add(u, VerifyRule::Root, "SINK is only allowed as the root");
    if (u.dtype().is_void() != (u.op() == Op::Store || u.op() == Op::End || u.op() == Op::Sink))
      add(u, VerifyRule::DType,
          fmt::format("{} cannot have dtype {}", op_name(u.op()), u.dtype().name()));
    if (op_in(u.op(), Tensor | Schedule))
      return add(u, VerifyRule::TensorOp,
                 fmt::format("{} is a tensor-level op; kernels (rooted at SINK) cannot hold it",
                             op_name(u.op())));
    if (!u.shape().empty())
      add(u, VerifyRule::TensorShape,
          fmt::format("a kernel node has no shape, got {}", shape_text(u.shape())));
    check_uses(u);
    if (op_in(u.op(), Alu)) return check_alu(u);
    switch (op_kind(u.op())) {
      case OpKind::Leaf:
        switch (leaf_op(u.op())) {
          case LeafOp::Const: return check_const(u);
          case LeafOp::Invalid:
            if (!u.dtype().is_index())
              add(u, VerifyRule::ConstValue, "INVALID must have dtype index");
            return;
          case LeafOp::Param: return check_param(u);
          case LeafOp::Var: return check_var(u);
        }
        break;
      case OpKind::Structural:
        switch (structural_op(u.op())) {
          case StructuralOp::Range: return check_range(u);
          case StructuralOp::Index: return check_index(u);
          case StructuralOp::Load: return check_load(u);
          case StructuralOp::Store: return check_store(u);
          case StructuralOp::End: return check_closer(u);
          case StructuralOp::Reduce: return check_closer(u);
          case StructuralOp::Sink:
            for (UOp s : u.src())
              if (s.op() != Op::Store && s.op() != Op::End)
                add(u, VerifyRule::Root,
                    fmt::format("SINK sources must be STORE or END, got {}", op_name(s.op())));
            return;
        }
        break;
      case OpKind::Alu: return;
      case OpKind::Tensor:
      case OpKind::Schedule: return;  // reported above
    }
  }

  void check_uses(UOp u) {
    const std::vector<UOp>& users = users_[u];
    for (UOp user : users) {
      switch (op_kind(u.op())) {
        case OpKind::Leaf:
          switch (leaf_op(u.op())) {
            case LeafOp::Param:
              if (user.op() != Op::Index || user.src(0) != u)
                add(u, VerifyRule::Memory,
                    fmt::format("PARAM is used by {}; only INDEX takes a PARAM (as its buffer)",
                                op_name(user.op())));
              break;
            case LeafOp::Invalid:
              if (user.op() != Op::Where || user.num_src() != 3 || user.src(2) != u ||
                  user.src(1) == u)
                add(u, VerifyRule::Gate,
                    fmt::format("INVALID is used by {}; it may only be the last source of a WHERE",
                                op_name(user.op())));
              break;
            case LeafOp::Const:
            case LeafOp::Var: break;
          }
          break;
        case OpKind::Structural:
          switch (structural_op(u.op())) {
            case StructuralOp::Store:
            case StructuralOp::End:
              if (user.op() != Op::End && user.op() != Op::Sink)
                add(u, VerifyRule::VoidUse,
                    fmt::format("{} is used by {}; only END or SINK may use it", op_name(u.op()),
                                op_name(user.op())));
              else if (user.op() == Op::End && user.src(0) != u)
                add(u, VerifyRule::VoidUse,
                    fmt::format("{} is used as a range of END", op_name(u.op())));
              break;
            case StructuralOp::Index:
              if ((user.op() != Op::Load && user.op() != Op::Store) || user.src(0) != u)
                add(u, VerifyRule::VoidUse,
                    fmt::format("INDEX is used by {}; only LOAD and STORE take an INDEX (as their "
                                "first source)",
                                op_name(user.op())));
              break;
            case StructuralOp::Range:
            case StructuralOp::Load:
            case StructuralOp::Reduce:
            case StructuralOp::Sink: break;
          }
          break;
        case OpKind::Alu:
        case OpKind::Tensor:
        case OpKind::Schedule: break;
      }
    }
    // A gated index WHERE(valid, idx, INVALID) is only an INDEX's index.
    if (u.op() == Op::Where && u.src(2).op() == Op::Invalid)
      for (UOp user : users)
        if (user.op() != Op::Index || user.num_src() != 2 || user.src(1) != u)
          add(u, VerifyRule::Gate,
              fmt::format("a gated index WHERE(.., INVALID) is used by {}; only INDEX may use it",
                          op_name(user.op())));
  }

  /// A node of a tensor program (SEMANTICS.md, "Tensor programs").
  void check_tensor_node(UOp u) {
    const Op op = u.op();
    const int n = static_cast<int>(u.num_src());
    if (n < op_min_src(op) || (op_max_src(op) >= 0 && n > op_max_src(op)))
      return add(u, VerifyRule::Arity, fmt::format("{} has {} sources", op_name(op), n));
    if (!(op_in(op, Tensor) || op_in(op, Alu) || op == Op::Param || op == Op::Const))
      return add(u, VerifyRule::TensorOp,
                 fmt::format("{} is a {} op; a tensor program (rooted at REALIZE) cannot hold it",
                             op_name(op), op_in(op, Schedule) ? "scheduling" : "kernel"));
    if (op == Op::Realize) {
      if (u != root_) add(u, VerifyRule::Root, "REALIZE is only allowed as the root");
      if (!u.dtype().is_void()) add(u, VerifyRule::DType, "REALIZE has dtype void");
      if (!u.shape().empty())
        add(u, VerifyRule::TensorShape,
            fmt::format("REALIZE has no shape, got {}", shape_text(u.shape())));
      return;
    }
    if (u.dtype().is_void() || u.dtype().is_index())
      return add(u, VerifyRule::DType,
                 fmt::format("a tensor holds no {} values", u.dtype().name()));
    // What the text format can spell (parser.cpp), so that a verified program prints to
    // text that parses back.
    if (u.shape().size() > kMaxRank)
      return add(u, VerifyRule::TensorShape,
                 fmt::format("shape {} has more than {} dims", shape_text(u.shape()), kMaxRank));
    for (int64_t d : u.shape())
      if (d > kMaxBufferElems)
        return add(u, VerifyRule::TensorShape,
                   fmt::format("shape {} has a dim above 2^31", shape_text(u.shape())));
    auto shape = infer_shape(op, u.src(), u.arg(), u.shape());
    if (auto* why = std::get_if<std::string>(&shape)) return add(u, VerifyRule::TensorShape, *why);
    if (std::get<Shape>(shape) != u.shape())
      return add(u, VerifyRule::TensorShape,
                 fmt::format("{} gives shape {}, the node says {}", op_name(op),
                             shape_text(std::get<Shape>(shape)), shape_text(u.shape())));
    if (numel(u.shape()) > kMaxBufferElems)
      add(u, VerifyRule::TensorShape,
          fmt::format("shape {} has more than 2^31 elements", shape_text(u.shape())));
    if (op_in(op, Alu)) return check_alu(u);
    if (op == Op::Const) return check_const(u);
    if (op == Op::Param) {
      const ParamArg& p = u.arg<ParamArg>();
      if (p.output) add(u, VerifyRule::Param, "a tensor program's PARAM is an input ('in')");
      if (p.size != numel(u.shape()))
        add(u, VerifyRule::Param,
            fmt::format("PARAM size {} is not the element count of its shape {}", p.size,
                        shape_text(u.shape())));
      return check_param(u);
    }
    if (op == Op::ReduceAxis && u.src(0).dtype().is_quantized()) return check_quantized_reduce(u);
    // The movement ops, REDUCE_AXIS and CONTIGUOUS keep their operand's dtype.
    if (u.dtype() != u.src(0).dtype())
      add(u, VerifyRule::DType, fmt::format("{} keeps its operand's dtype", op_name(op)));
    if (op == Op::Pad && u.dtype().is_quantized())
      add(u, VerifyRule::DType,
          fmt::format("unsupported: PAD of quantized {} (its zeros would be stored integers, not "
                      "real 0): DEQUANTIZE first",
                      u.dtype().name()));
    if (op == Op::ReduceAxis) {
      const auto& r = u.arg<ReduceAxisArg>();
      if (u.dtype().is_bool() && (r.op == Op::Add || r.op == Op::Mul))
        add(u, VerifyRule::DType,
            fmt::format("REDUCE_AXIS op={} is not defined on bool (MAX is any, MIN is all)",
                        op_name(r.op)));
    }
  }

  /// Every quantized dtype a node has is a valid one (ir/quant.h, quant_type_error).
  void check_quantized_dtype(UOp u) {
    if (!u.dtype().is_quantized()) return;
    if (auto why = quant_type_error(u.dtype())) add(u, VerifyRule::DType, *why);
  }

  /// REDUCE_AXIS of a quantized tensor: dequantize, reduce, requantize to the node's
  /// quantized type, done exactly in int32 (SEMANTICS.md, "REDUCE_AXIS").
  void check_quantized_reduce(UOp u) {
    const auto& r = u.arg<ReduceAxisArg>();
    const DType in = u.src(0).dtype(), out = u.dtype();
    if (!out.is_quantized())
      return add(u, VerifyRule::DType,
                 fmt::format("REDUCE_AXIS of quantized {} yields a quantized type, not {}",
                             in.name(), out.name()));
    if (r.op == Op::Mul)
      return add(u, VerifyRule::DType,
                 fmt::format("unsupported: REDUCE_AXIS MUL of quantized {} (a product's scale is "
                             "s^n): DEQUANTIZE first",
                             in.name()));
    if (quant_type_error(in) || quant_type_error(out)) return;  // reported at the type
    int64_t terms = 1;
    if (r.op == Op::Add)
      for (int64_t a : r.axes)
        if (a >= 0 && a < static_cast<int64_t>(u.src(0).shape().size()))
          terms *= std::max<int64_t>(1, u.src(0).shape()[static_cast<size_t>(a)]);
    if (auto why = requantize_unsupported(in, out, terms)) add(u, VerifyRule::DType, *why);
  }

  void check_alu(UOp u) {
    const Op op = u.op();
    const DType dt = u.dtype();
    auto bad = [&](std::string msg) { add(u, VerifyRule::DType, std::move(msg)); };
    if (op == Op::Quantize || op == Op::Dequantize || op == Op::Requantize)
      return check_quantized_conversion(u);
    if (op != Op::Where && op != Op::Bitcast &&
        (dt.is_quantized() || u.src(0).dtype().is_quantized()))
      return bad(
          fmt::format("{} is not defined on quantized {}: quantized values only convert "
                      "(QUANTIZE, DEQUANTIZE, REQUANTIZE, BITCAST), move and select (WHERE)",
                      op_name(op), (dt.is_quantized() ? dt : u.src(0).dtype()).name()));
    if (op == Op::Where) {
      if (!u.src(0).dtype().is_bool())
        bad(fmt::format("WHERE condition must be bool, got {}", u.src(0).dtype().name()));
      if (u.src(2).op() == Op::Invalid) {
        if (!dt.is_index() || !u.src(1).dtype().is_index())
          bad("a gated index WHERE(valid, idx, INVALID) must be index-typed");
        return;
      }
      if (u.src(1).dtype() != dt || u.src(2).dtype() != dt)
        bad(fmt::format("WHERE branches must both have the result dtype {}", dt.name()));
      return;
    }
    const DType in = u.src(0).dtype();
    for (UOp s : u.src())
      if (s.dtype() != in)
        return bad(fmt::format("{} operands must share one dtype ({} vs {})", op_name(op),
                               in.name(), s.dtype().name()));
    if (in.is_void()) return bad(fmt::format("{} of void", op_name(op)));
    if (op == Op::Cast) {
      if (dt.is_void()) bad("CAST to void");
      return;
    }
    if (op == Op::Bitcast) {
      if ((in.is_quantized() || dt.is_quantized()) && (in.is_float() || dt.is_float()))
        return bad(
            fmt::format("BITCAST between quantized and float ({} -> {}): use QUANTIZE or "
                        "DEQUANTIZE",
                        in.name(), dt.name()));
      if (in.is_bool() || dt.is_bool() || in.is_index() || dt.is_index() ||
          in.bytes() != dt.bytes())
        bad(fmt::format("BITCAST needs two fixed-size non-bool dtypes of one size, got {} -> {}",
                        in.name(), dt.name()));
      return;
    }
    if (op_in(op, Comparison)) {
      if (!dt.is_bool()) bad(fmt::format("{} yields bool, not {}", op_name(op), dt.name()));
      return;
    }
    if (dt != in)
      return bad(fmt::format("{} of {} cannot yield {}", op_name(op), in.name(), dt.name()));
    const bool bitwise = op == Op::And || op == Op::Or || op == Op::Xor;
    if (op_in(op, FloatOnly) && !in.is_float())
      return bad(fmt::format("{} needs a float operand, got {}", op_name(op), in.name()));
    if (op_in(op, IntOnly) && !(in.is_int() || (bitwise && in.is_bool())))
      return bad(fmt::format("{} needs integer operands, got {}", op_name(op), in.name()));
    if (in.is_bool() && !bitwise) bad(fmt::format("{} is not defined on bool", op_name(op)));
  }

  /// QUANTIZE float -> q, DEQUANTIZE q -> float, REQUANTIZE q -> q' (defined for every input).
  void check_quantized_conversion(UOp u) {
    const DType in = u.src(0).dtype(), out = u.dtype();
    auto bad = [&](std::string msg) { add(u, VerifyRule::DType, std::move(msg)); };
    if (u.op() == Op::Quantize) {
      if (!in.is_float() || !out.is_quantized())
        bad(fmt::format("QUANTIZE converts a float to a quantized type, not {} -> {}", in.name(),
                        out.name()));
    } else if (u.op() == Op::Dequantize) {
      if (!in.is_quantized() || !out.is_float())
        bad(fmt::format("DEQUANTIZE converts a quantized type to a float, not {} -> {}", in.name(),
                        out.name()));
    } else if (!in.is_quantized() || !out.is_quantized()) {
      bad(fmt::format("REQUANTIZE converts between quantized types, not {} -> {}", in.name(),
                      out.name()));
    } else if (!quant_type_error(in) && !quant_type_error(out)) {  // else reported at the type
      if (auto why = requantize_unsupported(in, out)) bad(*why);
    }
  }

  void check_const(UOp u) {
    const DType dt = u.dtype();
    Value v = u.const_value();
    if (dt.is_void()) return;  // already reported
    Value canon = dt.is_float() ? round_float(dt, v.f) : wrap_int(dt, v.i);
    if (!same_bits(canon, v))
      add(u, VerifyRule::ConstValue, fmt::format("CONST value is not canonical for {}", dt.name()));
  }

  void check_param(UOp u) {
    const auto& p = u.arg<ParamArg>();
    if (!slots_.insert(p.slot).second)
      add(u, VerifyRule::Param, fmt::format("duplicate PARAM slot {}", p.slot));
    if (p.slot < 0 || p.slot > kMaxSlot)
      add(u, VerifyRule::Param, fmt::format("PARAM slot {} is outside 0..{}", p.slot, kMaxSlot));
    // A tensor input may be empty (a shape with a 0); a kernel buffer has an element.
    if (p.size < (tensor_ ? 0 : 1) || p.size > kMaxBufferElems)
      add(u, VerifyRule::Param,
          fmt::format("PARAM size {} is outside {}..2^31", p.size, tensor_ ? 0 : 1));
    if (u.dtype().is_void() || u.dtype().is_index())
      add(u, VerifyRule::Param, fmt::format("a buffer cannot hold {}", u.dtype().name()));
    if ((p.vmin || p.vmax || p.multiple_of) && !u.dtype().is_int())
      add(u, VerifyRule::Param, "vmin/vmax/multiple_of are only for integer buffers");
    if (p.vmin && p.vmax && *p.vmin > *p.vmax) add(u, VerifyRule::Param, "PARAM vmin > vmax");
    if (p.multiple_of && *p.multiple_of < 1)
      add(u, VerifyRule::Param, "PARAM multiple_of must be >= 1");
    if (u.dtype().is_int() &&
        ((p.vmin && *p.vmin < u.dtype().int_min()) || (p.vmax && *p.vmax > u.dtype().int_max())))
      add(u, VerifyRule::Param, fmt::format("PARAM bounds exceed {}", u.dtype().name()));
  }

  void check_var(UOp u) {
    const auto& v = u.arg<VarArg>();
    if (!is_identifier(v.name))
      return add(u, VerifyRule::Var, "VAR name must be 1 to 256 of [A-Za-z0-9_.-]");
    if (!u.dtype().is_int())
      add(u, VerifyRule::Var, fmt::format("VAR must be an integer, got {}", u.dtype().name()));
    if (v.min > v.max)
      add(u, VerifyRule::Var, fmt::format("VAR {} has min {} > max {}", v.name, v.min, v.max));
    if (u.dtype().is_int() && (v.min < u.dtype().int_min() || v.max > u.dtype().int_max()))
      add(u, VerifyRule::Var, fmt::format("VAR {} bounds exceed {}", v.name, u.dtype().name()));
    if (v.multiple_of && *v.multiple_of < 1)
      add(u, VerifyRule::Var, "VAR multiple_of must be >= 1");
    auto [it, fresh] = var_names_.emplace(v.name, u);
    if (!fresh && it->second != u)
      add(u, VerifyRule::Var, fmt::format("two different VARs are named {}", v.name));
  }

  void check_range(UOp u) {
    if (!u.dtype().is_index()) add(u, VerifyRule::Range, "RANGE must have dtype index");
    if (!u.src(0).dtype().is_index()) add(u, VerifyRule::Range, "RANGE end must have dtype index");
    const auto& axis = u.arg<RangeArg>().axis;
    if (axis.empty()) add(u, VerifyRule::Range, "RANGE needs an axis id");
    if (axis.size() > kMaxAxisDepth ||
        std::any_of(axis.begin(), axis.end(), [](int32_t a) { return a < 0; }))
      add(u, VerifyRule::Range,
          fmt::format("RANGE axis ids must be >= 0, at most {} of them", kMaxAxisDepth));
  }

  void check_index(UOp u) {
    UOp buf = u.src(0), idx = u.src(1);
    if (buf.op() != Op::Param)
      return add(u, VerifyRule::Memory,
                 fmt::format("INDEX buffer must be a PARAM, got {}", op_name(buf.op())));
    // Only rangeify's INDEX(BUFFERIZE, idx...) takes one index per range.
    if (u.num_src() != 2)
      add(u, VerifyRule::Arity,
          fmt::format("INDEX of a PARAM takes one index, got {}", u.num_src() - 1));
    if (u.dtype() != buf.dtype())
      add(u, VerifyRule::DType,
          fmt::format("INDEX into a buffer of {} must have dtype {}", buf.dtype().name(),
                      buf.dtype().name()));
    if (!idx.dtype().is_index())
      add(u, VerifyRule::Memory,
          fmt::format("INDEX index must have dtype index, got {}", idx.dtype().name()));
  }

  void check_load(UOp u) {
    UOp idx = u.src(0);
    if (idx.op() != Op::Index)
      return add(u, VerifyRule::Memory,
                 fmt::format("LOAD takes an INDEX, got {}", op_name(idx.op())));
    if (u.dtype() != idx.dtype())
      add(u, VerifyRule::DType, "LOAD dtype must be the buffer's dtype");
    if (u.num_src() == 2 && u.src(1).dtype() != u.dtype())
      add(u, VerifyRule::DType, "LOAD alternative value must have the LOAD's dtype");
    // (An INDEX of the wrong arity is reported on itself; do not read its sources.)
    if (idx.num_src() > 0 && idx.src(0).op() == Op::Param && idx.src(0).arg<ParamArg>().output)
      add(u, VerifyRule::Memory, "LOAD from an output buffer (outputs are write-only)");
  }

  void check_store(UOp u) {
    UOp idx = u.src(0);
    if (idx.op() != Op::Index)
      return add(u, VerifyRule::Memory,
                 fmt::format("STORE takes an INDEX, got {}", op_name(idx.op())));
    if (u.src(1).dtype() != idx.dtype())
      add(u, VerifyRule::DType,
          fmt::format("STORE of {} into a buffer of {}", u.src(1).dtype().name(),
                      idx.dtype().name()));
    if (idx.num_src() > 0 && idx.src(0).op() == Op::Param && !idx.src(0).arg<ParamArg>().output)
      add(u, VerifyRule::Memory, "STORE to an input buffer (declare the PARAM 'out')");
  }

  void check_closer(UOp u) {
    for (size_t i = 1; i < u.num_src(); ++i) {
      UOp r = u.src(i);
      auto earlier = u.src().subspan(1, i - 1);  // closers list a few ranges: a scan is cheap
      if (r.op() != Op::Range)
        add(u, VerifyRule::Closer,
            fmt::format("{} source {} must be a RANGE, got {}", op_name(u.op()), i,
                        op_name(r.op())));
      else if (std::find(earlier.begin(), earlier.end(), r) != earlier.end())
        add(u, VerifyRule::Closer, fmt::format("{} lists a RANGE twice", op_name(u.op())));
    }
    if (u.op() == Op::End) {
      Op body = u.src(0).op();
      if (body != Op::Store && body != Op::End)
        add(u, VerifyRule::Closer,
            fmt::format("END body must be a STORE or END, got {}", op_name(body)));
      return;
    }
    Op rop = u.arg<ReduceArg>().op;
    if (rop != Op::Add && rop != Op::Mul && rop != Op::Max && rop != Op::Min)
      add(u, VerifyRule::Closer, "REDUCE op must be ADD, MUL, MAX or MIN");
    if (u.dtype() != u.src(0).dtype())
      add(u, VerifyRule::DType, "REDUCE dtype must be its value's dtype");
    // A quantized sum accumulates centered integers in int32 (rangeify writes that out);
    // REDUCE itself only folds plain values.
    if (u.dtype().is_quantized())
      add(u, VerifyRule::DType,
          fmt::format("REDUCE of quantized {}: reduce the centered int32 values and REQUANTIZE",
                      u.dtype().name()));
    // A bool REDUCE is tinygrad's any (MAX) and all (MIN); a bool sum or product is not.
    if (u.dtype().is_void() || (u.dtype().is_bool() && rop != Op::Max && rop != Op::Min))
      add(u, VerifyRule::DType, fmt::format("REDUCE {} of {}", op_name(rop), u.dtype().name()));
  }

  // Scoping, computed bottom-up so that shared sub-graphs are visited once:
  //  open[u]   = ranges u uses that nothing below u closes;
  //  closes[u] = ranges closed at or below u (their node ids, a sorted vector).
  void check_scopes() {
    // Reserved: `c` stays valid while the sources' entries are looked up.
    NodeMap<std::vector<uint32_t>> closes(topo_.size());
    for (UOp u : topo_) {
      std::vector<uint32_t>& c = closes[u];
      for (UOp s : u.src()) unite(c, closes[s]);
      if (u.op() == Op::Range && u.num_src() == 1 && !open_.at(u.src(0)).empty())
        add(u, VerifyRule::Range, "RANGE end depends on a range");
      if (u.op() == Op::Reduce || u.op() == Op::End) {
        for (size_t i = 1; i < u.num_src(); ++i) {
          UOp r = u.src(i);
          if (r.op() != Op::Range) continue;
          // Ranges closed below this closer: inside its value/body only (not via its range list).
          const std::vector<uint32_t>& inside = closes[u.src(0)];
          bool below = std::binary_search(inside.begin(), inside.end(), r.id());
          if (below)
            add(u, VerifyRule::NestedClose,
                fmt::format("{} closes a RANGE (axis {}) that is already closed inside it",
                            op_name(u.op()), axis_of(r)));
          unite(c, {r.id()});
        }
      }
    }
    // Report an escaping range at the SINK source it escapes through (the STORE or END
    // whose loops should have closed it): that is the line a person has to fix.
    for (UOp s : root_.src())
      for (UOp r : open_.at(s))
        add(s, VerifyRule::Scope,
            fmt::format("{} uses RANGE (axis {}) outside the END or REDUCE that closes it",
                        op_name(s.op()), axis_of(r)));
  }

  // a becomes the union of a and b (both sorted).
  static void unite(std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    if (b.empty()) return;
    std::vector<uint32_t> merged;
    merged.reserve(a.size() + b.size());
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged));
    a.swap(merged);
  }

  static std::string axis_of(UOp r) {
    std::string s;
    for (int32_t a : r.arg<RangeArg>().axis) s += (s.empty() ? "" : ".") + std::to_string(a);
    return s;
  }

  UOp root_;
  const std::vector<UOp>& topo_;
  const NodeMap<RangeSet>& open_;
  NodeMap<std::vector<UOp>> users_;
  std::set<int> slots_;
  std::unordered_map<std::string, UOp> var_names_;
  std::vector<VerifyError> errors_;
};

}  // namespace

std::string_view verify_rule_name(VerifyRule r) {
  return kRuleNames[static_cast<int>(r)];
}
std::string_view verify_rule_doc(VerifyRule r) {
  return kRuleDocs[static_cast<int>(r)];
}

const std::vector<VerifyRule>& all_verify_rules() {
  static const std::vector<VerifyRule> all = {
#define RULE(e, name, doc) VerifyRule::e,
#include "ir/verify_rules.def"
#undef RULE
  };
  return all;
}

std::vector<VerifyError> verify(UOp root) {
  if (!root) return {};
  const std::vector<UOp> topo = toposort(root);
  return verify(root, topo, open_ranges(topo));
}

std::vector<VerifyError> verify(UOp root, const std::vector<UOp>& topo,
                                const NodeMap<RangeSet>& open) {
  if (!root) return {};
  return Verifier(root, topo, open).run();
}

}  // namespace uopfuzz::ir
