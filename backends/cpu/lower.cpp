#include "backends/cpu/lower.h"

#include <fmt/format.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "backends/float_sums.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/loop_plan.h"
#include "ir/quant.h"
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

bool is_unsigned(DType dt) {
  return dt.kind() == DTypeKind::Unsigned || dt.is_bool();
}

// One loop (or the root, or a thread-0 guard) in the chain of open scopes.
struct Scope {
  llvm::BasicBlock* cur =
      nullptr;  // where this scope's code goes next (before its terminator, if any)
  UOp range;    // the RANGE it binds (none for root and guards)
  llvm::PHINode* iv = nullptr;
  // loop bookkeeping
  llvm::BasicBlock* header = nullptr;  // the body's first block (its counter's phi)
  llvm::BasicBlock* exit = nullptr;
  llvm::Value* end = nullptr;  // the loop runs while the counter is below it
};

class Lowerer {
 public:
  Lowerer(llvm::LLVMContext& c, llvm::Module& m) : c_(c), m_(m), b_(c) {}

  std::optional<Error> run(UOp root, const std::string& name, LoweredFunction& out) {
    out.parallel = splits_across_threads(root);
    sums_ = reassociable_sums(root);
    const std::vector<UOp> topo = toposort(root);
    out.signature = signature(topo);
    sig_ = &out.signature;
    plan_.emplace(topo, Pinning::Memory);
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
      bufs_.push_back(
          b_.CreateBitCast(raw, storage(sig_->buffers[i].dtype)->getPointerTo()));  // typed once
    }
    for (size_t k = 0; k < sig_->vars.size(); ++k)
      var_values_.push_back(b_.CreateTrunc(
          scoped(b_.CreateLoad(i64, b_.CreateConstInBoundsGEP1_64(i64, vars, k)), kArguments),
          repr(sig_->vars[k].dtype)));
    chain_.push_back(new_scope(start));  // the plan's position 0
    for (UOp s : root.src())
      if (auto e = effect(s, /*top=*/true)) return e;
    if (error_) return error_;
    b_.SetInsertPoint(chain_.back()->cur);
    b_.CreateRetVoid();
    out.function = name;

    std::string msg;
    llvm::raw_string_ostream os(msg);
    if (llvm::verifyModule(m_, &os))
      return Error{"internal error: the lowered LLVM IR does not verify: " + os.str()};
    return std::nullopt;
  }

 private:
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

  // ---- types -------------------------------------------------------------------
  // Register form: bool i1, float16 double (exact half values), index i64.
  llvm::Type* repr(DType dt) {
    switch (dt.scalar()) {
      case ScalarType::Void: return b_.getVoidTy();
      case ScalarType::Bool: return b_.getInt1Ty();
      case ScalarType::Float16: return b_.getDoubleTy();
      case ScalarType::Float32: return b_.getFloatTy();
      case ScalarType::Float64: return b_.getDoubleTy();
      case ScalarType::Int8:
      case ScalarType::Int16:
      case ScalarType::Int32:
      case ScalarType::Int64:
      case ScalarType::UInt8:
      case ScalarType::UInt16:
      case ScalarType::UInt32:
      case ScalarType::UInt64:
      case ScalarType::Index: return b_.getIntNTy(static_cast<unsigned>(dt.bits()));
    }
    return b_.getVoidTy();
  }
  // Memory form: bool one byte, float16 its 16 bits.
  llvm::Type* storage(DType dt) {
    switch (dt.scalar()) {
      case ScalarType::Bool: return b_.getInt8Ty();
      case ScalarType::Float16: return b_.getInt16Ty();
      case ScalarType::Void:
      case ScalarType::Int8:
      case ScalarType::Int16:
      case ScalarType::Int32:
      case ScalarType::Int64:
      case ScalarType::UInt8:
      case ScalarType::UInt16:
      case ScalarType::UInt32:
      case ScalarType::UInt64:
      case ScalarType::Float32:
      case ScalarType::Float64:
      case ScalarType::Index: return repr(dt);
    }
    return repr(dt);
  }

  llvm::Constant* constant(DType dt, Value v) {
    if (dt.is_float()) return llvm::ConstantFP::get(repr(dt), v.f);
    return llvm::ConstantInt::get(repr(dt), v.u, /*isSigned=*/false);
  }

  llvm::FunctionCallee helper(const char* name, llvm::Type* ret, llvm::Type* arg) {
    auto callee = m_.getOrInsertFunction(name, llvm::FunctionType::get(ret, {arg}, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
      f->setDoesNotThrow();
      f->setDoesNotAccessMemory();
      f->setWillReturn();
    }
    return callee;
  }
  llvm::Value* half_round(llvm::Value* d) {
    return b_.CreateCall(helper(kHalfRound, b_.getDoubleTy(), b_.getDoubleTy()), {d});
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

  // Opens a loop over `range` (or over [lo, hi) when given) at the innermost scope. Loops
  // are emitted rotated (tested at the bottom, guarded once before entry unless the
  // bounds show at least one iteration): the form the optimizer would give them anyway.
  void open_loop(UOp range, llvm::Value* lo = nullptr, llvm::Value* hi = nullptr) {
    if (!hi) hi = place(range.src(0), chain_.size());
    Scope* outer = chain_.back();
    at(outer);
    Scope* s = new_scope(nullptr);
    s->range = range;
    s->end = hi;
    llvm::Value* first = lo ? lo : b_.getInt64(0);
    llvm::BasicBlock* preheader = b_.GetInsertBlock();
    s->header = llvm::BasicBlock::Create(c_, "loop", fn_);
    s->exit = llvm::BasicBlock::Create(c_, "done", fn_);
    if (!lo && analysis_.vmin(range.src(0)) > 0)
      b_.CreateBr(s->header);
    else
      b_.CreateCondBr(b_.CreateICmpSLT(first, hi), s->header, s->exit);
    b_.SetInsertPoint(s->header);
    s->iv = b_.CreatePHI(b_.getInt64Ty(), 2);
    s->iv->addIncoming(first, preheader);
    s->cur = s->header;
    chain_.push_back(s);
    plan_->enter(range);
  }
  void close_loop() {
    Scope* s = chain_.back();
    chain_.pop_back();
    plan_->leave();
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
    chain_.back()->cur = s->exit;
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

  // ---- values ------------------------------------------------------------------
  llvm::Value* place(UOp u, size_t depth) {
    size_t k = plan_->home(u, depth);
    uint64_t key = plan_->key(u, k);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    llvm::Value* v = nullptr;
    switch (op_kind(u.op())) {
      case OpKind::Leaf:
        switch (leaf_op(u.op())) {
          case LeafOp::Const: v = constant(u.dtype(), u.const_value()); break;
          case LeafOp::Var: v = var_values_[sig_->var_of.at(u)]; break;
          // Not values: the verifier keeps them out of value positions.
          case LeafOp::Invalid:
          case LeafOp::Param: v = unsupported(u.op(), u.dtype()); break;
        }
        break;
      case OpKind::Structural:
        switch (structural_op(u.op())) {
          case StructuralOp::Range:
            v = chain_[k]->range == u ? static_cast<llvm::Value*>(chain_[k]->iv) : b_.getInt64(0);
            break;
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
        llvm::Value* a[3] = {nullptr, nullptr, nullptr};
        for (size_t s = 0; s < u.num_src(); ++s) a[s] = place(u.src(s), k + 1);
        at(chain_[k]);
        v = alu(u.op(), operand_dtype(u), u.dtype(), a);
        break;
      }
      // Not values: the verifier keeps them out of value positions.
      case OpKind::Tensor:
      case OpKind::Schedule: v = unsupported(u.op(), u.dtype()); break;
    }
    memo_.emplace(key, v);
    return v;
  }

  llvm::Value* address(UOp index, size_t depth, llvm::Value** gate, size_t* buffer) {
    UOp idx = index.src(1);
    *gate = nullptr;
    if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) {
      *gate = place(idx.src(0), depth);
      idx = idx.src(1);
    }
    llvm::Value* i = place(idx, depth);
    UOp buf = index.src(0);
    llvm::Type* st = storage(buf.dtype());
    at(chain_[depth - 1]);
    *buffer = sig_->buffer_of.at(buf);
    return b_.CreateInBoundsGEP(st, bufs_[*buffer], i);
  }

  llvm::Value* from_storage(DType dt, llvm::Value* raw) {
    if (dt.is_bool()) return b_.CreateICmpNE(raw, b_.getInt8(0));
    if (dt.scalar() == ScalarType::Float16)
      return b_.CreateCall(helper(kHalfValue, b_.getDoubleTy(), b_.getInt16Ty()), {raw});
    return raw;
  }
  llvm::Value* to_storage(DType dt, llvm::Value* v) {
    if (dt.is_bool()) return b_.CreateZExt(v, b_.getInt8Ty());
    if (dt.scalar() == ScalarType::Float16)
      return b_.CreateCall(helper(kHalfBits, b_.getInt16Ty(), b_.getDoubleTy()), {v});
    return v;
  }

  // Pinned: k is the innermost scope, whose block has no terminator yet.
  llvm::Value* load(UOp u, size_t k) {
    DType dt = u.dtype();
    llvm::Value* alt =
        u.num_src() == 2 ? place(u.src(1), k + 1) : constant(dt, reduce_identity(Op::Add, dt));
    llvm::Value* gate;
    size_t buffer;
    llvm::Value* ptr = address(u.src(0), k + 1, &gate, &buffer);
    Scope* s = chain_[k];
    at(s);
    if (!gate) return from_storage(dt, scoped(b_.CreateLoad(storage(dt), ptr), buffer));
    // A gated load touches memory only when its gate holds.
    auto* from = b_.GetInsertBlock();
    auto* then = llvm::BasicBlock::Create(c_, "gated_load", fn_);
    auto* merge = llvm::BasicBlock::Create(c_, "gated_load_done", fn_);
    b_.CreateCondBr(gate, then, merge);
    b_.SetInsertPoint(then);
    llvm::Value* got = from_storage(dt, scoped(b_.CreateLoad(storage(dt), ptr), buffer));
    auto* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    auto* phi = b_.CreatePHI(repr(dt), 2);
    phi->addIncoming(got, then_end);
    phi->addIncoming(alt, from);
    s->cur = merge;
    return phi;
  }

  llvm::Value* reduce(UOp u, size_t k) {
    const Op op = u.arg<ReduceArg>().op;
    DType dt = u.dtype();
    // Only scopes 0..k stay open around the loops (the loop plan's rule).
    std::vector<Scope*> saved(chain_.begin() + static_cast<std::ptrdiff_t>(k) + 1, chain_.end());
    chain_.resize(k + 1);
    LoopPlan::Suspended suspended = plan_->suspend_above(k);
    llvm::AllocaInst* acc = alloca(repr(dt));
    at(chain_[k]);
    b_.CreateStore(constant(dt, reduce_identity(op, dt)), acc);
    for (size_t i = 1; i < u.num_src(); ++i) open_loop(u.src(i));
    llvm::Value* v = place(u.src(0), chain_.size());
    at(chain_.back());
    llvm::Value* args[3] = {b_.CreateLoad(repr(dt), acc), v, nullptr};
    llvm::Value* next = alu(op, dt, dt, args);
    // A reassociable sum (backends/float_sums.h) may add its terms in any order: the
    // vectorizer then keeps a partial sum per lane.
    if (sums_.reduces.contains(u)) llvm::cast<llvm::Instruction>(next)->setHasAllowReassoc(true);
    b_.CreateStore(next, acc);
    for (size_t i = 1; i < u.num_src(); ++i) close_loop();
    at(chain_[k]);
    llvm::Value* r = b_.CreateLoad(repr(dt), acc);
    chain_.insert(chain_.end(), saved.begin(), saved.end());
    plan_->resume(std::move(suspended));
    return r;
  }

  // ---- effects -----------------------------------------------------------------
  std::optional<Error> effect(UOp u, bool top) {
    if (u.op() == Op::Store) {
      // Outside every loop, thread 0 alone stores.
      if (top)
        return on_thread0([&] {
          store(u);
          return std::nullopt;
        });
      store(u);
      return std::nullopt;
    }
    if (u.op() != Op::End) return Error{unexpected_effect(u)};
    // A loop nest too small to be worth waking threads for runs on thread 0 alone, with
    // its own bounds: a constant trip count lets the optimizer see that a short loop is
    // not worth vectorizing, which keeps the compile cheap.
    if (top && loop_nest_work(u) < kParallelWork)
      return on_thread0([&] { return effect(u, false); });
    size_t outer = chain_.size();
    for (size_t i = 1; i < u.num_src(); ++i) {
      if (top && i == 1) {
        // This thread's block of the outermost loop: [t*q + min(t, r), ... + q + (t < r)).
        llvm::Value* end = place(u.src(1).src(0), chain_.size());
        at(chain_.back());
        end = b_.CreateSelect(b_.CreateICmpSLT(end, b_.getInt64(0)), b_.getInt64(0), end);
        llvm::Value* q = b_.CreateUDiv(end, threads_);
        llvm::Value* r = b_.CreateURem(end, threads_);
        llvm::Value* lt = b_.CreateICmpULT(thread_, r);
        llvm::Value* lo = b_.CreateAdd(b_.CreateMul(thread_, q), b_.CreateSelect(lt, thread_, r));
        llvm::Value* hi = b_.CreateAdd(b_.CreateAdd(lo, q), b_.CreateZExt(lt, b_.getInt64Ty()));
        open_loop(u.src(1), lo, hi);
      } else {
        open_loop(u.src(i));
      }
    }
    if (auto e = effect(u.src(0), false)) return e;
    while (chain_.size() > outer) close_loop();
    return std::nullopt;
  }

  // Emits `body` in a scope that only thread 0 enters (a scope of its own, so that values
  // computed inside are not reused outside the guard).
  template <class Body>
  std::optional<Error> on_thread0(Body body) {
    Scope* root = chain_.back();
    at(root);
    auto* then = llvm::BasicBlock::Create(c_, "thread0", fn_);
    auto* after = llvm::BasicBlock::Create(c_, "thread0_done", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(thread_, b_.getInt64(0)), then, after);
    Scope* g = new_scope(then);
    chain_.push_back(g);
    plan_->enter_guard();
    std::optional<Error> e = body();
    chain_.pop_back();
    plan_->leave();
    b_.SetInsertPoint(g->cur);
    b_.CreateBr(after);
    root->cur = after;
    return e;
  }

  void store(UOp u) {
    const size_t depth = chain_.size();
    UOp index = u.src(0);
    llvm::Value* gate;
    size_t buffer;
    llvm::Value* ptr = address(index, depth, &gate, &buffer);
    llvm::Value* v = place(u.src(1), depth);
    Scope* s = chain_.back();
    at(s);
    llvm::Value* raw = to_storage(index.src(0).dtype(), v);
    if (!gate) {
      scoped(b_.CreateStore(raw, ptr), buffer);
      return;
    }
    auto* then = llvm::BasicBlock::Create(c_, "gated_store", fn_);
    auto* merge = llvm::BasicBlock::Create(c_, "gated_store_done", fn_);
    b_.CreateCondBr(gate, then, merge);
    b_.SetInsertPoint(then);
    scoped(b_.CreateStore(raw, ptr), buffer);
    b_.CreateBr(merge);
    s->cur = merge;
  }

  // ---- ALU semantics (ir/scalar_eval.cpp, written as LLVM IR) -------------------
  llvm::Value* f64(llvm::Value* v) {
    return v->getType()->isDoubleTy() ? v : b_.CreateFPExt(v, b_.getDoubleTy());
  }
  // A double result rounded to float dtype `dt` (float16: the oracle's rounding).
  llvm::Value* round_to(DType dt, llvm::Value* d) {
    switch (dt.scalar()) {
      case ScalarType::Float16: return half_round(d);
      case ScalarType::Float32: return b_.CreateFPTrunc(d, b_.getFloatTy());
      case ScalarType::Float64: return d;
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
      case ScalarType::Index: return unsupported(Op::Cast, dt);  // not a float dtype
    }
    return d;
  }
  // An op this lowering has no code for: the first such is the lowering's error, and a
  // placeholder value keeps the emitter going until it returns.
  llvm::Value* unsupported(Op op, DType dt) {
    if (!error_)
      error_ = Error{fmt::format("unsupported: the CPU backend cannot lower {} of {}", op_name(op),
                                 dt.name())};
    return llvm::UndefValue::get(dt.is_void() ? b_.getInt64Ty() : repr(dt));
  }

  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id, {x->getType()}), {x});
  }

  llvm::Value* alu(Op op, DType in, DType out, llvm::Value* const* a) {
    switch (op_kind(op)) {
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule: break;
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::Where: return b_.CreateSelect(a[0], a[1], a[2]);
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
            return int_op(op, in, a);
        }
        break;
    }
    return unsupported(op, in);
  }

  llvm::Value* float_op(Op op, DType dt, llvm::Value* const* a) {
    const bool half = dt.scalar() == ScalarType::Float16;
    auto rounded = [&](llvm::Value* v) { return half ? half_round(v) : v; };
    switch (op_kind(op)) {
      // Not float ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule: return unsupported(op, dt);
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::Neg: return b_.CreateFNeg(a[0]);
          case AluOp::Reciprocal:
            return rounded(b_.CreateFDiv(llvm::ConstantFP::get(a[0]->getType(), 1.0), a[0]));
          case AluOp::Sqrt: return rounded(intrinsic(llvm::Intrinsic::sqrt, a[0]));
          case AluOp::Trunc: return intrinsic(llvm::Intrinsic::trunc, a[0]);
          // The oracle computes these in double with libm and rounds once: so do we.
          case AluOp::Exp2: return round_to(dt, intrinsic(llvm::Intrinsic::exp2, f64(a[0])));
          case AluOp::Log2: return round_to(dt, intrinsic(llvm::Intrinsic::log2, f64(a[0])));
          case AluOp::Sin: return round_to(dt, intrinsic(llvm::Intrinsic::sin, f64(a[0])));
          case AluOp::Add: return rounded(b_.CreateFAdd(a[0], a[1]));
          case AluOp::Sub: return rounded(b_.CreateFSub(a[0], a[1]));
          case AluOp::Mul: return rounded(b_.CreateFMul(a[0], a[1]));
          case AluOp::CmpLt: return b_.CreateFCmpOLT(a[0], a[1]);
          case AluOp::CmpNe: return b_.CreateFCmpUNE(a[0], a[1]);
          case AluOp::CmpEq: return b_.CreateFCmpOEQ(a[0], a[1]);
          case AluOp::Max:
          case AluOp::Min: {
            // NaN if either is NaN; equal operands (+0/-0) combine by bits: MAX ands the
            // sign bits (+0 wins), MIN ors them (-0 wins); equal nonzero values are identical.
            llvm::Type* t = a[0]->getType();
            llvm::Type* it = b_.getIntNTy(t->getPrimitiveSizeInBits().getFixedSize());
            llvm::Value* ab = b_.CreateBitCast(a[0], it);
            llvm::Value* bb = b_.CreateBitCast(a[1], it);
            llvm::Value* eq =
                b_.CreateBitCast(op == Op::Max ? b_.CreateAnd(ab, bb) : b_.CreateOr(ab, bb), t);
            llvm::Value* a_wins =
                op == Op::Max ? b_.CreateFCmpOGT(a[0], a[1]) : b_.CreateFCmpOLT(a[0], a[1]);
            llvm::Value* b_wins =
                op == Op::Max ? b_.CreateFCmpOLT(a[0], a[1]) : b_.CreateFCmpOGT(a[0], a[1]);
            llvm::Value* r = b_.CreateSelect(a_wins, a[0], b_.CreateSelect(b_wins, a[1], eq));
            llvm::Value* nan = b_.CreateFCmpUNO(a[0], a[1]);
            return b_.CreateSelect(nan, llvm::ConstantFP::getNaN(t), r);
          }
          // Not float ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
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
          case AluOp::Where: return unsupported(op, dt);
        }
        break;
    }
    return unsupported(op, dt);
  }

  llvm::Value* int_op(Op op, DType dt, llvm::Value* const* a) {
    const bool uns = is_unsigned(dt);
    llvm::Type* t = a[0]->getType();
    const unsigned bits = t->getIntegerBitWidth();
    switch (op_kind(op)) {
      // Not integer ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
      case OpKind::Leaf:
      case OpKind::Structural:
      case OpKind::Tensor:
      case OpKind::Schedule: return unsupported(op, dt);
      case OpKind::Alu:
        switch (alu_op(op)) {
          case AluOp::Neg: return b_.CreateSub(llvm::ConstantInt::get(t, 0), a[0]);
          case AluOp::Add: return b_.CreateAdd(a[0], a[1]);
          case AluOp::Sub: return b_.CreateSub(a[0], a[1]);
          case AluOp::Mul: return b_.CreateMul(a[0], a[1]);
          case AluOp::Cdiv:
          case AluOp::Cmod:
          case AluOp::FloorDiv:
          case AluOp::FloorMod: {
            const bool div = op == Op::Cdiv || op == Op::FloorDiv;
            llvm::Value* zero = llvm::ConstantInt::get(t, 0);
            llvm::Value* one = llvm::ConstantInt::get(t, 1);
            // The divisor is made safe (0 -> 1; signed -1 -> 1 with the result fixed up), so a
            // division computed ahead of need never traps. Where it is needed, the oracle has
            // shown the divisor is not 0.
            if (uns) {
              llvm::Value* d = b_.CreateSelect(b_.CreateICmpEQ(a[1], zero), one, a[1]);
              return div ? b_.CreateUDiv(a[0], d) : b_.CreateURem(a[0], d);
            }
            llvm::Value* minus1 = llvm::ConstantInt::getSigned(t, -1);
            llvm::Value* is_m1 = b_.CreateICmpEQ(a[1], minus1);
            llvm::Value* d =
                b_.CreateSelect(b_.CreateOr(b_.CreateICmpEQ(a[1], zero), is_m1), one, a[1]);
            llvm::Value* q = b_.CreateSDiv(a[0], d);
            llvm::Value* r = b_.CreateSRem(a[0], d);
            // x / -1 = -x (wrapping: INT_MIN / -1 = INT_MIN), remainder 0, floor or not.
            if (op == Op::Cdiv) return b_.CreateSelect(is_m1, b_.CreateSub(zero, a[0]), q);
            if (op == Op::Cmod) return b_.CreateSelect(is_m1, zero, r);
            // Floor: adjust when the remainder is nonzero and its sign differs from the divisor's.
            llvm::Value* adjust =
                b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, d), zero));
            if (op == Op::FloorDiv)
              return b_.CreateSelect(is_m1, b_.CreateSub(zero, a[0]),
                                     b_.CreateSub(q, b_.CreateZExt(adjust, t)));
            return b_.CreateSelect(is_m1, zero, b_.CreateSelect(adjust, b_.CreateAdd(r, d), r));
          }
          case AluOp::Max:
            return b_.CreateSelect(
                uns ? b_.CreateICmpUGT(a[0], a[1]) : b_.CreateICmpSGT(a[0], a[1]), a[0], a[1]);
          case AluOp::Min:
            return b_.CreateSelect(
                uns ? b_.CreateICmpULT(a[0], a[1]) : b_.CreateICmpSLT(a[0], a[1]), a[0], a[1]);
          case AluOp::CmpLt:
            return uns ? b_.CreateICmpULT(a[0], a[1]) : b_.CreateICmpSLT(a[0], a[1]);
          case AluOp::CmpNe: return b_.CreateICmpNE(a[0], a[1]);
          case AluOp::CmpEq: return b_.CreateICmpEQ(a[0], a[1]);
          case AluOp::And: return b_.CreateAnd(a[0], a[1]);
          case AluOp::Or: return b_.CreateOr(a[0], a[1]);
          case AluOp::Xor: return b_.CreateXor(a[0], a[1]);
          case AluOp::Shl:
          case AluOp::Shr: {
            // The amount is masked: equal in range (the only case a UB-free kernel needs),
            // and never LLVM poison when computed ahead of need.
            llvm::Value* amt = b_.CreateAnd(a[1], llvm::ConstantInt::get(t, bits - 1));
            if (op == Op::Shl) return b_.CreateShl(a[0], amt);
            return uns ? b_.CreateLShr(a[0], amt) : b_.CreateAShr(a[0], amt);
          }
          // Not integer ops (the verifier refuses them); WHERE, CAST and BITCAST are alu()'s.
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
          case AluOp::Where: return unsupported(op, dt);
        }
        break;
    }
    return unsupported(op, dt);
  }

  llvm::Value* cast(DType in, DType out, llvm::Value* x) {
    llvm::Type* to = repr(out);
    if (out.is_bool()) {
      if (in.is_float())
        return b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));  // NaN: true
      return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
    }
    if (in.is_float()) {
      if (out.is_float()) {
        if (out.scalar() == ScalarType::Float16)
          return in.scalar() == ScalarType::Float16 ? x : half_round(f64(x));
        if (x->getType() == to) return x;
        return x->getType()->isDoubleTy() ? b_.CreateFPTrunc(x, to) : b_.CreateFPExt(x, to);
      }
      // Saturating: never poison; in range (all a UB-free kernel needs) it truncates.
      auto id = is_unsigned(out) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
      return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id, {to, x->getType()}), {x});
    }
    const bool src_unsigned = is_unsigned(in);
    if (out.is_float()) {
      llvm::Type* via = out.scalar() == ScalarType::Float32 ? b_.getFloatTy() : b_.getDoubleTy();
      llvm::Value* f = src_unsigned ? b_.CreateUIToFP(x, via) : b_.CreateSIToFP(x, via);
      return out.scalar() == ScalarType::Float16 ? half_round(f) : f;
    }
    const unsigned from_bits = x->getType()->getIntegerBitWidth(),
                   to_bits = to->getIntegerBitWidth();
    if (to_bits < from_bits) return b_.CreateTrunc(x, to);
    if (to_bits == from_bits) return x;
    return src_unsigned ? b_.CreateZExt(x, to) : b_.CreateSExt(x, to);
  }

  // ---- quantized conversions (ir/quant.h, written as LLVM IR) ----------------------
  // A quantized value is its stored integer in the storage type's register (qint8: i8).
  // Everything here is exact integer arithmetic in i64 or one IEEE double operation, with
  // no fast-math flag, so every optimization level computes ir/quant.h's bits.

  // The stored integer of quantized `dt` as an i64 (zero-extended for uint8 storage: the
  // kind of a quantized type is not Unsigned, its storage's is).
  llvm::Value* stored_i64(DType dt, llvm::Value* q) {
    return is_unsigned(dt.storage()) ? b_.CreateZExt(q, b_.getInt64Ty())
                                     : b_.CreateSExt(q, b_.getInt64Ty());
  }
  // An i64 clamped to the storage range of quantized `dt` (saturation, never a wrap) and
  // narrowed to its register.
  llvm::Value* saturate(DType dt, llvm::Value* v) {
    llvm::Value* lo = b_.getInt64(dt.int_min());
    llvm::Value* hi = b_.getInt64(dt.int_max());
    v = b_.CreateSelect(b_.CreateICmpSLT(v, lo), lo, v);
    v = b_.CreateSelect(b_.CreateICmpSGT(v, hi), hi, v);
    return b_.CreateTrunc(v, repr(dt));
  }
  // The first refusal is the lowering's error (the verifier refuses these pairs first; this
  // keeps a graph that skipped it from getting a guessed value).
  llvm::Value* refuse(std::string why, DType dt) {
    if (!error_) error_ = Error{std::move(why)};
    return llvm::UndefValue::get(repr(dt));
  }

  // QUANTIZE: NaN -> z; else clamp(round_half_away(x / s) + z). The quotient is one double
  // division of the exactly widened operand, clamped to +-2^40 (inside which every result
  // saturates the same, and which keeps +-inf convertible); a NaN quotient becomes 0, so
  // it comes out as z through the same + z and clamp.
  llvm::Value* quantize(DType out, llvm::Value* x) {
    const QuantParams& p = quant_params(out);
    llvm::Type* f64t = b_.getDoubleTy();
    llvm::Value* t = b_.CreateFDiv(f64(x), llvm::ConstantFP::get(f64t, p.scale));
    llvm::Value* lo = llvm::ConstantFP::get(f64t, -0x1p40);
    llvm::Value* hi = llvm::ConstantFP::get(f64t, 0x1p40);
    t = b_.CreateSelect(b_.CreateFCmpOLT(t, lo), lo, t);
    t = b_.CreateSelect(b_.CreateFCmpOGT(t, hi), hi, t);
    t = b_.CreateSelect(b_.CreateFCmpUNO(t, t), llvm::ConstantFP::get(f64t, 0.0), t);
    // llvm.round is round-half-away-from-zero, exact (C's round()).
    llvm::Value* q = b_.CreateFPToSI(intrinsic(llvm::Intrinsic::round, t), b_.getInt64Ty());
    return saturate(out, b_.CreateAdd(q, b_.getInt64(p.zero_point)));
  }

  // DEQUANTIZE: the double product s * (q - z) (q - z exact in i64 and in double), rounded
  // to the float type as CAST from float64 rounds.
  llvm::Value* dequantize(DType in, DType out, llvm::Value* q) {
    const QuantParams& p = quant_params(in);
    llvm::Value* x = b_.CreateSub(stored_i64(in, q), b_.getInt64(p.zero_point));
    llvm::Value* real = b_.CreateFMul(b_.CreateSIToFP(x, b_.getDoubleTy()),
                                      llvm::ConstantFP::get(b_.getDoubleTy(), p.scale));
    return round_to(out, real);
  }

  // REQUANTIZE: the requantizer is decided here, at compile time; the code is
  // y = round_half_away((q - z_in) * m0 / 2^shift), then clamp(y + z_out). |q - z_in| < 2^32
  // and m0 < 2^31, so the product and the rounding bias fit i64.
  llvm::Value* requantize(DType in, DType out, llvm::Value* q) {
    if (auto why = requantize_unsupported(in, out)) return refuse(*why, out);
    std::string why;
    auto r = requantizer(quant_params(in).scale, quant_params(out).scale, &why);
    if (!r) return refuse(why, out);
    llvm::Value* x = b_.CreateSub(stored_i64(in, q), b_.getInt64(quant_params(in).zero_point));
    llvm::Value* p = b_.CreateMul(x, b_.getInt64(r->m0));
    llvm::Value* y = p;
    if (const int n = r->shift(); n > 0) {
      llvm::Value* negative = b_.CreateICmpSLT(p, b_.getInt64(0));
      llvm::Value* magnitude = b_.CreateSelect(negative, b_.CreateNeg(p), p);
      magnitude = b_.CreateLShr(b_.CreateAdd(magnitude, b_.getInt64(int64_t{1} << (n - 1))),
                                b_.getInt64(n));
      y = b_.CreateSelect(negative, b_.CreateNeg(magnitude), magnitude);
    }
    return saturate(out, b_.CreateAdd(y, b_.getInt64(quant_params(out).zero_point)));
  }

  llvm::Value* bitcast(DType in, DType out, llvm::Value* x) {
    const bool hin = in.scalar() == ScalarType::Float16, hout = out.scalar() == ScalarType::Float16;
    if (hin && hout) return x;
    if (hin) return b_.CreateCall(helper(kHalfBits, b_.getInt16Ty(), b_.getDoubleTy()), {x});
    if (hout) return b_.CreateCall(helper(kHalfValue, b_.getDoubleTy(), b_.getInt16Ty()), {x});
    llvm::Type* to = repr(out);
    return x->getType() == to ? x : b_.CreateBitCast(x, to);
  }

  llvm::LLVMContext& c_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  Analysis analysis_;
  ReassociableSums sums_;
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  std::vector<llvm::Value*> bufs_;
  std::vector<llvm::MDNode*> in_scope_, not_in_scope_;  // per buffer, then the arguments
  llvm::Value* thread_ = nullptr;
  llvm::Value* threads_ = nullptr;
  const Signature* sig_ = nullptr;
  std::optional<LoopPlan> plan_;
  std::optional<Error> error_;            // the first unsupported op met
  std::vector<llvm::Value*> var_values_;  // by signature order
  std::unordered_map<uint64_t, llvm::Value*> memo_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  std::vector<Scope*> chain_;
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
