// The tensor-program generator (see tensor_gen.h for the contract): TensorBuilder fills
// positions top-down, then the tensor oracle checks the program and repairs it locally.
#include "gen/tensor_gen.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "gen/quant_types.h"
#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/quant.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {

/// Builds one tensor program. Every fill() gives a node of exactly the dtype and shape
/// asked for, so the builder never has to repair a shape afterwards.
class TensorBuilder {
 public:
  TensorBuilder(Context& ctx, const TensorGenPolicy& p, Entropy& e)
      : ctx_(ctx), p_(p), e_(e), budget_(p.max_nodes) {}

  UOp build() {
    // Drawn first, and not at all at probability 0: the other draws stay what they were.
    degenerate_ = e_.chance(p_.p_degenerate_shapes);
    int outputs = 1;
    while (outputs < p_.max_outputs && e_.chance(p_.p_extra_output)) ++outputs;
    std::vector<UOp> realized;
    auto add_output = [&](UOp u) {
      if (std::find(realized.begin(), realized.end(), u) == realized.end()) realized.push_back(u);
    };
    if (e_.chance(p_.p_large_reduce)) add_output(large_reduce());
    while (static_cast<int>(realized.size()) < outputs && !e_.exhausted()) {
      const size_t before = realized.size();
      const DType dt =
          e_.chance(p_.p_quantized_output) ? draw_quant_type(e_, p_.quant) : draw_dtype();
      UOp u = fill(dt, draw_shape(), 0);
      if (e_.chance(p_.p_contiguous_output)) u = tensor::contiguous(ctx_, u);
      add_output(u);
      if (realized.size() == before) break;  // a repeated output: the pool is all there is
    }
    if (realized.empty()) realized.push_back(fill(draw_dtype(), draw_shape(), 0));
    return tensor::realize(ctx_, std::move(realized));
  }

 private:
  enum class Kind {
    Input,
    Constant,
    Reuse,
    Elementwise,
    Cast,
    Movement,
    Reduce,
    ReduceBroadcast,
    SelfCombine,
    Contiguous,
    SharedReduce,
    UnaryInReduce,
    WideRead,
    PadShared,
    ConstBroadcast,
    DeadAxes,
    SplitCandidate,
    Dequantize,
    GatedDivide,
    PartialShared
  };

  UOp fill(DType dt, const Shape& s, int depth) {
    --budget_;
    UOp u = fill_node(dt, s, depth);
    pool_[{std::string(dt.name()), s}].push_back(u);
    return u;
  }

  UOp fill_node(DType dt, const Shape& s, int depth) {
    if (dt.is_quantized()) return quantized(dt, s, depth);
    if (budget_ <= 0 || depth >= p_.max_depth) return leaf(dt, s);
    const TensorNodeWeights& w = p_.nodes;
    const bool reusable = pool_.count({std::string(dt.name()), s}) > 0;
    // An infeasible choice (no source shape fits) declines; a few draws then a leaf.
    for (int attempt = 0; attempt < 4; ++attempt) {
      const std::array<double, 20> weights = {w.input,
                                              w.constant,
                                              reusable ? w.reuse : 0.0,
                                              w.elementwise,
                                              w.cast,
                                              w.movement,
                                              w.reduce,
                                              w.reduce_broadcast,
                                              w.self_combine,
                                              w.contiguous,
                                              w.shared_reduce,
                                              w.unary_in_reduce,
                                              w.wide_read,
                                              w.pad_shared,
                                              w.const_broadcast,
                                              w.dead_axes,
                                              w.split_candidate,
                                              dt.is_float() ? w.dequantize : 0.0,
                                              sized_int(dt) ? w.gated_divide : 0.0,
                                              w.partial_shared};
      UOp u;
      switch (static_cast<Kind>(e_.pick(weights))) {
        case Kind::Input: return input(dt, s);
        case Kind::Constant: return constant(dt, s);
        case Kind::Reuse: return reuse(dt, s);
        case Kind::Elementwise: return elementwise(dt, s, depth + 1);
        case Kind::Cast: return cast_into(dt, s, depth + 1);
        case Kind::Movement: u = movement(dt, s, depth + 1); break;
        case Kind::Reduce: u = reduce(dt, s, depth + 1); break;
        case Kind::ReduceBroadcast: u = reduce_broadcast(dt, s, depth + 1); break;
        case Kind::SelfCombine: u = self_combine(dt, s, depth + 1); break;
        case Kind::Contiguous: return tensor::contiguous(ctx_, fill(dt, s, depth + 1));
        case Kind::SharedReduce: u = shared_reduce(dt, s, depth + 1); break;
        case Kind::UnaryInReduce: u = unary_in_reduce(dt, s, depth + 1); break;
        case Kind::WideRead: return share(wide_read(dt, s, depth + 1));
        case Kind::PadShared: u = pad_shared(dt, s, depth + 1); break;
        case Kind::ConstBroadcast: u = const_broadcast(dt, s); break;
        case Kind::DeadAxes: u = dead_axes(dt, s, depth + 1); break;
        case Kind::SplitCandidate: u = split_candidate(dt, s, depth + 1); break;
        case Kind::Dequantize:
          return ctx_.make(Op::Dequantize, dt, {fill(draw_quant_type(e_, p_.quant), s, depth + 1)},
                           {}, s);
        case Kind::GatedDivide: u = gated_divide(dt, s, depth + 1); break;
        case Kind::PartialShared: u = partial_shared(dt, s, depth + 1); break;
      }
      if (u) return u;
    }
    return leaf(dt, s);
  }

  // ---- leaves

  UOp leaf(DType dt, const Shape& s) {
    const bool reusable = pool_.count({std::string(dt.name()), s}) > 0;
    switch (e_.pick({p_.nodes.input, p_.nodes.constant, reusable ? p_.nodes.reuse : 0.0})) {
      case 0: return input(dt, s);
      case 1: return constant(dt, s);
      default: return reuse(dt, s);
    }
  }

  UOp input(DType dt, const Shape& s) {
    if (next_slot_ < p_.max_inputs) {
      const int slot = next_slot_++;
      UOp in;
      if (s.size() != 1 && e_.chance(p_.p_flat_input)) {
        in = tensor::input(ctx_, dt, Shape{numel(s)}, slot);
        inputs_.push_back(in);
        return tensor::reshape(ctx_, in, s);
      }
      in = tensor::input(ctx_, dt, s, slot);
      inputs_.push_back(in);
      return in;
    }
    // Out of slots: an input of the dtype and element count, seen through a RESHAPE.
    for (UOp in : inputs_)
      if (in.dtype() == dt && numel(in.shape()) == numel(s))
        return in.shape() == s ? in : tensor::reshape(ctx_, in, s);
    return constant(dt, s);
  }

  UOp constant(DType dt, const Shape& s) {
    if (dt.is_quantized())  // a stored integer seen as the quantized type
      return ctx_.make(Op::Bitcast, dt, {constant(dt.storage(), s)}, {}, s);
    if (dt.is_bool()) return tensor::constant(ctx_, dt, static_cast<double>(e_.below(2)), s);
    if (dt.is_float()) {
      if (e_.chance(p_.p_negative_zero)) return tensor::constant(ctx_, dt, -0.0, s);
      return tensor::constant(ctx_, dt, static_cast<double>(e_.between(-64, 64)) / 8, s);
    }
    if (e_.chance(p_.p_edge_const)) {
      // Unsigned limits are 0 and all ones (-1 wrapped); signed ones are the dtype's own.
      const bool low = e_.chance(0.5);
      const int64_t v = dt.is_signed() ? (low ? dt.int_min() : dt.int_max()) : (low ? 0 : -1);
      return tensor::constant_value(ctx_, dt, Value::of_int(v), s);
    }
    const int64_t v = dt.is_signed() ? e_.between(-8, 8) : e_.between(0, 16);
    return tensor::constant_value(ctx_, dt, Value::of_int(v), s);
  }

  UOp reuse(DType dt, const Shape& s) {
    const std::vector<UOp>& seen = pool_.at({std::string(dt.name()), s});
    return seen[e_.below(seen.size())];
  }

  // ---- elementwise ops and casts

  UOp elementwise(DType dt, const Shape& s, int depth) {
    if (dt.is_bool()) return bool_op(s, depth);
    auto two = [&](Op op) {
      return tensor::alu(ctx_, op, {fill(dt, s, depth), fill(dt, s, depth)});
    };
    auto one = [&](Op op) { return tensor::alu(ctx_, op, {fill(dt, s, depth)}); };
    auto where = [&] {
      return tensor::alu(ctx_, Op::Where,
                         {fill(dtypes::Bool, s, depth), fill(dt, s, depth), fill(dt, s, depth)});
    };
    if (dt.is_float()) {
      const TensorFloatOpWeights& w = p_.float_ops;
      switch (e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.neg, w.trunc, w.where})) {
        case 0: return two(Op::Add);
        case 1: return two(Op::Sub);
        case 2: return two(Op::Mul);
        case 3: return two(Op::Max);
        case 4: return two(Op::Min);
        case 5: return one(Op::Neg);
        case 6: return one(Op::Trunc);
        default: return where();
      }
    }
    const TensorIntOpWeights& w = p_.int_ops;
    constexpr std::array<Op, 15> ops = {Op::Add, Op::Sub,  Op::Mul,  Op::Max,      Op::Min,
                                        Op::Neg, Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod,
                                        Op::And, Op::Or,   Op::Xor,  Op::Shl,      Op::Shr};
    const double partial = total_ops_only_ ? 0.0 : 1.0;  // ops undefined for some operands
    const size_t k = e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.neg, partial * w.cdiv,
                              partial * w.cmod, partial * w.floordiv, partial * w.floormod, w.and_,
                              w.or_, w.xor_, partial * w.shl, partial * w.shr, w.where});
    if (k == ops.size()) return where();
    const Op op = ops[k];
    if (op == Op::Neg) return one(op);
    UOp a = fill(dt, s, depth);
    if (op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod)
      return tensor::alu(ctx_, op, {a, divisor(dt, s, depth)});
    if (op == Op::Shl || op == Op::Shr)
      return tensor::alu(ctx_, op, {a, shift_amount(dt, s, depth)});
    return tensor::alu(ctx_, op, {a, fill(dt, s, depth)});
  }

  UOp bool_op(const Shape& s, int depth) {
    const TensorBoolOpWeights& w = p_.bool_ops;
    const DType b = dtypes::Bool;
    switch (e_.pick({w.logic, w.compare, w.where})) {
      case 0: {
        const Op op = std::array{Op::And, Op::Or, Op::Xor}[e_.below(3)];
        return tensor::alu(ctx_, op, {fill(b, s, depth), fill(b, s, depth)});
      }
      case 1: {
        const DType d = draw_dtype_except(b);
        const Op op = std::array{Op::CmpLt, Op::CmpNe, Op::CmpEq}[e_.below(3)];
        return tensor::alu(ctx_, op, {fill(d, s, depth), fill(d, s, depth)});
      }
      default:
        return tensor::alu(ctx_, Op::Where,
                           {fill(b, s, depth), fill(b, s, depth), fill(b, s, depth)});
    }
  }

  /// Never 0 where it is computed: an input of nonzero range (p_divisor_input; a gated-off
  /// read of it loads 0, which is what the lowering's gate guards are for), a nonzero CONST
  /// or x | 1 (INT_MIN / -1 wraps on sized integers: defined).
  UOp divisor(DType dt, const Shape& s, int depth) {
    if (e_.chance(p_.p_divisor_input))
      if (UOp d = nonzero_input(dt, s)) return d;
    if (e_.chance(p_.p_divisor_const)) {
      int64_t v = e_.between(1, 7);
      if (dt.is_signed() && e_.chance(0.5)) v = -v;
      return tensor::constant_value(ctx_, dt, Value::of_int(v), s);
    }
    return tensor::alu(ctx_, Op::Or,
                       {fill(dt, s, depth), tensor::constant_value(ctx_, dt, Value::of_int(1), s)});
  }

  /// An input PARAM whose values are all nonzero: [1, 8] (unsigned [1, 16]) or, signed,
  /// [-8, -1], stated as vmin/vmax so that every fill (make_inputs, @input lines, the
  /// reducer's) keeps it nonzero. Null when no input slot is left.
  UOp nonzero_input(DType dt, const Shape& s) {
    if (next_slot_ >= p_.max_inputs || !sized_int(dt)) return {};
    ParamArg p;
    p.slot = next_slot_++;
    p.size = numel(s);
    const bool negative = dt.is_signed() && e_.chance(0.5);
    p.vmin = negative ? -8 : 1;
    p.vmax = negative ? -1 : dt.is_signed() ? 8 : 16;
    UOp in = ctx_.make(Op::Param, dt, {}, p, s);
    inputs_.push_back(in);
    return in;
  }

  static bool sized_int(DType dt) { return dt.is_int() && !dt.is_bool() && !dt.is_quantized(); }

  /// In [0, bits): a CONST or x & (bits - 1).
  UOp shift_amount(DType dt, const Shape& s, int depth) {
    const int64_t bits = dt.bits();
    if (e_.chance(p_.p_shift_const))
      return tensor::constant_value(ctx_, dt, Value::of_int(e_.between(0, bits - 1)), s);
    return tensor::alu(
        ctx_, Op::And,
        {fill(dt, s, depth), tensor::constant_value(ctx_, dt, Value::of_int(bits - 1), s)});
  }

  UOp cast_into(DType dt, const Shape& s, int depth) {
    if (!dt.is_bool() && e_.chance(p_.p_bitcast)) {
      std::vector<double> w;
      for (DType d : all_dtypes())
        w.push_back(d != dt && !d.is_bool() && d.bytes() == dt.bytes() && floats_may_reach(dt, d)
                        ? p_.dtypes.of(d)
                        : 0.0);
      const DType from = all_dtypes()[e_.pick(w)];
      if (from.bytes() == dt.bytes() && from != dt && !from.is_bool() && !from.is_index() &&
          floats_may_reach(dt, from)) {
        UOp x = fill(from, s, depth);
        if (from.is_float() && !dt.is_float()) x = nan_guard(x);
        return ctx_.make(Op::Bitcast, dt, {x}, {}, s);
      }
    }
    const DType from = draw_dtype_except(dt, floats_may_reach(dt, dtypes::Float32));
    UOp x = fill(from, s, depth);
    if (from.is_float() && dt.is_int()) {
      // A float reaching an integer: NaN becomes 0 and the rest is clamped into range.
      const double lo = dt.is_signed() ? -100 : 0;
      x = tensor::alu(ctx_, Op::Min, {nan_guard(x), tensor::constant(ctx_, from, 100, s)});
      x = tensor::alu(ctx_, Op::Max, {x, tensor::constant(ctx_, from, lo, s)});
    }
    return tensor::cast(ctx_, x, dt);
  }

  /// WHERE(x != x, 0, x): the float x with NaN replaced by 0.
  UOp nan_guard(UOp x) {
    UOp is_nan = tensor::alu(ctx_, Op::CmpNe, {x, x});
    return tensor::alu(ctx_, Op::Where,
                       {is_nan, tensor::constant(ctx_, x.dtype(), 0, x.shape()), x});
  }

  // ---- movement ops: the source shape is derived backwards from the position's

  UOp movement(DType dt, const Shape& s, int depth) {
    const MovementWeights& w = p_.movement;
    const bool any_dim = !s.empty();
    const bool any_wide = std::any_of(s.begin(), s.end(), [](int64_t d) { return d != 1; });
    const bool any_nonempty = std::any_of(s.begin(), s.end(), [](int64_t d) { return d > 0; });
    switch (e_.pick({w.reshape, s.size() >= 2 ? w.permute : 0.0, any_wide ? w.expand : 0.0,
                     any_nonempty && !dt.is_quantized() ? w.pad : 0.0, any_dim ? w.shrink : 0.0,
                     any_dim ? w.flip : 0.0})) {
      case 0: {
        Shape from = refactor(numel(s));
        if (from == s) from = refactor(numel(s));
        return tensor::reshape(ctx_, fill(dt, from, depth), s);
      }
      case 1: {
        std::vector<int64_t> order = permutation(s.size());
        Shape from(s.size());
        for (size_t i = 0; i < s.size(); ++i) from[static_cast<size_t>(order[i])] = s[i];
        return tensor::permute(ctx_, fill(dt, from, depth), std::move(order));
      }
      case 2: {
        Shape from = s;
        std::vector<size_t> wide;
        for (size_t i = 0; i < s.size(); ++i)
          if (s[i] != 1) wide.push_back(i);
        from[wide[e_.below(wide.size())]] = 1;
        for (size_t i : wide)
          if (e_.chance(0.3)) from[i] = 1;
        return tensor::expand(ctx_, fill(dt, from, depth), s);
      }
      case 3: {
        // A padded dim keeps a source element unless an empty source is drawn (p_zero_dim).
        const int64_t keep = e_.chance(zero_dim()) ? 0 : 1;
        std::vector<std::pair<int64_t, int64_t>> pads(s.size(), {0, 0});
        Shape from = s;
        std::vector<size_t> paddable;
        for (size_t i = 0; i < s.size(); ++i)
          if (s[i] > keep) paddable.push_back(i);
        if (paddable.empty()) return {};
        const size_t must = paddable[e_.below(paddable.size())];
        for (size_t i : paddable) {
          if (i != must && !e_.chance(0.4)) continue;
          const int64_t total = e_.between(1, std::min<int64_t>(s[i] - keep, 3));
          int64_t before = e_.chance(0.5) ? total : 0;
          if (e_.chance(p_.p_pad_both)) before = e_.between(0, total);
          pads[i] = {before, total - before};
          from[i] = s[i] - total;
        }
        return tensor::pad(ctx_, fill(dt, from, depth), std::move(pads));
      }
      case 4: {
        std::vector<std::pair<int64_t, int64_t>> cuts(s.size());
        Shape from = s;
        const size_t must = e_.below(s.size());
        for (size_t i = 0; i < s.size(); ++i) {
          const int64_t extra = i == must || e_.chance(0.4) ? e_.between(1, 3) : 0;
          const int64_t begin = e_.between(0, extra);
          from[i] = s[i] + extra;
          cuts[i] = {begin, begin + s[i]};
        }
        if (!fits(from, s)) return {};
        return tensor::shrink(ctx_, fill(dt, from, depth), std::move(cuts));
      }
      default: return tensor::flip(ctx_, fill(dt, s, depth), some_axes(s.size()));
    }
  }

  // ---- reductions

  Op reduce_op(DType dt, int64_t combined) {
    const TensorReduceOpWeights& w = p_.reduce_ops;
    const bool mul_ok = !dt.is_bool() && combined <= p_.max_mul_reduce;
    const bool sum_ok = !dt.is_bool();
    return std::array{Op::Add, Op::Mul, Op::Max,
                      Op::Min}[e_.pick({sum_ok ? w.add : 0.0, mul_ok ? w.mul : 0.0, w.max, w.min})];
  }

  UOp reduce(DType dt, const Shape& s, int depth) {
    const ReduceAxesWeights& w = p_.reduce_axes;
    const size_t mode = e_.pick({w.one, w.several, w.all, w.size_one, w.none});
    if (mode == 4) return tensor::reduce_axis(ctx_, fill(dt, s, depth), reduce_op(dt, 1), {});
    if (mode == 2) {
      // Everything into one element, then shaped and broadcast back to the position.
      const Shape from = draw_shape();
      std::vector<int64_t> all(from.size());
      std::iota(all.begin(), all.end(), 0);
      UOp r = tensor::reduce_axis(ctx_, fill(dt, from, depth), reduce_op(dt, numel(from)),
                                  std::move(all));
      r = tensor::reshape(ctx_, r, Shape(s.size(), 1));
      return std::all_of(s.begin(), s.end(), [](int64_t d) { return d == 1; })
                 ? r
                 : tensor::expand(ctx_, r, s);
    }
    // Reduced axes are dims of extent 1 in `s` or dims inserted into it (reshaped away after).
    const bool size_one = mode == 3;
    const int64_t want = mode == 1 ? e_.between(2, 3) : size_one ? e_.between(1, 2) : 1;
    Shape from = s;
    std::vector<bool> inserted(s.size(), false), reduced(s.size(), false);
    for (int64_t k = 0; k < want; ++k) {
      std::vector<size_t> ones;
      for (size_t i = 0; i < from.size(); ++i)
        if (!inserted[i] && !reduced[i] && from[i] == 1) ones.push_back(i);
      const bool room = static_cast<int>(from.size()) < p_.max_rank;
      const int64_t extent = size_one ? 1 : reduce_extent();
      if (!ones.empty() && (!room || e_.chance(0.5))) {
        const size_t i = ones[e_.below(ones.size())];
        from[i] = extent;
        reduced[i] = true;
      } else if (room) {
        const auto at = static_cast<std::ptrdiff_t>(e_.below(from.size() + 1));
        from.insert(from.begin() + at, extent);
        inserted.insert(inserted.begin() + at, true);
        reduced.insert(reduced.begin() + at, true);
      }
    }
    std::vector<int64_t> axes;
    int64_t combined = 1;
    for (size_t i = 0; i < from.size(); ++i)
      if (reduced[i]) {
        axes.push_back(static_cast<int64_t>(i));
        combined *= std::max<int64_t>(from[i], 1);
      }
    if (axes.empty() || !fits(from, s)) return {};
    UOp r =
        tensor::reduce_axis(ctx_, fill(dt, from, depth), reduce_op(dt, combined), std::move(axes));
    return from.size() == s.size() ? r : tensor::reshape(ctx_, r, s);
  }

  /// x op expand(reduce(x, axis)): softmax's x - x.max(1), one consumer reduced, one not.
  UOp reduce_broadcast(DType dt, const Shape& s, int depth) {
    if (s.empty()) return {};
    const auto axis = static_cast<int64_t>(e_.below(s.size()));
    UOp x = fill(dt, s, depth);
    UOp r = tensor::reduce_axis(ctx_, x, reduce_op(dt, s[static_cast<size_t>(axis)]), {axis});
    if (r.shape() != s) r = tensor::expand(ctx_, r, s);
    return tensor::alu(ctx_, combine_op(dt), {x, r});
  }

  /// x op m(x), m a movement that keeps the shape: two consumers indexing x differently.
  UOp self_combine(DType dt, const Shape& s, int depth) {
    UOp x = fill(dt, s, depth);
    return tensor::alu(ctx_, combine_op(dt), {x, other_view(x, true)});
  }

  /// x op m(x) with m re-indexing x (x itself when its shape has no dim to move): the
  /// shapes below are built so that rangeify makes a removable BUFFERIZE of x.
  UOp share(UOp x) {
    if (!x) return x;
    return tensor::alu(ctx_, combine_op(x.dtype()), {x, other_view(x, e_.chance(0.25))});
  }

  /// A movement of x to its own shape: a flip, a swap of two equal dims, a shift by one
  /// (PAD a side, SHRINK the other) or, when `may_agree`, a reshape there and back.
  UOp other_view(UOp x, bool may_agree) {
    const Shape& s = x.shape();
    std::vector<std::pair<size_t, size_t>> equal_dims;
    for (size_t i = 0; i < s.size(); ++i)
      for (size_t j = i + 1; j < s.size(); ++j)
        if (s[i] == s[j] && s[i] > 1) equal_dims.emplace_back(i, j);
    const bool any_dim = !s.empty();
    if (!any_dim && !may_agree) return x;
    const size_t how = e_.pick({any_dim ? 1.0 : 0.0, equal_dims.empty() ? 0.0 : 1.5,
                                any_dim ? 1.0 : 0.0, may_agree ? 1.0 : 0.0});
    UOp y;
    switch (how) {
      case 0: y = tensor::flip(ctx_, x, some_axes(s.size())); break;
      case 1: {
        const auto [i, j] = equal_dims[e_.below(equal_dims.size())];
        std::vector<int64_t> order(s.size());
        std::iota(order.begin(), order.end(), 0);
        std::swap(order[i], order[j]);
        y = tensor::permute(ctx_, x, std::move(order));
        break;
      }
      case 2: {
        // Shift one axis by one: PAD a side, SHRINK the other off.
        const size_t i = e_.below(s.size());
        std::vector<std::pair<int64_t, int64_t>> pads(s.size(), {0, 0}), cuts;
        const bool front = e_.chance(0.5);
        pads[i] = front ? std::pair<int64_t, int64_t>{1, 0} : std::pair<int64_t, int64_t>{0, 1};
        for (size_t d = 0; d < s.size(); ++d)
          cuts.emplace_back(d == i && !front ? 1 : 0, (d == i && !front ? 1 : 0) + s[d]);
        y = tensor::shrink(ctx_, tensor::pad(ctx_, x, std::move(pads)), std::move(cuts));
        break;
      }
      default: y = tensor::reshape(ctx_, tensor::reshape(ctx_, x, refactor(numel(s))), s); break;
    }
    return y;
  }

  // ---- quantized tensors: they only convert, move, select and reduce (QuantNodeWeights)

  UOp quantized(DType qt, const Shape& s, int depth) {
    if (budget_ <= 0 || depth >= p_.max_depth) return leaf(qt, s);
    const QuantNodeWeights& w = p_.qnodes;
    for (int attempt = 0; attempt < 4; ++attempt) {
      UOp u;
      switch (e_.pick({w.input, w.quantize, w.requantize, w.where, w.bitcast, w.movement,
                       w.unit_reduce, w.sum_reduce})) {
        case 0: return input(qt, s);
        case 1: {
          const DType f =
              std::array{dtypes::Float32, dtypes::Float16, dtypes::Float64}[e_.pick({4, 1, 1})];
          return ctx_.make(Op::Quantize, qt, {fill(f, s, depth + 1)}, {}, s);
        }
        case 2: {
          const DType from = draw_requantize_source(e_, p_.quant, qt);
          return ctx_.make(Op::Requantize, qt, {fill(from, s, depth + 1)}, {}, s);
        }
        case 3: {
          UOp c = fill(dtypes::Bool, s, depth + 1);
          UOp a = fill(qt, s, depth + 1);
          return ctx_.make(Op::Where, qt, {c, a, fill(qt, s, depth + 1)}, {}, s);
        }
        case 4: return ctx_.make(Op::Bitcast, qt, {fill(qt.storage(), s, depth + 1)}, {}, s);
        case 5: u = movement(qt, s, depth + 1); break;
        case 6: u = unit_reduce(qt, s, depth + 1); break;
        default: u = sum_reduce(qt, s, depth + 1); break;
      }
      if (u) return u;
    }
    return leaf(qt, s);
  }

  /// The op of a quantized REDUCE_AXIS: ADD, MAX or MIN (MUL is unsupported).
  Op quantized_reduce_op() {
    const TensorReduceOpWeights& w = p_.reduce_ops;
    return std::array{Op::Add, Op::Max, Op::Min}[e_.pick({w.add, w.max, w.min})];
  }

  /// REDUCE_AXIS of a `from`-shaped tensor over `axes` to type `qt`, its input type a
  /// partner of qt (p_same_reduce_type: qt itself) that the int32 accumulator supports, then
  /// reshaped to `s`.
  UOp quantized_reduce(DType qt, const Shape& s, Shape from, std::vector<int64_t> axes, int depth) {
    const Op op = quantized_reduce_op();
    int64_t terms = 1;
    for (int64_t a : axes) terms *= std::max<int64_t>(1, from[static_cast<size_t>(a)]);
    if (op != Op::Add) terms = 1;
    DType in = qt;
    if (!e_.chance(p_.p_same_reduce_type) || requantize_unsupported(qt, qt, terms))
      in = draw_requantize_source(e_, p_.quant, qt, terms);
    if (requantize_unsupported(in, qt, terms)) return {};
    Shape out = from;
    for (int64_t a : axes) out[static_cast<size_t>(a)] = 1;
    UOp r = ctx_.make(Op::ReduceAxis, qt, {fill(in, from, depth)}, ReduceAxisArg{op, axes}, out);
    if (out == s) return r;
    if (numel(out) == numel(s)) return tensor::reshape(ctx_, r, s);
    // Every axis reduced: one element, shaped and broadcast back to the position.
    return tensor::expand(ctx_, tensor::reshape(ctx_, r, Shape(s.size(), 1)), s);
  }

  /// A quantized REDUCE_AXIS over size-1 axes only (UnitAxisWeights): the identity on reals,
  /// which the unit-axis rule turns into its input or a REQUANTIZE, after the normalization
  /// stage removed the size-1 dims (axes = [] must stay "reduce nothing").
  UOp unit_reduce(DType qt, const Shape& s, int depth) {
    const UnitAxisWeights& w = p_.unit_axes;
    const size_t how = e_.pick({w.one, w.several, w.all, w.none, w.beside_wide});
    if (how == 3) return quantized_reduce(qt, s, s, {}, depth);
    if (how == 2) {
      const Shape from(static_cast<size_t>(e_.between(1, std::max(p_.max_rank, 1))), 1);
      std::vector<int64_t> all(from.size());
      std::iota(all.begin(), all.end(), 0);
      return quantized_reduce(qt, s, from, std::move(all), depth);
    }
    // Size-1 dims of s, or inserted ones (reshaped away after), reduced; beside_wide may
    // also insert a size-1 dim it keeps, next to s's wide dims ([1,5,7,9] with axes [0]).
    const int64_t want = how == 1 ? e_.between(2, 3) : 1;
    Shape from = s;
    std::vector<bool> reduced(s.size(), false);
    auto insert_one = [&](bool reduce) {
      if (static_cast<int>(from.size()) >= p_.max_rank) return false;
      const auto at = static_cast<std::ptrdiff_t>(e_.below(from.size() + 1));
      from.insert(from.begin() + at, 1);
      reduced.insert(reduced.begin() + at, reduce);
      return true;
    };
    if (how == 4 && e_.chance(0.5)) insert_one(false);  // a size-1 dim the reduce keeps
    for (int64_t k = 0; k < want; ++k) {
      std::vector<size_t> ones;
      for (size_t i = 0; i < from.size(); ++i)
        if (!reduced[i] && from[i] == 1) ones.push_back(i);
      if (!ones.empty() && (e_.chance(0.5) || static_cast<int>(from.size()) >= p_.max_rank))
        reduced[ones[e_.below(ones.size())]] = true;
      else if (!insert_one(true))
        break;
    }
    std::vector<int64_t> axes;
    for (size_t i = 0; i < from.size(); ++i)
      if (reduced[i]) axes.push_back(static_cast<int64_t>(i));
    if (axes.empty()) return {};
    return quantized_reduce(qt, s, from, std::move(axes), depth);
  }

  /// A quantized REDUCE_AXIS over axes of extent > 1 (few elements: the int32 accumulator).
  UOp sum_reduce(DType qt, const Shape& s, int depth) {
    Shape from = s;
    std::vector<bool> reduced(s.size(), false);
    const int64_t want = e_.between(1, 2);
    int64_t terms = 1;
    for (int64_t k = 0; k < want; ++k) {
      // Never a degenerate extent: a quantized sum over axes of extent > 1.
      const int64_t extent = std::max<int64_t>(reduce_extent(), 2);
      if (terms * extent > p_.max_quant_sum_terms) break;
      std::vector<size_t> ones;
      for (size_t i = 0; i < from.size(); ++i)
        if (!reduced[i] && from[i] == 1) ones.push_back(i);
      const bool room = static_cast<int>(from.size()) < p_.max_rank;
      if (!ones.empty() && (!room || e_.chance(0.5))) {
        const size_t i = ones[e_.below(ones.size())];
        from[i] = extent;
        reduced[i] = true;
      } else if (room) {
        const auto at = static_cast<std::ptrdiff_t>(e_.below(from.size() + 1));
        from.insert(from.begin() + at, extent);
        reduced.insert(reduced.begin() + at, true);
      } else {
        break;
      }
      terms *= extent;
    }
    std::vector<int64_t> axes;
    for (size_t i = 0; i < from.size(); ++i)
      if (reduced[i]) axes.push_back(static_cast<int64_t>(i));
    if (axes.empty() || !fits(from, s)) return {};
    return quantized_reduce(qt, s, from, std::move(axes), depth);
  }

  // ---- the buffer rules' and split reduce's shapes (schedule/buffers.h, split_reduce.h)

  /// A reduce at the position's shape, read twice: a BUFFERIZE with a reduce in its scope
  /// (and, reduced over every axis, a scalar whose axes are all dead).
  UOp shared_reduce(DType dt, const Shape& s, int depth) {
    if (e_.chance(p_.p_shared_reduce_all)) {
      const Shape from = draw_shape();
      std::vector<int64_t> all(from.size());
      std::iota(all.begin(), all.end(), 0);
      UOp r = tensor::reduce_axis(ctx_, fill(dt, from, depth), reduce_op(dt, numel(from)),
                                  std::move(all));
      r = tensor::reshape(ctx_, r, Shape(s.size(), 1));
      return is_all_ones(s) ? r : tensor::expand(ctx_, r, s);
    }
    return share(reduce(dt, s, depth));
  }

  /// u op expand(reduce(u)) with u a unary op: argmax(-x) reads -x inside the reduce's scope
  /// and outside it.
  UOp unary_in_reduce(DType dt, const Shape& s, int depth) {
    if (s.empty() || numel(s) == 0) return {};
    UOp u;
    if (dt.is_bool() || e_.chance(p_.p_unary_cast))
      u = cast_into(dt, s, depth);
    else
      u = tensor::alu(ctx_, Op::Neg, {fill(dt, s, depth)});
    const auto axis = static_cast<int64_t>(e_.below(s.size()));
    UOp r = tensor::reduce_axis(ctx_, u, reduce_op(dt, s[static_cast<size_t>(axis)]), {axis});
    if (r.shape() != s) r = tensor::expand(ctx_, r, s);
    return tensor::alu(ctx_, combine_op(dt), {u, r});
  }

  /// 1..max_wide_inputs distinct inputs combined (one maybe reduced): inlining a read of it
  /// reads that many buffers.
  UOp wide_read(DType dt, const Shape& s, int depth) {
    const int64_t k = e_.between(1, std::max(p_.max_wide_inputs, 1));
    const int64_t reduced = e_.chance(p_.p_wide_reduce) ? e_.below(static_cast<uint64_t>(k)) : -1;
    UOp y;
    for (int64_t i = 0; i < k; ++i) {
      UOp term = i == reduced ? reduce(dt, s, depth) : UOp();
      if (!term) term = input(dt, s);
      y = y ? tensor::alu(ctx_, combine_op(dt), {y, term}) : term;
    }
    return y;
  }

  /// y op shift(pad(y)): a PAD-gated read of y next to an ungated one (`alone`: the shifted
  /// read only). `given` is y when the caller built it, else y is filled here.
  UOp pad_shared(DType dt, const Shape& s, int depth, UOp given = {}, bool alone = false) {
    std::vector<size_t> dims;
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] > 0) dims.push_back(i);
    if (dims.empty()) return {};
    UOp y = given ? given : fill(dt, s, depth);
    const size_t i = dims[e_.below(dims.size())];
    const int64_t total = e_.between(1, 2);
    const int64_t before = e_.between(0, total);
    int64_t begin = e_.between(0, total);
    if (begin == before) begin = (begin + 1) % (total + 1);
    std::vector<std::pair<int64_t, int64_t>> pads(s.size(), {0, 0}), cuts;
    pads[i] = {before, total - before};
    for (size_t d = 0; d < s.size(); ++d)
      cuts.emplace_back(d == i ? begin : 0, (d == i ? begin : 0) + s[d]);
    UOp shifted = tensor::shrink(ctx_, tensor::pad(ctx_, y, std::move(pads)), std::move(cuts));
    if (alone) return shifted;
    return tensor::alu(ctx_, combine_op(dt), {y, shifted});
  }

  /// shift(pad(a / d)) (alone, or beside a / d) with d an input of nonzero range: where the
  /// PAD's gate is off the lowered loads of d read 0, so the division must stay in a buffer
  /// computed where it is valid (rangeify's realize, buffer_keep_gate); inlining it under
  /// the gate divides by that 0.
  UOp gated_divide(DType dt, const Shape& s, int depth) {
    if (!sized_int(dt) || numel(s) == 0) return {};
    UOp d = nonzero_input(dt, s);
    if (!d) return {};
    const Op op = std::array{Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod}[e_.below(4)];
    UOp y = tensor::alu(ctx_, op, {fill(dt, s, depth), d});
    return pad_shared(dt, s, depth, y, e_.chance(0.5));
  }

  /// n = reduce(pad(expand(x))) of shape [m, b] (x of k <= 3 elements), read by two reduces over
  /// its axis 1 (one through a FLIP): n is a removable buffer with a reduce in scope that
  /// holds >= 10x the elements it reads, and each read indexes axis 1 with a reduce range
  /// and axis 0 without: buffer_partial_inline's shape at pcontig > 2 (buffer_keep_reduce
  /// below). The two results combine to [m, 1], reshaped to the position (m = its elements;
  /// a one-element position reduces axis 0 too).
  UOp partial_shared(DType dt, const Shape& s, int depth) {
    const int64_t want = numel(s);
    if (want == 0 || dt.is_quantized()) return {};
    const int64_t m = std::max<int64_t>(want, 2);
    const int64_t k = e_.between(1, 3);
    // (m * b + 1) / (k + 1) >= kPartialInlineRatio (10), the inputs being x's k elements.
    const int64_t b = std::max<int64_t>(e_.between(2, 7), (10 * k + 9 + m - 1) / m);
    if (m * b * k > std::max<int64_t>(p_.split_max_numel, 1)) return {};
    UOp x = e_.chance(0.5) ? input(dt, Shape{1, 1, k}) : fill(dt, Shape{1, 1, k}, depth);
    // Padded on axes 0 and 1, so that n's value uses both of its ranges (an expand alone
    // would leave them dead, and dead-axis removal would make n a scalar).
    const int64_t pm = e_.between(1, std::min<int64_t>(2, m - 1));
    const int64_t pb = e_.between(1, std::min<int64_t>(2, b - 1));
    const int64_t before_m = e_.between(0, pm), before_b = e_.between(0, pb);
    UOp t = tensor::pad(ctx_, tensor::expand(ctx_, x, Shape{m - pm, b - pb, k}),
                        {{before_m, pm - before_m}, {before_b, pb - before_b}, {0, 0}});
    UOp n = tensor::reshape(ctx_, tensor::reduce_axis(ctx_, t, reduce_op(dt, k), {2}), Shape{m, b});
    UOp flipped = tensor::flip(
        ctx_, n, e_.chance(0.5) ? std::vector<int64_t>{1} : std::vector<int64_t>{0, 1});
    UOp a = tensor::reduce_axis(ctx_, n, reduce_op(dt, b), {1});
    UOp c = tensor::reduce_axis(ctx_, flipped, reduce_op(dt, b), {1});
    UOp out = tensor::alu(ctx_, combine_op(dt), {a, c});
    if (want == 1) out = tensor::reduce_axis(ctx_, out, reduce_op(dt, m), {0});
    return tensor::reshape(ctx_, out, s);
  }

  /// A CONST seen through a movement, read twice: BUFFERIZE(CONST), then INDEX(CONST).
  UOp const_broadcast(DType dt, const Shape& s) {
    if (s.empty()) return {};
    Shape from = s;
    for (int64_t& d : from)
      if (e_.chance(0.5)) d = 1;
    UOp c = constant(dt, from);
    c = from == s ? tensor::flip(ctx_, c, some_axes(s.size())) : tensor::expand(ctx_, c, s);
    return share(c);
  }

  /// An EXPAND of a smaller value (a scalar, a reduce's result or any value with 1s), read
  /// twice: its BUFFERIZE has axes of size 1 and axes the value does not use.
  UOp dead_axes(DType dt, const Shape& s, int depth) {
    if (is_all_ones(s)) return {};
    Shape from(s.size(), 1);
    if (!e_.chance(p_.p_dead_scalar))
      for (size_t i = 0; i < s.size(); ++i)
        if (e_.chance(0.4)) from[i] = s[i];
    if (from == s) from[first_wide(s)] = 1;
    UOp v = e_.chance(0.5) ? reduce(dt, from, depth) : UOp();
    if (!v) v = fill(dt, from, depth);
    return share(tensor::expand(ctx_, v, s));
  }

  /// A REDUCE_AXIS whose reduced dims are large next to its output: split reduce's shape
  /// at a small threshold, on dims that factor, that do not (primes) or are broadcast.
  UOp split_candidate(DType dt, const Shape& s, int depth) {
    if (static_cast<int>(s.size()) >= p_.max_rank) return {};
    const int want = static_cast<int>(e_.between(1, std::max(p_.split_max_reduced, 1)));
    Shape from = s;
    std::vector<int64_t> axes;
    std::vector<bool> broadcast;
    int64_t combined = 1;
    for (int k = 0; k < want && static_cast<int>(from.size()) < p_.max_rank; ++k) {
      const int64_t extent = split_extent();
      if (numel(from) * extent > std::max(p_.split_max_numel, numel(s))) break;
      const auto at = static_cast<int64_t>(e_.below(from.size() + 1));
      from.insert(from.begin() + at, extent);
      for (int64_t& a : axes)
        if (a >= at) ++a;
      axes.push_back(at);
      combined *= extent;
    }
    if (axes.empty()) return {};
    std::sort(axes.begin(), axes.end());
    UOp x;
    if (e_.chance(p_.p_split_broadcast)) {
      Shape narrow = from;
      narrow[static_cast<size_t>(axes[e_.below(axes.size())])] = 1;
      x = tensor::expand(ctx_, fill(dt, narrow, depth), from);
    } else {
      x = fill(dt, from, depth);
    }
    UOp r = tensor::reduce_axis(ctx_, x, reduce_op(dt, combined), std::move(axes));
    return tensor::reshape(ctx_, r, s);
  }

  int64_t split_extent() {
    const SplitDimWeights& w = p_.split_dims;
    switch (e_.pick({w.factorable, w.prime, w.small})) {
      case 0: return std::array<int64_t, 8>{16, 24, 32, 48, 64, 96, 128, 256}[e_.below(8)];
      case 1: return std::array<int64_t, 4>{17, 31, 37, 61}[e_.below(4)];
      default: return e_.between(2, 7);
    }
  }

  static bool is_all_ones(const Shape& s) {
    return std::all_of(s.begin(), s.end(), [](int64_t d) { return d == 1; });
  }
  static size_t first_wide(const Shape& s) {
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] != 1) return i;
    return 0;
  }

  Op combine_op(DType dt) {
    if (dt.is_bool()) return std::array{Op::And, Op::Or, Op::Xor}[e_.below(3)];
    if (dt.is_float()) {
      const TensorFloatOpWeights& w = p_.float_ops;
      return std::array{Op::Add, Op::Sub, Op::Max, Op::Min}[e_.pick({w.add, w.sub, w.max, w.min})];
    }
    const TensorIntOpWeights& w = p_.int_ops;
    return std::array{Op::Add, Op::Sub, Op::Max, Op::Min,
                      Op::Xor}[e_.pick({w.add, w.sub, w.max, w.min, w.xor_})];
  }

  /// One output reducing 32,768+ elements into each element (split reduce's threshold).
  UOp large_reduce() {
    constexpr std::array<int64_t, 5> lengths = {32768, 40000, 49152, 65536, 32771};
    constexpr std::array<int64_t, 6> realistic = {10000, 12288, 20000, 50000, 99991, 100000};
    const DType dt = draw_dtype();
    const int64_t n = e_.chance(p_.p_large_realistic) ? realistic[e_.below(realistic.size())]
                                                      : lengths[e_.below(lengths.size())];
    const int64_t rows = e_.between(1, p_.large_max_rows);
    Shape from;
    std::vector<int64_t> axes;
    switch (e_.below(3)) {
      case 0: from = {rows, n}, axes = {1}; break;
      case 1: from = {n, rows}, axes = {0}; break;
      default:
        if (n % 16 == 0)
          from = {rows, 16, n / 16}, axes = {1, 2};
        else
          from = {rows, n}, axes = {1};
        break;
    }
    const int saved = budget_;
    budget_ = p_.large_max_nodes;
    total_ops_only_ = true;  // so the oracle check never has to run over this output
    UOp x = fill(dt, from, 0);
    total_ops_only_ = false;
    budget_ = saved;
    return tensor::reduce_axis(ctx_, x, reduce_op(dt, n), std::move(axes));
  }

  // ---- shapes and dtypes

  DType draw_dtype() { return draw_dtype_except(dtypes::Void); }
  DType draw_dtype_except(DType not_this, bool floats = true) {
    std::vector<double> w;
    for (DType d : all_dtypes())
      w.push_back(d == not_this || (d.is_float() && !floats) ? 0.0 : p_.dtypes.of(d));
    return all_dtypes()[e_.pick(w)];
  }

  /// Whether a `from` value may be cast or bitcast to `to`: a float reaching an integer
  /// is guarded, but the guard is still an op the oracle must check.
  bool floats_may_reach(DType to, DType from) const {
    return !(total_ops_only_ && from.is_float() && to.is_int());
  }

  /// The chance of a size-0 dim: higher in a program drawn degenerate (p_degenerate_shapes).
  double zero_dim() const { return degenerate_ ? p_.degenerate_zero_dim : p_.p_zero_dim; }

  int64_t draw_extent() {
    if (e_.chance(zero_dim())) return 0;
    if (degenerate_ && e_.chance(p_.degenerate_one_dim)) return 1;
    const ExtentWeights& w = p_.extents;
    constexpr std::array<int64_t, 9> extents = {1, 2, 3, 4, 5, 6, 7, 11, 13};
    return extents[e_.pick(
        {w.one, w.two, w.three, w.four, w.five, w.six, w.seven, w.eleven, w.thirteen})];
  }
  int64_t reduce_extent() {
    const int64_t d = draw_extent();
    // A degenerate program reduces size-0 (the identity) and size-1 dims too.
    if (degenerate_ && d <= 1) return d;
    return d > 1 ? d : e_.between(2, 5);
  }

  int64_t draw_rank() {
    return static_cast<int64_t>(
        std::min<size_t>(e_.pick({p_.rank0, p_.rank1, p_.rank2, p_.rank3, p_.rank4}),
                         static_cast<size_t>(std::max(p_.max_rank, 0))));
  }

  Shape draw_shape() {
    Shape s(static_cast<size_t>(draw_rank()));
    for (int64_t& d : s) d = draw_extent();
    for (size_t i = s.size(); i-- > 0 && numel(s) > p_.max_numel;) s[i] = 1;
    return s;
  }

  /// A random shape of `n` elements: n's prime factors spread over a random rank.
  Shape refactor(int64_t n) {
    auto rank = static_cast<size_t>(draw_rank());
    if (n != 1 && rank == 0) rank = 1;
    Shape s(rank, 1);
    if (n == 0) {
      for (int64_t& d : s) d = std::max<int64_t>(draw_extent(), 1);
      s[e_.below(rank)] = 0;
      return s;
    }
    int64_t m = n;
    for (int64_t f = 2; f * f <= m; ++f)
      while (m % f == 0) {
        s[e_.below(rank)] *= f;
        m /= f;
      }
    if (m > 1) s[e_.below(rank)] *= m;
    return s;
  }

  std::vector<int64_t> permutation(size_t n) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (size_t i = n; i-- > 1;) std::swap(order[i], order[e_.below(i + 1)]);
    if (n >= 2 && std::is_sorted(order.begin(), order.end())) std::swap(order[0], order[1]);
    return order;
  }

  /// A nonempty ascending subset of the axes of a rank-`rank` tensor (rank >= 1).
  std::vector<int64_t> some_axes(size_t rank) {
    const size_t must = e_.below(rank);
    std::vector<int64_t> axes;
    for (size_t i = 0; i < rank; ++i)
      if (i == must || e_.chance(0.3)) axes.push_back(static_cast<int64_t>(i));
    return axes;
  }

  /// A derived source may be as large as the cap, or as the (larger) shape it serves.
  bool fits(const Shape& source, const Shape& given) const {
    return numel(source) <= std::max(p_.max_numel, numel(given));
  }

  Context& ctx_;
  const TensorGenPolicy& p_;
  Entropy& e_;
  int budget_;
  int next_slot_ = 0;
  bool total_ops_only_ = false;  ///< only ops defined for every operand (no check needed)
  bool degenerate_ = false;      ///< this program draws size-0 and size-1 dims on purpose
  std::vector<UOp> inputs_;
  std::map<std::pair<std::string, Shape>, std::vector<UOp>>
      pool_;  ///< every node filled, by dtype (its name: quantized types share a scalar) and shape
};

// ---- hard inputs: @input lines a program carries, so every replay reads the same values

/// An element of a sized integer type at or next to its caps (min, max, 0, +-1, the
/// signed/unsigned boundary 2^(bits-1)), else a small value: what compares, MAX and MIN
/// of a wrapped or sign-confused value get wrong.
Value edge_int(Entropy& e, DType dt) {
  const int bits = dt.bits();
  if (e.chance(0.3)) return wrap_int(dt, e.between(-8, 8));
  if (dt.is_signed()) {
    const int64_t lo = dt.int_min(), hi = dt.int_max();
    const std::array<int64_t, 8> caps = {lo, lo + 1, hi, hi - 1, -1, 0, 1, hi / 2 + 1};
    return wrap_int(dt, caps[e.below(caps.size())]);
  }
  // Unsigned, as raw bits: 2^bits - 1 (all ones), 2^(bits-1) and its neighbours.
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t half = uint64_t{1} << (bits - 1);
  const std::array<uint64_t, 8> caps = {0, 1, all, all - 1, half - 1, half, half + 1, all / 3};
  return wrap_int(dt, static_cast<int64_t>(caps[e.below(caps.size())]));
}

/// A float element that rounds: a finite value anywhere in the type's range (random bits),
/// a mixed magnitude (m * 10^k, |k| up to 30, clamped to what the type holds, next to 1),
/// signed zeros, the neighbours of 1 and, with `specials`, infinities and NaN.
Value hard_float(Entropy& e, DType dt, bool specials) {
  const int max_exp10 = dt.bytes() == 2 ? 4 : 30;
  const int min_exp10 = dt.bytes() == 2 ? -7 : -30;
  const double sign = e.chance(0.5) ? -1.0 : 1.0;
  switch (e.pick({3, 3, 1, 1, 1, specials ? 1.5 : 0.0})) {
    case 0: {  // random finite bits
      for (;;) {
        double v;
        if (dt.bytes() == 2) {
          v = half_value(static_cast<uint16_t>(e.below(uint64_t{1} << 16)));
        } else if (dt.bytes() == 4) {
          v = std::bit_cast<float>(static_cast<uint32_t>(e.below(uint64_t{1} << 32)));
        } else {
          v = std::bit_cast<double>(e.below(~uint64_t{0}));
        }
        if (std::isfinite(v)) return round_float(dt, v);
      }
    }
    case 1: {  // a mixed magnitude
      const double m = 1.0 + static_cast<double>(e.below(1000)) / 1000.0;
      return round_float(dt, sign * m * std::pow(10.0, e.between(min_exp10, max_exp10)));
    }
    case 2: return round_float(dt, sign * 0.0);
    case 3: return round_float(dt, sign * (e.chance(0.5) ? 1.0 : 1.0 + std::ldexp(1.0, -10)));
    case 4: return round_float(dt, sign * static_cast<double>(e.between(-64, 64)) / 8.0);
    default: {
      const double specials_[] = {std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
      return round_float(dt, specials_[e.below(3)]);
    }
  }
}

/// True when a float REDUCE_AXIS ADD or MUL sums a value that `reaches` holds for (a float
/// input; an integer converted to float): the sum's order is the lowering's choice (split
/// reduce), and its result compares bit for bit against the tensor oracle's, so values
/// that round must not reach it. MAX and MIN give the same result in any order.
template <class F>
bool float_sum_reads(UOp root, F&& reaches) {
  for (UOp u : toposort(root)) {
    if (u.op() != Op::ReduceAxis || !u.dtype().is_float()) continue;
    const Op op = u.arg<ReduceAxisArg>().op;
    if (op == Op::Max || op == Op::Min) continue;
    for (UOp x : toposort(u))
      if (reaches(x)) return true;
  }
  return false;
}

bool float_input(UOp u) {
  return u.op() == Op::Param && u.dtype().is_float();
}

bool int_to_float(UOp u) {
  return (u.op() == Op::Cast || u.op() == Op::Bitcast) && u.dtype().is_float() &&
         !u.src(0).dtype().is_float();
}

/// Per program (each a draw after the program is built, so it draws what it drew before):
/// the sized-integer inputs at their caps (p_edge_inputs) and the float inputs rounding
/// (p_hard_float_inputs), as @input lines, where no float sum reads them (float_sum_reads). Inputs
/// with stated bounds (a nonzero divisor) keep their seed fill.
void draw_hard_inputs(Kernel& k, const TensorGenPolicy& p, Entropy& e) {
  const bool ints = e.chance(p.p_edge_inputs) && !float_sum_reads(k.root, int_to_float);
  const bool floats = e.chance(p.p_hard_float_inputs) && !float_sum_reads(k.root, float_input);
  const bool specials = floats && e.chance(p.p_float_specials);
  if (!ints && !floats) return;
  for (UOp u : toposort(k.root)) {
    if (u.op() != Op::Param || u.arg<ParamArg>().output) continue;
    const ParamArg& pa = u.arg<ParamArg>();
    const DType dt = u.dtype();
    const bool edge = ints && dt.is_int() && !dt.is_bool() && !dt.is_quantized() && !pa.vmin &&
                      !pa.vmax && !pa.multiple_of;
    const bool hard = floats && dt.is_float();
    if (!edge && !hard) continue;
    GivenInput g{pa.slot, dt, {}};
    for (int64_t i = 0; i < pa.size; ++i)
      g.values.push_back(edge ? edge_int(e, dt) : hard_float(e, dt, specials));
    k.header.inputs.push_back(std::move(g));
  }
}

/// `root` with `from` replaced by `to` (the nodes above it rebuilt).
UOp substitute(Context& ctx, UOp root, UOp from, UOp to) {
  NodeMap<UOp> now;
  for (UOp u : toposort(root)) {
    if (u == from) {
      now[u] = to;
      continue;
    }
    std::vector<UOp> src;
    for (UOp s : u.src()) src.push_back(*now.find(s));
    now[u] = ctx.make(u.op(), u.dtype(), std::move(src), u.arg(), u.shape());
  }
  return *now.find(root);
}

/// True when some node of the program is an op that SEMANTICS.md lets be undefined for
/// some operands: an integer division or shift, or a float reaching an integer CAST or
/// BITCAST. Without one no element can be, and the oracle run is skipped (it costs far more
/// than generating, most of all for the large reductions).
bool may_be_undefined(UOp root) {
  for (UOp u : toposort(root)) {
    const Op op = u.op();
    if (op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod ||
        op == Op::Shl || op == Op::Shr)
      return true;
    if ((op == Op::Cast || op == Op::Bitcast) && u.src(0).dtype().is_float() && u.dtype().is_int())
      return true;
  }
  return false;
}

}  // namespace

// CONST 1 is a harmless divisor, shift amount and cast operand.
void check_and_repair_tensor_program(Context& ctx, Kernel& k, const TensorGenPolicy& p,
                                     TensorGenResult& res) {
  if (!p.check) return;
  for (int round = 0;; ++round) {
    // Only the outputs that can be undefined run: seed 0 fills each input slot the same
    // whichever PARAMs the program holds.
    std::vector<UOp> partial;
    for (UOp out : k.root.src())
      if (may_be_undefined(out)) partial.push_back(out);
    if (partial.empty()) return;
    const UOp checked = tensor::realize(ctx, std::move(partial));
    // The program's @input lines (hard inputs) hold on every seed: check with them.
    Kernel view = k;
    view.root = checked;
    auto run = oracle::eval_tensor_program(checked, make_inputs(view, 0));
    if (!run) {
      res.oracle_error = run.error().message;
      return;
    }
    if (run->status != RunStatus::Ub || !run->ub) return;
    if (round >= p.max_repairs) {
      res.still_undefined = true;
      return;
    }
    const UOp bad = run->ub->node;
    k.root = substitute(ctx, k.root, bad, tensor::constant(ctx, bad.dtype(), 1, bad.shape()));
    ++res.repairs;
    res.repaired = true;
  }
}

TensorGenResult generate_tensor_program(Context& ctx, const GenPolicy& policy, Entropy& entropy) {
  TensorGenResult res;
  Kernel& k = res.program;
  k.root = TensorBuilder(ctx, policy.tensor, entropy).build();
  draw_hard_inputs(k, policy.tensor, entropy);
  res.entropy_exhausted = entropy.exhausted();
  k.header.name = "tensor-gen";
  k.header.seed = 0;
  k.header.extra.emplace_back("generator", kTensorGeneratorVersion);
  check_and_repair_tensor_program(ctx, k, policy.tensor, res);
  fit_given_inputs(k);  // a repair may have removed an input an @input line gave
  res.nodes = static_cast<int>(toposort(k.root).size());
  return res;
}

TensorGenResult generate_tensor_program(Context& ctx, const GenPolicy& policy, uint64_t seed) {
  SeedEntropy e(seed);
  TensorGenResult r = generate_tensor_program(ctx, policy, e);
  r.program.header.name = fmt::format("tensor-gen-{}", seed);
  r.program.header.extra.emplace_back("gen-seed", std::to_string(seed));
  return r;
}

}  // namespace uopfuzz::gen
