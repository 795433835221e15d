/** \file The IR verifier: the shapes every stage's input and output must have. */
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

enum class VerifyRule : uint8_t {
#define RULE(e, name, doc) e,
#include "ir/verify_rules.def"
#undef RULE
};
std::string_view verify_rule_name(VerifyRule r);
std::string_view verify_rule_doc(VerifyRule r);
const std::vector<VerifyRule>& all_verify_rules();

struct VerifyError {
  UOp node;  ///< the offending node
  VerifyRule rule;
  std::string message;
};

/// All violations in the graph under `root`, in topological order of their nodes.
/// Empty means the graph is well-formed and may be run, simplified or printed.
std::vector<VerifyError> verify(UOp root);
/// The same, for a caller that already has the graph's toposort(root) and
/// open_ranges(topo) (the oracle's compiler needs both as well): saves computing them twice.
std::vector<VerifyError> verify(UOp root, const std::vector<UOp>& topo,
                                const NodeMap<RangeSet>& open);

}  // namespace uopfuzz::ir
