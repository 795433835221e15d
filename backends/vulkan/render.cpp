#include "backends/vulkan/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <span>

#include "backends/vulkan/glsl_alu.h"
#include "backends/vulkan/glsl_library.h"
#include "ir/analysis.h"
#include "ir/effect_walk.h"
#include "ir/graph.h"
#include "ir/loop_plan.h"
#include "ir/ops.h"
#include "ir/scalar_eval.h"
#include "ir/signature.h"
#include "ir/value.h"

namespace uopfuzz::backends::vulkan {

using namespace ir;

namespace {

struct Scope {
  std::string code;
  int indent = 1;
  UOp range;
  std::string iv;
};

// The Vulkan backend's side of the effect walk (ir/effect_walk.h): each hook appends GLSL
// lines to its scope's text; a closed scope's text is appended to its outer scope's.
class Renderer {
 public:
  using ScopeRef = Scope*;
  using Operand = std::string;
  struct Address {
    std::string element;  // bN.d[int(idx)]
    std::string gate;     // "": ungated
  };
  using Accumulator = std::string;

  explicit Renderer(const RenderOptions& o) : opt_(o) {}

  std::optional<Error> run(UOp root, RenderedKernel& out) {
    const std::vector<UOp> topo = toposort(root);
    out.signature = signature(topo);
    sig_ = &out.signature;
    out_ = &out;
    glsl_.emplace(out.needs, error_);
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

    Scope* kernel = new_scope();
    EffectWalk<Renderer> walk(*this, LoopPlan(topo, Pinning::Memory), kernel);
    if (auto e = walk.run(root)) return e;
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
    for (const std::string& h : glsl_->helpers()) g += h;
    g += fmt::format(
        "void main() {{\n  const int64_t tid = int64_t(gl_GlobalInvocationID.x);\n  const int64_t "
        "T = {};\n",
        out.threads);
    g += kernel->code;
    g += "}\n";
    out.glsl = std::move(g);
    return std::nullopt;
  }

 private:
  friend class EffectWalk<Renderer>;

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

  // ---- loops and guards (the walk's hooks) -------------------------------------------
  // Outside every loop, invocation 0 alone stores; the invocations share the outermost
  // loop of every top-level END.
  static TopLevel top_level(UOp u) {
    if (u.op() == Op::Store) return TopLevel::FirstThread;
    return u.op() == Op::End ? TopLevel::Split : TopLevel::Inline;
  }
  Scope* open_guard(Scope* outer) {
    Scope* g = new_scope();
    g->indent = outer->indent;
    emit(g, "if (tid == 0) {");
    g->indent += 1;
    return g;
  }
  void close_guard(Scope* g, Scope* outer) { close_scope(g, outer); }

  // Opens a loop over `range` in `outer`: iterations 0, 1, ... < end, or (`shared`) this
  // invocation's share: tid, tid+T, ... < end.
  Scope* open_loop(Scope* outer, UOp range, const std::string& hi, bool shared) {
    const std::string lo = shared ? "tid" : "int64_t(0)";
    const std::string step = shared ? "T" : "int64_t(1)";
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
    const bool narrow = shared && end.lo >= -(int64_t{1} << 30) && end.hi <= (int64_t{1} << 30);
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
    return s;
  }
  void close_loops(std::span<Scope* const> loops, Scope* outer) {
    for (size_t i = loops.size(); i-- > 0;) close_scope(loops[i], i > 0 ? loops[i - 1] : outer);
  }
  void close_scope(Scope* s, Scope* outer) {
    s->indent -= 1;
    emit(s, "}");
    outer->code += s->code;
  }

  // ---- values (the walk's hooks) ---------------------------------------------------
  std::string constant(Scope* s, UOp u) {
    return define(s, u.dtype(), literal(u.dtype(), u.const_value()));
  }
  std::string var(Scope* s, UOp u) {
    return define(s, u.dtype(), fmt::format("{}(pc.v[{}])", gtype(u.dtype()), sig_->var_of.at(u)));
  }
  static std::string range(Scope* s, UOp u) { return s->range == u ? s->iv : "int64_t(0)"; }
  std::string not_a_value(Scope*, UOp u) { return glsl_->unsupported(u.op(), u.dtype()); }
  std::string alu(Scope* s, UOp u, const std::string* a) {
    return define(s, u.dtype(), glsl_->alu(u.op(), operand_dtype(u), u.dtype(), a));
  }

  // The element expression `bN.d[int(idx)]` and the gate's variable (or "").
  Address address(Scope*, UOp index, const std::string* gate, const std::string& i) {
    return {fmt::format("b{}.d[int({})]", sig_->buffer_of.at(index.src(0)), i), gate ? *gate : ""};
  }

  static std::string from_storage(DType dt, const std::string& raw) {
    if (dt.is_bool()) return fmt::format("({} != uint8_t(0))", raw);
    return raw;
  }

  std::string load(Scope* s, UOp u, const Address& a, const std::string* alt) {
    DType dt = u.dtype();
    if (a.gate.empty()) return define(s, dt, from_storage(dt, a.element));
    // A gated load touches memory only when its gate holds.
    std::string v = define(s, dt, alt ? *alt : literal(dt, reduce_identity(Op::Add, dt)));
    emit(s, fmt::format("if ({}) {} = {};", a.gate, v, from_storage(dt, a.element)));
    return v;
  }

  void store(Scope* s, UOp u, const Address& a, const std::string& v) {
    DType dt = u.src(0).src(0).dtype();
    std::string raw = dt.is_bool() ? fmt::format("uint8_t({} ? 1 : 0)", v) : v;
    if (a.gate.empty())
      emit(s, fmt::format("{} = {};", a.element, raw));
    else
      emit(s, fmt::format("if ({}) {} = {};", a.gate, a.element, raw));
  }

  std::string reduce_begin(Scope* home, UOp u) {
    DType dt = u.dtype();
    std::string acc = fresh("acc");
    emit(home, fmt::format("{}{} {} = {};", dt.is_float() ? "precise " : "", gtype(dt), acc,
                           literal(dt, reduce_identity(u.arg<ReduceArg>().op, dt))));
    return acc;
  }
  void reduce_step(Scope* innermost, UOp u, const std::string& acc, const std::string& v) {
    std::string args[3] = {acc, v, ""};
    emit(innermost, fmt::format("{} = {};", acc,
                                glsl_->alu(u.arg<ReduceArg>().op, u.dtype(), u.dtype(), args)));
  }
  std::string reduce_end(Scope* home, UOp u, const std::string& acc,
                         std::span<Scope* const> loops) {
    close_loops(loops, home);
    return define(home, u.dtype(), acc);
  }

  RenderOptions opt_;
  RenderedKernel* out_ = nullptr;
  const Signature* sig_ = nullptr;
  std::optional<Error> error_;  // the first unsupported op met
  std::optional<GlslAlu> glsl_;
  ir::Analysis analysis_;  // range ends' bounds: which loops can count in 32 bits
  std::vector<std::unique_ptr<Scope>> scopes_;
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
