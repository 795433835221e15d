#include "backends/vulkan/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "backends/vulkan/glsl_library.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/loop_plan.h"
#include "ir/ops.h"
#include "ir/quant.h"
#include "ir/scalar_eval.h"
#include "ir/signature.h"
#include "ir/value.h"

namespace uopfuzz::backends::vulkan {

using namespace ir;

namespace {

bool is_unsigned(DType dt) {
  return dt.kind() == DTypeKind::Unsigned;
}

// GLSL's name for a register of dtype `dt`.
std::string gtype(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Int8: return "int8_t";
    case ScalarType::Int16: return "int16_t";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::UInt8: return "uint8_t";
    case ScalarType::UInt16: return "uint16_t";
    case ScalarType::UInt32: return "uint";
    case ScalarType::UInt64: return "uint64_t";
    case ScalarType::Float16: return "float16_t";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    case ScalarType::Index: return "int64_t";
    case ScalarType::Void: return "void";
  }
  return "void";
}
// ...and of a buffer element (bool: one byte).
std::string stype(DType dt) {
  return dt.is_bool() ? "uint8_t" : gtype(dt);
}

// The unsigned type of a signed integer type's width ("" for any other type).
std::string unsigned_twin(DType dt) {
  if (!dt.is_signed()) return "";
  return dt.bits() == 8    ? "uint8_t"
         : dt.bits() == 16 ? "uint16_t"
         : dt.bits() == 32 ? "uint"
                           : "uint64_t";
}

// The unsigned integer type of a float's bits, and the bit-cast functions.
struct FloatBits {
  const char* uint_type;
  const char* to_bits;    // float -> uint bits
  const char* from_bits;  // uint bits -> float
};
FloatBits float_bits(DType dt) {
  switch (dt.scalar()) {
    case ScalarType::Float16: return {"uint16_t", "float16BitsToUint16", "uint16BitsToFloat16"};
    case ScalarType::Float32: return {"uint", "floatBitsToUint", "uintBitsToFloat"};
    case ScalarType::Void:
    case ScalarType::Bool:
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64:
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
    case ScalarType::Float64:
    case ScalarType::Index: return {"uint64_t", "doubleBitsToUint64", "uint64BitsToDouble"};
  }
  return {"uint64_t", "doubleBitsToUint64", "uint64BitsToDouble"};
}

std::string literal(DType dt, Value v) {
  switch (dt.scalar()) {
    case ScalarType::Bool: return v.i ? "true" : "false";
    case ScalarType::Int8: return fmt::format("int8_t({})", v.i);
    case ScalarType::Int16: return fmt::format("int16_t({})", v.i);
    case ScalarType::Int32: return fmt::format("int(0x{:x}u)", static_cast<uint32_t>(v.i));
    case ScalarType::Int64:
    case ScalarType::Index: return fmt::format("int64_t(0x{:x}ul)", v.u);
    case ScalarType::UInt8: return fmt::format("uint8_t({}u)", v.u);
    case ScalarType::UInt16: return fmt::format("uint16_t({}u)", v.u);
    case ScalarType::UInt32: return fmt::format("0x{:x}u", v.u);
    case ScalarType::UInt64: return fmt::format("0x{:x}ul", v.u);
    case ScalarType::Float16:
      return fmt::format("uint16BitsToFloat16(uint16_t({}u))", half_bits(v.f));
    case ScalarType::Float32: {
      float f = static_cast<float>(v.f);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return fmt::format("uintBitsToFloat(0x{:x}u)", b);
    }
    case ScalarType::Float64: return fmt::format("uint64BitsToDouble(0x{:x}ul)", v.u);
    case ScalarType::Void: return "0";
  }
  return "0";
}

struct Scope {
  std::string code;
  int indent = 1;
  UOp range;
  std::string iv;
};

class Renderer {
 public:
  explicit Renderer(const RenderOptions& o) : opt_(o) {}

  std::optional<Error> run(UOp root, RenderedKernel& out) {
    const std::vector<UOp> topo = toposort(root);
    out.signature = signature(topo);
    sig_ = &out.signature;
    plan_.emplace(topo, Pinning::Memory);
    out_ = &out;
    need(dtypes::Index);  // ranges and addresses
    for (UOp u : topo) {
      if (!u.dtype().is_void()) need(u.dtype());
      if (u.op() == Op::Param && u.dtype().bytes() == 1) out.needs.storage8 = out.needs.int8 = true;
      if (u.op() == Op::Param && u.dtype().bytes() == 2) out.needs.storage16 = true;
    }
    // Invocations: enough for the largest constant outermost loop (capped), a fixed
    // number when a bound depends on a VAR.
    int64_t want = 1;
    for (UOp s : root.src())
      if (s.op() == Op::End && s.num_src() > 1) {
        UOp end = s.src(1).src(0);
        want = std::max<int64_t>(want, end.op() == Op::Const ? end.const_value().i : 4096);
      }
    want = std::clamp<int64_t>(want, 1, int64_t{opt_.max_groups} * kLocalSize);
    out.threads = static_cast<uint32_t>((want + kLocalSize - 1) / kLocalSize * kLocalSize);

    chain_.push_back(new_scope());  // the plan's position 0
    for (UOp s : root.src())
      if (auto e = effect(s, /*top=*/true)) return e;
    if (error_) return error_;

    std::string g = "#version 450\n";
    const Needs& n = out.needs;
    if (n.int8 || n.int16 || n.int64 || n.float16 || n.float64)
      g += "#extension GL_EXT_shader_explicit_arithmetic_types : require\n";
    if (n.storage8) g += "#extension GL_EXT_shader_8bit_storage : require\n";
    if (n.storage16) g += "#extension GL_EXT_shader_16bit_storage : require\n";
    g += fmt::format("layout(local_size_x = {}) in;\n", kLocalSize);
    const Signature& sig = out.signature;
    if (!sig.vars.empty())
      g += fmt::format("layout(push_constant) uniform Vars {{ int64_t v[{}]; }} pc;\n",
                       sig.vars.size());
    for (size_t i = 0; i < sig.buffers.size(); ++i) {
      const BufferParam& b = sig.buffers[i];
      g += fmt::format("layout(std430, binding = {}) restrict {} buffer B{} {{ {} d[]; }} b{};\n",
                       i, b.output ? "writeonly" : "readonly", i, stype(b.dtype), i);
    }
    g += kCompare64;
    for (const std::string& h : helpers_) g += h;
    g += fmt::format(
        "void main() {{\n  const int64_t tid = int64_t(gl_GlobalInvocationID.x);\n  const int64_t "
        "T = {};\n",
        out.threads);
    g += chain_[0]->code;
    g += "}\n";
    out.glsl = std::move(g);
    return std::nullopt;
  }

 private:
  void need(DType dt) {
    Needs& n = out_->needs;
    switch (dt.scalar()) {
      case ScalarType::Int8:
      case ScalarType::UInt8: n.int8 = true; break;
      case ScalarType::Int16:
      case ScalarType::UInt16: n.int16 = true; break;
      case ScalarType::Int64:
      case ScalarType::UInt64:
      case ScalarType::Index: n.int64 = true; break;
      case ScalarType::Float16: n.float16 = n.int16 = true; break;  // its bits are uint16_t
      case ScalarType::Float64: n.float64 = true; break;
      case ScalarType::Void:
      case ScalarType::Bool:
      case ScalarType::Int32:
      case ScalarType::UInt32:
      case ScalarType::Float32: break;
    }
  }

  // ---- scopes and text ---------------------------------------------------------
  Scope* new_scope() {
    scopes_.push_back(std::make_unique<Scope>());
    return scopes_.back().get();
  }
  void emit(Scope* s, const std::string& line) {
    s->code.append(static_cast<size_t>(s->indent) * 2, ' ');
    s->code += line;
    s->code += '\n';
  }
  std::string fresh(const char* p) { return fmt::format("{}{}", p, counter_++); }
  // A new variable of dtype `dt` holding `expr` in scope s; floats are `precise`.
  std::string define(Scope* s, DType dt, const std::string& expr) {
    std::string v = fresh("v");
    emit(s, fmt::format("{}{} {} = {};", dt.is_float() ? "precise " : "", gtype(dt), v, expr));
    return v;
  }

  // Opens a loop over `range` at the innermost scope: iterations lo, lo+step, ... < end.
  void open_loop(UOp range, const std::string& lo = "int64_t(0)",
                 const std::string& step = "int64_t(1)") {
    std::string hi = place(range.src(0), chain_.size());
    Scope* outer = chain_.back();
    Scope* s = new_scope();
    s->range = range;
    s->iv = fresh("r");
    s->indent = outer->indent;
    // The invocations' share of the outermost loop counts in 32 bits when its end fits
    // comfortably: a native compare instead of u_lt_s64's two halves on every element of
    // a streaming kernel (the start is an invocation id and the step the invocation
    // count, both far below 2^30, so the counter cannot overflow). Inner loops keep the
    // 64-bit form: given a constant trip count, lavapipe unrolls them and then folds
    // `+0.0 + x` to x despite `precise`, turning a sum of -0 terms into -0 (a campaign
    // found it).
    const ir::Interval end = analysis_.bounds(range.src(0));
    const bool narrow =
        lo == "tid" && end.lo >= -(int64_t{1} << 30) && end.hi <= (int64_t{1} << 30);
    if (narrow) {
      emit(s, fmt::format("for (int {0}_32 = int({1}); {0}_32 < int({2}); {0}_32 += int({3})) {{",
                          s->iv, lo, hi, step));
      s->indent = outer->indent + 1;
      emit(s, fmt::format("const int64_t {0} = int64_t({0}_32);", s->iv));
    } else {
      emit(s, fmt::format("for (int64_t {} = {}; u_lt_s64({}, {}); {} += {}) {{", s->iv, lo, s->iv,
                          hi, s->iv, step));
      s->indent = outer->indent + 1;
    }
    chain_.push_back(s);
    plan_->enter(range);
  }
  void close_scope() {
    Scope* s = chain_.back();
    chain_.pop_back();
    plan_->leave();
    s->indent -= 1;
    emit(s, "}");
    chain_.back()->code += s->code;
  }

  // ---- values ------------------------------------------------------------------
  std::string place(UOp u, size_t depth) {
    size_t k = plan_->home(u, depth);
    uint64_t key = plan_->key(u, k);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::string v;
    switch (op_kind(u.op())) {
      case OpKind::Leaf:
        switch (leaf_op(u.op())) {
          case LeafOp::Const:
            v = define(chain_[k], u.dtype(), literal(u.dtype(), u.const_value()));
            break;
          case LeafOp::Var:
            v = define(chain_[k], u.dtype(),
                       fmt::format("{}(pc.v[{}])", gtype(u.dtype()), sig_->var_of.at(u)));
            break;
          // Not values: the verifier keeps them out of value positions.
          case LeafOp::Invalid:
          case LeafOp::Param: v = unsupported(u.op(), u.dtype()); break;
        }
        break;
      case OpKind::Structural:
        switch (structural_op(u.op())) {
          case StructuralOp::Range: v = chain_[k]->range == u ? chain_[k]->iv : "int64_t(0)"; break;
          case StructuralOp::Load: v = load(u, k); break;
          case StructuralOp::Reduce: v = reduce(u, k); break;
          // Not values: the verifier keeps them out of value positions.
          case StructuralOp::Index:
          case StructuralOp::Store:
          case StructuralOp::End:
          case StructuralOp::Sink: v = unsupported(u.op(), u.dtype()); break;
        }
        break;
      case OpKind::Alu: {
        std::string a[3];
        for (size_t s = 0; s < u.num_src(); ++s) a[s] = place(u.src(s), k + 1);
        v = define(chain_[k], u.dtype(), alu(u.op(), operand_dtype(u), u.dtype(), a));
        break;
      }
      // Not values: the verifier keeps them out of value positions.
      case OpKind::Tensor:
      case OpKind::Schedule: v = unsupported(u.op(), u.dtype()); break;
    }
    memo_.emplace(key, v);
    return v;
  }

  // The element expression `bN.d[int(idx)]`; *gate is the gate's variable or "".
  std::string address(UOp index, size_t depth, std::string* gate) {
    UOp idx = index.src(1);
    gate->clear();
    if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) {
      *gate = place(idx.src(0), depth);
      idx = idx.src(1);
    }
    std::string i = place(idx, depth);
    return fmt::format("b{}.d[int({})]", sig_->buffer_of.at(index.src(0)), i);
  }

  std::string from_storage(DType dt, const std::string& raw) {
    if (dt.is_bool()) return fmt::format("({} != uint8_t(0))", raw);
    return raw;
  }

  std::string load(UOp u, size_t k) {
    DType dt = u.dtype();
    std::string alt =
        u.num_src() == 2 ? place(u.src(1), k + 1) : literal(dt, reduce_identity(Op::Add, dt));
    std::string gate;
    std::string elem = address(u.src(0), k + 1, &gate);
    Scope* s = chain_[k];
    if (gate.empty()) return define(s, dt, from_storage(dt, elem));
    // A gated load touches memory only when its gate holds.
    std::string v = define(s, dt, alt);
    emit(s, fmt::format("if ({}) {} = {};", gate, v, from_storage(dt, elem)));
    return v;
  }

  std::string reduce(UOp u, size_t k) {
    const Op op = u.arg<ReduceArg>().op;
    DType dt = u.dtype();
    std::vector<Scope*> saved(chain_.begin() + static_cast<std::ptrdiff_t>(k) + 1, chain_.end());
    chain_.resize(k + 1);
    LoopPlan::Suspended suspended = plan_->suspend_above(k);
    std::string acc = fresh("acc");
    emit(chain_[k], fmt::format("{}{} {} = {};", dt.is_float() ? "precise " : "", gtype(dt), acc,
                                literal(dt, reduce_identity(op, dt))));
    for (size_t i = 1; i < u.num_src(); ++i) open_loop(u.src(i));
    std::string v = place(u.src(0), chain_.size());
    std::string args[3] = {acc, v, ""};
    emit(chain_.back(), fmt::format("{} = {};", acc, alu(op, dt, dt, args)));
    for (size_t i = 1; i < u.num_src(); ++i) close_scope();
    std::string r = define(chain_[k], dt, acc);
    chain_.insert(chain_.end(), saved.begin(), saved.end());
    plan_->resume(std::move(suspended));
    return r;
  }

  // ---- effects -----------------------------------------------------------------
  std::optional<Error> effect(UOp u, bool top) {
    if (u.op() == Op::Store) {
      if (top) {
        // Outside every loop: invocation 0 alone stores (a guard scope, so that values it
        // computes are not reused outside the guard).
        Scope* root = chain_.back();
        Scope* g = new_scope();
        g->indent = root->indent;
        emit(g, "if (tid == 0) {");
        g->indent += 1;
        chain_.push_back(g);
        plan_->enter_guard();
        store(u);
        close_scope();
      } else {
        store(u);
      }
      return std::nullopt;
    }
    if (u.op() != Op::End) return Error{unexpected_effect(u)};
    size_t outer = chain_.size();
    for (size_t i = 1; i < u.num_src(); ++i) {
      if (top && i == 1)
        open_loop(u.src(1), "tid", "T");  // this invocation's share
      else
        open_loop(u.src(i));
    }
    if (auto e = effect(u.src(0), false)) return e;
    while (chain_.size() > outer) close_scope();
    return std::nullopt;
  }

  void store(UOp u) {
    const size_t depth = chain_.size();
    UOp index = u.src(0);
    std::string gate;
    std::string elem = address(index, depth, &gate);
    std::string v = place(u.src(1), depth);
    Scope* s = chain_.back();
    DType dt = index.src(0).dtype();
    std::string raw = dt.is_bool() ? fmt::format("uint8_t({} ? 1 : 0)", v) : v;
    if (gate.empty())
      emit(s, fmt::format("{} = {};", elem, raw));
    else
      emit(s, fmt::format("if ({}) {} = {};", gate, elem, raw));
  }

  // ---- ALU semantics (ir/scalar_eval.cpp, written as GLSL) ----------------------
  std::string helper(const std::string& name, const std::string& text) {
    if (helper_names_.insert(name).second) helpers_.push_back(text);
    return name;
  }

  std::string alu(Op op, DType in, DType out, const std::string* a) {
    switch (op_kind(op)) {
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule: break;
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::Where: return fmt::format("({} ? {} : {})", a[0], a[1], a[2]);
          case AluOp::Cast: return cast(in, out, a[0]);
          case AluOp::Bitcast: return bitcast(in, out, a[0]);
          case AluOp::Quantize: return quantize(out, a[0]);
          case AluOp::Dequantize: return dequantize(in, out, a[0]);
          case AluOp::Requantize: return requantize(in, out, a[0]);
          case AluOp::Neg:
          case AluOp::Reciprocal:
          case AluOp::Sqrt:
          case AluOp::Exp2:
          case AluOp::Log2:
          case AluOp::Sin:
          case AluOp::Trunc:
          case AluOp::Add:
          case AluOp::Sub:
          case AluOp::Mul:
          case AluOp::Cdiv:
          case AluOp::Cmod:
          case AluOp::FloorDiv:
          case AluOp::FloorMod:
          case AluOp::Max:
          case AluOp::Min:
          case AluOp::CmpLt:
          case AluOp::CmpNe:
          case AluOp::CmpEq:
          case AluOp::And:
          case AluOp::Or:
          case AluOp::Xor:
          case AluOp::Shl:
          case AluOp::Shr:
            if (in.is_float()) return float_op(op, in, a);
            if (in.is_bool()) return bool_op(op, a);
            return int_op(op, in, a);
        }
        break;
    }
    return unsupported(op, in);
  }

  // An op this renderer has no code for: the first such is the render's error, and a
  // placeholder keeps the renderer going until it returns.
  std::string unsupported(Op op, DType dt) {
    if (!error_)
      error_ = Error{fmt::format("unsupported: the Vulkan backend cannot render {} of {}",
                                 op_name(op), dt.name())};
    return "0";
  }

  std::string bool_op(Op op, const std::string* a) {
    switch (op_kind(op)) {
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule:
        return unsupported(op, dtypes::Bool);  // not a bool op (the verifier refuses it)
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::And: return fmt::format("({} && {})", a[0], a[1]);
          case AluOp::Or: return fmt::format("({} || {})", a[0], a[1]);
          // A bool REDUCE's step (any, all): false < true, as on the integers.
          case AluOp::Max: return fmt::format("({} || {})", a[0], a[1]);
          case AluOp::Min: return fmt::format("({} && {})", a[0], a[1]);
          case AluOp::Xor:
          case AluOp::CmpNe: return fmt::format("({} != {})", a[0], a[1]);
          case AluOp::CmpEq: return fmt::format("({} == {})", a[0], a[1]);
          case AluOp::CmpLt: return fmt::format("(!{} && {})", a[0], a[1]);
          case AluOp::Neg:
          case AluOp::Cast:
          case AluOp::Bitcast:
          case AluOp::Reciprocal:
          case AluOp::Sqrt:
          case AluOp::Exp2:
          case AluOp::Log2:
          case AluOp::Sin:
          case AluOp::Trunc:
          case AluOp::Quantize:
          case AluOp::Dequantize:
          case AluOp::Requantize:
          case AluOp::Add:
          case AluOp::Sub:
          case AluOp::Mul:
          case AluOp::Cdiv:
          case AluOp::Cmod:
          case AluOp::FloorDiv:
          case AluOp::FloorMod:
          case AluOp::Shl:
          case AluOp::Shr:
          case AluOp::Where:
            return unsupported(op, dtypes::Bool);  // not a bool op (the verifier refuses it)
        }
        break;
    }
    return unsupported(op, dtypes::Bool);
  }

  // Float math a device computes to within its precision bounds only, done in double
  // (exact for + - * / sqrt of float32/float16 operands, then rounded once).
  // RECIPROCAL and SQRT below float64 are computed in double and rounded once (exact, see
  // SEMANTICS.md); the device's own are allowed 2.5 ULP. Without float64 the graph is
  // skipped as unsupported (needs.float64), never run with the looser builtins.
  bool via_double(DType dt) const { return dt.scalar() != ScalarType::Float64; }

  std::string float_op(Op op, DType dt, const std::string* a) {
    const std::string t = gtype(dt);
    const bool half = dt.scalar() == ScalarType::Float16;
    // float16 arithmetic in float32, rounded once (24 >= 2*11+2 bits: exact rounding).
    auto arith = [&](const char* o) {
      if (half) return fmt::format("float16_t(float({}) {} float({}))", a[0], o, a[1]);
      return fmt::format("({} {} {})", a[0], o, a[1]);
    };
    auto dmath = [&](const char* fn, const char* text) {
      helper("u_trunc", kTruncMath);
      helper(fn, text);
      out_->needs.float64 = out_->needs.int64 = true;  // the routines work on the bits too
      return fmt::format("{}({}(double({})))", t, fn, a[0]);
    };
    switch (op_kind(op)) {
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule:
        return unsupported(op, dt);  // not a float op (the verifier refuses it)
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::Neg: return fmt::format("(-{})", a[0]);
          case AluOp::Reciprocal:
            if (via_double(dt)) {
              out_->needs.float64 = true;
              return fmt::format("{}(1.0lf / double({}))", t, a[0]);
            }
            return fmt::format("({}(1) / {})", t, a[0]);
          case AluOp::Sqrt:
            if (via_double(dt)) {
              out_->needs.float64 = true;
              return fmt::format("{}(sqrt(double({})))", t, a[0]);
            }
            return fmt::format("sqrt({})", a[0]);
          case AluOp::Trunc:
            if (dt.scalar() == ScalarType::Float64) return dmath("u_trunc", kTruncMath);
            return fmt::format("trunc({})", a[0]);
          case AluOp::Exp2:
            return dmath("u_exp2", kExp2Math);  // this backend's own double routine: needs float64
          case AluOp::Log2:
            return dmath("u_log2", kLog2Math);  // this backend's own double routine: needs float64
          case AluOp::Sin:
            return dmath("u_sin", kSinMath);  // this backend's own double routine: needs float64
          case AluOp::Add: return arith("+");
          case AluOp::Sub: return arith("-");
          case AluOp::Mul: return arith("*");
          case AluOp::CmpLt: return fmt::format("({} < {})", a[0], a[1]);
          case AluOp::CmpNe: return fmt::format("(!({} == {}))", a[0], a[1]);  // NaN: true
          case AluOp::CmpEq: return fmt::format("({} == {})", a[0], a[1]);
          case AluOp::Max:
          case AluOp::Min: {
            // NaN if either is NaN; equal operands (+0/-0) combine by bits: MAX ands the
            // sign bits (+0 wins), MIN ors them (-0 wins).
            const bool max = op == Op::Max;
            FloatBits fb = float_bits(dt);
            std::string name = fmt::format("u_{}_{}", max ? "max" : "min", t);
            const std::string nan = dt.bytes() == 2   ? "uint16_t(0x7e00u)"
                                    : dt.bytes() == 4 ? "0x7fc00000u"
                                                      : "0x7ff8000000000000ul";
            helper(name,
                   fmt::format("{t} {n}({t} a, {t} b) {{\n"
                               "  if (isnan(a) || isnan(b)) return {fb}({nan});\n"
                               "  if (a {gt} b) return a;\n"
                               "  if (a {lt} b) return b;\n"
                               "  return {fb}({u}({tb}(a) {bop} {tb}(b)));\n}}\n",
                               fmt::arg("t", t), fmt::arg("n", name), fmt::arg("fb", fb.from_bits),
                               fmt::arg("u", fb.uint_type), fmt::arg("tb", fb.to_bits),
                               fmt::arg("gt", max ? ">" : "<"), fmt::arg("lt", max ? "<" : ">"),
                               fmt::arg("bop", max ? "&" : "|"), fmt::arg("nan", nan)));
            return fmt::format("{}({}, {})", name, a[0], a[1]);
          }
          case AluOp::Cast:
          case AluOp::Bitcast:
          case AluOp::Quantize:
          case AluOp::Dequantize:
          case AluOp::Requantize:
          case AluOp::Cdiv:
          case AluOp::Cmod:
          case AluOp::FloorDiv:
          case AluOp::FloorMod:
          case AluOp::And:
          case AluOp::Or:
          case AluOp::Xor:
          case AluOp::Shl:
          case AluOp::Shr:
          case AluOp::Where:
            return unsupported(op, dt);  // not a float op (the verifier refuses it)
        }
        break;
    }
    return unsupported(op, dt);
  }

  static std::string lt(DType dt, const std::string& a, const std::string& b) {
    if (dt.bits() == 64) return fmt::format("u_lt_{}64({}, {})", is_unsigned(dt) ? "u" : "s", a, b);
    return fmt::format("({} < {})", a, b);
  }
  static std::string eq(DType dt, const std::string& a, const std::string& b) {
    if (dt.bits() == 64) return fmt::format("u_eq_{}64({}, {})", is_unsigned(dt) ? "u" : "s", a, b);
    return fmt::format("({} == {})", a, b);
  }

  std::string int_op(Op op, DType dt, const std::string* a) {
    const bool uns = is_unsigned(dt);
    const std::string t = gtype(dt);
    switch (op_kind(op)) {
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule:
        return unsupported(op, dt);  // not an integer op (the verifier refuses it)
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::Neg: return fmt::format("({}(0) - {})", t, a[0]);
          case AluOp::Add: return fmt::format("({} + {})", a[0], a[1]);
          case AluOp::Sub: return fmt::format("({} - {})", a[0], a[1]);
          case AluOp::Mul: return fmt::format("({} * {})", a[0], a[1]);
          case AluOp::Cdiv:
          case AluOp::Cmod:
          case AluOp::FloorDiv:
          case AluOp::FloorMod: {
            // The divisor is made safe (0 -> 1; signed -1 -> 1 with the result fixed up), so a
            // division computed ahead of need never faults; quotients truncate (OpSDiv), the
            // remainder is computed from the quotient (GLSL's % is not C's for negatives).
            const char* which = op == Op::Cdiv       ? "cdiv"
                                : op == Op::Cmod     ? "cmod"
                                : op == Op::FloorDiv ? "fdiv"
                                                     : "fmod";
            std::string name = fmt::format("u_{}_{}", which, t);
            std::string body;
            if (uns) {
              body = fmt::format(
                  "  {t} d = {z} ? {t}(1) : b;\n  {t} q = a / d;\n  return {r};\n",
                  fmt::arg("t", t), fmt::arg("z", eq(dt, "b", t + "(0)")),
                  fmt::arg("r", op == Op::Cdiv || op == Op::FloorDiv ? "q" : "a - q * d"));
            } else {
              const char* result = op == Op::Cdiv       ? "m1 ? z - a : q"
                                   : op == Op::Cmod     ? "m1 ? z : r"
                                   : op == Op::FloorDiv ? "m1 ? z - a : (adj ? q - {t}(1) : q)"
                                                        : "m1 ? z : (adj ? r + d : r)";
              body = fmt::format(
                  "  {t} z = {t}(0);\n  bool m1 = {m1};\n  {t} d = ({b0} || m1) ? {t}(1) : b;\n  "
                  "{t} q "
                  "= a / d;\n"
                  "  {t} r = a - q * d;\n  bool adj = !{r0} && {neg};\n  return ",
                  fmt::arg("t", t), fmt::arg("m1", eq(dt, "b", t + "(-1)")),
                  fmt::arg("b0", eq(dt, "b", "z")), fmt::arg("r0", eq(dt, "r", "z")),
                  fmt::arg("neg", lt(dt, "(r ^ d)", "z")));
              body += fmt::format(fmt::runtime(result), fmt::arg("t", t)) + ";\n";
            }
            helper(name, fmt::format("{} {}({} a, {} b) {{\n{}}}\n", t, name, t, t, body));
            return fmt::format("{}({}, {})", name, a[0], a[1]);
          }
          case AluOp::Max: return fmt::format("({0} ? {1} : {2})", lt(dt, a[1], a[0]), a[0], a[1]);
          case AluOp::Min: return fmt::format("({0} ? {1} : {2})", lt(dt, a[0], a[1]), a[0], a[1]);
          case AluOp::CmpLt: return lt(dt, a[0], a[1]);
          case AluOp::CmpNe: return "!" + eq(dt, a[0], a[1]);
          case AluOp::CmpEq: return eq(dt, a[0], a[1]);
          case AluOp::And: return fmt::format("({} & {})", a[0], a[1]);
          case AluOp::Or: return fmt::format("({} | {})", a[0], a[1]);
          case AluOp::Xor: return fmt::format("({} ^ {})", a[0], a[1]);
          case AluOp::Shl:
          case AluOp::Shr:
            // The amount is masked: equal in range (all a UB-free kernel needs), and never an
            // undefined shift when computed ahead of need.
            return fmt::format("({} {} ({} & {}({})))", a[0], op == Op::Shl ? "<<" : ">>", a[1], t,
                               dt.bits() - 1);
          case AluOp::Cast:
          case AluOp::Bitcast:
          case AluOp::Reciprocal:
          case AluOp::Sqrt:
          case AluOp::Exp2:
          case AluOp::Log2:
          case AluOp::Sin:
          case AluOp::Trunc:
          case AluOp::Quantize:
          case AluOp::Dequantize:
          case AluOp::Requantize:
          case AluOp::Where:
            return unsupported(op, dt);  // not an integer op (the verifier refuses it)
        }
        break;
    }
    return unsupported(op, dt);
  }

  /// The significant bits of a float type: an integer wider than this may round.
  static int significand_bits(DType f) {
    switch (f.scalar()) {
      case ScalarType::Float16: return 11;
      case ScalarType::Float32: return 24;
      case ScalarType::Float64: return 53;
      case ScalarType::Void:
      case ScalarType::Bool:
      case ScalarType::Int8:
      case ScalarType::Int16:
      case ScalarType::Int32:
      case ScalarType::Int64:
      case ScalarType::UInt8:
      case ScalarType::UInt16:
      case ScalarType::UInt32:
      case ScalarType::UInt64:
      case ScalarType::Index: break;  // not a float: never rounds an integer
    }
    return 64;
  }

  std::string cast(DType in, DType out, const std::string& x) {
    const std::string to = gtype(out);
    if (out.is_bool()) {
      if (in.is_float()) return fmt::format("(!({} == {}(0)))", x, gtype(in));  // NaN: true
      if (in.is_bool()) return x;
      return fmt::format("({} != {}(0))", x, gtype(in));
    }
    if (in.is_bool()) return fmt::format("({} ? {}(1) : {}(0))", x, to, to);
    if (in.is_float() && out.is_float()) {
      // float64 -> float16 directly: one rounding (SPIR-V OpFConvert).
      return fmt::format("{}({})", to, x);
    }
    if (!in.is_float() && out.is_float() && in.bits() > significand_bits(out)) {
      // An integer wider than the float's significand is rounded to it first (kRoundToBits:
      // lavapipe folds int -> float -> int back to the int, wrong where the float rounds);
      // the conversion of the rounded value is then exact. A signed integer through its
      // magnitude, as below: rounding ties to even is symmetric.
      out_->needs.float64 = out_->needs.int64 = true;
      helper("u_round_to_bits", kRoundToBits);
      const int p = significand_bits(out);
      if (std::string u = unsigned_twin(in); !u.empty())
        return fmt::format(
            "({0} < {1}(0) ? -{2}(u_round_to_bits(uint64_t({3}(-{0})), {4})) : "
            "{2}(u_round_to_bits(uint64_t({3}({0})), {4})))",
            x, gtype(in), to, u, p);
      return fmt::format("{}(u_round_to_bits(uint64_t({}), {}))", to, x, p);
    }
    if (std::string u = unsigned_twin(in); !u.empty() && out.is_float()) {
      // A signed integer converts through its magnitude as an unsigned integer: lavapipe
      // folds a signed round trip float -> int -> float into a truncation, which keeps
      // the sign of a zero (-0.0 -> 0 -> -0.0, where 0 converts to +0.0), and a BITCAST
      // then shows the sign as an integer bit; it does not fold the unsigned conversion.
      // The magnitude of INT_MIN is exact as unsigned, and rounding is symmetric, so the
      // result is the signed conversion's. Below 32 bits to float16 through double, as below.
      const std::string via =
          out.scalar() == ScalarType::Float16 && in.bits() > 16 && in.bits() <= 32 ? "double" : to;
      const std::string converted =
          fmt::format("({0} < {1}(0) ? -{2}({3}(-{0})) : {2}({3}({0})))", x, gtype(in), via, u);
      return via == to ? converted : fmt::format("{}({})", to, converted);
    }
    if (!in.is_float() && out.scalar() == ScalarType::Float16 && in.bits() > 16) {
      // Through double (exact for <= 32-bit integers) rounds once; 64-bit integers go
      // directly (one rounding).
      if (in.bits() <= 32) return fmt::format("float16_t(double({}))", x);
    }
    if (!in.is_float() && !out.is_float() && in.bits() < out.bits() &&
        is_unsigned(in) != is_unsigned(out)) {
      // Widening across signedness: extend by the source's signedness first.
      const int b = out.bits();
      std::string wide = is_unsigned(in) ? (b == 64   ? "uint64_t"
                                            : b == 32 ? "uint"
                                                      : "uint16_t")
                                         : (b == 64   ? "int64_t"
                                            : b == 32 ? "int"
                                                      : "int16_t");
      return fmt::format("{}({}({}))", to, wide, x);
    }
    return fmt::format("{}({})", to, x);
  }

  // ---- quantized conversions (ir/quant.h is the definition; SEMANTICS.md words it) ----
  // A stored integer q is a register of its storage type; these widen it to int64 with
  // the storage's signedness (DType::storage(), since a quantized kind is neither).
  std::string widen_stored(DType q, const std::string& x) {
    return cast(q.storage(), dtypes::Int64, x);
  }
  static std::string int64_literal(int64_t v) { return literal(dtypes::Int64, Value::of_int(v)); }
  static std::string double_literal(double v) {
    return literal(dtypes::Float64, Value::of_float(v));  // its bits: reads back exactly
  }

  // QUANTIZE: x / s in double (one IEEE division), NaN -> z, rounded half away from zero
  // by comparing the fraction (after u_trunc, not the builtin floor) with 0.5 (GLSL's round() may
  // pick either way on ties), + z, saturated. The quotient is clamped to +-2^40 first, as in the
  // definition, so +-inf and huge values convert to an integer without undefined behaviour.
  std::string quantize(DType out, const std::string& x) {
    out_->needs.float64 = out_->needs.int64 = true;
    helper("u_trunc", kTruncMath);
    helper("u_quantize",
           "int64_t u_quantize(double x, double s, int64_t z, int64_t lo, int64_t hi) {\n"
           "  if (isnan(x)) return z;\n"
           "  precise double t = x / s;\n"
           "  const double big = 1099511627776.0lf;  // 2^40\n"
           "  t = t < -big ? -big : (t > big ? big : t);\n"
           "  precise double a = abs(t);\n"
           "  precise double f = u_trunc(a);\n"
           "  precise double frac = a - f;  // exact\n"
           "  int64_t m = int64_t(f) + (frac >= 0.5lf ? int64_t(1) : int64_t(0));\n"
           "  int64_t y = (t < 0.0lf ? -m : m) + z;\n"
           "  return u_lt_s64(y, lo) ? lo : (u_lt_s64(hi, y) ? hi : y);\n}\n");
    const QuantParams& q = quant_params(out);
    const DType s = out.storage();
    return fmt::format("{}(u_quantize(double({}), {}, {}, {}, {}))", gtype(s), x,
                       double_literal(q.scale), int64_literal(q.zero_point),
                       int64_literal(s.int_min()), int64_literal(s.int_max()));
  }

  // DEQUANTIZE: the double product s * (q - z) (q - z is exact in int64 and in double),
  // then rounded to the float type as CAST from float64 rounds (one OpFConvert).
  std::string dequantize(DType in, DType out, const std::string& x) {
    out_->needs.float64 = out_->needs.int64 = true;
    helper("u_dequantize",
           "double u_dequantize(int64_t c, double s) {\n"
           "  precise double r = s * double(c);\n"
           "  return r;\n}\n");
    const QuantParams& q = quant_params(in);
    std::string real = fmt::format("u_dequantize({} - {}, {})", widen_stored(in, x),
                                   int64_literal(q.zero_point), double_literal(q.scale));
    return cast(dtypes::Float64, out, real);
  }

  // REQUANTIZE: the requantizer is decided here from the two scales; on the device
  // p = (q - z_in) * m0 in int64 (|p| < 2^62), |p| shifted right by requantizer().shift()
  // after adding half (ties away from zero), the sign put back, + z_out, saturated.
  // Where the definition is unsupported (requantize_unsupported) the kernel is refused.
  std::string requantize(DType in, DType out, const std::string& x) {
    if (auto why = requantize_unsupported(in, out)) {
      if (!error_) error_ = Error{*why};
      return "0";
    }
    out_->needs.int64 = true;
    const Requantizer r = *requantizer(quant_params(in).scale, quant_params(out).scale);
    helper("u_requantize",
           "int64_t u_requantize(int64_t x, int64_t m0, int shift, int64_t bias, int64_t z,\n"
           "                     int64_t lo, int64_t hi) {\n"
           "  int64_t p = x * m0;\n"
           "  bool neg = u_lt_s64(p, int64_t(0));\n"
           "  int64_t m = ((neg ? -p : p) + bias) >> shift;\n"
           "  int64_t y = (neg ? -m : m) + z;\n"
           "  return u_lt_s64(y, lo) ? lo : (u_lt_s64(hi, y) ? hi : y);\n}\n");
    const int shift = r.shift();
    const DType s = out.storage();
    return fmt::format("{}(u_requantize({} - {}, {}, {}, {}, {}, {}, {}))", gtype(s),
                       widen_stored(in, x), int64_literal(quant_params(in).zero_point),
                       int64_literal(r.m0), shift,
                       int64_literal(shift == 0 ? 0 : int64_t{1} << (shift - 1)),
                       int64_literal(quant_params(out).zero_point), int64_literal(s.int_min()),
                       int64_literal(s.int_max()));
  }

  std::string bitcast(DType in, DType out, const std::string& x) {
    if (in.is_float() && out.is_float()) return x;
    if (in.is_float()) {
      FloatBits fb = float_bits(in);
      return fmt::format("{}({}({}))", gtype(out), fb.to_bits, x);
    }
    if (out.is_float()) {
      FloatBits fb = float_bits(out);
      return fmt::format("{}({}({}))", fb.from_bits, fb.uint_type, x);
    }
    return fmt::format("{}({})", gtype(out), x);
  }

  RenderOptions opt_;
  RenderedKernel* out_ = nullptr;
  const Signature* sig_ = nullptr;
  std::optional<LoopPlan> plan_;
  std::optional<Error> error_;  // the first unsupported op met
  ir::Analysis analysis_;       // range ends' bounds: which loops can count in 32 bits
  std::unordered_map<uint64_t, std::string> memo_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  std::vector<Scope*> chain_;
  std::set<std::string> helper_names_;
  std::vector<std::string> helpers_;
  uint64_t counter_ = 0;
};

}  // namespace

Result<RenderedKernel> render(UOp root, const RenderOptions& options) {
  RenderedKernel out;
  Renderer r(options);
  if (auto e = r.run(root, out)) return *e;
  return out;
}

}  // namespace uopfuzz::backends::vulkan
