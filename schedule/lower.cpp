#include "schedule/lower.h"

namespace uopfuzz::schedule {

Result<ir::Program> lower(ir::Context& ctx, ir::UOp root, const LowerOptions& options) {
  return Error{"unsupported: rangeify is not written yet"};
}

}  // namespace uopfuzz::schedule
