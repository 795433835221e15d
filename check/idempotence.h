/** \file The fixed-point check (Halide's fuzzer makes it): simplifying a converged rewrite
 * again must change nothing. Under hash-consing "nothing" is one pointer comparison. */
#pragma once

#include <optional>
#include <string>

#include "simplifier/simplifier.h"

namespace uopfuzz::check {

/// Why `first`, the converged result of simplifying a graph with `options`, is not a fixed
/// point of the stages that always run (kernel_graph, postopt_symbolic: the one-shot
/// optimization stages are not run again): the rules a second simplify fires on it, and
/// what they make of it (a second run that does not converge says so); nullopt when the
/// second run gives back the very same node.
std::optional<std::string> not_idempotent(ir::Context& ctx, const simplifier::SimplifyResult& first,
                                          const simplifier::SimplifyOptions& options);

}  // namespace uopfuzz::check
