// The conformance tables (tests/backend_conformance.h) on every backend the registry
// names: a new backend runs them by its backends.def row alone. A backend whose device
// cannot be opened here skips them, saying why. A backend's own test file may register
// settings for it (threads, exclusions, a check after each case).

#include <gtest/gtest.h>

#include <string>

#include "backends/registry.h"
#include "tests/backend_conformance.h"

namespace uopfuzz {
namespace {

class BackendConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    backend_ = backends::find_backend(GetParam());
    ASSERT_NE(backend_, nullptr) << GetParam();
    auto device = backend_->device();
    if (!device)
      GTEST_SKIP() << GetParam() << ": its device cannot be opened: " << device.error().message;
    conf_ = test_support::conformance_for(GetParam());
  }

  backends::Backend* backend_ = nullptr;
  test_support::Conformance conf_;
};

TEST_P(BackendConformance, EveryAluOpOnEveryDtypeAgreesWithTheOracle) {
  test_support::every_alu_op_agrees(conf_);
}

TEST_P(BackendConformance, SinOfLargeArgumentsAgreesWithTheOracle) {
  test_support::sin_of_large_arguments_agrees(conf_);
}

TEST_P(BackendConformance, RoundingAtEveryMagnitudeAgreesWithTheOracle) {
  test_support::rounding_at_every_magnitude_agrees(conf_);
}

TEST_P(BackendConformance, EveryCastAndBitcastAgreesWithTheOracle) {
  test_support::every_cast_agrees(conf_);
}

TEST_P(BackendConformance, IntegerFloatRoundTripsAgreeWithTheOracle) {
  test_support::integer_float_round_trips_agree(conf_);
}

TEST_P(BackendConformance, EveryReduceOpAgreesWithTheOracle) {
  test_support::every_reduce_agrees(conf_);
}

TEST_P(BackendConformance, EveryExampleAgreesWithTheOracleOnThreeSeeds) {
  test_support::every_example_agrees(conf_);
}

TEST_P(BackendConformance, LargeLoopNestsAgreeOrAreRefusedWithADeviceLimit) {
  const int ran = test_support::large_kernels_agree(conf_);
  EXPECT_GE(ran, 1) << GetParam() << " refused every large kernel";
}

TEST_P(BackendConformance, CachesKernelsByGraph) {
  if (!backend_->kernel_cache()) GTEST_SKIP() << GetParam() << " keeps no compiled-kernel cache";
  test_support::caches_kernels_by_graph(conf_);
}

INSTANTIATE_TEST_SUITE_P(Registered, BackendConformance,
                         ::testing::ValuesIn(backends::backend_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace uopfuzz
