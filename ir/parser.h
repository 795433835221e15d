/** \file The .uop parser. Errors come back as values with line and column; it never
 * throws, crashes or loops on any input (fuzzed by tests and, later, fuzz_parse).
 *
 * Format (see docs/uop-format.md):
 *   # comment                        anywhere; runs to the end of the line
 *   @name arange_sum                 header lines, before the first node
 *   @seed 7 / @expect ok|ub / @var n=5 / @output 0 [45] / @any-key free text
 *   %4 = RANGE %2 axis=0 LOOP : index
 * Nodes are defined before use; the last node is the root: a SINK (a kernel) or a REALIZE
 * (a tensor program, whose nodes carry their shape after the dtype: `: int32[3,4]`).
 */
#pragma once

#include <string_view>
#include <unordered_map>

#include "ir/kernel.h"
#include "ir/result.h"

namespace uopfuzz::ir {

struct ParsedKernel {
  Kernel kernel;
  /// Where each node was first defined (position of its op name), for error messages.
  std::unordered_map<UOp, SourceLoc, UOpHash> where;
};

Result<ParsedKernel> parse_kernel(Context& ctx, std::string_view text);

}  // namespace uopfuzz::ir
