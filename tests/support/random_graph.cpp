#include "tests/support/random_graph.h"

namespace uopfuzz::ir::randgraph {

Kernel RandomKernelBuilder::build(int serial) {
  inputs_.clear();
  outputs_.clear();
  vars_.clear();
  next_axis_ = 0;
  make_params();
  make_vars();
  std::vector<UOp> sinks;
  for (UOp out : outputs_) {
    const int stores = 1 + static_cast<int>(below(2));
    for (int i = 0; i < stores; ++i) sinks.push_back(store_into(out));
  }
  Kernel k;
  k.root = ctx_.make(Op::Sink, dtypes::Void, sinks);
  k.header = header(serial);
  return k;
}

const std::vector<DType>& RandomKernelBuilder::buffer_dtypes() {
  static const std::vector<DType> all = {dtypes::Bool,    dtypes::Int8,    dtypes::Int16,
                                         dtypes::Int32,   dtypes::Int64,   dtypes::UInt8,
                                         dtypes::UInt16,  dtypes::UInt32,  dtypes::UInt64,
                                         dtypes::Float16, dtypes::Float32, dtypes::Float64};
  return all;
}

Value RandomKernelBuilder::special_value(DType dt) {
  switch (dt.kind()) {
    case DTypeKind::Quantized: return special_value(dt.storage());  // a stored integer
    case DTypeKind::Bool: return Value::of_int(static_cast<int64_t>(below(2)));
    case DTypeKind::Signed:
    case DTypeKind::Index: {
      const int64_t picks[] = {0,
                               1,
                               -1,
                               dt.int_min(),
                               dt.int_max(),
                               static_cast<int64_t>(below(100)) - 50,
                               static_cast<int64_t>(rng_())};
      return wrap_int(dt, picks[below(std::size(picks))]);
    }
    case DTypeKind::Unsigned: {
      const int64_t picks[] = {0,
                               1,
                               -1 /* the dtype's max */,
                               dt.int_max(),
                               static_cast<int64_t>(below(300)),
                               static_cast<int64_t>(rng_())};
      return wrap_int(dt, picks[below(std::size(picks))]);
    }
    case DTypeKind::Float: {
      const double denorm = dt == dtypes::Float16 ? std::ldexp(1.0, -24)
                            : dt == dtypes::Float32
                                ? static_cast<double>(std::numeric_limits<float>::denorm_min())
                                : std::numeric_limits<double>::denorm_min();
      const double biggest = dt == dtypes::Float16 ? 65504.0
                             : dt == dtypes::Float32
                                 ? static_cast<double>(std::numeric_limits<float>::max())
                                 : std::numeric_limits<double>::max();
      std::uniform_real_distribution<double> unit(-1.0, 1.0);
      const double picks[] = {0.0,
                              -0.0,
                              INFINITY,
                              -INFINITY,
                              NAN,
                              1.0,
                              -1.5,
                              0.1,
                              1.0 / 3.0,
                              denorm,
                              -denorm,
                              denorm * 3,
                              biggest,
                              -biggest,
                              std::ldexp(unit(rng_), static_cast<int>(below(60)) - 30),
                              std::ldexp(unit(rng_), static_cast<int>(below(600)) - 300)};
      return round_float(dt, picks[below(std::size(picks))]);
    }
    case DTypeKind::Void: return Value::of_int(0);  // holds no value
  }
  return Value::of_int(0);
}

UOp RandomKernelBuilder::param(DType dt, int slot, int64_t size, bool out) {
  ParamArg p;
  p.slot = slot;
  p.size = size;
  p.output = out;
  if (!out && dt.is_int() && chance(0.3)) {
    const int64_t lo = dt.int_min() + static_cast<int64_t>(below(3));
    p.vmin = std::min<int64_t>(std::max<int64_t>(lo, -20), dt.int_max());
    if (chance(0.7))
      p.vmax = std::min<int64_t>(*p.vmin + static_cast<int64_t>(below(40)), dt.int_max());
    if (chance(0.3)) p.multiple_of = 1 + static_cast<int64_t>(below(4));
  }
  return ctx_.make(Op::Param, dt, {}, p);
}

void RandomKernelBuilder::make_params() {
  const int n_in = 1 + static_cast<int>(below(4));
  const int n_out = 1 + static_cast<int>(below(3));
  std::vector<int> slots;
  for (int i = 0; i < n_in + n_out; ++i) slots.push_back(i * (1 + static_cast<int>(below(3))));
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  while (static_cast<int>(slots.size()) < n_in + n_out) slots.push_back(slots.back() + 1);
  std::shuffle(slots.begin(), slots.end(), rng_);
  int s = 0;
  for (int i = 0; i < n_in; ++i) {
    const int64_t size = chance(0.05) ? (int64_t{1} << 31) : 1 + static_cast<int64_t>(below(64));
    inputs_.push_back(param(pick(buffer_dtypes()), slots[s++], size, false));
  }
  for (int i = 0; i < n_out; ++i)
    outputs_.push_back(
        param(pick(buffer_dtypes()), slots[s++], 1 + static_cast<int64_t>(below(8)), true));
}

void RandomKernelBuilder::make_vars() {
  static const std::vector<DType> var_types = {dtypes::Index, dtypes::Int32, dtypes::Int64,
                                               dtypes::Int16, dtypes::UInt8};
  const int n = static_cast<int>(below(3));
  for (int i = 0; i < n; ++i) {
    DType dt = pick(var_types);
    VarArg v;
    v.name = "v" + std::to_string(i);
    v.min = dt.kind() == DTypeKind::Unsigned ? static_cast<int64_t>(below(4))
                                             : static_cast<int64_t>(below(9)) - 4;
    v.max = v.min + static_cast<int64_t>(below(12));
    if (chance(0.3)) v.multiple_of = 1 + static_cast<int64_t>(below(3));
    vars_.push_back(ctx_.make(Op::Var, dt, {}, v));
  }
}

UOp RandomKernelBuilder::fresh_range(bool reduce) {
  static const std::vector<AxisType> loop_types = {
      AxisType::Loop, AxisType::Global, AxisType::Local,  AxisType::Upcast,
      AxisType::Warp, AxisType::Thread, AxisType::Device, AxisType::Unroll};
  RangeArg r;
  r.axis.push_back(next_axis_++);
  if (chance(0.2)) r.axis.push_back(static_cast<int32_t>(below(3)));
  if (chance(0.05)) r.axis.push_back(static_cast<int32_t>(below(3)));
  r.type = reduce ? (chance(0.8) ? AxisType::Reduce : AxisType::GroupReduce) : pick(loop_types);
  UOp end = ctx_.const_int(dtypes::Index, 1 + static_cast<int64_t>(below(6)));
  if (!vars_.empty() && chance(0.3)) {
    UOp v = pick(vars_);
    UOp vi = v.dtype() == dtypes::Index ? v : ctx_.make(Op::Cast, dtypes::Index, {v});
    end = chance(0.5) ? ctx_.alu(Op::Add, {vi, end}) : ctx_.alu(Op::Max, {vi, end});
  }
  return ctx_.make(Op::Range, dtypes::Index, {end}, r);
}

UOp RandomKernelBuilder::load(UOp buf, int depth, const std::vector<UOp>& scope) {
  UOp idx = value(dtypes::Index, depth - 1, scope);
  const bool gated = chance(0.3);
  if (gated)
    idx = ctx_.make(Op::Where, dtypes::Index,
                    {value(dtypes::Bool, depth - 1, scope), idx, ctx_.invalid()});
  UOp at = ctx_.make(Op::Index, buf.dtype(), {buf, idx});
  if (chance(gated ? 0.7 : 0.1))
    return ctx_.make(Op::Load, buf.dtype(), {at, value(buf.dtype(), depth - 1, scope)});
  return ctx_.make(Op::Load, buf.dtype(), {at});
}

UOp RandomKernelBuilder::leaf(DType dt, int depth, const std::vector<UOp>& scope) {
  std::vector<UOp> choices;
  if (dt == dtypes::Index && !scope.empty()) choices.push_back(pick(scope));
  for (UOp v : vars_)
    if (v.dtype() == dt) choices.push_back(v);
  if (depth > 0)
    for (UOp in : inputs_)
      if (in.dtype() == dt) choices.push_back(in);
  if (!choices.empty() && chance(0.6)) {
    UOp c = pick(choices);
    return c.op() == Op::Param ? load(c, depth, scope) : c;
  }
  if (!scope.empty() && dt != dtypes::Index && chance(0.2))
    return ctx_.make(Op::Cast, dt, {pick(scope)});
  return constant(dt);
}

UOp RandomKernelBuilder::value(DType dt, int depth, const std::vector<UOp>& scope) {
  if (depth <= 0 || chance(0.25)) return leaf(dt, depth, scope);
  const int d = depth - 1;
  switch (below(8)) {
    case 0: {  // unary
      if (dt.is_float() && chance(0.5)) {
        static const std::vector<Op> fops = {Op::Reciprocal, Op::Sqrt, Op::Exp2,
                                             Op::Log2,       Op::Sin,  Op::Trunc};
        return ctx_.make(pick(fops), dt, {value(dt, d, scope)});
      }
      if (dt.is_bool()) return ctx_.make(Op::Cast, dt, {value(pick(buffer_dtypes()), d, scope)});
      return ctx_.make(Op::Neg, dt, {value(dt, d, scope)});
    }
    case 1: {  // cast from anything (index included)
      DType from = chance(0.2) ? dtypes::Index : pick(buffer_dtypes());
      return ctx_.make(Op::Cast, dt, {value(from, d, scope)});
    }
    case 2: {  // bitcast between same-size non-bool types
      if (dt.is_bool() || dt.is_index()) break;
      std::vector<DType> same;
      for (DType o : buffer_dtypes())
        if (!o.is_bool() && o.bytes() == dt.bytes()) same.push_back(o);
      return ctx_.make(Op::Bitcast, dt, {value(pick(same), d, scope)});
    }
    case 3: {  // arithmetic / integer / bitwise binary
      std::vector<Op> ops;
      if (!dt.is_bool()) ops.insert(ops.end(), {Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min});
      if (dt.is_int())
        ops.insert(ops.end(), {Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod, Op::Shl, Op::Shr});
      if (dt.is_int() || dt.is_bool()) ops.insert(ops.end(), {Op::And, Op::Or, Op::Xor});
      return ctx_.make(pick(ops), dt, {value(dt, d, scope), value(dt, d, scope)});
    }
    case 4: {  // comparison
      if (!dt.is_bool()) break;
      static const std::vector<Op> cmps = {Op::CmpLt, Op::CmpNe, Op::CmpEq};
      DType in = chance(0.2) ? dtypes::Index : pick(buffer_dtypes());
      return ctx_.make(pick(cmps), dt, {value(in, d, scope), value(in, d, scope)});
    }
    case 5:  // select
      return ctx_.make(Op::Where, dt,
                       {value(dtypes::Bool, d, scope), value(dt, d, scope), value(dt, d, scope)});
    case 6: {  // reduction over fresh ranges, closed right here
      if (dt.is_bool()) break;
      std::vector<UOp> inner = scope;
      std::vector<UOp> rs = {fresh_range(true)};
      if (chance(0.25)) rs.push_back(fresh_range(true));
      inner.insert(inner.end(), rs.begin(), rs.end());
      std::vector<UOp> src = {value(dt, d, inner)};
      src.insert(src.end(), rs.begin(), rs.end());
      static const std::vector<Op> rops = {Op::Add, Op::Mul, Op::Max, Op::Min};
      return ctx_.make(Op::Reduce, dt, src, ReduceArg{pick(rops)});
    }
    case 7: {  // a float through two quantized types and back (every quantized conversion)
      if (!dt.is_float()) break;
      const DType a = DType::quantized(ScalarType::Int8, 0.25, static_cast<int64_t>(below(7)) - 3);
      const DType b = DType::quantized(chance(0.5) ? ScalarType::UInt8 : ScalarType::Int16,
                                       chance(0.5) ? 0.5 : 0.03, static_cast<int64_t>(below(5)));
      UOp q = ctx_.make(Op::Quantize, a, {value(dt, d, scope)});
      return ctx_.make(Op::Dequantize, dt, {ctx_.make(Op::Requantize, b, {q})});
    }
    default: break;
  }
  return leaf(dt, d, scope);
}

UOp RandomKernelBuilder::store_into(UOp out) {
  std::vector<UOp> nest;
  const int loops = static_cast<int>(below(4));
  for (int i = 0; i < loops; ++i) nest.push_back(fresh_range(false));
  const int depth = 1 + static_cast<int>(below(4));
  UOp idx = value(dtypes::Index, depth, nest);
  if (chance(0.2))
    idx = ctx_.make(Op::Where, dtypes::Index,
                    {value(dtypes::Bool, depth, nest), idx, ctx_.invalid()});
  UOp st =
      ctx_.make(Op::Store, dtypes::Void,
                {ctx_.make(Op::Index, out.dtype(), {out, idx}), value(out.dtype(), depth, nest)});
  // Close the nest innermost-first in groups: END(END(st, r2), r0, r1) and the like.
  std::shuffle(nest.begin(), nest.end(), rng_);
  UOp body = st;
  size_t i = 0;
  while (i < nest.size()) {
    size_t take = 1 + below(nest.size() - i);
    std::vector<UOp> src = {body};
    src.insert(src.end(), nest.begin() + static_cast<long>(i),
               nest.begin() + static_cast<long>(i + take));
    body = ctx_.make(Op::End, dtypes::Void, src);
    i += take;
  }
  return body;
}

std::string RandomKernelBuilder::text_value() {
  static const std::string chars = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 =:[],./-_+*";
  std::string s;
  const int n = 1 + static_cast<int>(below(24));
  for (int i = 0; i < n; ++i) s += chars[below(chars.size())];
  // Values are trimmed by the parser; keep them trimmed here.
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s.empty() ? "x" : s;
}

KernelHeader RandomKernelBuilder::header(int serial) {
  KernelHeader h;
  if (chance(0.8))
    h.name =
        chance(0.5) ? "rand_" + std::to_string(serial) : "random kernel " + std::to_string(serial);
  if (chance(0.6)) h.seed = chance(0.2) ? std::numeric_limits<uint64_t>::max() : rng_();
  if (chance(0.5)) {
    h.expect_given = true;
    h.expect = chance(0.3) ? Expect::Ub : Expect::Ok;
  }
  for (UOp v : vars_) {
    const auto& a = v.arg<VarArg>();
    if (chance(0.7))
      h.vars.emplace_back(a.name, a.min + static_cast<int64_t>(below(a.max - a.min + 1)));
  }
  for (UOp out : outputs_) {
    if (!chance(0.5)) continue;
    ExpectedOutput eo;
    eo.slot = out.arg<ParamArg>().slot;
    for (int64_t i = 0; i < out.arg<ParamArg>().size; ++i)
      eo.values.push_back(special_value(out.dtype()));
    h.outputs.push_back(std::move(eo));
  }
  static const std::vector<std::string> keys = {"signature", "gen-version", "found_by", "note.1",
                                                "Z"};
  const int extras = static_cast<int>(below(4));
  for (int i = 0; i < extras; ++i) h.extra.emplace_back(pick(keys), text_value());
  return h;
}

}  // namespace uopfuzz::ir::randgraph
