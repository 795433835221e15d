#include "ir/printer.h"

#include <fmt/format.h>

#include <cctype>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/run_io.h"

namespace uopfuzz::ir {
namespace {

std::string axis_text(const RangeArg& r) {
  std::string s;
  for (size_t i = 0; i < r.axis.size(); ++i) s += fmt::format("{}{}", i ? "." : "", r.axis[i]);
  return s;
}

void append_args(std::string& out, UOp u) {
  switch (u.op()) {
    case Op::Const: out += " " + format_value(u.dtype(), u.const_value()); break;
    case Op::Param: {
      const auto& p = u.arg<ParamArg>();
      out += fmt::format(" slot={} size={} {}", p.slot, p.size, p.output ? "out" : "in");
      if (p.vmin) out += fmt::format(" vmin={}", *p.vmin);
      if (p.vmax) out += fmt::format(" vmax={}", *p.vmax);
      if (p.multiple_of) out += fmt::format(" multiple_of={}", *p.multiple_of);
      break;
    }
    case Op::Var: {
      const auto& v = u.arg<VarArg>();
      out += fmt::format(" name={} min={} max={}", v.name, v.min, v.max);
      if (v.multiple_of) out += fmt::format(" multiple_of={}", *v.multiple_of);
      break;
    }
    case Op::Range: {
      const auto& r = u.arg<RangeArg>();
      out += fmt::format(" axis={} {}", axis_text(r), axis_type_name(r.type));
      break;
    }
    case Op::Reduce: out += fmt::format(" op={}", op_name(u.arg<ReduceArg>().op)); break;
    case Op::Invalid:
    case Op::Index:
    case Op::Load:
    case Op::Store:
    case Op::End:
    case Op::Sink:
    case Op::Neg:
    case Op::Cast:
    case Op::Bitcast:
    case Op::Reciprocal:
    case Op::Sqrt:
    case Op::Exp2:
    case Op::Log2:
    case Op::Sin:
    case Op::Trunc:
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Cdiv:
    case Op::Cmod:
    case Op::FloorDiv:
    case Op::FloorMod:
    case Op::Max:
    case Op::Min:
    case Op::CmpLt:
    case Op::CmpNe:
    case Op::CmpEq:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Shl:
    case Op::Shr:
    case Op::Where: break;
  }
}

std::string node_line(UOp u, const std::unordered_map<UOp, size_t, UOpHash>* names) {
  std::string line = fmt::format("%{} = {}", names ? names->at(u) : u.id(), op_name(u.op()));
  for (UOp s : u.src()) line += fmt::format(" %{}", names ? names->at(s) : s.id());
  append_args(line, u);
  line += fmt::format(" : {}", u.dtype().name());
  return line;
}

}  // namespace

std::string print_graph(UOp root) {
  std::vector<UOp> topo = toposort(root);
  std::unordered_map<UOp, size_t, UOpHash> names;
  names.reserve(topo.size());
  std::string out;
  for (UOp u : topo) {
    names.emplace(u, names.size());
    out += node_line(u, &names);
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
  std::unordered_map<int, DType> slot_dtype;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param) slot_dtype[u.arg<ParamArg>().slot] = u.dtype();
  auto values_line = [&](std::string_view key, int slot, const std::vector<Value>& values) {
    DType dt = slot_dtype.count(slot) ? slot_dtype[slot] : dtypes::Int64;
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
  std::unordered_map<int, int64_t> out_size;
  std::unordered_map<int, UOp> in_param;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param && u.arg<ParamArg>().output)
      out_size[u.arg<ParamArg>().slot] = u.arg<ParamArg>().size;
    else if (u.op() == Op::Param)
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
    auto it = out_size.find(o.slot);
    if (it == out_size.end())
      return fmt::format("@output names slot {}, which is not an output PARAM", o.slot);
    if (static_cast<int64_t>(o.values.size()) != it->second)
      return fmt::format("@output {} lists {} values; the PARAM has size {}", o.slot,
                         o.values.size(), it->second);
  }
  return std::nullopt;
}

std::string describe(UOp u) {
  return node_line(u, nullptr);
}

}  // namespace uopfuzz::ir
