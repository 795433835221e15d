// check_and_repair (generator.h): the oracle runs the kernel, and each node it reports
// undefined is replaced locally (a bounds gate, a constant) or its effect dropped.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "gen/builder.h"
#include "gen/edge_values.h"
#include "gen/generator.h"
#include "ir/analysis.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz::gen {

namespace {

/// The first undefined evaluation the oracle finds over the check runs, if any.
/// Sets stats.oracle_error when the kernel cannot be compiled or run at all.
std::optional<oracle::UbReport> first_ub(const Kernel& k, const GenPolicy& p, GenStats& stats) {
  auto prog = oracle::Program::compile(k.root);
  if (!prog) {
    stats.oracle_error = prog.error().message;
    return std::nullopt;
  }
  std::map<std::string, int64_t> vars(k.header.vars.begin(), k.header.vars.end());
  oracle::RunOptions ro;
  ro.max_steps = p.check_max_steps;
  for (int seed = 0; seed < p.check_seeds; ++seed) {
    ++stats.oracle_runs;
    auto out = prog->run(oracle::make_inputs(k.root, static_cast<uint64_t>(seed), vars), ro);
    if (!out) {
      stats.oracle_error = out.error().message;
      return std::nullopt;
    }
    if (out->status == oracle::RunStatus::Ub) return out->ub;
  }
  return std::nullopt;
}

/// `idx` gated to [0, size) (on top of its own gate, if any).
UOp gate_in_bounds(Context& ctx, UOp idx, int64_t size) {
  UOp inner = idx, valid;
  if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid)
    inner = idx.src(1), valid = idx.src(0);
  UOp ok = ctx.alu(Op::And, {ctx.alu(Op::CmpLt, {ctx.const_int(dtypes::Index, -1), inner}),
                             ctx.alu(Op::CmpLt, {inner, ctx.const_int(dtypes::Index, size)})});
  return ctx.alu(Op::Where, {valid ? ctx.alu(Op::And, {valid, ok}) : ok, inner, ctx.invalid()});
}

/// An index ADD, SUB or MUL whose CONST operand makes it overflow, with the nearest safe
/// constant instead (safe_index_operand); null if there is none or the constant is safe.
UOp safe_edge_operand(Context& ctx, UOp n) {
  if (!n.dtype().is_index() || n.num_src() != 2 || !n.src(1).is_const()) return UOp();
  const int64_t c = n.src(1).const_value().i;
  const auto safe = safe_index_operand(n.op(), Analysis().bounds(n.src(0)), c);
  if (!safe || *safe == c) return UOp();
  return ctx.make(n.op(), n.dtype(), {n.src(0), ctx.const_int(dtypes::Index, *safe)}, n.arg());
}

/// Replaces the node the oracle found undefined by a defined equivalent: a LOAD or STORE
/// gets a bounds gate, an index operation that overflows with a CONST operand the nearest
/// safe constant, any other value node a constant of its dtype. False when that is not
/// possible (a double store) or the result would not verify.
bool repair(Context& ctx, Kernel& k, const oracle::UbReport& ub, GenStats& stats) {
  UOp n = ub.node, rep;
  if (UOp safe = safe_edge_operand(ctx, n)) {
    rep = safe;
  } else if (n.op() == Op::Load || n.op() == Op::Store) {
    UOp at = n.src(0);
    if (ub.what.find("twice") != std::string::npos) return false;
    UOp buf = at.src(0);
    UOp gated = ctx.make(Op::Index, at.dtype(),
                         {buf, gate_in_bounds(ctx, at.src(1), buf.arg<ParamArg>().size)});
    std::vector<UOp> src(n.src().begin(), n.src().end());
    src[0] = gated;
    rep = ctx.make(n.op(), n.dtype(), std::move(src), n.arg());
  } else if (op_in(n.op(), Alu) || n.op() == Op::Reduce) {
    rep = ctx.const_int(n.dtype(), n.dtype().is_index() ? 0 : 1);
  } else {
    return false;
  }
  UOp root = replace(ctx, k.root, {n}, {rep});
  if (!verify(root).empty()) return false;
  stats.repair_log.push_back(fmt::format("{}: {} -> {}", describe(n), ub.what, op_name(rep.op())));
  ++stats.repairs;
  k.root = root;
  return true;
}

/// Removes the effect that holds `node` (the last effect if none does).
void drop_effect(Context& ctx, Kernel& k, UOp node, GenStats& stats) {
  std::vector<UOp> effects(k.root.src().begin(), k.root.src().end());
  size_t victim = effects.size() - 1;
  for (size_t i = 0; i < effects.size(); ++i) {
    auto topo = nodes_of(effects[i]);
    if (std::find(topo.begin(), topo.end(), node) != topo.end()) {
      victim = i;
      break;
    }
  }
  stats.repair_log.push_back(fmt::format("dropped effect {} of {} (undefined at {})", victim,
                                         effects.size(), describe(node)));
  ++stats.dropped_effects;
  effects.erase(effects.begin() + static_cast<std::ptrdiff_t>(victim));
  k.root = ctx.make(Op::Sink, dtypes::Void, std::move(effects));
}

/// Header @var lines for exactly the VARs left in the graph, in the order of the header.
void prune_vars(Kernel& k, const std::vector<UOp>& nodes) {
  std::vector<std::pair<std::string, int64_t>> kept;
  for (const auto& v : k.header.vars)
    if (std::any_of(nodes.begin(), nodes.end(),
                    [&](UOp u) { return u.op() == Op::Var && u.arg<VarArg>().name == v.first; }))
      kept.push_back(v);
  k.header.vars = std::move(kept);
}

}  // namespace

void check_and_repair(Context& ctx, Kernel& k, const GenPolicy& policy, GenStats& stats) {
  for (int round = 0; policy.check_seeds > 0 && !k.root.src().empty(); ++round) {
    auto ub = first_ub(k, policy, stats);
    if (!ub) break;
    if (round < policy.max_repairs && repair(ctx, k, *ub, stats)) continue;
    drop_effect(ctx, k, ub->node, stats);
  }
  const std::vector<UOp> nodes = nodes_of(k.root);
  prune_vars(k, nodes);
  stats.nodes = static_cast<int>(nodes.size());
}

}  // namespace uopfuzz::gen
