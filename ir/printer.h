/** \file The .uop printer: one node per line, topological order, names %0.. in print order. */
#pragma once

#include <string>

#include "ir/kernel.h"

namespace uopfuzz::ir {

/// The canonical text of a graph (no header). Parsing it gives back the same nodes.
std::string print_graph(UOp root);
/// The canonical text of a kernel: header lines, then the graph.
std::string print_kernel(const Kernel& kernel);
/// One node as it appears on its line, with operands named `%<topological index>`
/// of `root`'s graph when `root` is given, else by node id (for error messages).
std::string describe(UOp u);

}  // namespace uopfuzz::ir
