// The reducer's pass table (passes.def); the passes are in passes_*.cpp, by kind. Each
// lists candidate edits of a kernel, one edit per candidate, most promising first. A pass
// only proposes; the loop (reducer.cpp) verifies, measures and asks the predicate.
// Candidates are enumerated in toposort order (users after sources) or its reverse, never
// by node id or pointer, so the result does not depend on the Context's history.
#include "reduce/passes.h"

#include <optional>
#include <string_view>
#include <vector>

#include "ir/run_io.h"
#include "ir/tensor.h"
#include "reduce/reducer.h"

namespace uopfuzz::reduce {

using namespace ir;

namespace {

using ProposeFn = void (*)(Context&, const Kernel&, Candidates&);

struct PassInfo {
  std::string_view name, doc;
  ProposeFn fn;
};

const PassInfo kPasses[] = {
#define PASS(e, name, doc) {name, doc, propose_##e},
#include "reduce/passes.def"
#undef PASS
};

}  // namespace

std::string_view pass_name(Pass p) {
  return kPasses[static_cast<size_t>(p)].name;
}
std::string_view pass_doc(Pass p) {
  return kPasses[static_cast<size_t>(p)].doc;
}

const std::vector<Pass>& all_passes() {
  static const std::vector<Pass> all = {
#define PASS(e, name, doc) Pass::e,
#include "reduce/passes.def"
#undef PASS
  };
  return all;
}

std::optional<Pass> parse_pass(std::string_view name) {
  for (Pass p : all_passes())
    if (pass_name(p) == name) return p;
  return std::nullopt;
}

std::vector<Kernel> propose(Context& ctx, const Kernel& k, Pass pass) {
  Candidates out;
  // The tensor passes are the last rows of passes.def: each level gets its own passes only.
  const bool tensor_pass = pass >= Pass::TensorDropOutput;
  const bool tensor_program = k.root && is_tensor_program(k.root);
  if (k.root && (k.root.op() == Op::Sink || tensor_program) && tensor_pass == tensor_program)
    kPasses[static_cast<size_t>(pass)].fn(ctx, k, out);
  // An edit of a PARAM (its size, dtype, slot or bounds) leaves @input lines that no longer
  // fit it; fitting them here keeps every candidate a case that prints and parses back.
  for (Kernel& c : out) fit_given_inputs(c);
  return out;
}

}  // namespace uopfuzz::reduce
