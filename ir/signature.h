/** \file A kernel's signature (its buffers and VARs, in argument order) and the check of run inputs
 * against it. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/node_map.h"
#include "ir/result.h"
#include "ir/run_io.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

struct BufferParam {
  int slot;
  DType dtype;
  int64_t size;
  bool output;
};

struct VarParam {
  std::string name;
  int64_t min, max;
  DType dtype;
};

/// Every executor passes buffers and VARs in this order (the graph's toposort order).
struct Signature {
  std::vector<BufferParam> buffers;
  std::vector<VarParam> vars;
  NodeMap<uint32_t> buffer_of;  ///< PARAM node -> index into buffers
  NodeMap<uint32_t> var_of;     ///< VAR node -> index into vars
};

/// `topo` is toposort(root).
Signature signature(const std::vector<UOp>& topo);

/// Why `inputs` cannot run a kernel of this signature: a missing or mis-sized input
/// buffer, a missing VAR, a VAR value outside its bounds; nullopt when they fit. The
/// messages are the ones users see from every executor.
std::optional<Error> check_inputs(const Signature& sig, const Inputs& inputs);

}  // namespace uopfuzz::ir
