/** \file Standalone reproducers: a finding of an external simplifier written as a script that
 * uses only that system (for tinygrad: a Python file that needs only tinygrad on PYTHONPATH),
 * builds the case with the system's own API, runs the stage the campaign ran, and exits 1
 * while the bug is there and 0 once it is gone. The adapter writes the script; this side
 * makes the case's inputs explicit first (every input buffer an @input line, every VAR an
 * @var), so the script needs nothing of uopfuzz's input fill. */
#pragma once

#include <cstdint>
#include <string>

#include "ir/kernel.h"
#include "ir/result.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::sut {

/// The systems a reproducer can be written for (`--emit NAME`): "tinygrad".
bool can_emit_reproducer(const std::string& system);

/// The input seed a case's finding showed on: the `seed N:` its @details starts with (a
/// check tries several seeds from @seed on), else its @seed, else 0.
uint64_t failing_seed(const ir::Kernel& kernel);

/// `kernel` with its inputs made explicit, at failing_seed: @input lines for every input
/// buffer (the values that seed fills, or the case's own @input ones) and @var lines for
/// every VAR.
ir::Kernel with_explicit_inputs(const ir::Kernel& kernel);

/// with_explicit_inputs(kernel) with @output lines for every output buffer: the oracle's
/// outputs at those inputs (what a script of a kernel run on a device compares with). Errors:
/// the oracle cannot run the kernel, or it is undefined there.
Result<ir::Kernel> with_expected_outputs(const ir::Kernel& kernel);

/// Writes the tinygrad reproducer of `kernel` (a corpus case: its header names the stage
/// with @simplifier-stage, else options.tinygrad_stage is used) to `out_path`. Errors: no
/// tinygrad or adapter (as make_simplifier says), a case the adapter cannot convert, a
/// file that cannot be written; each with the adapter's message. At the `pipeline` stage a
/// kernel's case carries with_expected_outputs' @output lines.
Result<std::string> emit_tinygrad_reproducer(const ir::Kernel& kernel,
                                             const ExternalOptions& options,
                                             const std::string& out_path);

}  // namespace uopfuzz::sut
