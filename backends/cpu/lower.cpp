#include "backends/cpu/lower.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <span>

#include "backends/cpu/emit_alu.h"
#include "backends/float_sums.h"
#include "ir/analysis.h"
#include "ir/effect_walk.h"
#include "ir/graph.h"
#include "ir/loop_plan.h"
#include "ir/scalar_eval.h"
#include "ir/signature.h"

namespace uopfuzz::backends::cpu {

using namespace ir;

namespace {

// Loop nests with fewer iterations than this run on one thread.
constexpr int64_t kParallelWork = int64_t{1} << 15;
// Loops whose trip count is never this large stay scalar.
constexpr int64_t kVectorizeTrips = 64;
// The widest vector an UPCAST axis becomes (LLVM's limit for a forced width).
constexpr int64_t kMaxUpcastWidth = 64;

// An upper bound on the iterations of the loop nest below `end`: the product of every
// RANGE's largest trip count (saturating).
int64_t loop_nest_work(UOp end) {
  Analysis analysis;
  int64_t total = 1;
  for (UOp r : toposort(end)) {
    if (r.op() != Op::Range) continue;
    const int64_t trips = std::max<int64_t>(analysis.vmax(r.src(0)), 1);
    total = total > std::numeric_limits<int64_t>::max() / trips
                ? std::numeric_limits<int64_t>::max()
                : total * trips;
  }
  return total;
}

}  // namespace

bool splits_across_threads(UOp root) {
  for (UOp s : root.src())
    if (s.op() == Op::End && loop_nest_work(s) >= kParallelWork) return true;
  return false;
}

namespace {
// One loop (or the root, or a thread-0 guard) in the chain of open scopes.
struct Scope {
  llvm::BasicBlock* cur =
      nullptr;  // where this scope's code goes next (before its terminator, if any)
  UOp range;    // the RANGE it binds (none for root and guards)
  llvm::PHINode* iv = nullptr;
  // loop bookkeeping
  llvm::BasicBlock* header = nullptr;  // the body's first block (its counter's phi)
  llvm::BasicBlock* exit = nullptr;    // after the loop (or the guard)
  llvm::Value* end = nullptr;          // the loop runs while the counter is below it
};

// The CPU backend's side of the effect walk (ir/effect_walk.h): each hook emits LLVM IR at
// the end of its scope's current block.
class Lowerer {
 public:
  using ScopeRef = Scope*;
  using Operand = llvm::Value*;
  struct Address {
    llvm::Value* ptr;
    llvm::Value* gate;  // null: ungated
    size_t buffer;
  };
  using Accumulator = llvm::AllocaInst*;

  Lowerer(llvm::LLVMContext& c, llvm::Module& m) : c_(c), m_(m), b_(c), emit_(b_, m_, error_) {}

  std::optional<Error> run(UOp root, const std::string& name, LoweredFunction& out) {
    out.parallel = splits_across_threads(root);
    sums_ = reassociable_sums(root);
    const std::vector<UOp> topo = toposort(root);
    out.signature = signature(topo);
    sig_ = &out.signature;
    // One function: void name(i8** buffers, i64* vars, i64 thread, i64 threads).
    auto* i8p = llvm::Type::getInt8PtrTy(c_);
    auto* i64 = b_.getInt64Ty();
    auto* fn_ty = llvm::FunctionType::get(
        b_.getVoidTy(), {i8p->getPointerTo(), i64->getPointerTo(), i64, i64}, false);
    fn_ = llvm::Function::Create(fn_ty, llvm::Function::ExternalLinkage, name, m_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    make_alias_scopes(sig_->buffers.size());
    entry_ = llvm::BasicBlock::Create(c_, "entry", fn_);
    auto* start = llvm::BasicBlock::Create(c_, "start", fn_);
    b_.SetInsertPoint(entry_);
    b_.CreateBr(start);
    b_.SetInsertPoint(start);
    auto arg = fn_->arg_begin();
    llvm::Value* buf_array = &*arg++;
    llvm::Value* vars = &*arg++;
    thread_ = &*arg++;
    threads_ = &*arg++;
    for (size_t i = 0; i < sig_->buffers.size(); ++i) {
      llvm::Value* raw =
          scoped(b_.CreateLoad(i8p, b_.CreateConstInBoundsGEP1_64(i8p, buf_array, i)), kArguments);
      bufs_.push_back(b_.CreateBitCast(
          raw, emit_.storage(sig_->buffers[i].dtype)->getPointerTo()));  // typed once
    }
    for (size_t k = 0; k < sig_->vars.size(); ++k)
      var_values_.push_back(b_.CreateTrunc(
          scoped(b_.CreateLoad(i64, b_.CreateConstInBoundsGEP1_64(i64, vars, k)), kArguments),
          emit_.repr(sig_->vars[k].dtype)));
    Scope* kernel = new_scope(start);
    ir::EffectWalk<Lowerer> walk(*this, LoopPlan(topo, Pinning::Memory), kernel);
    if (auto e = walk.run(root)) return e;
    if (error_) return error_;
    b_.SetInsertPoint(kernel->cur);
    b_.CreateRetVoid();
    out.function = name;

    std::string msg;
    llvm::raw_string_ostream os(msg);
    if (llvm::verifyModule(m_, &os))
      return Error{"internal error: the lowered LLVM IR does not verify: " + os.str()};
    return std::nullopt;
  }

 private:
  friend class ir::EffectWalk<Lowerer>;
  // ---- aliasing ------------------------------------------------------------------
  // Buffers never overlap each other or the argument arrays. Each gets an alias scope,
  // and every access says which scope it is in and which it is not, so that the
  // vectorizer needs no runtime alias checks (what noalias parameters would say, without
  // a second function to inline).
  static constexpr size_t kArguments = ~size_t{0};
  void make_alias_scopes(size_t buffers) {
    llvm::MDBuilder md(c_);
    llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("uopfuzz kernel");
    std::vector<llvm::Metadata*> scopes;
    for (size_t i = 0; i <= buffers; ++i)
      scopes.push_back(md.createAnonymousAliasScope(domain));  // last: the arguments
    for (size_t i = 0; i <= buffers; ++i) {
      std::vector<llvm::Metadata*> others;
      for (size_t j = 0; j <= buffers; ++j)
        if (j != i) others.push_back(scopes[j]);
      in_scope_.push_back(llvm::MDNode::get(c_, {scopes[i]}));
      not_in_scope_.push_back(llvm::MDNode::get(c_, others));
    }
  }
  // `access` reads or writes buffer `buffer` (or the argument arrays: kArguments).
  llvm::Instruction* scoped(llvm::Instruction* access, size_t buffer) {
    const size_t i = buffer == kArguments ? in_scope_.size() - 1 : buffer;
    access->setMetadata(llvm::LLVMContext::MD_alias_scope, in_scope_[i]);
    access->setMetadata(llvm::LLVMContext::MD_noalias, not_in_scope_[i]);
    return access;
  }

  // ---- scopes ------------------------------------------------------------------
  Scope* new_scope(llvm::BasicBlock* bb) {
    scopes_.push_back(std::make_unique<Scope>());
    Scope* s = scopes_.back().get();
    s->cur = bb;
    return s;
  }
  void at(Scope* s) {
    if (auto* t = s->cur->getTerminator())
      b_.SetInsertPoint(t);
    else
      b_.SetInsertPoint(s->cur);
  }
  llvm::AllocaInst* alloca(llvm::Type* t) {
    llvm::IRBuilder<> eb(entry_, entry_->begin());
    return eb.CreateAlloca(t);
  }

  // ---- loops and guards (the walk's hooks) -------------------------------------------
  // Outside every loop, thread 0 alone stores. A loop nest too small to be worth waking
  // threads for runs on thread 0 alone, with its own bounds: a constant trip count lets the
  // optimizer see that a short loop is not worth vectorizing, which keeps the compile cheap.
  static TopLevel top_level(UOp u) {
    if (u.op() == Op::Store) return TopLevel::FirstThread;
    if (u.op() != Op::End) return TopLevel::Inline;  // the walk refuses it
    return loop_nest_work(u) < kParallelWork ? TopLevel::FirstThread : TopLevel::Split;
  }
  Scope* open_guard(Scope* outer) {
    at(outer);
    auto* then = llvm::BasicBlock::Create(c_, "thread0", fn_);
    auto* after = llvm::BasicBlock::Create(c_, "thread0_done", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(thread_, b_.getInt64(0)), then, after);
    Scope* g = new_scope(then);
    g->exit = after;
    return g;
  }
  void close_guard(Scope* g, Scope* outer) {
    b_.SetInsertPoint(g->cur);
    b_.CreateBr(g->exit);
    outer->cur = g->exit;
  }

  // Opens a loop over `range` in `outer` (`shared`: over this thread's block of it). Loops
  // are emitted rotated (tested at the bottom, guarded once before entry unless the
  // bounds show at least one iteration): the form the optimizer would give them anyway.
  Scope* open_loop(Scope* outer, UOp range, llvm::Value* end, bool shared) {
    at(outer);
    llvm::Value* lo = nullptr;
    if (shared) {
      // This thread's block: [t*q + min(t, r), ... + q + (t < r)).
      end = b_.CreateSelect(b_.CreateICmpSLT(end, b_.getInt64(0)), b_.getInt64(0), end);
      llvm::Value* q = b_.CreateUDiv(end, threads_);
      llvm::Value* r = b_.CreateURem(end, threads_);
      llvm::Value* lt = b_.CreateICmpULT(thread_, r);
      lo = b_.CreateAdd(b_.CreateMul(thread_, q), b_.CreateSelect(lt, thread_, r));
      end = b_.CreateAdd(b_.CreateAdd(lo, q), b_.CreateZExt(lt, b_.getInt64Ty()));
    }
    Scope* s = new_scope(nullptr);
    s->range = range;
    s->end = end;
    llvm::Value* first = lo ? lo : b_.getInt64(0);
    llvm::BasicBlock* preheader = b_.GetInsertBlock();
    s->header = llvm::BasicBlock::Create(c_, "loop", fn_);
    s->exit = llvm::BasicBlock::Create(c_, "done", fn_);
    if (!lo && analysis_.vmin(range.src(0)) > 0)
      b_.CreateBr(s->header);
    else
      b_.CreateCondBr(b_.CreateICmpSLT(first, end), s->header, s->exit);
    b_.SetInsertPoint(s->header);
    s->iv = b_.CreatePHI(b_.getInt64Ty(), 2);
    s->iv->addIncoming(first, preheader);
    s->cur = s->header;
    return s;
  }
  void close_loops(std::span<Scope* const> loops, Scope* outer) {
    for (size_t i = loops.size(); i-- > 0;) close_loop(loops[i], i > 0 ? loops[i - 1] : outer);
  }
  void close_loop(Scope* s, Scope* outer) {
    b_.SetInsertPoint(s->cur);
    llvm::Value* next = b_.CreateAdd(s->iv, b_.getInt64(1));
    s->iv->addIncoming(next, s->cur);
    llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, s->end), s->header, s->exit);
    UOp bound = s->range.src(0);
    if (s->range.arg<RangeArg>().type == AxisType::Upcast && bound.is_const() &&
        bound.const_value().i >= 2) {
      // An UPCAST axis becomes vectors of its width: the vectorizer is told to vectorize
      // its loop at exactly that width (the largest power of two within it; the rest, if
      // any, stays a scalar remainder), so a constant trip count of K turns into one
      // iteration of <K x T> code where the vectorizer can (remarks say where not).
      const auto width = std::bit_floor(
          static_cast<uint64_t>(std::min<int64_t>(bound.const_value().i, kMaxUpcastWidth)));
      latch->setMetadata(llvm::LLVMContext::MD_loop,
                         loop_hints(true, static_cast<unsigned>(width)));
    } else if (analysis_.vmax(bound) < kVectorizeTrips) {
      // A loop that never runs many iterations is not worth vectorizing, and the vector
      // code for a trip count known only at run time (a VAR bound) is most of the compile.
      latch->setMetadata(llvm::LLVMContext::MD_loop, loop_hints(false, 0));
    }
    outer->cur = s->exit;
  }

  // Loop metadata: a distinct self-referencing node with vectorize.enable (and the width
  // when nonzero).
  llvm::MDNode* loop_hints(bool vectorize, unsigned width) {
    std::vector<llvm::Metadata*> ops{nullptr};
    llvm::Metadata* enable[] = {llvm::MDString::get(c_, "llvm.loop.vectorize.enable"),
                                llvm::ConstantAsMetadata::get(b_.getInt1(vectorize))};
    ops.push_back(llvm::MDNode::get(c_, enable));
    if (width) {
      llvm::Metadata* w[] = {llvm::MDString::get(c_, "llvm.loop.vectorize.width"),
                             llvm::ConstantAsMetadata::get(b_.getInt32(width))};
      ops.push_back(llvm::MDNode::get(c_, w));
    }
    llvm::MDNode* loop = llvm::MDNode::getDistinct(c_, ops);
    loop->replaceOperandWith(0, loop);
    return loop;
  }

  // ---- values (the walk's hooks) ---------------------------------------------------
  llvm::Value* constant(Scope*, UOp u) { return emit_.constant(u.dtype(), u.const_value()); }
  llvm::Value* var(Scope*, UOp u) { return var_values_[sig_->var_of.at(u)]; }
  llvm::Value* range(Scope* s, UOp u) {
    return s->range == u ? static_cast<llvm::Value*>(s->iv) : b_.getInt64(0);
  }
  llvm::Value* not_a_value(Scope*, UOp u) { return emit_.unsupported(u.op(), u.dtype()); }
  llvm::Value* alu(Scope* s, UOp u, llvm::Value* const* a) {
    at(s);
    return emit_.alu(u.op(), operand_dtype(u), u.dtype(), a);
  }

  Address address(Scope* s, UOp index, llvm::Value* const* gate, llvm::Value* i) {
    UOp buf = index.src(0);
    llvm::Type* st = emit_.storage(buf.dtype());
    at(s);
    const size_t buffer = sig_->buffer_of.at(buf);
    return {b_.CreateInBoundsGEP(st, bufs_[buffer], i), gate ? *gate : nullptr, buffer};
  }

  llvm::Value* from_storage(DType dt, llvm::Value* raw) {
    if (dt.is_bool()) return b_.CreateICmpNE(raw, b_.getInt8(0));
    if (dt.scalar() == ScalarType::Float16)
      return b_.CreateCall(emit_.helper(kHalfValue, b_.getDoubleTy(), b_.getInt16Ty()), {raw});
    return raw;
  }
  llvm::Value* to_storage(DType dt, llvm::Value* v) {
    if (dt.is_bool()) return b_.CreateZExt(v, b_.getInt8Ty());
    if (dt.scalar() == ScalarType::Float16)
      return b_.CreateCall(emit_.helper(kHalfBits, b_.getInt16Ty(), b_.getDoubleTy()), {v});
    return v;
  }

  // Pinned: `s` is the innermost scope, whose block has no terminator yet.
  llvm::Value* load(Scope* s, UOp u, const Address& a, llvm::Value* const* alt_src) {
    DType dt = u.dtype();
    llvm::Value* alt = alt_src ? *alt_src : emit_.constant(dt, reduce_identity(Op::Add, dt));
    at(s);
    llvm::Type* st = emit_.storage(dt);
    if (!a.gate) return from_storage(dt, scoped(b_.CreateLoad(st, a.ptr), a.buffer));
    // A gated load touches memory only when its gate holds.
    auto* from = b_.GetInsertBlock();
    auto* then = llvm::BasicBlock::Create(c_, "gated_load", fn_);
    auto* merge = llvm::BasicBlock::Create(c_, "gated_load_done", fn_);
    b_.CreateCondBr(a.gate, then, merge);
    b_.SetInsertPoint(then);
    llvm::Value* got = from_storage(dt, scoped(b_.CreateLoad(st, a.ptr), a.buffer));
    auto* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    auto* phi = b_.CreatePHI(emit_.repr(dt), 2);
    phi->addIncoming(got, then_end);
    phi->addIncoming(alt, from);
    s->cur = merge;
    return phi;
  }

  void store(Scope* s, UOp u, const Address& a, llvm::Value* v) {
    at(s);
    llvm::Value* raw = to_storage(u.src(0).src(0).dtype(), v);
    if (!a.gate) {
      scoped(b_.CreateStore(raw, a.ptr), a.buffer);
      return;
    }
    auto* then = llvm::BasicBlock::Create(c_, "gated_store", fn_);
    auto* merge = llvm::BasicBlock::Create(c_, "gated_store_done", fn_);
    b_.CreateCondBr(a.gate, then, merge);
    b_.SetInsertPoint(then);
    scoped(b_.CreateStore(raw, a.ptr), a.buffer);
    b_.CreateBr(merge);
    s->cur = merge;
  }

  // A REDUCE accumulates in a stack slot (mem2reg makes it a register).
  llvm::AllocaInst* reduce_begin(Scope* home, UOp u) {
    DType dt = u.dtype();
    llvm::AllocaInst* acc = alloca(emit_.repr(dt));
    at(home);
    b_.CreateStore(emit_.constant(dt, reduce_identity(u.arg<ReduceArg>().op, dt)), acc);
    return acc;
  }
  void reduce_step(Scope* innermost, UOp u, llvm::AllocaInst* acc, llvm::Value* v) {
    DType dt = u.dtype();
    at(innermost);
    llvm::Value* args[3] = {b_.CreateLoad(emit_.repr(dt), acc), v, nullptr};
    llvm::Value* next = emit_.alu(u.arg<ReduceArg>().op, dt, dt, args);
    // A reassociable sum (backends/float_sums.h) may add its terms in any order: the
    // vectorizer then keeps a partial sum per lane.
    if (sums_.reduces.contains(u)) llvm::cast<llvm::Instruction>(next)->setHasAllowReassoc(true);
    b_.CreateStore(next, acc);
  }
  llvm::Value* reduce_end(Scope* home, UOp u, llvm::AllocaInst* acc,
                          std::span<Scope* const> loops) {
    close_loops(loops, home);
    at(home);
    return b_.CreateLoad(emit_.repr(u.dtype()), acc);
  }

  llvm::LLVMContext& c_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  std::optional<Error> error_;  // the first unsupported op met
  AluEmitter emit_;
  Analysis analysis_;
  ReassociableSums sums_;
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  std::vector<llvm::Value*> bufs_;
  std::vector<llvm::MDNode*> in_scope_, not_in_scope_;  // per buffer, then the arguments
  llvm::Value* thread_ = nullptr;
  llvm::Value* threads_ = nullptr;
  const Signature* sig_ = nullptr;
  std::vector<llvm::Value*> var_values_;  // by signature order
  std::vector<std::unique_ptr<Scope>> scopes_;
};

}  // namespace

Result<LoweredKernel> lower(llvm::LLVMContext& ctx, UOp root, const std::string& function) {
  LoweredKernel out;
  out.module = std::make_unique<llvm::Module>(function, ctx);
  Lowerer l(ctx, *out.module);
  if (auto e = l.run(root, function, out)) return *e;
  return out;
}

Result<LoweredFunction> lower_function(llvm::Module& module, UOp root,
                                       const std::string& function) {
  LoweredFunction out;
  Lowerer l(module.getContext(), module);
  if (auto e = l.run(root, function, out)) {
    if (llvm::Function* f = module.getFunction(function)) f->eraseFromParent();
    return *e;
  }
  return out;
}

}  // namespace uopfuzz::backends::cpu
