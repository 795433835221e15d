#include "ir/signature.h"

#include <fmt/format.h>

namespace uopfuzz::ir {

Signature signature(const std::vector<UOp>& topo) {
  Signature sig;
  for (UOp u : topo) {
    if (u.op() == Op::Param) {
      const auto& p = u.arg<ParamArg>();
      sig.buffer_of.emplace(u, static_cast<uint32_t>(sig.buffers.size()));
      sig.buffers.push_back({p.slot, u.dtype(), p.size, p.output});
    } else if (u.op() == Op::Var) {
      const auto& v = u.arg<VarArg>();
      sig.var_of.emplace(u, static_cast<uint32_t>(sig.vars.size()));
      sig.vars.push_back({v.name, v.min, v.max, u.dtype()});
    }
  }
  return sig;
}

std::optional<Error> check_inputs(const Signature& sig, const Inputs& inputs) {
  for (const BufferParam& b : sig.buffers) {
    if (b.output) continue;
    auto it = inputs.buffers.find(b.slot);
    if (it == inputs.buffers.end())
      return Error{fmt::format("no input buffer for PARAM slot {}", b.slot)};
    if (it->second.dtype() != b.dtype || static_cast<int64_t>(it->second.size()) != b.size)
      return Error{fmt::format("input buffer for slot {} must be {} x {}, got {} x {}", b.slot,
                               b.size, b.dtype.name(), it->second.size(),
                               it->second.dtype().name())};
  }
  for (const VarParam& v : sig.vars) {
    auto it = inputs.vars.find(v.name);
    if (it == inputs.vars.end())
      return Error{
          fmt::format("no value for VAR {} (give one, e.g. --var {}={})", v.name, v.name, v.min)};
    if (it->second < v.min || it->second > v.max)
      return Error{fmt::format("VAR {}={} is outside its bounds [{}, {}]", v.name, it->second,
                               v.min, v.max)};
  }
  return std::nullopt;
}

}  // namespace uopfuzz::ir
