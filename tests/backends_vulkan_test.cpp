// The Vulkan backend (on lavapipe, installed by scripts/install-deps.sh) beyond the
// conformance suite (tests/backends_conformance_test.cpp): bad inputs, the listing,
// timing, device choice, fork safety. The validation layer is on in every test of this
// binary (the environment below), and each test here and each conformance case on
// vulkan expects zero messages.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "backends/vulkan/vulkan_backend.h"
#include "check/differential.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/scalar_eval.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "tests/backend_conformance.h"

namespace uopfuzz {
namespace {

using namespace ir;

using test_support::Case;

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

// The conformance suite (tests/backends_conformance_test.cpp) expects zero validation
// messages after each case here.
const bool g_vulkan_conformance =
    test_support::register_conformance({"vulkan", {1}, {}, expect_no_validation_messages});

const char* kVarKernel =
    "%0 = PARAM slot=0 size=4 out : int32\n%1 = PARAM slot=1 size=4 in : int32\n"
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

// Found by a campaign (corpus/findings/vulkan_zero_sign_through_int16.uop): lavapipe folds
// a signed round trip float -> int -> float into a truncation, so -0.0 came back as -0.0
// where the integer 0 converts to +0.0, and a BITCAST made the sign an integer bit that
// the zero-sign tolerance cannot excuse. The value is read from a buffer, so no compiler
// folds it as a constant; every signed integer type and every float type on the way back,
// and the other values near zero and the integer limits convert as on the oracle.
TEST(VulkanBackend, SignedIntegerRoundTripsOfMinusZeroComeBackPlusZero) {
  const std::vector<double> values{-0.0, 0.0, -0.75, 0.75, -1.0, 1.0, -100.5, 127.0, -128.0};
  for (const char* mid : {"int8", "int16", "int32", "int64", "index"}) {
    for (const char* back : {"float16", "float32", "float64"}) {
      const std::string bits = std::string(back) == "float16"   ? "int16"
                               : std::string(back) == "float32" ? "int32"
                                                                : "int64";
      Context x;
      auto k = parse_kernel(
          x,
          fmt::format("%0 = PARAM slot=0 size=9 out : {2}\n%1 = PARAM slot=1 size=9 in : "
                      "float32\n%2 = CONST 9 : index\n%3 = RANGE %2 axis=0 LOOP : index\n"
                      "%4 = INDEX %1 %3 : float32\n%5 = LOAD %4 : float32\n%6 = CAST %5 : {0}\n"
                      "%7 = CAST %6 : {1}\n%8 = BITCAST %7 : {2}\n%9 = INDEX %0 %3 : {2}\n"
                      "%10 = STORE %9 %8 : void\n%11 = END %10 %3 : void\n%12 = SINK %11 : void\n",
                      mid, back, bits));
      ASSERT_TRUE(k.ok()) << k.error().message;
      oracle::Inputs in;
      in.buffers[1] = Buffer(dtypes::Float32, values.size());
      for (size_t i = 0; i < values.size(); ++i) in.buffers[1].set(i, Value::of_float(values[i]));
      auto want = oracle::run(k->kernel.root, in);
      ASSERT_TRUE(want.ok());
      ASSERT_EQ(want->status, oracle::RunStatus::Ok) << mid;
      auto c = backends::find_backend("vulkan")->compile(k->kernel.root);
      ASSERT_TRUE(c.ok()) << c.error().message;
      auto got = c.value()->run(in);
      ASSERT_TRUE(got.ok()) << got.error().message;
      for (size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(got->outputs.at(0).get(i).i, want->outputs.at(0).get(i).i)
            << values[i] << " through " << mid << " back to " << back;
    }
  }
  expect_no_validation_messages();
}

TEST(VulkanBackend, ListingHasGlslAndSpirv) {
  Context x;
  auto k = parse_kernel(
      x,
      "%0 = PARAM slot=0 size=1 out : float32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : float32\n"
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
  EXPECT_TRUE(lavapipe)
      << "lavapipe (mesa-vulkan-drivers) is not installed: run scripts/install-deps.sh";
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
      auto again = backends::find_backend("vulkan")->compile(
          k->kernel.root);  // rebuilt: the cache is per process
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
    if (e.path().extension() != ".uop") continue;  // tensor/ holds tensor programs
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
    if (ref.ok() && ref->status == oracle::RunStatus::Ok) {
      EXPECT_TRUE(c.value()->run(in).ok());
    }
  }
  expect_no_validation_messages();
}

TEST(CheckKernel, ComparesOnVulkan) {
  Context x;
  auto k = parse_kernel(x,
                        "%0 = PARAM slot=0 size=10 out : int32\n%1 = CONST 10 : index\n%2 = RANGE "
                        "%1 axis=0 LOOP : index\n"
                        "%3 = INDEX %0 %2 : int32\n%4 = CAST %2 : int32\n%5 = CONST -3 : int32\n%6 "
                        "= FLOORMOD %4 %5 : int32\n"
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
