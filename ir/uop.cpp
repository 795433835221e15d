#include "ir/uop.h"

#include <functional>

#include "ir/hash.h"

namespace uopfuzz::ir {
namespace {

inline size_t mix(size_t h, size_t v) {
  // boost::hash_combine-style mixing with a 64-bit constant.
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

size_t hash_opt(const std::optional<int64_t>& o) {
  return o ? std::hash<int64_t>()(*o) * 31 + 1 : 0;
}

// splitmix64's finalizer. Sources are hashed by address, and node addresses differ only
// in a few middle bits; without a full avalanche the table's low index bits cluster and
// linear probing goes quadratic (100k ADD nodes took seconds).
inline size_t avalanche(size_t h) {
  return mix64(h);
}

size_t hash_node(Op op, DType dt, const std::vector<UOp>& src, const Arg& arg, const Shape& shape) {
  size_t h =
      mix(static_cast<size_t>(op), static_cast<size_t>(dt.scalar()) | (size_t{dt.quant()} << 8));
  for (UOp s : src) h = mix(h, UOpHash()(s));
  for (int64_t d : shape) h = mix(h, std::hash<int64_t>()(d));
  return avalanche(mix(h, hash_arg(arg)));
}

}  // namespace

size_t hash_arg(const Arg& arg) {
  struct Visitor {
    size_t operator()(std::monostate) const { return 0; }
    size_t operator()(const ConstArg& c) const { return std::hash<uint64_t>()(c.value.u); }
    size_t operator()(const ParamArg& p) const {
      size_t h = mix(p.slot, std::hash<int64_t>()(p.size));
      h = mix(h, p.output);
      h = mix(h, hash_opt(p.vmin));
      h = mix(h, hash_opt(p.vmax));
      return mix(h, hash_opt(p.multiple_of));
    }
    size_t operator()(const VarArg& v) const {
      size_t h = mix(std::hash<std::string>()(v.name), std::hash<int64_t>()(v.min));
      h = mix(h, std::hash<int64_t>()(v.max));
      return mix(h, hash_opt(v.multiple_of));
    }
    size_t operator()(const RangeArg& r) const {
      size_t h = static_cast<size_t>(r.type);
      for (int32_t a : r.axis) h = mix(h, std::hash<int32_t>()(a));
      return h;
    }
    size_t operator()(const ReduceArg& r) const { return static_cast<size_t>(r.op) + 7; }
    size_t operator()(const AxesArg& a) const {
      size_t h = a.axes.size();
      for (int64_t x : a.axes) h = mix(h, std::hash<int64_t>()(x));
      return h;
    }
    size_t operator()(const PadArg& p) const {
      size_t h = p.pairs.size();
      for (auto [a, b] : p.pairs) h = mix(mix(h, std::hash<int64_t>()(a)), std::hash<int64_t>()(b));
      return h;
    }
    size_t operator()(const ReduceAxisArg& r) const {
      size_t h = static_cast<size_t>(r.op) + 11;
      for (int64_t x : r.axes) h = mix(h, std::hash<int64_t>()(x));
      return h;
    }
    size_t operator()(const BufferizeArg& b) const {
      return mix(std::hash<int>()(b.output), b.removable);
    }
  };
  return mix(arg.index(), std::visit(Visitor{}, arg));
}

Context::Context() : table_(1024, nullptr) {}
Context::~Context() = default;

UOp Context::make(Op op, DType dtype, std::vector<UOp> src, Arg arg, Shape shape) {
  size_t h = hash_node(op, dtype, src, arg, shape);
  size_t mask = table_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Node* n = table_[i];
    if (!n) break;
    if (n->hash == h && n->op == op && n->dtype == dtype && n->src == src && n->arg == arg &&
        n->shape == shape)
      return UOp(n);
  }
  nodes_.push_back(Node{op, dtype, std::move(src), std::move(arg), std::move(shape), h,
                        static_cast<uint32_t>(nodes_.size())});
  const Node* fresh = &nodes_.back();
  if ((nodes_.size() + 1) * 2 > table_.size()) grow();
  for (size_t i = h & (table_.size() - 1);; i = (i + 1) & (table_.size() - 1)) {
    if (!table_[i]) {
      table_[i] = fresh;
      break;
    }
  }
  return UOp(fresh);
}

void Context::grow() {
  std::vector<const Node*> bigger(table_.size() * 2, nullptr);
  size_t mask = bigger.size() - 1;
  for (const Node* n : table_) {
    if (!n) continue;
    size_t i = n->hash & mask;
    while (bigger[i]) i = (i + 1) & mask;
    bigger[i] = n;
  }
  table_.swap(bigger);
}

UOp Context::const_int(DType dt, int64_t v) {
  if (dt.is_float()) return const_float(dt, static_cast<double>(v));
  return make(Op::Const, dt, {}, ConstArg{wrap_int(dt, v)});
}

UOp Context::const_float(DType dt, double v) {
  if (!dt.is_float()) return const_int(dt, static_cast<int64_t>(v));
  return make(Op::Const, dt, {}, ConstArg{round_float(dt, v)});
}

UOp Context::const_value(DType dt, Value v) {
  return dt.is_float() ? const_float(dt, v.f)
                       : make(Op::Const, dt, {}, ConstArg{wrap_int(dt, v.i)});
}

UOp Context::alu(Op op, std::vector<UOp> src) {
  DType dt = op_in(op, Comparison) ? dtypes::Bool : src.at(operand_source(op)).dtype();
  return make(op, dt, std::move(src));
}

}  // namespace uopfuzz::ir
