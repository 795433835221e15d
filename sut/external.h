/** \file The external simplifier: a Simplifier that sends each kernel to a persistent child
 * process speaking the protocol of docs/external-simplifier.md, and the command that runs
 * tinygrad's rewrites as one (adapters/tinygrad/). */
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/result.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::sut {

/// A simplifier named `name` ("external:CMD", "tinygrad") whose child is `/bin/sh -c
/// command`. The child is started on first use, not here.
std::shared_ptr<Simplifier> make_external(std::string name, std::string command,
                                          const ExternalOptions& options);

/// The shell command that starts the tinygrad adapter for `options` (its stage, planted
/// bugs, python and tinygrad), `extra` (shell words, already quoted) appended. Errors: no
/// tinygrad found (the message says how to point at one), a tinygrad path without the
/// package, no adapter script, an unknown stage.
Result<std::string> tinygrad_command(const ExternalOptions& options, const std::string& extra = "");

/// `s` quoted for /bin/sh.
std::string shell_quote(std::string_view s);

}  // namespace uopfuzz::sut
