/** \file Shared helpers for simplifier tests: parse, simplify, inspect, compare on the oracle. */
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"

namespace uopfuzz::simplifier::testing {

ir::Kernel parse_or_die(ir::Context& ctx, const std::string& text);

/// The RANGE nodes of a graph, in topological order.
std::vector<ir::UOp> ranges_of(ir::UOp root);
int count_op(ir::UOp root, ir::Op op);
int64_t end_of(ir::UOp range);

/// Original and rewrite produce the same outputs on the oracle for a few seeds, and the
/// rewrite verifies.
void expect_same_results(ir::UOp original, ir::UOp rewritten,
                         const std::map<std::string, int64_t>& vars = {});

}  // namespace uopfuzz::simplifier::testing
