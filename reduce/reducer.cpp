#include "reduce/reducer.h"

#include <chrono>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "ir/verify.h"

namespace uopfuzz::reduce {

using namespace ir;

namespace {

double value_cost(DType dt, Value v) {
  if (dt.is_float())
    return std::isfinite(v.f) ? 2 * std::fabs(v.f) + (std::signbit(v.f) ? 1 : 0) : 0;
  if (dt.kind() == DTypeKind::Unsigned) return 2 * static_cast<double>(v.u);
  return 2 * std::fabs(static_cast<double>(v.i)) + (v.i < 0 ? 1 : 0);
}

bool odd_value(DType dt, Value v) {
  if (!dt.is_float()) return false;
  const double f = v.f;
  return !std::isfinite(f) || std::trunc(f) != f;
}

}  // namespace

Size size_of(const Kernel& k) {
  Size s;
  for (UOp u : toposort(k.root)) {
    ++s.nodes;
    if (!u.shape().empty()) s.tensor_elems += static_cast<double>(numel(u.shape()));
    if (!op_in(u.op(), Leaf)) ++s.ops;
    switch (op_kind(u.op())) {
      case OpKind::Leaf:
        switch (leaf_op(u.op())) {
          case LeafOp::Var: {
            ++s.vars;
            const VarArg& v = u.arg<VarArg>();
            s.var_spans += static_cast<double>(v.max) - static_cast<double>(v.min);
            break;
          }
          case LeafOp::Const:
            s.consts += value_cost(u.dtype(), u.const_value());
            s.odd_consts += odd_value(u.dtype(), u.const_value());
            break;
          case LeafOp::Param:
            s.param_slots += u.arg<ParamArg>().slot;
            s.buffer_elems += static_cast<double>(u.arg<ParamArg>().size);
            break;
          case LeafOp::Invalid: break;  // counted in nodes and ops only
        }
        break;
      case OpKind::Structural:
        switch (structural_op(u.op())) {
          case StructuralOp::Reduce:
            ++s.reduces;
            s.closings += u.num_src() - 1;
            break;
          case StructuralOp::End: s.closings += u.num_src() - 1; break;
          case StructuralOp::Range:
            if (u.src(0).is_const())
              s.range_ends += std::max<double>(0, static_cast<double>(u.src(0).const_value().i));
            else
              ++s.computed_ends;
            break;
          case StructuralOp::Index:
          case StructuralOp::Load:
          case StructuralOp::Store:
          case StructuralOp::Sink: break;  // counted in nodes and ops only
        }
        break;
      case OpKind::Alu:
      case OpKind::Schedule: break;  // counted in nodes and ops only
      case OpKind::Tensor:
        switch (tensor_op(u.op())) {
          case TensorOp::Permute:
          case TensorOp::Expand:
          case TensorOp::Pad:
          case TensorOp::Shrink:
          case TensorOp::Flip: ++s.movements; break;
          case TensorOp::ReduceAxis: s.reduce_axes += u.arg<ReduceAxisArg>().axes.size(); break;
          case TensorOp::Realize: s.outputs += u.num_src(); break;
          case TensorOp::Reshape:
          case TensorOp::Contiguous: break;  // counted in nodes and ops only
        }
        break;
    }
  }
  s.header = k.header.vars.size() + k.header.outputs.size() + k.header.inputs.size();
  for (const GivenInput& g : k.header.inputs)
    for (Value v : g.values) {
      s.odd_inputs += odd_value(g.dtype, v);
      s.input_values += value_cost(g.dtype, v);
    }
  return s;
}

size_t node_count(UOp root) {
  return toposort(root).size();
}

Kernel clone_kernel(Context& to, const Kernel& k) {
  return Kernel{k.header, copy_graph(to, k.root)};
}

ReduceResult reduce(Context& ctx, const Kernel& start, const Interesting& still_interesting,
                    const ReduceOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  ReduceResult res;
  res.kernel = start;
  res.start_nodes = res.final_nodes = node_count(start.root);
  const std::vector<Pass>& passes = options.passes.empty() ? all_passes() : options.passes;
  for (Pass p : passes) res.passes.push_back(PassStats{p});

  auto out_of_budget = [&] {
    if (options.max_seconds > 0 && elapsed() >= options.max_seconds) return true;
    return options.max_attempts > 0 && res.attempts >= options.max_attempts;
  };

  ++res.attempts;
  if (!start.root || (start.root.op() != Op::Sink && !is_tensor_program(start.root)) ||
      !verify(start.root).empty() || !still_interesting(start)) {
    res.start_interesting = false;
    res.elapsed_s = elapsed();
    return res;
  }

  Kernel cur = start;
  Size cur_size = size_of(cur);
  // Candidates found not interesting: the predicate is deterministic, so never ask twice.
  std::unordered_set<std::string> rejected;
  bool budget_left = true;

  while (budget_left && res.rounds < options.max_rounds) {
    ++res.rounds;
    bool progress = false;
    for (size_t pi = 0; pi < passes.size() && budget_left; ++pi) {
      PassStats& stats = res.passes[pi];
      // Walk the pass's candidates that are smaller than the current kernel, fewest
      // nodes first (stable: the pass's own order breaks ties), and keep the first that
      // verifies and is still interesting.
      std::vector<Kernel> cands = propose(ctx, cur, passes[pi]);
      std::vector<std::pair<Size, size_t>> order;
      for (size_t i = 0; i < cands.size(); ++i) {
        ++stats.proposed;
        Size s = size_of(cands[i]);
        if (s < cur_size) order.emplace_back(s, i);
      }
      std::stable_sort(order.begin(), order.end(),
                       [](const auto& a, const auto& b) { return a.first.nodes < b.first.nodes; });
      for (const auto& [s, i] : order) {
        if (out_of_budget()) {
          budget_left = false;
          break;
        }
        const Kernel& c = cands[i];
        if (!verify(c.root).empty()) continue;
        std::string key = print_kernel(c);
        if (rejected.count(key)) {
          ++res.cache_hits;
          continue;
        }
        ++stats.attempts;
        ++res.attempts;
        if (!still_interesting(c)) {
          rejected.insert(std::move(key));
          continue;
        }
        ++stats.accepted;
        cur = c;
        cur_size = s;
        progress = true;
        break;
      }
      // A kept edit: the next round starts again from the first pass, so the passes that
      // remove the most see the changed kernel before the ones that only shrink values
      // (a range end or constant shrunk twice in a row can hide the finding from an edit
      // that would have kept it one step earlier).
      if (progress) break;
    }
    if (!progress) {
      res.fixed_point = budget_left;
      break;
    }
  }

  res.kernel = cur;
  res.final_nodes = node_count(cur.root);
  res.elapsed_s = elapsed();
  return res;
}

}  // namespace uopfuzz::reduce
