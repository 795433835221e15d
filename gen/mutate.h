/** \file Structure-aware mutation of kernels (Fuzzilli's approach on UOp graphs): small typed
 * changes to a parent kernel, each result verified and repaired to be free of undefined behaviour.
 *
 * A mutation is a function of (parent, donor, seed): the same inputs give the same mutant (the
 * same printed text), on any machine and whatever other nodes the Context holds. The mutators
 * (gen/mutators.def) change one node or one use of a node: a CONST to an edge value, operands
 * swapped or duplicated, an op to a sibling, a computation to another dtype, a RANGE end, a
 * value wrapped in a REDUCE over a fresh range, a sub-graph spliced in from a donor kernel, a
 * cast inserted, index arithmetic inserted. The result must verify; then check_and_repair
 * (generator.h) runs it on the oracle and repairs what is undefined, as for a generated
 * kernel but on at least two input seeds. A mutant that does not verify, that repair cannot make
 * defined, that grows past twice the policy's max_positions in nodes or max_iterations in the trips
 * of one loop nest (times four), or that ends up equal to its parent is no mutant.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gen/fields.h"
#include "gen/generator.h"

namespace uopfuzz::gen {

enum class Mutator : uint8_t {
#define MUTATOR(e, name, what) e,
#include "gen/mutators.def"
#undef MUTATOR
};
std::string_view mutator_name(Mutator m);

/// The mutators' own probabilities and sizes (the rest they take from GenPolicy).
struct MutationKnobs {
  double p_empty_reduce =
      0.1;  ///< wrap-in-reduce: the fresh range runs 0 times (else 1..max_reduce_trips)
  int64_t max_reduce_trips = 4;  ///< ... its largest trip count
  double p_bound_above = 0.6;  ///< ... a bounded body keeps the value below the cut (else above it)
  size_t max_splice_nodes = 40;  ///< splice: the largest donor sub-graph, counted as a tree

  UOPFUZZ_FIELDS(p_empty_reduce, max_reduce_trips, p_bound_above, max_splice_nodes)
};
const std::vector<Mutator>& all_mutators();

struct Mutant {
  ir::Kernel kernel;  ///< verified; its header says how it was made (@mutated-by)
  Mutator mutator;
  std::string what;  ///< one line: the node changed and how
  GenStats stats;    ///< of the repair check
};

/// Applies `m` to `parent` (and, for Splice, takes the sub-graph from `donor`, else from the
/// parent itself). Parent and donor must live in `ctx`; the mutant is built there. nullopt when
/// the mutator finds no place to apply or its result is rejected (see the file comment).
std::optional<Mutant> mutate_with(ir::Context& ctx, const ir::Kernel& parent,
                                  const ir::Kernel* donor, Mutator m, uint64_t seed,
                                  const GenPolicy& policy, const MutationKnobs& knobs = {});

/// A mutator drawn from `seed`; when it is rejected, up to `tries` more are drawn.
std::optional<Mutant> mutate(ir::Context& ctx, const ir::Kernel& parent, const ir::Kernel* donor,
                             uint64_t seed, const GenPolicy& policy, int tries = 4,
                             const MutationKnobs& knobs = {});

}  // namespace uopfuzz::gen
