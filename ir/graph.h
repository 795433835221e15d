/** \file Whole-graph walks: topological order and the ranges each node leaves open. */
#pragma once

#include <vector>

#include "ir/node_map.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

/// Every node reachable from `root`, sources before users, each once; among the sources
/// of one node, earlier sources come first. Iterative: deep graphs do not overflow the stack.
std::vector<UOp> toposort(UOp root);

/// The graph under `root` rebuilt node by node in `to` (sources first), e.g. to run a
/// kernel in a fresh Context: node ids then match a fresh parse of its printed form.
UOp copy_graph(Context& to, UOp root);

/// For each node, the RANGE nodes it depends on that are not closed below it: a RANGE
/// is open in itself; REDUCE and END close their ranges. Sorted by node id.
using RangeSet = std::vector<UOp>;
NodeMap<RangeSet> open_ranges(const std::vector<UOp>& topo);

}  // namespace uopfuzz::ir
