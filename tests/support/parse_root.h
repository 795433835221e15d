/** \file parse_root: a test's `.uop` text to its root, the parse error a test failure. */
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"

namespace uopfuzz::testing {

/// The root of `text` (a kernel or a tensor program), or a null UOp after recording the
/// parse error (line, message, text) as a test failure.
inline ir::UOp parse_root(ir::Context& ctx, const std::string& text) {
  auto r = ir::parse_kernel(ctx, text);
  if (!r) {
    ADD_FAILURE() << "line " << r.error().loc.line << ": " << r.error().message << "\n" << text;
    return ir::UOp();
  }
  return r->kernel.root;
}

}  // namespace uopfuzz::testing
