#include "backends/backend.h"

#include "ir/graph.h"
#include "ir/ops.h"

namespace uopfuzz::backends {

std::string_view opt_level_name(OptLevel level) {
  switch (level) {
    case OptLevel::O0: return "O0";
    case OptLevel::O1: return "O1";
    case OptLevel::O2: return "O2";
    case OptLevel::O3: return "O3";
  }
  return "O2";
}

std::optional<OptLevel> parse_opt_level(std::string_view text) {
  for (int i = 0; i < kOptLevelCount; ++i)
    if (opt_level_name(static_cast<OptLevel>(i)) == text) return static_cast<OptLevel>(i);
  return std::nullopt;
}

bool Capabilities::supports(ir::DType dt) const {
  // A quantized value is its storage integer (the conversions are ops, checked as ops).
  if (dt.is_quantized()) return quantized && supports(dt.storage());
  for (ir::DType d : dtypes)
    if (d == dt) return true;
  return false;
}

bool Capabilities::supports(ir::Op op) const {
  for (ir::Op o : ops)
    if (o == op) return true;
  return false;
}

std::string Capabilities::unsupported(ir::UOp root) const {
  for (ir::UOp u : ir::toposort(root)) {
    if (!supports(u.op())) return std::string("op ") + std::string(ir::op_name(u.op()));
    if (!u.dtype().is_void() && !supports(u.dtype()))
      return std::string("dtype ") + std::string(u.dtype().name());
    if (u.op() == ir::Op::Param && u.arg<ir::ParamArg>().size > max_buffer_elements)
      return "a buffer above the size limit";
  }
  return "";
}

}  // namespace uopfuzz::backends
