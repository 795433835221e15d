#include "oracle/tensor_eval.h"

namespace uopfuzz::oracle {

Result<ir::RunOutput> eval_tensor_program(ir::UOp root, const ir::Inputs& inputs) {
  return Error{"unsupported: the tensor oracle is not written yet"};
}

}  // namespace uopfuzz::oracle
