/** \file The mutators' shared pieces (gen/mutate.h): a use of a node, a graph change, the
 * helpers that find candidate places, and one function per row of gen/mutators.def, defined
 * by what it changes in mutate_operands.cpp, mutate_values.cpp and mutate_structure.cpp.
 * Internal to the mutators; the rest of the project calls mutate() and mutate_with().
 */
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gen/mutate.h"

namespace uopfuzz::gen::mutation {

/// One use of a node: `user`'s source `slot`.
struct Use {
  ir::UOp user;
  size_t slot;
  ir::UOp child() const { return user.src(slot); }
};

/// A graph change: `from` becomes `to` everywhere, with a line saying what was done.
struct Change {
  ir::UOp from, to;
  std::string what;
  std::vector<std::pair<std::string, int64_t>> new_vars;  ///< header values of added VARs
};

bool is_gated_index(ir::UOp u);
bool sized_int(ir::DType d);
bool value_dtype(ir::DType d);
/// `u` with its source `slot` replaced by `src`.
ir::UOp with_src(ir::Context& ctx, ir::UOp u, size_t slot, ir::UOp src);
/// Uses whose child may be replaced by another value of its dtype: ALU operands, a stored
/// value, a reduced value (never a gate's INVALID, nor a gated index inside its INDEX).
std::vector<Use> value_uses(const std::vector<ir::UOp>& topo);
/// One past the largest range axis of `topo`.
int32_t fresh_axis(const std::vector<ir::UOp>& topo);

template <class T>
const T& draw(Entropy& e, const std::vector<T>& v) {
  return v[e.below(v.size())];
}

using Topo = std::vector<ir::UOp>;
using MaybeChange = std::optional<Change>;

// ---- mutate_operands.cpp
MaybeChange swap_change(ir::Context& ctx, const Topo& topo, Entropy& e);
MaybeChange duplicate_change(ir::Context& ctx, const Topo& topo, Entropy& e);
MaybeChange change_op(ir::Context& ctx, const Topo& topo, Entropy& e);
MaybeChange change_dtype(ir::Context& ctx, const Topo& topo, Entropy& e);
MaybeChange near_miss_change(ir::Context& ctx, const Topo& topo, Entropy& e);
// ---- mutate_values.cpp
MaybeChange edge_const_change(ir::Context& ctx, const Topo& topo, Entropy& e, const GenPolicy& p);
MaybeChange range_end_change(ir::Context& ctx, const Topo& topo, Entropy& e, const GenPolicy& p);
MaybeChange insert_cast(ir::Context& ctx, const Topo& topo, Entropy& e);
MaybeChange index_op(ir::Context& ctx, const Topo& topo, Entropy& e);
// ---- mutate_structure.cpp
MaybeChange wrap_in_reduce(ir::Context& ctx, const Topo& topo, Entropy& e, const GenPolicy& p,
                           const MutationKnobs& knobs);
MaybeChange splice(ir::Context& ctx, const Topo& topo, const ir::Kernel& donor, Entropy& e,
                   const MutationKnobs& knobs);

/// The change mutator `m` draws, or nullopt where it finds no place to apply.
MaybeChange change_for(Mutator m, ir::Context& ctx, const Topo& topo, const ir::Kernel& donor,
                       Entropy& e, const GenPolicy& p, const MutationKnobs& knobs);

}  // namespace uopfuzz::gen::mutation
