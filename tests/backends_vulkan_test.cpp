// The Vulkan backend (on lavapipe, installed by scripts/install-deps.sh) against the
// oracle: every ALU op on every dtype it verifies for, on edge values (0, -0, ±1,
// INT_MIN, INT_MAX, shift widths, NaN, ±inf, subnormals, the float16 limits), every cast
// and bitcast pair, every REDUCE op, every example, the cache, fork safety. The
// validation layer is on in this file's tests, and every test expects zero messages.
// Operand tuples on which the op is undefined (scalar_eval says so) are left out: a
// backend only runs UB-free kernels.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/vulkan/vulkan_backend.h"
#include "backends/registry.h"
#include "check/differential.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"

namespace uopfuzz {
namespace {

using namespace ir;

std::vector<Value> edge_values(DType dt) {
  std::vector<Value> v;
  if (dt.is_bool()) return {Value::of_int(0), Value::of_int(1)};
  if (dt.is_float()) {
    const double big = dt.bytes() == 2 ? 65504.0 : dt.bytes() == 4 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
    const double tiny = dt.bytes() == 2 ? std::ldexp(1.0, -24) : dt.bytes() == 4 ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min();
    for (double d : {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.75, -8.0, 100.0, 1e-3, 3e4, -3e4, 2147483648.0, -2147483649.0,
                     9.3e18, 1.9e19, big, -big, tiny, -tiny, double(INFINITY), -double(INFINITY), double(NAN), 255.5, -128.5})
      v.push_back(round_float(dt, d));
    return v;
  }
  const int bits = dt.bits();
  for (int64_t x : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-2}, int64_t{3}, int64_t{-7}, int64_t{7},
                    int64_t{bits - 1}, int64_t{bits}, int64_t{100}, int64_t{-100}})
    v.push_back(wrap_int(dt, x));
  if (dt.is_signed()) {
    v.push_back(Value::of_int(dt.int_min()));
    v.push_back(Value::of_int(dt.int_min() + 1));
    v.push_back(Value::of_int(dt.int_max()));
    v.push_back(Value::of_int(dt.int_max() - 1));
  } else {
    uint64_t max = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    v.push_back(Value::of_uint(max));
    v.push_back(Value::of_uint(max - 1));
    v.push_back(Value::of_uint(uint64_t{1} << (bits - 1)));
  }
  return v;
}

// index is not a buffer type: it travels as int64 and is cast at the edges.
DType storage_of(DType dt) { return dt.is_index() ? dtypes::Int64 : dt; }

struct Case {
  std::string name;
  Context ctx;
  UOp root;
  oracle::Inputs inputs;
};

// out[k] = op(a0[k], a1[k], ...) over a RANGE of n, operands from input buffers.
bool build(Case& c, Op op, const std::vector<DType>& in, DType out, const std::vector<std::vector<Value>>& cols) {
  Context& x = c.ctx;
  const int64_t n = static_cast<int64_t>(cols[0].size());
  if (n == 0) return false;
  UOp r = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)}, RangeArg{{0}, AxisType::Loop});
  std::vector<UOp> args;
  for (size_t i = 0; i < in.size(); ++i) {
    DType st = storage_of(in[i]);
    UOp p = x.make(Op::Param, st, {}, ParamArg{static_cast<int>(i + 1), n, false});
    UOp v = x.make(Op::Load, st, {x.make(Op::Index, st, {p, r})});
    if (in[i].is_index()) v = x.make(Op::Cast, dtypes::Index, {v});
    args.push_back(v);
    Buffer b(st, static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) b.set(static_cast<size_t>(k), cols[i][static_cast<size_t>(k)]);
    c.inputs.buffers[static_cast<int>(i + 1)] = std::move(b);
  }
  UOp v = x.make(op, out, args);
  DType so = storage_of(out);
  if (out.is_index()) v = x.make(Op::Cast, so, {v});
  UOp o = x.make(Op::Param, so, {}, ParamArg{0, n, true});
  UOp st = x.make(Op::Store, dtypes::Void, {x.make(Op::Index, so, {o, r}), v});
  c.root = x.make(Op::Sink, dtypes::Void, {x.make(Op::End, dtypes::Void, {st, r})});
  return verify(c.root).empty();
}

// Validation on before any device context exists in this process (each test runs in
// its own process under ctest; the environment's SetUp runs before every test).
class ValidationOn : public ::testing::Environment {
 public:
  void SetUp() override { backends::vulkan::set_validation(true); }
};
const auto* const g_validation_env = ::testing::AddGlobalTestEnvironment(new ValidationOn);

void expect_no_validation_messages() {
  EXPECT_EQ(backends::vulkan::validation_messages(), 0u) << [] {
    std::string s;
    for (const auto& m : backends::vulkan::validation_log()) s += m + "\n";
    return s;
  }();
}

// Runs on the oracle and on vulkan; outputs must agree bit for bit, except within the
// backend's declared tolerance for this graph (SEMANTICS.md: float64 EXP2/LOG2/SIN).
void expect_agree(Case& c) {
  auto ref = oracle::run(c.root, c.inputs);
  ASSERT_TRUE(ref.ok()) << c.name << ": " << ref.error().message;
  ASSERT_EQ(ref->status, oracle::RunStatus::Ok) << c.name << "\n" << print_graph(c.root);
  backends::Backend* be = backends::find_backend("vulkan");
  auto k = be->compile(c.root);
  ASSERT_TRUE(k.ok()) << c.name << ": " << k.error().message;
  const int ulps = be->tolerance_ulps(c.root);
  {
    const int threads = 1;
    auto got = k.value()->run(c.inputs);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.error().message;
    for (const auto& [slot, want] : ref->outputs) {
      const Buffer& g = got->outputs.at(slot);
      auto i = check::first_difference(want, &g, ulps);
      if (!i) continue;
      std::string operands;
      for (const auto& [s, b] : c.inputs.buffers) operands += " " + format_value(b.dtype(), b.get(*i));
      ADD_FAILURE() << c.name << " (" << threads << " threads): element " << *i << " operands" << operands << ": oracle "
                    << format_value(want.dtype(), want.get(*i)) << ", vulkan " << format_value(g.dtype(), g.get(*i));
      return;
    }
  }
  expect_no_validation_messages();
}

std::vector<DType> value_dtypes() {
  std::vector<DType> v;
  for (DType d : all_dtypes())
    if (!d.is_void()) v.push_back(d);
  return v;
}

TEST(VulkanBackend, EveryAluOpOnEveryDtypeAgreesWithTheOracle) {
  int tested = 0;
  for (int oi = 0; oi < kOpCount; ++oi) {
    const Op op = static_cast<Op>(oi);
    if (!op_in(op, Alu) || op == Op::Cast || op == Op::Bitcast) continue;
    const int arity = op_in(op, Unary) ? 1 : op_in(op, Binary) ? 2 : 3;
    for (DType dt : value_dtypes()) {
      std::vector<DType> in(static_cast<size_t>(arity), dt);
      if (op == Op::Where) in[0] = dtypes::Bool;
      const DType out = op_in(op, Comparison) ? dtypes::Bool : dt;
      // Every tuple of edge values on which the op is defined.
      std::vector<std::vector<Value>> cols(static_cast<size_t>(arity));
      auto e0 = edge_values(in[0]), e1 = edge_values(dt);
      for (size_t i = 0; i < e0.size(); ++i)
        for (size_t j = 0; j < (arity >= 2 ? e1.size() : 1); ++j)
          for (size_t l = 0; l < (arity == 3 ? 3 : 1); ++l) {
            Value args[3] = {e0[i], arity >= 2 ? e1[j] : Value{}, arity == 3 ? e1[(j + 5 * l + 1) % e1.size()] : Value{}};
            Value r;
            if (eval_alu(op, op == Op::Where ? dt : in[0], out, args, r) != EvalError::None) continue;
            // SEMANTICS.md, vulkan row: SIN reduces |x| >= 2^31 inexactly (no Payne-Hanek yet).
            if (op == Op::Sin && std::fabs(args[0].f) >= 2147483648.0 && !std::isinf(args[0].f)) continue;
            for (int a = 0; a < arity; ++a) cols[static_cast<size_t>(a)].push_back(args[a]);
          }
      Case c;
      c.name = fmt::format("{} {}", op_name(op), dt.name());
      if (!build(c, op, in, out, cols)) continue;
      ++tested;
      expect_agree(c);
    }
  }
  EXPECT_GE(tested, 150);  // 33 ops over 13 dtypes, where they verify
}

TEST(VulkanBackend, EveryCastAndBitcastAgreesWithTheOracle) {
  int tested = 0;
  for (Op op : {Op::Cast, Op::Bitcast})
    for (DType from : value_dtypes())
      for (DType to : value_dtypes()) {
        std::vector<std::vector<Value>> cols(1);
        for (Value v : edge_values(from)) {
          Value r;
          if (eval_alu(op, from, to, &v, r) == EvalError::None) cols[0].push_back(v);
        }
        Case c;
        c.name = fmt::format("{} {} -> {}", op_name(op), from.name(), to.name());
        if (!build(c, op, {from}, to, cols)) continue;
        ++tested;
        expect_agree(c);
      }
  EXPECT_GE(tested, 160);
}

TEST(VulkanBackend, EveryReduceOpAgreesWithTheOracle) {
  for (Op rop : {Op::Add, Op::Mul, Op::Max, Op::Min})
    for (DType dt : value_dtypes()) {
      if (dt.is_bool() || dt.is_index()) continue;
      Case c;
      c.name = fmt::format("REDUCE {} {}", op_name(rop), dt.name());
      Context& x = c.ctx;
      std::vector<Value> vals = edge_values(dt);
      if (rop == Op::Mul && dt.is_float()) vals.resize(8);  // keep products finite and interesting
      const int64_t n = static_cast<int64_t>(vals.size());
      // out[j] = REDUCE over r of a[(r + j) % n] for r < n - j: every suffix, so NaN,
      // -0 and the extremes meet every neighbour.
      UOp a = x.make(Op::Param, dt, {}, ParamArg{1, n, false});
      UOp j = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)}, RangeArg{{0}, AxisType::Loop});
      UOp r = x.make(Op::Range, dtypes::Index, {x.make(Op::Sub, dtypes::Index, {x.const_int(dtypes::Index, n), j})},
                     RangeArg{{1}, AxisType::Reduce});
      (void)r;
      // Range ends may not depend on ranges: use a full range and a gate instead.
      UOp rr = x.make(Op::Range, dtypes::Index, {x.const_int(dtypes::Index, n)}, RangeArg{{1}, AxisType::Reduce});
      UOp idx = x.make(Op::Add, dtypes::Index, {rr, j});
      UOp valid = x.make(Op::CmpLt, dtypes::Bool, {idx, x.const_int(dtypes::Index, n)});
      UOp gated = x.make(Op::Where, dtypes::Index, {valid, idx, x.invalid()});
      UOp ld = x.make(Op::Load, dt, {x.make(Op::Index, dt, {a, gated}), x.const_value(dt, reduce_identity(rop, dt))});
      UOp red = x.make(Op::Reduce, dt, {ld, rr}, ReduceArg{rop});
      UOp o = x.make(Op::Param, dt, {}, ParamArg{0, n, true});
      UOp st = x.make(Op::Store, dtypes::Void, {x.make(Op::Index, dt, {o, j}), red});
      c.root = x.make(Op::Sink, dtypes::Void, {x.make(Op::End, dtypes::Void, {st, j})});
      auto errors = verify(c.root);
      ASSERT_TRUE(errors.empty()) << c.name << ": " << errors[0].message;
      Buffer b(dt, static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) b.set(static_cast<size_t>(k), vals[static_cast<size_t>(k)]);
      c.inputs.buffers[1] = b;
      expect_agree(c);
    }
}

TEST(VulkanBackend, EveryExampleAgreesWithTheOracleOnThreeSeeds) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(UOPFUZZ_SOURCE_DIR) / "corpus/examples")) {
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    Case c;
    c.name = e.path().filename().string();
    auto k = parse_kernel(c.ctx, ss.str());
    ASSERT_TRUE(k.ok()) << c.name;
    c.root = k->kernel.root;
    for (uint64_t seed = 0; seed < 3; ++seed) {
      std::map<std::string, int64_t> vars(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
      c.inputs = oracle::make_inputs(c.root, seed, vars);
      auto ref = oracle::run(c.root, c.inputs);
      if (!ref.ok() || ref->status != oracle::RunStatus::Ok) continue;  // UB examples are the oracle's
      expect_agree(c);
      ++n;
    }
  }
  EXPECT_GT(n, 40);
}

TEST(VulkanBackend, CachesKernelsByGraph) {
  Context a, b;
  const char* text = "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n"
                     "%3 = CONST 7 : int32\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n";
  auto ka = parse_kernel(a, text);
  auto kb = parse_kernel(b, text);
  backends::Backend* vk = backends::find_backend("vulkan");
  auto before = backends::vulkan::cache_stats();
  auto c1 = vk->compile(ka->kernel.root);
  auto c2 = vk->compile(kb->kernel.root);  // another Context, the same graph
  ASSERT_TRUE(c1.ok() && c2.ok()) << (c1.ok() ? c2.error().message : c1.error().message);
  EXPECT_EQ(c1.value().get(), c2.value().get());
  EXPECT_EQ(backends::vulkan::cache_stats().hits, before.hits + 1);
  auto out = c2.value()->run({});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->outputs.at(0).get(0).i, 7);
  expect_no_validation_messages();
}

const char* kVarKernel = "%0 = PARAM slot=0 size=4 out : int32\n%1 = PARAM slot=1 size=4 in : int32\n"
                         "%2 = VAR name=n min=0 max=4 : index\n%3 = RANGE %2 axis=0 LOOP : index\n"
                         "%4 = INDEX %1 %3 : int32\n%5 = LOAD %4 : int32\n%6 = INDEX %0 %3 : int32\n"
                         "%7 = STORE %6 %5 : void\n%8 = END %7 %3 : void\n%9 = SINK %8 : void\n";

TEST(VulkanBackend, RejectsBadInputsAsValues) {
  Context x;
  auto k = parse_kernel(x, kVarKernel);
  ASSERT_TRUE(k.ok());
  auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
  ASSERT_TRUE(c.ok()) << c.error().message;
  oracle::Inputs in;
  EXPECT_FALSE(c.value()->run(in).ok());  // no buffer
  in.buffers[1] = Buffer(dtypes::Int32, 4);
  EXPECT_FALSE(c.value()->run(in).ok());  // no VAR
  in.vars["n"] = 9;
  EXPECT_FALSE(c.value()->run(in).ok());  // out of bounds VAR
  in.vars["n"] = 3;
  for (int i = 0; i < 4; ++i) in.buffers[1].set(static_cast<size_t>(i), Value::of_int(10 + i));
  auto out = c.value()->run(in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->outputs.at(0).get(2).i, 12);
  EXPECT_EQ(out->outputs.at(0).get(3).i, 0);  // past n: untouched zero
  expect_no_validation_messages();
}

TEST(VulkanBackend, ListingHasGlslAndSpirv) {
  Context x;
  auto k = parse_kernel(x, "%0 = PARAM slot=0 size=1 out : float32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : float32\n"
                           "%3 = CONST 1.5 : float32\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n");
  backends::CompileOptions co;
  co.keep_listing = true;
  auto c = backends::find_backend("vulkan")->compile(k->kernel.root, co);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_NE(c.value()->listing().find("#version 450"), std::string::npos);
  EXPECT_NE(c.value()->listing().find("OpEntryPoint"), std::string::npos);
}

TEST(VulkanBackend, TimesWithTimestampsAndWallClock) {
  Context x;
  auto k = parse_kernel(x, kVarKernel);
  auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
  ASSERT_TRUE(c.ok()) << c.error().message;
  oracle::Inputs in;
  in.buffers[1] = Buffer(dtypes::Int32, 4);
  in.vars["n"] = 4;
  auto t = c.value()->time(in, 5);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 5u);
  auto dev = c.value()->device_times();
  ASSERT_EQ(dev.size(), 5u);  // lavapipe has timestamps
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_GT((*t)[i], 0.0);
    EXPECT_GE(dev[i], 0.0);
  }
  expect_no_validation_messages();
}

TEST(VulkanBackend, ListsLavapipe) {
  auto devs = backends::vulkan::list_devices();
  ASSERT_TRUE(devs.ok()) << devs.error().message;
  bool lavapipe = false;
  for (const auto& d : *devs) lavapipe = lavapipe || d.name.find("llvmpipe") != std::string::npos;
  EXPECT_TRUE(lavapipe) << "lavapipe (mesa-vulkan-drivers) is not installed: run scripts/install-deps.sh";
}

TEST(VulkanBackend, ABadDeviceChoiceIsAnError) {
  backends::vulkan::set_device_choice("no-such-device-anywhere");
  pid_t pid = ::fork();  // the context is per process: try in a child, keep this one clean
  if (pid == 0) {
    Context x;
    auto k = parse_kernel(x, kVarKernel);
    auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
    ::_exit(!c.ok() && c.error().message.find("no device named") != std::string::npos ? 0 : 1);
  }
  backends::vulkan::set_device_choice("");
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(VulkanBackend, AForkedChildMakesItsOwnContext) {
  // The parent owns a context and a cached kernel; a forked child must not use them.
  Context x;
  auto k = parse_kernel(x, kVarKernel);
  oracle::Inputs in;
  in.buffers[1] = Buffer(dtypes::Int32, 4);
  in.buffers[1].set(1, Value::of_int(5));
  in.vars["n"] = 2;
  auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c.value()->run(in).ok());
  for (int child = 0; child < 2; ++child) {
    pid_t pid = ::fork();
    if (pid == 0) {
      auto again = backends::find_backend("vulkan")->compile(k->kernel.root);  // rebuilt: the cache is per process
      if (!again.ok() || again.value().get() == c.value().get()) ::_exit(2);
      auto out = again.value()->run(in);
      ::_exit(out.ok() && out->outputs.at(0).get(1).i == 5 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  EXPECT_TRUE(c.value()->run(in).ok());  // the parent's context still works
  expect_no_validation_messages();
}

TEST(VulkanBackend, ZeroValidationMessagesOverTheExamples) {
  ASSERT_TRUE(backends::vulkan::validation_messages() == 0);
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(fs::path(UOPFUZZ_SOURCE_DIR) / "corpus/examples")) {
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    Context x;
    auto k = parse_kernel(x, ss.str());
    ASSERT_TRUE(k.ok());
    auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
    ASSERT_TRUE(c.ok()) << c.error().message;
    std::map<std::string, int64_t> vars(k->kernel.header.vars.begin(), k->kernel.header.vars.end());
    auto in = oracle::make_inputs(k->kernel.root, 0, vars);
    auto ref = oracle::run(k->kernel.root, in);
    if (ref.ok() && ref->status == oracle::RunStatus::Ok) EXPECT_TRUE(c.value()->run(in).ok());
  }
  expect_no_validation_messages();
}

TEST(CheckKernel, ComparesOnVulkan) {
  Context x;
  auto k = parse_kernel(x, "%0 = PARAM slot=0 size=10 out : int32\n%1 = CONST 10 : index\n%2 = RANGE %1 axis=0 LOOP : index\n"
                           "%3 = INDEX %0 %2 : int32\n%4 = CAST %2 : int32\n%5 = CONST -3 : int32\n%6 = FLOORMOD %4 %5 : int32\n"
                           "%7 = STORE %3 %6 : void\n%8 = END %7 %2 : void\n%9 = SINK %8 : void\n");
  ASSERT_TRUE(k.ok());
  check::CheckOptions o;
  o.backends = {"oracle", "vulkan"};
  auto r = check::check_kernel(x, k->kernel, o);
  EXPECT_EQ(r.kind, check::FindingKind::None) << r.details;
  EXPECT_EQ(r.seeds_run, 3);
}

}  // namespace
}  // namespace uopfuzz
