#include "ir/printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/run_io.h"
#include "ir/tensor.h"

namespace uopfuzz::ir {
namespace {

std::string axis_text(const RangeArg& r) {
  std::string s;
  for (size_t i = 0; i < r.axis.size(); ++i) s += fmt::format("{}{}", i ? "." : "", r.axis[i]);
  return s;
}

std::string pairs_text(const PadArg& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.pairs.size(); ++i)
    s += fmt::format("{}{}:{}", i ? "," : "", p.pairs[i].first, p.pairs[i].second);
  return s + "]";
}

/// `tensor`: the node is printed as part of a tensor program (its PARAM's size is its
/// shape's element count, so it is left out).
void append_args(std::string& out, UOp u, bool tensor) {
  switch (op_kind(u.op())) {
    case OpKind::Leaf:
      switch (leaf_op(u.op())) {
        case LeafOp::Const: out += " " + format_value(u.dtype(), u.const_value()); break;
        case LeafOp::Param: {
          const auto& p = u.arg<ParamArg>();
          if (tensor)
            out += fmt::format(" slot={} {}", p.slot, p.output ? "out" : "in");
          else
            out += fmt::format(" slot={} size={} {}", p.slot, p.size, p.output ? "out" : "in");
          if (p.vmin) out += fmt::format(" vmin={}", *p.vmin);
          if (p.vmax) out += fmt::format(" vmax={}", *p.vmax);
          if (p.multiple_of) out += fmt::format(" multiple_of={}", *p.multiple_of);
          break;
        }
        case LeafOp::Var: {
          const auto& v = u.arg<VarArg>();
          out += fmt::format(" name={} min={} max={}", v.name, v.min, v.max);
          if (v.multiple_of) out += fmt::format(" multiple_of={}", *v.multiple_of);
          break;
        }
        case LeafOp::Invalid: break;
      }
      break;
    case OpKind::Structural:
      switch (structural_op(u.op())) {
        case StructuralOp::Range: {
          const auto& r = u.arg<RangeArg>();
          out += fmt::format(" axis={} {}", axis_text(r), axis_type_name(r.type));
          break;
        }
        case StructuralOp::Reduce:
          out += fmt::format(" op={}", op_name(u.arg<ReduceArg>().op));
          break;
        case StructuralOp::Index:
        case StructuralOp::Load:
        case StructuralOp::Store:
        case StructuralOp::End:
        case StructuralOp::Sink: break;
      }
      break;
    case OpKind::Alu: break;
    case OpKind::Tensor:
      switch (tensor_op(u.op())) {
        case TensorOp::Permute:
          out += fmt::format(" order=[{}]", fmt::join(u.arg<AxesArg>().axes, ","));
          break;
        case TensorOp::Flip:
          out += fmt::format(" axes=[{}]", fmt::join(u.arg<AxesArg>().axes, ","));
          break;
        case TensorOp::Pad: out += " pad=" + pairs_text(u.arg<PadArg>()); break;
        case TensorOp::Shrink: out += " shrink=" + pairs_text(u.arg<PadArg>()); break;
        case TensorOp::ReduceAxis: {
          const auto& r = u.arg<ReduceAxisArg>();
          out += fmt::format(" op={} axes=[{}]", op_name(r.op), fmt::join(r.axes, ","));
          break;
        }
        case TensorOp::Reshape:
        case TensorOp::Expand:
        case TensorOp::Contiguous:
        case TensorOp::Realize: break;
      }
      break;
    case OpKind::Schedule: {
      const auto& b = u.arg<BufferizeArg>();
      if (b.output >= 0) out += fmt::format(" output={}", b.output);
      if (!b.removable) out += " keep";
      break;
    }
  }
}

std::string node_line(UOp u, const std::unordered_map<UOp, size_t, UOpHash>* names, bool tensor) {
  std::string line = fmt::format("%{} = {}", names ? names->at(u) : u.id(), op_name(u.op()));
  for (UOp s : u.src()) line += fmt::format(" %{}", names ? names->at(s) : s.id());
  append_args(line, u, tensor);
  line += fmt::format(" : {}", u.dtype().name());
  if (tensor && u.op() != Op::Realize) line += shape_text(u.shape());
  return line;
}

/// An @output line's dtype and element count: a kernel's output PARAM by slot, a tensor
/// program's realized output by index.
std::unordered_map<int, std::pair<DType, int64_t>> output_slots(UOp root) {
  std::unordered_map<int, std::pair<DType, int64_t>> out;
  if (is_tensor_program(root)) {
    for (size_t i = 0; i < root.num_src(); ++i)
      out.emplace(static_cast<int>(i), std::pair{root.src(i).dtype(), numel(root.src(i).shape())});
    return out;
  }
  for (UOp u : toposort(root))
    if (u.op() == Op::Param && u.arg<ParamArg>().output)
      out.emplace(u.arg<ParamArg>().slot, std::pair{u.dtype(), u.arg<ParamArg>().size});
  return out;
}

}  // namespace

std::string print_graph(UOp root) {
  std::vector<UOp> topo = toposort(root);
  std::unordered_map<UOp, size_t, UOpHash> names;
  names.reserve(topo.size());
  const bool tensor = is_tensor_program(root);
  std::string out;
  for (UOp u : topo) {
    names.emplace(u, names.size());
    out += node_line(u, &names, tensor);
    out += '\n';
  }
  return out;
}

std::string print_kernel(const Kernel& k) {
  const KernelHeader& h = k.header;
  std::string out;
  if (!h.name.empty()) out += fmt::format("@name {}\n", h.name);
  if (h.seed) out += fmt::format("@seed {}\n", *h.seed);
  if (h.expect_given || h.expect != Expect::Ok)
    out += fmt::format("@expect {}\n", h.expect == Expect::Ub ? "ub" : "ok");
  for (const auto& [name, v] : h.vars) out += fmt::format("@var {}={}\n", name, v);
  // Given inputs and expected outputs are printed in their PARAM's dtype.
  std::unordered_map<int, DType> in_dtype;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param && !u.arg<ParamArg>().output)
      in_dtype[u.arg<ParamArg>().slot] = u.dtype();
  const auto out_slots = output_slots(k.root);
  auto values_line = [&](std::string_view key, int slot, const std::vector<Value>& values) {
    DType dt = dtypes::Int64;
    if (key == "input" && in_dtype.count(slot)) dt = in_dtype[slot];
    if (key == "output" && out_slots.count(slot)) dt = out_slots.at(slot).first;
    out += fmt::format("@{} {} [", key, slot);
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + format_value(dt, values[i]);
    out += "]\n";
  };
  for (const auto& in : h.inputs) values_line("input", in.slot, in.values);
  for (const auto& o : h.outputs) values_line("output", o.slot, o.values);
  for (const auto& [key, value] : h.extra) out += fmt::format("@{} {}\n", key, value);
  return out + print_graph(k.root);
}

std::optional<std::string> check_header(const Kernel& k) {
  const KernelHeader& h = k.header;
  auto bad_text = [](const std::string& s) {
    return s.find_first_of("#\n\r") != std::string::npos ||
           (!s.empty() &&
            (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t'));
  };
  auto identifier = [](const std::string& s) {
    if (s.empty() || s.size() > 256) return false;
    for (char c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
        return false;
    return true;
  };
  if (bad_text(h.name)) return "@name must be one line without '#' or surrounding blanks";
  for (const auto& [name, v] : h.vars)
    if (!identifier(name)) return fmt::format("@var name '{}' is not an identifier", name);
  for (const auto& [key, value] : h.extra) {
    if (!identifier(key)) return fmt::format("header key '{}' is not an identifier", key);
    if (key == "name" || key == "seed" || key == "expect" || key == "var" || key == "output" ||
        key == "input")
      return fmt::format("header key '{}' is reserved", key);
    if (value.empty() || bad_text(value))
      return fmt::format("@{} value must be one non-empty line without '#' or surrounding blanks",
                         key);
  }
  const auto out_slots = output_slots(k.root);
  std::unordered_map<int, UOp> in_param;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param && !u.arg<ParamArg>().output)
      in_param.emplace(u.arg<ParamArg>().slot, u);
  for (const auto& in : h.inputs) {
    auto it = in_param.find(in.slot);
    if (it == in_param.end())
      return fmt::format("@input names slot {}, which is not an input PARAM", in.slot);
    if (it->second.dtype() != in.dtype)
      return fmt::format("@input {} holds {} values; the PARAM is {}", in.slot, in.dtype.name(),
                         it->second.dtype().name());
    if (static_cast<int64_t>(in.values.size()) != it->second.arg<ParamArg>().size)
      return fmt::format("@input {} lists {} values; the PARAM has size {}", in.slot,
                         in.values.size(), it->second.arg<ParamArg>().size);
    for (Value v : in.values)
      if (auto problem = input_value_problem(it->second, v))
        return fmt::format("@input {}: {}", in.slot, *problem);
  }
  for (const auto& o : h.outputs) {
    auto it = out_slots.find(o.slot);
    if (it == out_slots.end())
      return is_tensor_program(k.root)
                 ? fmt::format("@output names output {}, which REALIZE does not list", o.slot)
                 : fmt::format("@output names slot {}, which is not an output PARAM", o.slot);
    if (static_cast<int64_t>(o.values.size()) != it->second.second)
      return fmt::format("@output {} lists {} values; the {} {}", o.slot, o.values.size(),
                         is_tensor_program(k.root) ? "output has" : "PARAM has size",
                         it->second.second);
  }
  return std::nullopt;
}

std::string describe(UOp u) {
  return node_line(u, nullptr, !u.shape().empty());
}

}  // namespace uopfuzz::ir
