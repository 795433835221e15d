#include "oracle/interpreter.h"

#include <fmt/format.h>

#include <span>
#include <unordered_map>
#include <utility>

#include "ir/effect_walk.h"
#include "ir/graph.h"
#include "ir/loop_plan.h"
#include "ir/node_map.h"
#include "ir/scalar_eval.h"
#include "ir/signature.h"
#include "ir/verify.h"

namespace uopfuzz::oracle {

using namespace ir;

namespace {

constexpr uint32_t kNone = ~uint32_t{0};
constexpr size_t kMaxDepth = 10000;  // recursion in compile; deeper graphs are refused
constexpr int64_t kMaxTotalElems = int64_t{1} << 28;  // oracle memory guard (all buffers)
constexpr size_t kMaxPoisonRecords = 4096;

enum class Kind : uint8_t { Alu, Load, Store, ReduceInit, Accum, Loop };

struct Instr {
  Kind kind;
  Op op;  // Alu: the op; Accum: the reduce op
  DType in, out;
  uint32_t dst = kNone;
  uint32_t a = kNone, b = kNone, c = kNone, d = kNone;
  uint32_t node = 0;                   // index into Impl::nodes, for reports
  bool outermost_reduce_loop = false;  // Loop: dst then holds the REDUCE's value
};

struct Scope {
  uint32_t range_reg = kNone;  // loop counter (kNone for the root)
  uint32_t end_reg = kNone;
  uint32_t range_node = 0;
  std::vector<Instr> code;
};

}  // namespace

struct Program::Impl {
  std::vector<UOp> nodes;     // referenced by Instr::node
  std::vector<Scope> scopes;  // scopes[0] is the root
  uint32_t num_regs = 0;
  std::vector<std::pair<uint32_t, Value>> consts;
  Signature sig;
  std::vector<std::pair<uint32_t, uint32_t>> vars;  // (register, index into sig.vars)
};

namespace {

// The oracle's side of the effect walk (ir/effect_walk.h): each hook appends instructions to
// a scope's code. Scopes are indices into Program::Impl::scopes, operands registers.
class Compiler {
 public:
  using ScopeRef = uint32_t;
  using Operand = uint32_t;
  struct Address {
    uint32_t buffer, index, gate;  // gate kNone: ungated
  };
  using Accumulator = uint32_t;

  explicit Compiler(Program::Impl& p) : p_(p) {}

  /// `topo` and `open` are toposort(root) and open_ranges(topo).
  std::optional<Error> compile(UOp root, const std::vector<UOp>& topo, NodeMap<RangeSet> open) {
    // Depth check: the compiler recurses along sources.
    NodeMap<size_t> depth(topo.size());
    for (UOp u : topo) {
      size_t d = 0;
      for (UOp s : u.src()) d = std::max(d, depth[s] + 1);
      depth[u] = d;
      if (d > kMaxDepth)
        return Error{fmt::format("graph is deeper than the oracle's limit of {} nodes", kMaxDepth)};
    }
    p_.sig = signature(topo);
    int64_t total = 0;
    for (const BufferParam& b : p_.sig.buffers) total += b.size;
    if (total > kMaxTotalElems)
      return Error{fmt::format("buffers hold {} elements; the oracle's limit is 2^28", total)};
    p_.scopes.emplace_back();
    EffectWalk<Compiler> walk(*this, LoopPlan(topo, std::move(open), Pinning::None), 0);
    if (auto e = walk.run(root)) return e;
    if (error_) return error_;
    if (unbound_range_) return Error{"a RANGE is used outside every loop that binds it"};
    return std::nullopt;
  }

 private:
  friend class EffectWalk<Compiler>;

  uint32_t new_reg() { return p_.num_regs++; }
  uint32_t node_ref(UOp u) {
    auto [ref, fresh] = node_ref_.emplace(u, static_cast<uint32_t>(p_.nodes.size()));
    if (fresh) p_.nodes.push_back(u);
    return ref;
  }
  // Pure code of the root scope goes before every effect: nodes with no range are
  // computed once, up front (their UB stays poison until an effect needs them).
  void emit(ScopeRef s, Instr i) {
    auto& code = p_.scopes[s].code;
    if (s == 0)
      code.insert(code.begin() + static_cast<std::ptrdiff_t>(root_pure_++), i);
    else
      code.push_back(i);
  }
  uint32_t const_reg(ir::Value v) {
    uint32_t r = new_reg();
    p_.consts.emplace_back(r, v);
    return r;
  }

  // ---- the walk's hooks ----------------------------------------------------------
  static TopLevel top_level(UOp) { return TopLevel::Inline; }  // one thread
  // Never asked for (every effect is Inline).
  ScopeRef open_guard(ScopeRef outer) { return outer; }
  void close_guard(ScopeRef, ScopeRef) {}

  // Loop bounds depend on no range (the verifier's rule): `end` is computed in the root.
  ScopeRef open_loop(ScopeRef, UOp range, Operand end, bool) {
    oracle::Scope s;
    s.range_reg = new_reg();
    s.range_node = node_ref(range);
    s.end_reg = end;
    p_.scopes.push_back(std::move(s));
    return static_cast<uint32_t>(p_.scopes.size() - 1);
  }
  // Loops are linked once their bodies are complete: code placed in an outer loop while
  // the body was emitted runs before the inner loop.
  void close_loops(std::span<const ScopeRef> loops, ScopeRef outer) {
    link_loops(loops);
    Instr loop{Kind::Loop, Op::End};
    loop.a = loops.front();
    p_.scopes[outer].code.push_back(loop);
  }

  Operand constant(ScopeRef, UOp u) { return const_reg(u.const_value()); }
  Operand var(ScopeRef, UOp u) {
    const uint32_t reg = new_reg();
    p_.vars.emplace_back(reg, p_.sig.var_of.at(u));
    return reg;
  }
  // Its home scope is the loop that binds it (the verifier guarantees one exists).
  Operand range(ScopeRef s, UOp) {
    if (s != 0) return p_.scopes[s].range_reg;
    unbound_range_ = true;
    return const_reg(ir::Value::of_int(0));
  }
  Operand not_a_value(ScopeRef, UOp u) {
    if (!error_) error_ = Error{fmt::format("unsupported: {} as a value", op_name(u.op()))};
    return const_reg(ir::Value::of_int(0));
  }
  Operand alu(ScopeRef s, UOp u, const Operand* a) {
    Instr i{Kind::Alu, u.op(), operand_dtype(u), u.dtype()};
    uint32_t* args[] = {&i.a, &i.b, &i.c};
    for (size_t k = 0; k < u.num_src(); ++k) *args[k] = a[k];
    i.dst = new_reg();
    i.node = node_ref(u);
    emit(s, i);
    return i.dst;
  }

  Address address(ScopeRef, UOp index, const Operand* gate, Operand idx) {
    return {p_.sig.buffer_of.at(index.src(0)), idx, gate ? *gate : kNone};
  }
  Operand load(ScopeRef s, UOp u, const Address& a, const Operand* alt) {
    Instr i{Kind::Load, Op::Load, u.dtype(), u.dtype()};
    i.a = a.buffer;
    i.b = a.index;
    i.c = a.gate;
    i.d = alt ? *alt : const_reg(ir::Value::of_int(0));
    i.dst = new_reg();
    i.node = node_ref(u);
    emit(s, i);
    return i.dst;
  }
  void store(ScopeRef s, UOp u, const Address& a, Operand v) {
    Instr i{Kind::Store, Op::Store, u.src(0).dtype(), u.src(0).dtype()};
    i.a = a.buffer;
    i.b = a.index;
    i.c = a.gate;
    i.d = v;
    i.node = node_ref(u);
    p_.scopes[s].code.push_back(i);
  }

  Accumulator reduce_begin(ScopeRef, UOp) { return new_reg(); }
  void reduce_step(ScopeRef innermost, UOp u, Accumulator& acc, Operand v) {
    Instr accum{Kind::Accum, u.arg<ReduceArg>().op, u.dtype(), u.dtype()};
    accum.dst = acc;
    accum.a = v;
    accum.node = node_ref(u);
    p_.scopes[innermost].code.push_back(accum);
  }
  // The accumulator is reset, then the loops run, where the REDUCE's value is placed.
  Operand reduce_end(ScopeRef home, UOp u, Accumulator& acc, std::span<const ScopeRef> loops) {
    link_loops(loops, acc);
    Instr init{Kind::ReduceInit, u.arg<ReduceArg>().op, u.dtype(), u.dtype()};
    init.dst = acc;
    init.node = node_ref(u);
    emit(home, init);
    Instr loop{Kind::Loop, Op::Reduce};
    loop.a = loops.front();
    loop.dst = acc;
    loop.node = init.node;
    loop.outermost_reduce_loop = true;
    emit(home, loop);
    return acc;
  }

  // Nested loops of one END or REDUCE; a REDUCE's loops name its accumulator (`acc`).
  void link_loops(std::span<const ScopeRef> loops, uint32_t acc = kNone) {
    for (size_t i = loops.size(); i-- > 1;) {
      Instr loop{Kind::Loop, acc == kNone ? Op::End : Op::Reduce};
      loop.a = loops[i];
      loop.dst = acc;
      p_.scopes[loops[i - 1]].code.push_back(loop);
    }
  }

  Program::Impl& p_;
  NodeMap<uint32_t> node_ref_;
  std::optional<Error> error_;  // the first node met that this compiler cannot place
  bool unbound_range_ = false;
  size_t root_pure_ = 0;  // count of pure instructions at the head of the root scope
};

// One run: registers, memory, the loop stack, and the first UB seen.
class Machine {
 public:
  Machine(const Program::Impl& p, const RunOptions& o)
      : p_(p), opts_(o), regs_(p.num_regs), poison_(p.num_regs, 0) {
    if (o.observe_values) observed_.resize(p.nodes.size());
  }

  std::optional<Error> load(const Inputs& in) {
    if (auto e = check_inputs(p_.sig, in)) return e;
    for (auto [reg, v] : p_.consts) regs_[reg] = v;
    for (auto [reg, index] : p_.vars) {
      const VarParam& v = p_.sig.vars[index];
      regs_[reg] = wrap_int(v.dtype, in.vars.at(v.name));
    }
    const std::vector<BufferParam>& bufs = p_.sig.buffers;
    mem_.resize(bufs.size());
    written_.resize(bufs.size());
    for (size_t b = 0; b < bufs.size(); ++b) {
      const BufferParam& buf = bufs[b];
      mem_[b].assign(static_cast<size_t>(buf.size), Value::of_int(0));
      if (buf.output) {
        written_[b].assign(static_cast<size_t>(buf.size), 0);
        // Outputs start as zero of their dtype (0.0 for floats has all-zero bits too).
        continue;
      }
      const Buffer& input = in.buffers.at(buf.slot);
      for (size_t i = 0; i < static_cast<size_t>(buf.size); ++i) mem_[b][i] = input.get(i);
    }
    return std::nullopt;
  }

  RunOutput finish() {
    RunOutput out;
    out.status = status_;
    out.steps = steps_;
    out.iterations = iterations_;
    out.ub = std::move(ub_);
    for (size_t n = 0; n < observed_.size(); ++n)
      if (observed_[n].node) out.observed.push_back(observed_[n]);
    if (status_ == RunStatus::Ok)
      for (size_t b = 0; b < p_.sig.buffers.size(); ++b) {
        const BufferParam& param = p_.sig.buffers[b];
        if (!param.output) continue;
        Buffer buf(param.dtype, static_cast<size_t>(param.size));
        for (size_t i = 0; i < mem_[b].size(); ++i) buf.set(i, mem_[b][i]);
        out.outputs.emplace(param.slot, std::move(buf));
      }
    return out;
  }

  // Returns false when the run must stop (UB or step limit).
  //
  // Pure instructions run where the compiler hoisted them, possibly in iterations that
  // no effect needs (SEMANTICS.md, "Evaluation": only demanded evaluations count). So
  // their undefined behaviour does not stop the run: it poisons the result register,
  // poison flows through pure instructions, and it becomes UB when an effect (a STORE,
  // or the bound of an END loop) uses a poisoned value.
  bool exec(uint32_t scope_id) {
    const Scope& s = p_.scopes[scope_id];
    steps_ += s.code.size();
    if (steps_ > opts_.max_steps) {
      status_ = RunStatus::StepLimit;
      return false;
    }
    if (scope_id != 0) ++iterations_;  // every scope but the root is a loop body
    for (const Instr& i : s.code) {
      switch (i.kind) {
        case Kind::Alu: {
          uint32_t p = poisoned(i.a, i.b, i.c);
          if (p) {
            poison_[i.dst] = p;
            break;
          }
          Value args[3] = {regs_[i.a], i.b != kNone ? regs_[i.b] : Value{},
                           i.c != kNone ? regs_[i.c] : Value{}};
          EvalError e = eval_alu(i.op, i.in, i.out, args, regs_[i.dst]);
          poison_[i.dst] = e == EvalError::None ? 0 : poison(i, std::string(eval_error_name(e)));
          if (!observed_.empty() && !poison_[i.dst]) observe(i, regs_[i.dst]);
          break;
        }
        case Kind::Load: {
          // The address (and gate) are evaluated whenever the load is.
          if (uint32_t p = poisoned(i.b, i.c, kNone)) {
            poison_[i.dst] = p;
            break;
          }
          if (i.c != kNone && !regs_[i.c].i) {
            regs_[i.dst] = regs_[i.d];
            poison_[i.dst] = poison_[i.d];
            if (!observed_.empty() && !poison_[i.dst]) observe(i, regs_[i.dst]);
            break;
          }
          int64_t idx = regs_[i.b].i;
          const auto& m = mem_[i.a];
          if (idx < 0 || idx >= static_cast<int64_t>(m.size())) {
            poison_[i.dst] = poison(
                i, fmt::format("out-of-bounds load: index {}, buffer size {}", idx, m.size()));
            break;
          }
          regs_[i.dst] = m[static_cast<size_t>(idx)];
          poison_[i.dst] = 0;
          if (!observed_.empty()) observe(i, regs_[i.dst]);
          break;
        }
        case Kind::Store: {
          if (uint32_t p = poisoned(i.b, i.c, i.d)) return fail(p);
          if (i.c != kNone && !regs_[i.c].i) break;
          int64_t idx = regs_[i.b].i;
          auto& m = mem_[i.a];
          if (idx < 0 || idx >= static_cast<int64_t>(m.size()))
            return fail(poison(
                i, fmt::format("out-of-bounds store: index {}, buffer size {}", idx, m.size())));
          if (written_[i.a][static_cast<size_t>(idx)])
            return fail(poison(i, fmt::format("element {} of output slot {} is stored twice", idx,
                                              p_.sig.buffers[i.a].slot)));
          written_[i.a][static_cast<size_t>(idx)] = 1;
          m[static_cast<size_t>(idx)] = regs_[i.d];
          break;
        }
        case Kind::ReduceInit:
          regs_[i.dst] = reduce_identity(i.op, i.out);
          poison_[i.dst] = 0;
          break;
        case Kind::Accum: {
          if (poison_[i.dst]) break;  // already undefined: stays so
          if (poison_[i.a]) {
            poison_[i.dst] = poison_[i.a];
            break;
          }
          Value args[2] = {regs_[i.dst], regs_[i.a]};
          EvalError e = eval_alu(i.op, i.in, i.out, args, regs_[i.dst]);
          if (e != EvalError::None)
            poison_[i.dst] = poison(i, fmt::format("{} while reducing", eval_error_name(e)));
          break;
        }
        case Kind::Loop: {
          const Scope& inner = p_.scopes[i.a];
          if (uint32_t p = poison_[inner.end_reg]) {
            if (i.dst == kNone) return fail(p);  // an END's loop bound is needed to run its stores
            poison_[i.dst] = p;                  // a REDUCE's: its result is undefined
            break;
          }
          const int64_t end = regs_[inner.end_reg].i;
          loop_stack_.push_back(i.a);
          for (int64_t r = 0; r < end; ++r) {
            regs_[inner.range_reg].i = r;
            if (!exec(i.a)) return false;
          }
          loop_stack_.pop_back();
          // A REDUCE's outermost loop leaves its value in dst.
          if (!observed_.empty() && i.outermost_reduce_loop && !poison_[i.dst])
            observe(i, regs_[i.dst]);
          break;
        }
      }
    }
    return true;
  }

 private:
  void observe(const Instr& i, Value v) {
    const UOp node = p_.nodes[i.node];
    const DType dt = node.dtype();
    if (!dt.is_int() && !dt.is_bool()) return;
    const __int128 x =
        dt.kind() == DTypeKind::Unsigned ? static_cast<__int128>(v.u) : static_cast<__int128>(v.i);
    ObservedRange& r = observed_[i.node];
    const auto magnitude = static_cast<unsigned __int128>(x < 0 ? -x : x);
    if (!r.node) {
      r = ObservedRange{node, x, x, magnitude};
      return;
    }
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
    // Most nodes reach 1 within a few values, after which nothing is left to compute.
    if (r.gcd != 1) r.gcd = gcd(r.gcd, magnitude);
  }

  static unsigned __int128 gcd(unsigned __int128 a, unsigned __int128 b) {
    while (b != 0) a = std::exchange(b, a % b);
    return a;
  }

  uint32_t poisoned(uint32_t a, uint32_t b, uint32_t c) const {
    if (a != kNone && poison_[a]) return poison_[a];
    if (b != kNone && poison_[b]) return poison_[b];
    if (c != kNone && poison_[c]) return poison_[c];
    return 0;
  }

  // Records where an evaluation went undefined: the node and the loop iteration.
  uint32_t poison(const Instr& i, std::string what) {
    // A hoisted node can go undefined on every iteration of a long loop that no effect
    // needs; past a cap, later ones reuse the node's first record (memory stays bounded).
    if (poisons_.size() >= kMaxPoisonRecords)
      if (auto it = first_poison_.find(i.node); it != first_poison_.end()) return it->second;
    UbReport r{p_.nodes[i.node], std::move(what), {}};
    for (uint32_t s : loop_stack_)
      r.iteration.emplace_back(p_.nodes[p_.scopes[s].range_node], regs_[p_.scopes[s].range_reg].i);
    poisons_.push_back(std::move(r));
    const uint32_t id = static_cast<uint32_t>(poisons_.size());  // 1-based: 0 means "defined"
    first_poison_.emplace(i.node, id);
    return id;
  }

  bool fail(uint32_t poison_id) {
    status_ = RunStatus::Ub;
    ub_ = poisons_[poison_id - 1];
    return false;
  }

  const Program::Impl& p_;
  const RunOptions& opts_;
  std::vector<Value> regs_;
  std::vector<uint32_t> poison_;   // per register: 0, or 1 + index into poisons_
  std::vector<UbReport> poisons_;  // undefined evaluations so far
  std::unordered_map<uint32_t, uint32_t> first_poison_;  // node -> its first record
  std::vector<std::vector<Value>> mem_;
  std::vector<std::vector<uint8_t>> written_;
  std::vector<uint32_t> loop_stack_;
  std::vector<ObservedRange> observed_;  // by node index, with RunOptions::observe_values
  uint64_t steps_ = 0;
  uint64_t iterations_ = 0;
  RunStatus status_ = RunStatus::Ok;
  std::optional<UbReport> ub_;
};

}  // namespace

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

Result<Program> Program::build(UOp root, std::vector<UOp> topo, NodeMap<RangeSet> open) {
  auto impl = std::make_unique<Impl>();
  Compiler c(*impl);
  if (auto e = c.compile(root, topo, std::move(open))) return *e;
  return Program(std::move(impl));
}

Result<Program> Program::compile(UOp root) {
  if (!root) return Error{"no graph"};
  // The verifier and the compiler both walk the graph and need its open ranges: once.
  std::vector<UOp> topo = toposort(root);
  NodeMap<RangeSet> open = open_ranges(topo);
  auto errors = verify(root, topo, open);
  if (!errors.empty())
    return Error{fmt::format("the graph does not verify: [{}] {}", verify_rule_name(errors[0].rule),
                             errors[0].message)};
  return build(root, std::move(topo), std::move(open));
}

Result<Program> Program::compile_verified(UOp root) {
  if (!root) return Error{"no graph"};
  std::vector<UOp> topo = toposort(root);
  NodeMap<RangeSet> open = open_ranges(topo);
  return build(root, std::move(topo), std::move(open));
}

Result<RunOutput> Program::run(const Inputs& inputs, const RunOptions& options) const {
  Machine m(*impl_, options);
  if (auto e = m.load(inputs)) return *e;
  m.exec(0);
  return m.finish();
}

Result<RunOutput> run(UOp root, const Inputs& inputs, const RunOptions& options) {
  auto p = Program::compile(root);
  if (!p) return p.error();
  return p->run(inputs, options);
}

}  // namespace uopfuzz::oracle
