#include "schedule/normalize_shapes.h"

#include <algorithm>

#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/quant.h"
#include "ir/tensor.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::Shape;
using ir::UOp;

bool fold_of_one_is_identity(UOp reduce) {
  const Op op = reduce.arg<ir::ReduceAxisArg>().op;
  if (reduce.dtype().is_quantized()) return true;
  return !(op == Op::Add && reduce.dtype().is_float());
}

namespace {

// Rebuilds every node of `root` bottom-up, its sources replaced by their rebuilt forms,
// and lets `rewrite_reduce` replace each REDUCE_AXIS (given with its rebuilt input).
template <typename F>
UOp rebuild_reduces(ir::Context& ctx, UOp root, F rewrite_reduce) {
  const std::vector<UOp> topo = ir::toposort(root);
  ir::NodeMap<UOp> rebuilt(topo.size());
  for (UOp u : topo) {
    std::vector<UOp> src;
    src.reserve(u.num_src());
    for (UOp s : u.src()) src.push_back(rebuilt.at(s));
    const bool same = std::equal(src.begin(), src.end(), u.src().begin(), u.src().end());
    UOp now = same ? u : ctx.make(u.op(), u.dtype(), src, u.arg(), u.shape());
    if (u.op() == Op::ReduceAxis) now = rewrite_reduce(now);
    rebuilt.emplace(u, now);
  }
  return rebuilt.at(root);
}

UOp reshape_to(ir::Context& ctx, UOp x, const Shape& shape) {
  return x.shape() == shape ? x : ir::tensor::reshape(ctx, x, shape);
}

}  // namespace

UOp squeeze_unit_dims(ir::Context& ctx, UOp root, const LowerOptions& options,
                      std::map<std::string, uint64_t>& hits, std::vector<SqueezeRecord>& records) {
  if (options.disabled.contains(kSqueezeUnitDimsRule)) return root;
  const bool empty_means_all = options.bugs.contains(LoweringBug::SqueezeEmptyAxesAll);
  return rebuild_reduces(ctx, root, [&](UOp reduce) {
    const auto& arg = reduce.arg<ir::ReduceAxisArg>();
    UOp x = reduce.src(0);
    const Shape& in = x.shape();
    const bool fold_is_identity = fold_of_one_is_identity(reduce);
    auto reduced = [&](size_t d) {
      return std::find(arg.axes.begin(), arg.axes.end(), static_cast<int64_t>(d)) != arg.axes.end();
    };
    std::vector<bool> removed(in.size(), false);
    size_t kept = in.size();
    for (size_t d = 0; d < in.size(); ++d)
      if (in[d] == 1 && (!reduced(d) || fold_is_identity)) {
        removed[d] = true;
        --kept;
      }
    // One dim stays when all would go: a shape of [1] lowers like the rank-0 one, and a
    // tensor program's rank-0 shape is the kernel nodes' shape.
    if (kept == 0 && !in.empty()) {
      removed.back() = false;
      kept = 1;
    }
    if (kept == in.size()) return reduce;
    SqueezeRecord record{reduce, arg.axes, {}, {}};
    Shape squeezed;
    Shape squeezed_out;
    for (size_t d = 0; d < in.size(); ++d) {
      if (removed[d]) {
        if (reduced(d)) record.removed.push_back(static_cast<int64_t>(d));
        continue;
      }
      if (reduced(d)) record.remapped.push_back(static_cast<int64_t>(squeezed.size()));
      squeezed.push_back(in[d]);
      squeezed_out.push_back(reduced(d) ? 1 : in[d]);
    }
    std::vector<int64_t> axes = record.remapped;
    UOp source = ir::tensor::reshape(ctx, x, squeezed);
    UOp result;
    if (empty_means_all && axes.empty() && !arg.axes.empty()) {
      // SqueezeEmptyAxesAll: the empty list read as "every axis", so the reduce of one
      // element per output becomes one total, broadcast back over the output.
      for (size_t d = 0; d < squeezed.size(); ++d) axes.push_back(static_cast<int64_t>(d));
      const Shape ones(squeezed.size(), 1);
      UOp total =
          ctx.make(Op::ReduceAxis, reduce.dtype(), {source}, ir::ReduceAxisArg{arg.op, axes}, ones);
      result = ir::tensor::expand(ctx, total, squeezed_out);
    } else {
      result = ctx.make(Op::ReduceAxis, reduce.dtype(), {source}, ir::ReduceAxisArg{arg.op, axes},
                        squeezed_out);
    }
    ++hits[kSqueezeUnitDimsRule];
    records.push_back(std::move(record));
    return reshape_to(ctx, result, reduce.shape());
  });
}

UOp reduce_unit_axes(ir::Context& ctx, UOp root, const LowerOptions& options,
                     std::map<std::string, uint64_t>& hits) {
  if (options.disabled.contains(kReduceUnitAxisRule)) return root;
  const bool forward_any = options.bugs.contains(LoweringBug::UnitAxisForwardsInput);
  return rebuild_reduces(ctx, root, [&](UOp reduce) {
    const auto& arg = reduce.arg<ir::ReduceAxisArg>();
    UOp x = reduce.src(0);
    const bool all_unit = std::all_of(arg.axes.begin(), arg.axes.end(), [&](int64_t a) {
      return x.shape()[static_cast<size_t>(a)] == 1;
    });
    // `axes=[]` is the identity for every op; a reduce over size-1 axes folds its one
    // element, the identity only where fold_of_one_is_identity says so.
    if (!all_unit || (!arg.axes.empty() && !fold_of_one_is_identity(reduce))) return reduce;
    const ir::DType from = x.dtype();
    const ir::DType to = reduce.dtype();
    UOp value;
    if (from == to) {
      value = x;
    } else if (from.is_quantized() && to.is_quantized() && arg.op != Op::Mul &&
               !ir::requantize_unsupported(from, to)) {
      // UnitAxisForwardsInput: the stored integers kept, read as the output type (20 at
      // scale 0.03 is 0.6; at 0.12 it is 2.4). Only a BITCAST between equal widths can say
      // that; other widths are rewritten faithfully.
      const bool forward = forward_any && from.storage().bytes() == to.storage().bytes();
      value = ctx.make(forward ? Op::Bitcast : Op::Requantize, to, {x}, {}, x.shape());
    } else {
      return reduce;
    }
    ++hits[kReduceUnitAxisRule];
    return reshape_to(ctx, value, reduce.shape());
  });
}

}  // namespace uopfuzz::schedule
