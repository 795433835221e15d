// The CPU backend: kernel graphs lowered to LLVM IR, optimized at the requested level
// (O0..O3, O2 by default) and JIT-compiled in process (ORC LLJIT) for the host CPU.
//
// Semantics are SEMANTICS.md's, bit for bit: integers wrap (no nsw/nuw), divisions are
// guarded so that a speculated division by zero or INT_MIN / -1 cannot trap, shifts mask
// their amount and float-to-int casts saturate (so a value computed ahead of need is
// never LLVM poison that could reach a branch), floats without fast-math; EXP2, LOG2
// and SIN call the same libm double functions as the oracle, and float16 values live
// in registers as doubles rounded after every op with the oracle's own rounding.
// Loads (and everything that uses one, REDUCE included) are emitted where they are
// demanded, never hoisted above a loop that might not run; LLVM hoists what it can
// prove safe.
//
// Kernels are cached by the hash of their printed graph. The JIT and the thread pool
// are created lazily in the process that compiles or runs (fork-safe: a campaign parent
// that never checks owns neither; a pool created before a fork is rebuilt in the child).

#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <list>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>

#include "backends/backend.h"
#include "backends/cpu/lower.h"
#include "backends/cpu/thread_pool.h"
#include "backends/kernel_cache.h"
#include "ir/hash.h"
#include "ir/ops.h"
#include "ir/printer.h"
#include "ir/value.h"

namespace uopfuzz::backends::cpu {

using namespace ir;

namespace {

double half_round_fn(double v) {
  return round_to_half(v);
}
uint16_t half_bits_fn(double v) {
  return half_bits(v);
}
double half_value_fn(uint16_t b) {
  return half_value(b);
}

std::string to_string(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

// Takes the optimizer's diagnostics: the vectorizers' remarks, and the warning that a
// loop whose vectorization was forced (an UPCAST axis) stayed a loop. With `out` set
// (UOPFUZZ_CPU_REMARKS=1, or a listing) they are collected; without, they are dropped,
// where LLVM's default handler would print the warnings to stderr in every campaign.
struct RemarkCollector : llvm::DiagnosticHandler {
  std::string* out;
  explicit RemarkCollector(std::string* o) : out(o) {}
  static bool wanted(llvm::StringRef pass) {
    return pass == "loop-vectorize" || pass == "slp-vectorizer";
  }
  bool isAnalysisRemarkEnabled(llvm::StringRef pass) const override { return out && wanted(pass); }
  bool isMissedOptRemarkEnabled(llvm::StringRef pass) const override { return out && wanted(pass); }
  bool isPassedOptRemarkEnabled(llvm::StringRef pass) const override { return out && wanted(pass); }
  bool isAnyRemarkEnabled() const override { return out != nullptr; }
  bool handleDiagnostics(const llvm::DiagnosticInfo& di) override {
    auto* r = llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&di);
    if (!r) return false;  // anything else (an error) goes to LLVM's default handler
    const bool failure = di.getKind() == llvm::DK_OptimizationFailure;
    if (out && (failure || wanted(r->getPassName())))
      *out += fmt::format("; remark {}: {}\n",
                          failure ? "transform-warning" : r->getPassName().str(), r->getMsg());
    return true;
  }
};

// The process's JITs: one LLJIT for the host per optimization level (the code generator's
// level is fixed when a JIT is made), each created on the first compile at its level.
struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> tm;  // for the optimizer's target info
  std::string error;
};

// LLVM compiles are serialized, at every level: one mutex for all the JITs.
std::mutex& jit_mutex() {
  static auto* m = new std::mutex;  // never destroyed: kernels may outlive static destruction
  return *m;
}

std::atomic<uint64_t>& kernel_counter() {
  static std::atomic<uint64_t> n{0};
  return n;
}

llvm::CodeGenOpt::Level codegen_level(OptLevel level) {
  switch (level) {
    case OptLevel::O0: return llvm::CodeGenOpt::None;  // the fast instruction selector
    case OptLevel::O1: return llvm::CodeGenOpt::Less;
    case OptLevel::O2: return llvm::CodeGenOpt::Default;
    case OptLevel::O3: return llvm::CodeGenOpt::Aggressive;
  }
  return llvm::CodeGenOpt::Default;
}

Jit* make_jit(OptLevel level) {
  auto* made = new Jit;  // never destroyed: kernels may outlive static destruction order
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Three code generator passes cost a third of a kernel's code generation and buy
    // these kernels nothing measurable (bench/cpu_bench.cpp; docs/performance.md): loop strength
    // reduction redoes what x86 addressing modes absorb, and the two instruction
    // schedulers reorder for pipelines that an out-of-order core reorders anyway. Only
    // optimizations are switched off, never a different way of generating code.
    // UOPFUZZ_CPU_CODEGEN=full keeps all three. (The fast instruction selector would save
    // as much again at O2, but LLVM 14 miscompiles with it there: a campaign found a
    // zeroing XOR placed between a SUB and the CMOV reading its carry;
    // tests/backends_cpu_test.cpp keeps that kernel. At O0 it is LLVM's own choice.)
    const char* codegen = std::getenv("UOPFUZZ_CPU_CODEGEN");
    if (!codegen || std::string(codegen) != "full") {
      const char* argv[] = {"uopfuzz", "-disable-lsr", "-post-RA-scheduler=false",
                            "-enable-misched=false"};
      std::string unknown;  // an LLVM without these options keeps its defaults (never exits)
      llvm::raw_string_ostream errors(unknown);
      llvm::cl::ParseCommandLineOptions(4, argv, "", &errors);
    }
  });
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    made->error = to_string(jtmb.takeError());
    return made;
  }
  jtmb->setCodeGenOptLevel(codegen_level(level));
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    made->error = to_string(tm.takeError());
    return made;
  }
  made->tm = std::move(*tm);
  auto built = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!built) {
    made->error = to_string(built.takeError());
    return made;
  }
  made->lljit = std::move(*built);
  auto& jd = made->lljit->getMainJITDylib();
  // libm (exp2, log2, sin) and the float16 helpers.
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      made->lljit->getDataLayout().getGlobalPrefix());
  if (!gen) {
    made->error = to_string(gen.takeError());
    return made;
  }
  jd.addGenerator(std::move(*gen));
  llvm::orc::SymbolMap helpers;
  auto add = [&](const char* name, void* fn) {
    helpers[made->lljit->mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(fn), llvm::JITSymbolFlags::Exported);
  };
  add(kHalfRound, reinterpret_cast<void*>(&half_round_fn));
  add(kHalfBits, reinterpret_cast<void*>(&half_bits_fn));
  add(kHalfValue, reinterpret_cast<void*>(&half_value_fn));
  if (auto e = jd.define(llvm::orc::absoluteSymbols(std::move(helpers))))
    made->error = to_string(std::move(e));
  return made;
}

Jit& jit(OptLevel level) {
  static std::array<std::once_flag, kOptLevelCount> once;
  static std::array<Jit*, kOptLevelCount> jits{};
  const auto i = static_cast<size_t>(level);
  std::call_once(once[i], [&] { jits[i] = make_jit(level); });
  return *jits[i];
}

// The JIT memory of one compiled module, freed when the last kernel in it goes.
struct CompiledModule {
  llvm::orc::ResourceTrackerSP rt;
  ~CompiledModule() {
    std::lock_guard<std::mutex> l(jit_mutex());
    if (auto e = rt->remove()) llvm::consumeError(std::move(e));
  }
};

using EntryFn = void (*)(uint8_t**, const int64_t*, int64_t, int64_t);

class CpuKernel final : public Kernel {
 public:
  CpuKernel(EntryFn fn, std::shared_ptr<CompiledModule> module, LoweredFunction lowered,
            std::string listing)
      : fn_(fn),
        module_(std::move(module)),
        sig_(std::move(lowered.signature)),
        parallel_(lowered.parallel),
        listing_(std::move(listing)) {}

  Result<ir::RunOutput> run(const ir::Inputs& inputs, const RunOptions& options) override {
    ir::RunOutput out;
    std::vector<uint8_t*> ptrs;
    std::vector<int64_t> vars;
    if (auto e = bind(inputs, out.outputs, ptrs, vars)) return *e;
    call(ptrs, vars, options.threads);
    return out;
  }

  Result<std::vector<double>> time(const ir::Inputs& inputs, int reps,
                                   const RunOptions& options) override {
    // The outputs are kept from call to call: a timing loop of one repetition per call
    // would otherwise map (and fault in) fresh pages for every sample.
    std::map<int, Buffer>& outputs = timing_outputs_;
    std::vector<uint8_t*> ptrs;
    std::vector<int64_t> vars;
    if (auto e = bind(inputs, outputs, ptrs, vars)) return *e;
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
      for (auto& [slot, b] : outputs) std::memset(b.data(), 0, b.byte_size());
      auto t0 = std::chrono::steady_clock::now();
      call(ptrs, vars, options.threads);
      samples.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return samples;
  }

  std::string listing() const override { return listing_; }

 private:
  std::optional<Error> bind(const ir::Inputs& in, std::map<int, Buffer>& outputs,
                            std::vector<uint8_t*>& ptrs, std::vector<int64_t>& vars) const {
    if (auto e = ir::check_inputs(sig_, in)) return e;
    for (const ir::BufferParam& b : sig_.buffers) {
      if (b.output)
        ptrs.push_back(
            outputs.try_emplace(b.slot, b.dtype, static_cast<size_t>(b.size)).first->second.data());
      else
        ptrs.push_back(const_cast<uint8_t*>(
            in.buffers.at(b.slot).data()));  // read only: the kernel never stores to an input
    }
    for (const ir::VarParam& v : sig_.vars) vars.push_back(in.vars.at(v.name));
    return std::nullopt;
  }

  void call(std::vector<uint8_t*>& ptrs, const std::vector<int64_t>& vars, int threads) const {
    const int n = parallel_ ? std::clamp(threads, 1, 64) : 1;
    if (n == 1) {
      fn_(ptrs.data(), vars.data(), 0, 1);
      return;
    }
    parallel_for(n, [&](int t) { fn_(ptrs.data(), vars.data(), t, n); });
  }

  EntryFn fn_;
  std::shared_ptr<CompiledModule> module_;
  ir::Signature sig_;
  bool parallel_;
  std::string listing_;
  std::map<int, Buffer> timing_outputs_;
};

constexpr size_t kCacheEntries = 512;

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    for (DType dt : all_dtypes()) caps_.dtypes.push_back(dt);
    caps_.quantized = true;
    for (int i = 0; i < kOpCount; ++i) caps_.ops.push_back(static_cast<Op>(i));
    caps_.max_threads = 64;
    caps_.reassociates_float_sums = true;
    caps_.opt_levels = true;
    caps_.notes =
        "bit-exact with the oracle except reassociated float sums: float16 computed as double "
        "rounded per op (helper calls, not vectorized); "
        "EXP2/LOG2/SIN through the same libm double functions; float sums stored as they are added "
        "in any order (within sum_bounds), other reductions in order";
  }
  std::string_view name() const override { return "cpu"; }
  const Capabilities& caps() const override { return caps_; }

  Result<std::shared_ptr<Kernel>> compile(UOp root, const CompileOptions& options) override {
    if (!root) return Error{"no graph"};
    return std::move(compile_all(std::span<const UOp>(&root, 1), options).front());
  }

  // Cached kernels first; the rest lowered into one module (a listing is per kernel, so
  // with one each kernel gets its own).
  std::vector<Result<std::shared_ptr<Kernel>>> compile_all(std::span<const UOp> roots,
                                                           const CompileOptions& options) override {
    std::vector<Result<std::shared_ptr<Kernel>>> out(roots.size(), Error{"not compiled"});
    const uint64_t variant =
        (options.keep_listing ? 1 : 0) | (static_cast<uint64_t>(options.opt_level) << 1);
    std::vector<std::string> texts(roots.size());
    std::vector<size_t> todo;                        // indices of distinct graphs to compile
    std::vector<std::pair<size_t, size_t>> repeats;  // {i, j}: graph i is graph j (in todo)
    for (size_t i = 0; i < roots.size(); ++i) {
      if (!roots[i]) {
        out[i] = Error{"no graph"};
        continue;
      }
      texts[i] = print_graph(roots[i]);
      auto same =
          std::find_if(todo.begin(), todo.end(), [&](size_t j) { return texts[j] == texts[i]; });
      if (same != todo.end()) {
        repeats.emplace_back(i, *same);
        continue;
      }
      if (auto hit = cache_.find(texts[i], variant)) {
        out[i] = hit;
        continue;
      }
      todo.push_back(i);
    }
    auto compile_group = [&](std::span<const size_t> group) {
      std::vector<UOp> group_roots;
      for (size_t i : group) group_roots.push_back(roots[i]);
      auto made = build(group_roots, options);
      for (size_t k = 0; k < group.size(); ++k) {
        if (made[k]) cache_.insert(texts[group[k]], variant, made[k].value());
        out[group[k]] = std::move(made[k]);
      }
    };
    if (options.keep_listing) {
      for (size_t& i : todo) compile_group(std::span<const size_t>(&i, 1));
    } else if (!todo.empty()) {
      compile_group(todo);
    }
    for (auto [i, j] : repeats) out[i] = out[j];
    return out;
  }

  KernelCache* kernel_cache() override { return &cache_; }

  Result<DeviceDescription> device() override {
    DeviceDescription d;
    d.device = fmt::format("{} ({}, {} threads)", host_cpu_model(),
                           llvm::sys::getHostCPUName().str(), std::thread::hardware_concurrency());
    d.driver = fmt::format("LLVM {} ORC LLJIT", LLVM_VERSION_STRING);
    d.device_type = "cpu";
    return d;
  }

 private:
  // The "model name" line of /proc/cpuinfo (what a person recognizes), else LLVM's name.
  static std::string host_cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    for (std::string line; std::getline(f, line);)
      if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
        std::string v = line.substr(line.find(':') + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    return "host CPU";
  }

  // One module for all of `roots`: each lowered to its own entry function, the module
  // optimized and compiled once at the requested level. A graph the backend cannot run,
  // or cannot lower, gets its own error; a module the JIT refuses fails them all.
  std::vector<Result<std::shared_ptr<Kernel>>> build(std::span<const UOp> roots,
                                                     const CompileOptions& options) {
    std::vector<Result<std::shared_ptr<Kernel>>> out(roots.size(), Error{"not compiled"});
    Jit& j = jit(options.opt_level);
    if (!j.lljit) {
      for (auto& r : out) r = Error{"the LLVM JIT could not start: " + j.error};
      return out;
    }
    static const bool remarks_env = [] {
      const char* e = std::getenv("UOPFUZZ_CPU_REMARKS");
      return e && *e && std::string(e) != "0";
    }();
    const bool keep_listing = options.keep_listing;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    std::string listing, remarks;
    ctx->setDiagnosticHandler(
        std::make_unique<RemarkCollector>(keep_listing || remarks_env ? &remarks : nullptr));
    const uint64_t first = kernel_counter().fetch_add(roots.size());
    auto module = std::make_unique<llvm::Module>(fmt::format("uopfuzz_module_{}", first), *ctx);
    std::vector<std::optional<LoweredFunction>> lowered(roots.size());
    for (size_t i = 0; i < roots.size(); ++i) {
      if (std::string why = caps_.unsupported(roots[i]); !why.empty()) {
        out[i] = Error{"unsupported: " + why};
        continue;
      }
      auto f = lower_function(*module, roots[i], fmt::format("uopfuzz_kernel_{}", first + i));
      if (!f) {
        out[i] = f.error();
        continue;
      }
      lowered[i] = std::move(f.value());
    }
    if (std::none_of(lowered.begin(), lowered.end(), [](auto& l) { return l.has_value(); }))
      return out;
    llvm::Module& m = *module;
    std::lock_guard<std::mutex> l(jit_mutex());
    m.setDataLayout(j.lljit->getDataLayout());
    m.setTargetTriple(j.tm->getTargetTriple().str());
    const std::string cpu = j.tm->getTargetCPU().str(),
                      features = j.tm->getTargetFeatureString().str();
    for (llvm::Function& f : m) {
      if (f.isDeclaration()) continue;
      f.addFnAttr("target-cpu", cpu);
      f.addFnAttr("target-features", features);
      // 256-bit vectors at most: streaming kernels are memory-bound either way, and a
      // 512-bit loop over bytes carries 64-lane index vectors that cost more to compile
      // than the rest of the kernel.
      f.addFnAttr("prefer-vector-width", "256");
    }
    const std::string_view level = opt_level_name(options.opt_level);
    if (keep_listing) {
      llvm::raw_string_ostream os(listing);
      os << "; ---- LLVM IR as lowered ----\n" << m;
    }
    static const bool timing = std::getenv("UOPFUZZ_CPU_TIMING") != nullptr;
    auto count = [&] {
      size_t n = 0;
      for (auto& f : m)
        for (auto& bb : f) n += bb.size();
      return n;
    };
    const size_t lowered_size = timing ? count() : 0;
    auto t0 = std::chrono::steady_clock::now();
    optimize(m, *j.tm, options.opt_level);
    auto t1 = std::chrono::steady_clock::now();
    const size_t optimized_size = timing ? count() : 0;

    if (keep_listing) {
      llvm::raw_string_ostream os(listing);
      os << fmt::format("; ---- after the {} pipeline (what runs) ----\n", level) << m;
    }
    if (!remarks.empty()) {
      if (remarks_env) fmt::print(stderr, "{}", remarks);
      listing += "; ---- vectorizer remarks ----\n" + remarks;
    }
    auto compiled = std::make_shared<CompiledModule>();
    compiled->rt = j.lljit->getMainJITDylib().createResourceTracker();
    if (auto e = j.lljit->addIRModule(
            compiled->rt, llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)))) {
      const std::string why = "the JIT refused the module: " + to_string(std::move(e));
      for (size_t i = 0; i < roots.size(); ++i)
        if (lowered[i]) out[i] = Error{why};
      return out;
    }
    for (size_t i = 0; i < roots.size(); ++i) {
      if (!lowered[i]) continue;
      auto sym = j.lljit->lookup(lowered[i]->function);  // the first lookup compiles all
      if (!sym) {
        out[i] = Error{"JIT compilation failed: " + to_string(sym.takeError())};
        continue;
      }
      auto fn = reinterpret_cast<EntryFn>(static_cast<uintptr_t>(sym->getAddress()));
      out[i] = std::shared_ptr<Kernel>(
          std::make_shared<CpuKernel>(fn, compiled, std::move(*lowered[i]), listing));
    }
    if (timing)
      fmt::print(
          stderr,
          "cpu compile {}: {} kernels, {} -> {} instructions, optimize {:.2f} ms, codegen "
          "{:.2f} ms\n",
          level, roots.size(), lowered_size, optimized_size,
          std::chrono::duration<double, std::milli>(t1 - t0).count(),
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
    return out;
  }

  // The IR pipeline of each level. O0 runs none (the code generator takes the IR as
  // lowered); O1 and O2 are LLVM's, without unrolling or interleaving: generated kernels
  // are full of short constant-trip loops that unrolling multiplies into code the code
  // generator then spends most of the compile on, and streaming loops are memory-bound.
  // O3 is LLVM's O3 with everything on (unrolling, interleaving, the SLP vectorizer):
  // slower to compile, and the code paths the other levels never reach.
  static void optimize(llvm::Module& m, llvm::TargetMachine& tm, OptLevel level) {
    if (level == OptLevel::O0) return;
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    const bool all = level == OptLevel::O3;
    pto.LoopUnrolling = all;
    pto.LoopInterleaving = all;
    pto.LoopVectorization = std::getenv("UOPFUZZ_NOVEC") == nullptr;
    pto.SLPVectorization = all;
    llvm::PassBuilder pb(&tm, pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    const llvm::OptimizationLevel llvm_level = level == OptLevel::O1 ? llvm::OptimizationLevel::O1
                                               : level == OptLevel::O2
                                                   ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
    // The level's function simplification and optimization pipelines, without its
    // interprocedural part: kernels are independent functions, and the inliner, IPSCCP,
    // GlobalOpt and function-attribute inference find nothing to do there (they were a
    // third of the compile).
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(
        pb.buildFunctionSimplificationPipeline(llvm_level, llvm::ThinOrFullLTOPhase::None)));
    mpm.addPass(pb.buildModuleOptimizationPipeline(llvm_level));
    mpm.run(m, mam);
  }

  Capabilities caps_;
  KernelCache cache_{kCacheEntries};
};

}  // namespace

}  // namespace uopfuzz::backends::cpu

namespace uopfuzz::backends {

// Declared by the registry from backends.def.
std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<cpu::CpuBackend>();
}

}  // namespace uopfuzz::backends
