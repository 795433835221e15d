/** \file Test helper: the corpus example that shows each planted bug, and reading examples. */
#pragma once

#include <map>
#include <string>

namespace uopfuzz::test_support {

/// Planted bug name -> the corpus/examples/ kernel (without .uop) that shows it.
const std::map<std::string, std::string>& bug_examples();

/// The text of corpus/examples/<name>.uop, or "" when it cannot be read.
std::string read_example(const std::string& name);

}  // namespace uopfuzz::test_support
