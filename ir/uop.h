/** \file UOp: pointer-sized handles to immutable, hash-consed IR nodes, and the Context that owns
 * them.
 *
 * A node is {op, dtype, src, arg}. Only a Context creates nodes, and it interns them:
 * two structurally equal nodes are the same object, so UOp equality is identity.
 *
 * Threading: a Context is not thread-safe. It is per-thread (a fuzz worker owns one)
 * and frees all its nodes at once when destroyed; UOps of two contexts never mix.
 * Sources are always created before their users, so node ids are a topological order.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"
#include "ir/value.h"

namespace uopfuzz::ir {

/// CONST: the value in canonical form for the node's dtype (value.h), compared by bits.
struct ConstArg {
  Value value;
  friend bool operator==(ConstArg a, ConstArg b) { return a.value.u == b.value.u; }
};

/// PARAM: a kernel buffer argument. The optional bounds and multiple_of constrain the
/// element values (the input filler honours them; divides() may rely on them).
struct ParamArg {
  int slot = 0;
  int64_t size = 1;  ///< element count
  bool output = false;
  std::optional<int64_t> vmin, vmax, multiple_of;
  friend bool operator==(const ParamArg&, const ParamArg&) = default;
};

/// VAR: a bounded symbolic integer scalar, given a value at run time.
struct VarArg {
  std::string name;
  int64_t min = 0, max = 0;
  std::optional<int64_t> multiple_of;
  friend bool operator==(const VarArg&, const VarArg&) = default;
};

/// RANGE: axis id followed by sub-ids (a split range r becomes r.0 and r.1), and the type.
struct RangeArg {
  std::vector<int32_t> axis;
  AxisType type = AxisType::Loop;
  friend bool operator==(const RangeArg&, const RangeArg&) = default;
};

/// REDUCE: the combining op, one of ADD, MUL, MAX, MIN.
struct ReduceArg {
  Op op = Op::Add;
  friend bool operator==(const ReduceArg&, const ReduceArg&) = default;
};

/// PERMUTE: the new order (output dim i is input dim order[i]); FLIP: the flipped axes,
/// ascending.
struct AxesArg {
  std::vector<int64_t> axes;
  friend bool operator==(const AxesArg&, const AxesArg&) = default;
};

/// PAD: (before, after) zeros per dim; SHRINK: (begin, end) kept per dim, end exclusive.
struct PadArg {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  friend bool operator==(const PadArg&, const PadArg&) = default;
};

/// REDUCE_AXIS: the combining op (ADD, MUL, MAX, MIN) and the reduced axes, ascending and
/// distinct; the reduced dims stay as size 1 (keepdim). An empty list reduces nothing.
struct ReduceAxisArg {
  Op op = Op::Add;
  std::vector<int64_t> axes;
  friend bool operator==(const ReduceAxisArg&, const ReduceAxisArg&) = default;
};

/// BUFFERIZE (rangeify's intermediate form, schedule/bufferize.h): which output it is (the
/// REALIZE source index; -1 for an intermediate) and whether the buffer rules may remove or
/// reshape it (outputs and always-run ops such as CONTIGUOUS may not).
struct BufferizeArg {
  int output = -1;
  bool removable = true;
  friend bool operator==(const BufferizeArg&, const BufferizeArg&) = default;
};

using Arg = std::variant<std::monostate, ConstArg, ParamArg, VarArg, RangeArg, ReduceArg, AxesArg,
                         PadArg, ReduceAxisArg, BufferizeArg>;

/// A tensor's static shape: sizes per dim, row-major; a size may be 0 or 1. Kernel nodes
/// (and rank-0 tensors) have the empty shape.
using Shape = std::vector<int64_t>;

class UOp;

struct Node {
  Op op;
  DType dtype;
  std::vector<UOp> src;
  Arg arg;
  Shape shape;  ///< tensor programs only (empty in kernels)
  size_t hash;
  uint32_t id;  ///< creation order within its Context: sources have smaller ids
};

class UOp {
 public:
  UOp() = default;
  explicit UOp(const Node* n) : n_(n) {}

  Op op() const { return n_->op; }
  DType dtype() const { return n_->dtype; }
  std::span<const UOp> src() const { return n_->src; }
  UOp src(size_t i) const { return n_->src[i]; }
  size_t num_src() const { return n_->src.size(); }
  const Arg& arg() const { return n_->arg; }
  const Shape& shape() const { return n_->shape; }
  template <class T>
  const T& arg() const {
    return std::get<T>(n_->arg);
  }
  uint32_t id() const { return n_->id; }
  size_t hash() const { return n_->hash; }
  const Node* node() const { return n_; }

  explicit operator bool() const { return n_ != nullptr; }
  friend bool operator==(UOp a, UOp b) { return a.n_ == b.n_; }

  // Small conveniences for the common arg reads.
  Value const_value() const { return arg<ConstArg>().value; }
  bool is_const() const { return op() == Op::Const; }

 private:
  const Node* n_ = nullptr;
};

struct UOpHash {
  size_t operator()(UOp u) const { return std::hash<const void*>()(u.node()); }
};

/// Owns and interns nodes. See the file comment for the threading contract.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// The one way to create a node: returns the existing node if an equal one exists.
  UOp make(Op op, DType dtype, std::vector<UOp> src = {}, Arg arg = {}, Shape shape = {});

  size_t size() const { return nodes_.size(); }

  // Builders for the common leaves (values are canonicalized for the dtype).
  UOp const_int(DType dt, int64_t v);
  UOp const_float(DType dt, double v);
  UOp const_bool(bool v) { return const_int(dtypes::Bool, v); }
  UOp const_value(DType dt, Value v);
  UOp invalid() { return make(Op::Invalid, dtypes::Index); }
  /// ALU node whose dtype follows from the op and operands (bool for comparisons,
  /// the operand dtype otherwise: see operand_source).
  UOp alu(Op op, std::vector<UOp> src);

 private:
  void grow();
  std::deque<Node> nodes_;
  std::vector<const Node*> table_;  // open addressing, linear probing, power-of-two size
};

size_t hash_arg(const Arg& arg);

/// The source whose dtype an ALU op computes in (scalar_eval's `in`): WHERE's branches
/// (its condition is bool), the first source otherwise (CAST and BITCAST: what they convert).
inline size_t operand_source(Op op) {
  return op == Op::Where ? 1 : 0;
}
/// The dtype an ALU node computes in: the dtype of its operand_source.
inline DType operand_dtype(UOp alu) {
  return alu.src(operand_source(alu.op())).dtype();
}

}  // namespace uopfuzz::ir
