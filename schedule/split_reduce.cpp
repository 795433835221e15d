#include "schedule/split_reduce.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/tensor.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::Shape;
using ir::UOp;

namespace {

// tinygrad's REDUCEOP_SPLIT_SIZE: the first stage's output (partials times outputs) stays
// within 2^22 elements; 256 partials at most, 8 at least.
constexpr int64_t kMaxSplitOutput = int64_t{1} << 22;
constexpr int64_t kMaxDivisor = 256;
constexpr int64_t kMinDivisor = 8;

// Whether every element along `dim` of `x` is the same value, as an EXPAND of a size-1 dim
// makes it. Only what can be told from the graph counts: a dim whose origin cannot be
// followed (a RESHAPE that merges it with others, a PAD that adds zeros to it, a buffer) is
// not broadcast, so the rule still splits it, which is always correct, only slower.
// The answers are kept per node and dim: shared operands would otherwise be walked once per
// path to them.
class BroadcastDims {
 public:
  bool operator()(UOp x, size_t dim) {
    std::vector<int8_t>& known = memo_[x];
    if (known.empty()) known.assign(x.shape().size(), -1);
    if (known[dim] < 0) {
      const bool b = compute(x, dim);
      memo_[x][dim] = b ? 1 : 0;  // `known` may have moved: memo_ grew meanwhile
    }
    return memo_[x][dim] == 1;
  }

 private:
  bool compute(UOp x, size_t dim);
  ir::NodeMap<std::vector<int8_t>> memo_;
};

bool BroadcastDims::compute(UOp x, size_t dim) {
  auto is_broadcast = [this](UOp u, size_t d) { return (*this)(u, d); };
  const Op op = x.op();
  if (op == Op::Const) return true;
  if (op == Op::Expand)
    return x.src(0).shape()[dim] == 1 ? x.shape()[dim] > 1 : is_broadcast(x.src(0), dim);
  if (op == Op::Permute) {
    const auto& order = x.arg<ir::AxesArg>().axes;
    return is_broadcast(x.src(0), static_cast<size_t>(order[dim]));
  }
  if (op == Op::Shrink || op == Op::Flip) return is_broadcast(x.src(0), dim);
  if (op == Op::Pad) {
    const auto [before, after] = x.arg<ir::PadArg>().pairs[dim];
    return before == 0 && after == 0 && is_broadcast(x.src(0), dim);
  }
  if (op == Op::Reshape) {
    // The dim survives a RESHAPE when a source dim has its size and the same element count
    // before it.
    const Shape& out = x.shape();
    const Shape& in = x.src(0).shape();
    const int64_t before = ir::numel(Shape(out.begin(), out.begin() + static_cast<long>(dim)));
    int64_t in_before = 1;
    for (size_t j = 0; j < in.size(); ++j) {
      if (in_before == before && in[j] == out[dim]) return is_broadcast(x.src(0), j);
      in_before *= in[j];
    }
    return false;
  }
  if (op_in(op, ir::Alu)) {
    // WHERE, comparisons and casts included: an elementwise op of operands that do not vary
    // along the dim does not vary along it either.
    return std::all_of(x.src().begin(), x.src().end(), [&](UOp s) { return is_broadcast(s, dim); });
  }
  return false;
}

// Whether the value of `reduce` reaches only REALIZE outputs, through RESHAPEs alone: its
// lowering stores the sum itself into an output buffer, the one place the program check
// lets a float sum be added in another order (backends/float_sums.h).
bool stored_as_output(UOp reduce, const ir::NodeMap<std::vector<UOp>>& users) {
  const std::vector<UOp>* of = users.find(reduce);
  if (!of || of->empty()) return false;
  return std::all_of(of->begin(), of->end(), [&](UOp u) {
    return u.op() == Op::Realize || (u.op() == Op::Reshape && stored_as_output(u, users));
  });
}

// Whether splitting changes nothing but the order of an exact operation, or one whose other
// order the program check bounds; never for a quantized reduce. Integer ADD/MUL wrap (associative
// and commutative), MAX and MIN are exact for every dtype; float32/float64 ADD only where the sum
// is stored as an output; other float sums and float products have no bound across orders (a
// product's partials overflow or underflow in one order and not in another).
bool may_reorder(UOp reduce, const ir::NodeMap<std::vector<UOp>>& users) {
  // A quantized reduce requantizes once, after the whole fold: two stages would round the
  // partial results to the output type and round again.
  if (reduce.src(0).dtype().is_quantized()) return false;
  const Op op = reduce.arg<ir::ReduceAxisArg>().op;
  if (op == Op::Max || op == Op::Min || !reduce.dtype().is_float()) return true;
  const ir::ScalarType s = reduce.dtype().scalar();
  const bool bounded = s == ir::ScalarType::Float32 || s == ir::ScalarType::Float64;
  return op == Op::Add && bounded && stored_as_output(reduce, users);
}

struct SplitChoice {
  size_t dim = 0;
  int64_t divisor = 0;
};

std::optional<SplitChoice> choose_split(UOp x, const std::vector<int64_t>& axes, int64_t outputs,
                                        const LoweringBugSet& bugs, BroadcastDims& is_broadcast) {
  const bool non_divisor = bugs.contains(LoweringBug::SplitNonDivisor);
  const bool ignore_broadcast = bugs.contains(LoweringBug::SplitBroadcastDim);
  const int64_t top = std::min(kMaxDivisor, kMaxSplitOutput / outputs);
  for (int64_t axis : axes) {
    const size_t dim = static_cast<size_t>(axis);
    const int64_t size = x.shape()[dim];
    if (!ignore_broadcast && is_broadcast(x, dim)) continue;
    for (int64_t d = top; d >= kMinDivisor; --d) {
      // SplitNonDivisor: the remainder test reads as a truth value, so it accepts exactly
      // the divisors that leave one.
      const bool accepted = non_divisor ? size % d != 0 : size % d == 0;
      if (accepted) return SplitChoice{dim, d};
    }
  }
  return std::nullopt;
}

// REDUCE_AXIS(x, axes) as tinygrad's split_reduceop writes it: dim `c.dim` of size n
// becomes (d, n/d), d moves last, the original axes reduce first (d partial results per
// output), CONTIGUOUS, then the last axis, then the original output shape.
UOp split(ir::Context& ctx, UOp reduce, UOp x, const SplitChoice& c, bool zero_pad_tail) {
  namespace t = ir::tensor;
  const auto& arg = reduce.arg<ir::ReduceAxisArg>();
  const Shape& shape = x.shape();
  const int64_t size = shape[c.dim];
  const int64_t inner = (size + c.divisor - 1) / c.divisor;
  UOp source = x;
  if (zero_pad_tail && inner * c.divisor != size) {
    // SplitNonDivisor's way of making the element count fit: zeros, ADD's identity only.
    std::vector<std::pair<int64_t, int64_t>> pad(shape.size(), {0, 0});
    pad[c.dim].second = inner * c.divisor - size;
    source = t::pad(ctx, x, pad);
  }
  Shape split_shape(shape.begin(), shape.begin() + static_cast<long>(c.dim));
  split_shape.push_back(c.divisor);
  split_shape.push_back(inner);
  split_shape.insert(split_shape.end(), shape.begin() + static_cast<long>(c.dim) + 1, shape.end());
  std::vector<int64_t> order;
  for (int64_t i = 0; i < static_cast<int64_t>(split_shape.size()); ++i)
    if (i != static_cast<int64_t>(c.dim)) order.push_back(i);
  order.push_back(static_cast<int64_t>(c.dim));
  UOp moved = t::permute(ctx, t::reshape(ctx, source, split_shape), order);
  UOp partial = t::contiguous(ctx, t::reduce_axis(ctx, moved, arg.op, arg.axes));
  const int64_t last = static_cast<int64_t>(shape.size());
  return t::reshape(ctx, t::reduce_axis(ctx, partial, arg.op, {last}), reduce.shape());
}

}  // namespace

ir::UOp split_reduces(ir::Context& ctx, ir::UOp root, const LowerOptions& options,
                      std::map<std::string, uint64_t>& hits) {
  if (options.disabled.contains(kSplitReduceRule)) return root;
  const std::vector<UOp> topo = ir::toposort(root);
  ir::NodeMap<std::vector<UOp>> users(topo.size());
  for (UOp u : topo)
    for (UOp s : u.src()) users[s].push_back(u);
  const bool below_threshold = options.bugs.contains(LoweringBug::SplitBelowThreshold);
  ir::NodeMap<UOp> rebuilt(topo.size());
  BroadcastDims broadcast;
  for (UOp u : topo) {
    std::vector<UOp> src;
    src.reserve(u.num_src());
    for (UOp s : u.src()) src.push_back(rebuilt.at(s));
    const bool same = std::equal(src.begin(), src.end(), u.src().begin(), u.src().end());
    UOp now = same ? u : ctx.make(u.op(), u.dtype(), src, u.arg(), u.shape());
    if (u.op() == Op::ReduceAxis) {
      const int64_t in = ir::numel(src[0].shape());
      const int64_t out = ir::numel(u.shape());
      const bool large = out > 0 && in / out >= options.split_reduce_threshold;
      if ((large || below_threshold) && out > 0 && in > 0 && may_reorder(u, users)) {
        const auto& axes = u.arg<ir::ReduceAxisArg>().axes;
        if (auto choice = choose_split(src[0], axes, out, options.bugs, broadcast)) {
          now = split(ctx, u, src[0], *choice, options.bugs.contains(LoweringBug::SplitNonDivisor));
          ++hits[kSplitReduceRule];
        }
      }
    }
    rebuilt.emplace(u, now);
  }
  return rebuilt.at(root);
}

}  // namespace uopfuzz::schedule
