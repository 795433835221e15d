/** \file A kernel as a .uop file holds it: the graph (rooted at SINK) plus its header metadata. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::ir {

/// What running the kernel on the oracle is expected to do.
enum class Expect : uint8_t { Ok, Ub };

struct ExpectedOutput {
  int slot = 0;
  std::vector<Value> values;  ///< canonical values in the output PARAM's dtype
  friend bool operator==(const ExpectedOutput& a, const ExpectedOutput& b) {
    if (a.slot != b.slot || a.values.size() != b.values.size()) return false;
    for (size_t i = 0; i < a.values.size(); ++i)
      if (!same_bits(a.values[i], b.values[i])) return false;
    return true;
  }
};

/// An input buffer's exact values (an @input line): the case's own data, e.g. taken from a
/// real model, in place of the seed's fill for that slot.
struct GivenInput {
  int slot = 0;
  DType dtype;                ///< the input PARAM's dtype
  std::vector<Value> values;  ///< canonical values in that dtype, one per element
  friend bool operator==(const GivenInput& a, const GivenInput& b) {
    if (a.slot != b.slot || a.dtype != b.dtype || a.values.size() != b.values.size()) return false;
    for (size_t i = 0; i < a.values.size(); ++i)
      if (!same_bits(a.values[i], b.values[i])) return false;
    return true;
  }
};

/// The header block of a .uop file (`@key value` lines). Known keys are parsed into
/// fields; any other key is kept verbatim, in order, so tools can add metadata
/// (signature, generator version, how it was found) without changing the parser.
struct KernelHeader {
  std::string name;
  std::optional<uint64_t> seed;  ///< input-fill seed
  Expect expect = Expect::Ok;
  bool expect_given = false;
  std::vector<std::pair<std::string, int64_t>> vars;  ///< VAR values, by name
  std::vector<GivenInput> inputs;  ///< input buffers given whole (the rest are seed-derived)
  std::vector<ExpectedOutput> outputs;
  std::vector<std::pair<std::string, std::string>> extra;
  friend bool operator==(const KernelHeader&, const KernelHeader&) = default;
};

struct Kernel {
  KernelHeader header;
  UOp root;  ///< a SINK
};

}  // namespace uopfuzz::ir
