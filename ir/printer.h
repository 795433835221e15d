/** \file The .uop printer: one node per line, topological order, names %0.. in print order. */
#pragma once

#include <optional>
#include <string>

#include "ir/kernel.h"

namespace uopfuzz::ir {

/// The canonical text of a graph (no header). Parsing it gives back the same nodes.
std::string print_graph(UOp root);
/// The canonical text of a kernel: header lines, then the graph. It parses back to the
/// same kernel when check_header() finds nothing wrong (and the graph verifies).
std::string print_kernel(const Kernel& kernel);
/// Why the kernel's header would not survive printing and parsing back (a name with a
/// newline or '#', a reserved or malformed extra key, an @output slot that is not an
/// output PARAM, ...), or nothing. Tools that write .uop files check this first.
std::optional<std::string> check_header(const Kernel& kernel);
/// One node in the line format, naming itself and its operands by node id (`%<id>`):
/// for debugging and messages about a node outside any printed file.
std::string describe(UOp u);

}  // namespace uopfuzz::ir
