#include "oracle/tensor_eval.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/tensor.h"

namespace uopfuzz::oracle {

using namespace ir;

namespace {

// Every node's tensor is held until the run ends; past this many elements in all (1 GiB of
// values) a program is refused instead of exhausting memory (a PAD may ask for 2^31 a side).
constexpr int64_t kMaxTotalElems = int64_t{1} << 27;

using Values = std::vector<Value>;

/// Visits the elements of `shape` in row-major order: f(k, offset) with k the element's
/// row-major number and offset = base + sum of index[d] * strides[d]. Movement ops are
/// such walks (a gather from, or a scatter into, an offset per element), and so is a
/// reduction (the offset of the output element each source element folds into). Stops
/// early, returning false, when f does.
template <class F>
bool for_each_element(const Shape& shape, const std::vector<int64_t>& strides, int64_t base,
                      F&& f) {
  if (numel(shape) == 0) return true;
  const size_t rank = shape.size();
  if (rank == 0) return f(int64_t{0}, base);
  std::vector<int64_t> index(rank, 0);
  const int64_t inner = shape[rank - 1], inner_stride = strides[rank - 1];
  int64_t k = 0, row = base;  // row: the offset of the current innermost row's first element
  for (;;) {
    for (int64_t i = 0; i < inner; ++i)
      if (!f(k++, row + i * inner_stride)) return false;
    size_t d = rank - 1;
    for (;;) {
      if (d == 0) return true;
      --d;
      row += strides[d];
      if (++index[d] < shape[d]) break;
      row -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

/// "[1,0]": the multi-index of row-major element k of `shape`, for UB reports.
std::string element_text(const Shape& shape, int64_t k) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) break;
    index[d] = k % shape[d];
    k /= shape[d];
  }
  return shape_text(index);
}

class Evaluator {
 public:
  explicit Evaluator(const Inputs& inputs) : inputs_(inputs) {}

  Result<RunOutput> run(UOp root) {
    std::vector<UOp> topo = toposort(root);
    of_.reserve(topo.size());
    for (UOp u : topo) {
      if (u == root) break;  // the root is last in topological order
      if (auto e = check_shape(u)) return *e;
      if (auto e = eval(u)) return *e;
      if (ub_) {
        RunOutput out;
        out.status = RunStatus::Ub;
        out.ub = std::move(ub_);
        out.steps = steps_;
        return out;
      }
    }
    RunOutput out;
    out.steps = steps_;
    for (size_t i = 0; i < root.num_src(); ++i) {
      UOp s = root.src(i);
      const Values& v = values(s);
      Buffer b(s.dtype(), v.size());
      for (size_t k = 0; k < v.size(); ++k) b.set(k, v[k]);
      out.outputs.emplace(static_cast<int>(i), std::move(b));
    }
    return out;
  }

 private:
  const Values& values(UOp u) { return store_[of_.at(u)]; }

  // A fresh tensor of n elements for u, all zero bits (0, 0.0 or false in every dtype).
  Result<Values*> fresh(UOp u) {
    const int64_t n = numel(u.shape());
    if (n > kMaxTotalElems - total_)
      return Error{fmt::format(
          "unsupported: the tensor program holds more than 2^27 elements (at {} : {}{})",
          op_name(u.op()), u.dtype().name(), shape_text(u.shape()))};
    total_ += n;
    steps_ += static_cast<uint64_t>(n);
    of_.emplace(u, static_cast<uint32_t>(store_.size()));
    store_.emplace_back(static_cast<size_t>(n), Value::of_int(0));
    return &store_.back();
  }
  // Ops that keep the row-major order of their source share its tensor.
  void alias(UOp u, UOp src) { of_.emplace(u, of_.at(src)); }

  // The graph is verified (the header's contract); this keeps an unverified one from
  // reading out of bounds.
  std::optional<Error> check_shape(UOp u) {
    auto shape = infer_shape(u.op(), u.src(), u.arg(), u.shape());
    if (const auto* why = std::get_if<std::string>(&shape))
      return Error{fmt::format("the tensor program does not verify: {}", *why)};
    if (std::get<Shape>(shape) != u.shape())
      return Error{
          fmt::format("the tensor program does not verify: {} declares {}, its op gives {}",
                      op_name(u.op()), shape_text(u.shape()), shape_text(std::get<Shape>(shape)))};
    return std::nullopt;
  }

  void report(UOp u, std::string what) { ub_ = UbReport{u, std::move(what), {}}; }

  std::optional<Error> eval(UOp u) {
    switch (op_kind(u.op())) {
      case OpKind::Leaf:
        switch (leaf_op(u.op())) {
          case LeafOp::Param: return input(u);
          case LeafOp::Const: {
            if (!std::holds_alternative<ConstArg>(u.arg()))
              return Error{"the tensor program does not verify: a CONST without a value"};
            auto out = fresh(u);
            if (!out) return out.error();
            std::fill((*out)->begin(), (*out)->end(), u.const_value());
            return std::nullopt;
          }
          case LeafOp::Invalid:
          case LeafOp::Var:
            return Error{fmt::format(
                "{} is a kernel op: the tensor oracle runs tensor programs only", op_name(u.op()))};
        }
        break;
      case OpKind::Structural:
      case OpKind::Schedule:
        return Error{fmt::format("{} is a kernel op: the tensor oracle runs tensor programs only",
                                 op_name(u.op()))};
      case OpKind::Alu: return elementwise(u);
      case OpKind::Tensor:
        switch (tensor_op(u.op())) {
          case TensorOp::Reshape:
          case TensorOp::Contiguous: alias(u, u.src(0)); return std::nullopt;
          case TensorOp::Permute:
          case TensorOp::Expand:
          case TensorOp::Shrink:
          case TensorOp::Flip: return gather(u);
          case TensorOp::Pad: return pad(u);
          case TensorOp::ReduceAxis: return reduce(u);
          case TensorOp::Realize:
            return Error{"the tensor program does not verify: REALIZE is not its root"};
        }
        break;
    }
    return Error{fmt::format("unsupported: {} in a tensor program", op_name(u.op()))};
  }

  std::optional<Error> input(UOp u) {
    const auto* param = std::get_if<ParamArg>(&u.arg());
    if (!param) return Error{"the tensor program does not verify: a PARAM without slot and size"};
    const ParamArg& p = *param;
    if (p.output)
      return Error{
          fmt::format("PARAM slot {} is an output: a tensor program's PARAMs are inputs", p.slot)};
    auto it = inputs_.buffers.find(p.slot);
    if (it == inputs_.buffers.end())
      return Error{fmt::format("no input buffer for PARAM slot {}", p.slot)};
    const Buffer& b = it->second;
    const int64_t n = numel(u.shape());
    if (b.dtype() != u.dtype() || static_cast<int64_t>(b.size()) != n || p.size != n)
      return Error{fmt::format("input buffer for slot {} must be {} x {}, got {} x {}", p.slot, n,
                               u.dtype().name(), b.size(), b.dtype().name())};
    auto out = fresh(u);
    if (!out) return out.error();
    for (size_t k = 0; k < b.size(); ++k) (**out)[k] = b.get(k);
    return std::nullopt;
  }

  // PERMUTE, EXPAND, SHRINK, FLIP: each output element reads one source element at an
  // affine offset of its index (SEMANTICS.md gives each op's index map): the source's
  // row-major strides, rearranged per op, and the offset of output element 0.
  std::optional<Error> gather(UOp u) {
    UOp x = u.src(0);
    const Shape& in = x.shape();
    const std::vector<int64_t> in_strides = row_major_strides(in);
    std::vector<int64_t> strides = in_strides;
    int64_t base = 0;
    if (u.op() == Op::Permute) {
      const std::vector<int64_t>& order = u.arg<AxesArg>().axes;
      for (size_t d = 0; d < order.size(); ++d)
        strides[d] = in_strides[static_cast<size_t>(order[d])];
    } else if (u.op() == Op::Expand) {
      for (size_t d = 0; d < in.size(); ++d)
        if (in[d] == 1) strides[d] = 0;
    } else if (u.op() == Op::Shrink) {
      const auto& pairs = u.arg<PadArg>().pairs;
      for (size_t d = 0; d < pairs.size(); ++d) base += pairs[d].first * in_strides[d];
    } else if (u.op() == Op::Flip) {
      for (int64_t a : u.arg<AxesArg>().axes) {
        const size_t d = static_cast<size_t>(a);
        base += (in[d] - 1) * in_strides[d];
        strides[d] = -in_strides[d];
      }
    }
    auto out = fresh(u);
    if (!out) return out.error();
    const Values& src = values(x);
    Values& dst = **out;
    for_each_element(u.shape(), strides, base, [&](int64_t k, int64_t off) {
      dst[static_cast<size_t>(k)] = src[static_cast<size_t>(off)];
      return true;
    });
    return std::nullopt;
  }

  // PAD: the output starts as zeros; each source element lands at its index shifted by
  // the `before` sizes.
  std::optional<Error> pad(UOp u) {
    UOp x = u.src(0);
    const std::vector<int64_t> out_strides = row_major_strides(u.shape());
    const auto& pairs = u.arg<PadArg>().pairs;
    int64_t base = 0;
    for (size_t d = 0; d < pairs.size(); ++d) base += pairs[d].first * out_strides[d];
    auto out = fresh(u);
    if (!out) return out.error();
    const Values& src = values(x);
    Values& dst = **out;
    for_each_element(x.shape(), out_strides, base, [&](int64_t k, int64_t off) {
      dst[static_cast<size_t>(off)] = src[static_cast<size_t>(k)];
      return true;
    });
    return std::nullopt;
  }

  // REDUCE_AXIS: every output element starts at the op's identity; the source is walked
  // in row-major order, each element folded into the output element it reduces to, so
  // each output element folds its elements in row-major order of the reduced indices,
  // the order of a kernel REDUCE over ranges nested first axis outermost.
  std::optional<Error> reduce(UOp u) {
    const ReduceAxisArg& r = u.arg<ReduceAxisArg>();
    UOp x = u.src(0);
    if (x.dtype().is_quantized()) return quantized_reduce(u);
    if (r.axes.empty()) {  // reduces nothing: the value itself, not a fold of one element
      alias(u, x);
      return std::nullopt;
    }
    std::vector<int64_t> strides = row_major_strides(u.shape());
    for (int64_t a : r.axes) strides[static_cast<size_t>(a)] = 0;
    auto out = fresh(u);
    if (!out) return out.error();
    Values& acc = **out;
    std::fill(acc.begin(), acc.end(), reduce_identity(r.op, u.dtype()));
    const Values& src = values(x);
    const DType dt = u.dtype();
    steps_ += src.size();
    std::optional<Error> error;
    for_each_element(x.shape(), strides, 0, [&](int64_t k, int64_t off) {
      Value& a = acc[static_cast<size_t>(off)];
      const Value args[2] = {a, src[static_cast<size_t>(k)]};
      const EvalError e = eval_alu(r.op, dt, dt, args, a);
      if (e == EvalError::None) return true;
      if (e == EvalError::Unsupported)
        error =
            Error{fmt::format("unsupported: REDUCE_AXIS op={} of {}", op_name(r.op), dt.name())};
      else
        report(u, fmt::format("{} while reducing element {} of the source into element {}",
                              eval_error_name(e), element_text(x.shape(), k),
                              element_text(u.shape(), off)));
      return false;
    });
    return error;
  }

  // A quantized REDUCE_AXIS (SEMANTICS.md, "REDUCE_AXIS"): the centered integers q - z_in
  // folded in int32 from the int32 identity, then requantized from scale s_in, zero point 0,
  // to the node's type. The verifier guarantees the int32 sum cannot overflow. `axes=[]`
  // folds nothing: each element is requantized alone (the identity between equal types).
  std::optional<Error> quantized_reduce(UOp u) {
    const ReduceAxisArg& r = u.arg<ReduceAxisArg>();
    UOp x = u.src(0);
    const DType in = x.dtype(), out_dt = u.dtype();
    if (!out_dt.is_quantized() || r.op == Op::Mul)
      return Error{fmt::format("unsupported: REDUCE_AXIS op={} of {} to {}", op_name(r.op),
                               in.name(), out_dt.name())};
    const QuantParams& qin = quant_params(in);
    std::string why;
    const auto rq = requantizer(qin.scale, quant_params(out_dt).scale, &why);
    if (!rq) return Error{why};
    const int64_t z_in = qin.zero_point;
    auto out = fresh(u);
    if (!out) return out.error();
    Values& dst = **out;
    const Values& src = values(x);
    if (r.axes.empty()) {
      for (size_t k = 0; k < src.size(); ++k)
        dst[k] = wrap_int(out_dt, requantize_centered(src[k].i - z_in, *rq, out_dt));
      return std::nullopt;
    }
    const int64_t identity = r.op == Op::Add   ? 0
                             : r.op == Op::Max ? std::numeric_limits<int32_t>::min()
                                               : std::numeric_limits<int32_t>::max();
    std::vector<int64_t> acc(dst.size(), identity);
    std::vector<int64_t> strides = row_major_strides(u.shape());
    for (int64_t a : r.axes) strides[static_cast<size_t>(a)] = 0;
    steps_ += src.size();
    for_each_element(x.shape(), strides, 0, [&](int64_t k, int64_t off) {
      int64_t& a = acc[static_cast<size_t>(off)];
      const int64_t centered = src[static_cast<size_t>(k)].i - z_in;
      a = r.op == Op::Add   ? a + centered
          : r.op == Op::Max ? std::max(a, centered)
                            : std::min(a, centered);
      return true;
    });
    for (size_t k = 0; k < dst.size(); ++k)
      dst[k] = wrap_int(out_dt, requantize_centered(acc[k], *rq, out_dt));
    return std::nullopt;
  }

  std::optional<Error> elementwise(UOp u) {
    const size_t arity = u.num_src();
    const Values* operands[3] = {nullptr, nullptr, nullptr};
    for (size_t s = 0; s < arity; ++s) operands[s] = &values(u.src(s));
    auto out = fresh(u);
    if (!out) return out.error();
    Values& dst = **out;
    const Op op = u.op();
    const DType in = operand_dtype(u), result = u.dtype();
    Value args[3] = {};
    for (size_t k = 0; k < dst.size(); ++k) {
      for (size_t s = 0; s < arity; ++s) args[s] = (*operands[s])[k];
      const EvalError e = eval_alu(op, in, result, args, dst[k]);
      if (e == EvalError::None) continue;
      if (e == EvalError::Unsupported)
        return Error{fmt::format("unsupported: {} of {}", op_name(op), in.name())};
      report(u, fmt::format("{} at element {}", eval_error_name(e),
                            element_text(u.shape(), static_cast<int64_t>(k))));
      return std::nullopt;
    }
    return std::nullopt;
  }

  const Inputs& inputs_;
  std::deque<Values> store_;  // a deque: tensors stay where they are as more are added
  NodeMap<uint32_t> of_;      // node -> its tensor in store_ (aliases share one)
  int64_t total_ = 0;
  uint64_t steps_ = 0;
  std::optional<UbReport> ub_;
};

}  // namespace

Result<RunOutput> eval_tensor_program(UOp root, const Inputs& inputs) {
  if (!root) return Error{"no graph"};
  if (!is_tensor_program(root))
    return Error{
        fmt::format("not a tensor program: its root is {}, not REALIZE", op_name(root.op()))};
  return Evaluator(inputs).run(root);
}

}  // namespace uopfuzz::oracle
