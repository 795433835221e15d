#include "backends/backend.h"

#include "ir/graph.h"
#include "ir/ops.h"

namespace uopfuzz::backends {

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
