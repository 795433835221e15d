/** \file A Program: what lowering a tensor program gives (schedule/). Kernels in dependency
 * order plus the table of buffers they read and write; every backend runs one kernel by
 * kernel (backends/program_runner.h), with the intermediates allocated by the runner.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/result.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

struct ProgramBuffer {
  enum class Role : uint8_t { Input, Output, Intermediate };
  Role role = Role::Intermediate;
  /// Input: the tensor program's PARAM slot; Output: the REALIZE source index; else -1.
  int index = -1;
  DType dtype;
  int64_t size = 0;  ///< elements
  Shape shape;       ///< the tensor's shape (row-major over `size` elements)
  friend bool operator==(const ProgramBuffer&, const ProgramBuffer&) = default;
};

struct ProgramKernel {
  UOp root;                           ///< a SINK: a kernel ir::verify accepts
  std::map<int, int> buffer_of_slot;  ///< the kernel's PARAM slot -> index into buffers
};

struct Program {
  std::vector<ProgramBuffer> buffers;
  std::vector<ProgramKernel> kernels;  ///< a kernel reads only buffers written before it
};

/// The readable text of a Program: its buffer table, then each kernel in the .uop format
/// (docs/design.md, "Programs"). parse_program reads it back to an equal Program.
std::string print_program(const Program& program);

/// What makes a Program wrong by construction, one message per fault: a kernel ir::verify
/// rejects; a slot bound to no buffer, or to a buffer of another dtype or size; a kernel
/// reading an intermediate or output no earlier kernel wrote; a kernel writing an input;
/// an output of elements that no kernel writes (a lost output). Empty: well formed.
std::vector<std::string> verify_program(const Program& program);
Result<Program> parse_program(Context& ctx, std::string_view text);

}  // namespace uopfuzz::ir
