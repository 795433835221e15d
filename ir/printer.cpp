#include "ir/printer.h"

#include <unordered_map>

#include <fmt/format.h>

#include "ir/graph.h"

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
    default: break;
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
  if (h.expect_given) out += fmt::format("@expect {}\n", h.expect == Expect::Ub ? "ub" : "ok");
  for (const auto& [name, v] : h.vars) out += fmt::format("@var {}={}\n", name, v);
  // Expected outputs are printed in their PARAM's dtype.
  std::unordered_map<int, DType> slot_dtype;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param) slot_dtype[u.arg<ParamArg>().slot] = u.dtype();
  for (const auto& o : h.outputs) {
    DType dt = slot_dtype.count(o.slot) ? slot_dtype[o.slot] : dtypes::Int64;
    out += fmt::format("@output {} [", o.slot);
    for (size_t i = 0; i < o.values.size(); ++i) out += (i ? ", " : "") + format_value(dt, o.values[i]);
    out += "]\n";
  }
  for (const auto& [key, value] : h.extra) out += fmt::format("@{} {}\n", key, value);
  return out + print_graph(k.root);
}

std::string describe(UOp u) { return node_line(u, nullptr); }

}  // namespace uopfuzz::ir
