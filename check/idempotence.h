/** \file The fixed-point check (Halide's fuzzer makes it): simplifying a converged rewrite
 * again must change nothing. Under hash-consing "nothing" is one pointer comparison. */
#pragma once

#include <optional>
#include <string>

#include "simplifier/simplifier.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::check {

/// Why `first`, the converged result of simplifying a graph with `options`, is not a fixed
/// point of the stages that always run (kernel_graph, postopt_symbolic: the one-shot
/// optimization stages are not run again): the rules a second simplify fires on it, and
/// what they make of it (a second run that does not converge says so); nullopt when the
/// second run gives back the very same node.
///
/// `sut` is the simplifier under test (null: the built-in one). The second run asks it for
/// its final stage alone, so a simplifier without the `stages` capability (which would run
/// its whole pipeline again) is not judged: nullopt.
std::optional<std::string> not_idempotent(ir::Context& ctx, const simplifier::SimplifyResult& first,
                                          const simplifier::SimplifyOptions& options,
                                          sut::Simplifier* sut = nullptr);

}  // namespace uopfuzz::check
