// The mutators of gen/mutate.h: the driver (mutate_with() verifies, bounds the loops and
// repairs a change; mutate() draws the mutator) and the helpers the mutators share. The
// mutators themselves are in mutate_operands.cpp (an ALU node's operands and op),
// mutate_values.cpp (a constant, a range end, a cast, index arithmetic) and
// mutate_structure.cpp (new REDUCEs, spliced sub-graphs). Each finds its candidate places in
// the parent's toposort (a structural order, so the choice does not depend on node ids),
// draws one, and builds the changed graph.
#include "gen/mutate.h"

#include <fmt/format.h>

#include <algorithm>

#include "gen/builder.h"
#include "gen/mutators.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/verify.h"

namespace uopfuzz::gen {

using namespace ir;

std::string_view mutator_name(Mutator m) {
  switch (m) {
#define MUTATOR(e, name, what) \
  case Mutator::e:             \
    return name;
#include "gen/mutators.def"
#undef MUTATOR
  }
  return "?";
}

const std::vector<Mutator>& all_mutators() {
  static const std::vector<Mutator> all = {
#define MUTATOR(e, name, what) Mutator::e,
#include "gen/mutators.def"
#undef MUTATOR
  };
  return all;
}

namespace mutation {

bool is_gated_index(UOp u) {
  return u.op() == Op::Where && u.src(2).op() == Op::Invalid;
}
bool sized_int(DType d) {
  return d.is_int() && !d.is_index();
}
bool value_dtype(DType d) {
  return sized_int(d) || d.is_float();
}

UOp with_src(Context& ctx, UOp u, size_t slot, UOp src) {
  std::vector<UOp> s(u.src().begin(), u.src().end());
  s[slot] = src;
  return ctx.make(u.op(), u.dtype(), std::move(s), u.arg());
}

std::vector<Use> value_uses(const std::vector<UOp>& topo) {
  std::vector<Use> out;
  for (UOp u : topo) {
    const bool alu = op_in(u.op(), Alu);
    for (size_t s = 0; s < u.num_src(); ++s) {
      UOp c = u.src(s);
      if (c.op() == Op::Invalid || is_gated_index(c)) continue;
      if (alu || (u.op() == Op::Store && s == 1) || (u.op() == Op::Reduce && s == 0) ||
          (u.op() == Op::Index && s == 1))
        out.push_back({u, s});
    }
  }
  return out;
}

int32_t fresh_axis(const std::vector<UOp>& topo) {
  int32_t next = 0;
  for (UOp u : topo)
    if (u.op() == Op::Range && !u.arg<RangeArg>().axis.empty())
      next = std::max(next, u.arg<RangeArg>().axis[0] + 1);
  return next;
}

std::optional<Change> change_for(Mutator m, Context& ctx, const std::vector<UOp>& topo,
                                 const Kernel& donor, Entropy& e, const GenPolicy& p,
                                 const MutationKnobs& k) {
  switch (m) {
    case Mutator::EdgeConst: return edge_const_change(ctx, topo, e, p);
    case Mutator::SwapOperands: return swap_change(ctx, topo, e);
    case Mutator::DuplicateOperand: return duplicate_change(ctx, topo, e);
    case Mutator::ChangeOp: return change_op(ctx, topo, e);
    case Mutator::ChangeDType: return change_dtype(ctx, topo, e);
    case Mutator::RangeEnd: return range_end_change(ctx, topo, e, p);
    case Mutator::WrapInReduce: return wrap_in_reduce(ctx, topo, e, p, k);
    case Mutator::Splice: return splice(ctx, topo, donor, e, k);
    case Mutator::InsertCast: return insert_cast(ctx, topo, e);
    case Mutator::IndexOp: return index_op(ctx, topo, e);
    case Mutator::NearMiss: return near_miss_change(ctx, topo, e);
  }
  return std::nullopt;
}

}  // namespace mutation

namespace {

using mutation::Change;

/// The largest trip count of one loop nest: the product of the ends (their maxima) of the
/// ranges open at, or closed by, an END or REDUCE.
int64_t largest_nest(const std::vector<UOp>& topo, const NodeMap<RangeSet>& open) {
  Analysis an;
  int64_t most = 1;
  for (UOp u : topo) {
    if (u.op() != Op::End && u.op() != Op::Reduce) continue;
    RangeSet rs = open.at(u);
    for (size_t s = 1; s < u.num_src(); ++s) rs.push_back(u.src(s));
    __int128 trips = 1;
    for (UOp r : rs)
      if (r.op() == Op::Range) trips *= std::max<int64_t>(1, an.vmax(r.src(0)));
    most = std::max<int64_t>(most, static_cast<int64_t>(std::min<__int128>(trips, 1ll << 60)));
  }
  return most;
}

}  // namespace

std::optional<Mutant> mutate_with(Context& ctx, const Kernel& parent, const Kernel* donor,
                                  Mutator m, uint64_t seed, const GenPolicy& policy,
                                  const MutationKnobs& knobs) {
  SeedEntropy e(seed);
  const std::vector<UOp> topo = toposort(parent.root);
  std::optional<Change> ch =
      mutation::change_for(m, ctx, topo, donor ? *donor : parent, e, policy, knobs);
  if (!ch || ch->from == ch->to) return std::nullopt;
  Mutant out;
  out.mutator = m;
  out.what = ch->what;
  out.kernel = parent;
  out.kernel.root = replace(ctx, parent.root, {ch->from}, {ch->to});
  if (out.kernel.root == parent.root) return std::nullopt;
  // Mutants that grew past twice the generator's size budget, or whose loops did, are dropped:
  // generations of them would slow the campaign down (every check simplifies and runs them).
  const std::vector<UOp> after = toposort(out.kernel.root);
  if (after.size() > 2 * static_cast<size_t>(policy.max_positions)) return std::nullopt;
  const NodeMap<RangeSet> open = open_ranges(after);
  if (!verify(out.kernel.root, after, open).empty() ||
      largest_nest(after, open) > 4 * policy.max_iterations)
    return std::nullopt;
  for (const auto& v : ch->new_vars) out.kernel.header.vars.push_back(v);
  auto& extra = out.kernel.header.extra;
  extra.erase(std::remove_if(extra.begin(), extra.end(),
                             [](const auto& kv) { return kv.first == "mutated-by"; }),
              extra.end());
  extra.emplace_back("mutated-by",
                     fmt::format("{} (seed {:#x}): {}", mutator_name(m), seed, ch->what));
  // A mutant's new conversions (a float computed in an integer type, say) are undefined for
  // some inputs the parent never met, and the campaign checks every kernel on several seeds:
  // one seed of checking leaves mutants whose second seed is skipped as undefined.
  GenPolicy checked = policy;
  if (checked.check_seeds > 0) checked.check_seeds = std::max(checked.check_seeds, 2);
  check_and_repair(ctx, out.kernel, checked, out.stats);
  if (!out.stats.oracle_error.empty() || out.kernel.root.src().empty() ||
      out.kernel.root == parent.root)
    return std::nullopt;
  return out;
}

std::optional<Mutant> mutate(Context& ctx, const Kernel& parent, const Kernel* donor, uint64_t seed,
                             const GenPolicy& policy, int tries, const MutationKnobs& knobs) {
  const auto& all = all_mutators();
  for (int t = 0; t <= tries; ++t) {
    const uint64_t s = mix64(seed + static_cast<uint64_t>(t) * 0x9e3779b97f4a7c15ull);
    if (auto m = mutate_with(ctx, parent, donor, all[s % all.size()], s, policy, knobs)) return m;
  }
  return std::nullopt;
}

}  // namespace uopfuzz::gen
