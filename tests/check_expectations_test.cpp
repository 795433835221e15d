// A case's recorded expectations (@expect, @output) are met or not, output by output, on
// the oracle and on a compiled backend, within the backend's declared tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "check/expectations.h"
#include "ir/parser.h"

namespace uopfuzz::check {
namespace {

// sum over r < 10 of int(r) = 45, with the header given.
std::string arange_sum(const std::string& header) {
  return header +
         "%0 = PARAM slot=0 size=1 out : int32\n"
         "%1 = CONST 0 : index\n"
         "%2 = INDEX %0 %1 : int32\n"
         "%3 = CONST 10 : index\n"
         "%4 = RANGE %3 axis=0 REDUCE : index\n"
         "%5 = CAST %4 : int32\n"
         "%6 = REDUCE %5 %4 op=ADD : int32\n"
         "%7 = STORE %2 %6 : void\n"
         "%8 = SINK %7 : void\n";
}

// out[r] = 12 CDIV (3 - int(r)) over r < 4: divides by zero at r = 3.
std::string divides_by_zero(const std::string& header) {
  return header +
         "%0 = PARAM slot=0 size=4 out : int32\n"
         "%1 = CONST 4 : index\n"
         "%2 = RANGE %1 axis=0 LOOP : index\n"
         "%3 = INDEX %0 %2 : int32\n"
         "%4 = CONST 12 : int32\n"
         "%5 = CONST 3 : int32\n"
         "%6 = CAST %2 : int32\n"
         "%7 = SUB %5 %6 : int32\n"
         "%8 = CDIV %4 %7 : int32\n"
         "%9 = STORE %3 %8 : void\n"
         "%10 = END %9 %2 : void\n"
         "%11 = SINK %10 : void\n";
}

struct Case {
  ir::Context ctx;
  ir::Kernel kernel;
  explicit Case(const std::string& text) {
    auto parsed = ir::parse_kernel(ctx, text);
    EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
    if (parsed.ok()) kernel = parsed->kernel;
  }
};

CaseRun run_ok(Case& c, const CaseRunOptions& o = {}) {
  auto r = run_case(c.ctx, c.kernel, o);
  if (auto* e = std::get_if<CaseError>(&r)) ADD_FAILURE() << e->message;
  return std::get_if<CaseRun>(&r) ? std::get<CaseRun>(r) : CaseRun{};
}

TEST(CheckExpectations, RecordedOutputMetOnTheOracle) {
  Case c(arange_sum("@expect ok\n@output 0 [45]\n"));
  CaseRun r = run_ok(c);
  EXPECT_EQ(r.run.status, oracle::RunStatus::Ok);
  EXPECT_TRUE(r.verdict.mismatches.empty());
  EXPECT_TRUE(r.verdict.pass);
}

TEST(CheckExpectations, WrongRecordedOutputIsAMismatchAtItsSlotAndIndex) {
  Case c(arange_sum("@expect ok\n@output 0 [44]\n"));
  CaseRun r = run_ok(c);
  ASSERT_EQ(r.verdict.mismatches.size(), 1u);
  EXPECT_EQ(r.verdict.mismatches[0].slot, 0);
  EXPECT_EQ(r.verdict.mismatches[0].index, 0u);
  EXPECT_EQ(r.verdict.mismatches[0].expected, "44");
  EXPECT_EQ(r.verdict.mismatches[0].got, "45");
  EXPECT_FALSE(r.verdict.pass);
}

TEST(CheckExpectations, OutcomeMustMatchExpect) {
  Case clean_expected_ub(arange_sum("@expect ub\n"));
  EXPECT_FALSE(run_ok(clean_expected_ub).verdict.pass);
  Case ub_expected_ub(divides_by_zero("@expect ub\n"));
  CaseRun ub = run_ok(ub_expected_ub);
  EXPECT_EQ(ub.run.status, oracle::RunStatus::Ub);
  EXPECT_TRUE(ub.verdict.pass);
  Case ub_expected_ok(divides_by_zero("@expect ok\n"));
  EXPECT_FALSE(run_ok(ub_expected_ok).verdict.pass);
}

TEST(CheckExpectations, StepLimitNeverPasses) {
  Case c(arange_sum("@expect ok\n"));
  CaseRunOptions o;
  o.max_steps = 3;
  CaseRun r = run_ok(c, o);
  EXPECT_EQ(r.run.status, oracle::RunStatus::StepLimit);
  EXPECT_FALSE(r.verdict.pass);
}

TEST(CheckExpectations, CompiledBackendRunsWhatTheOracleFoundFreeOfUb) {
  Case good(arange_sum("@expect ok\n@output 0 [45]\n"));
  CaseRunOptions cpu;
  cpu.backend = "cpu";
  CaseRun r = run_ok(good, cpu);
  EXPECT_FALSE(r.backend_skipped);
  EXPECT_TRUE(r.verdict.pass);
  Case wrong(arange_sum("@expect ok\n@output 0 [46]\n"));
  EXPECT_EQ(run_ok(wrong, cpu).verdict.mismatches.size(), 1u);

  // With UB the backend does not run; asked for a listing, it still compiles.
  Case ub(divides_by_zero("@expect ub\n"));
  cpu.keep_listing = true;
  CaseRun skipped = run_ok(ub, cpu);
  EXPECT_TRUE(skipped.backend_skipped);
  EXPECT_FALSE(skipped.listing.empty());
  EXPECT_TRUE(skipped.verdict.pass);
}

TEST(CheckExpectations, UnknownBackendIsBadInput) {
  Case c(arange_sum("@expect ok\n"));
  CaseRunOptions o;
  o.backend = "no-such-backend";
  auto r = run_case(c.ctx, c.kernel, o);
  ASSERT_TRUE(std::holds_alternative<CaseError>(r));
  EXPECT_FALSE(std::get<CaseError>(r).finding);
}

TEST(CheckExpectations, FloatOutputsAgreeWithinTheDeclaredUlps) {
  Case c(arange_sum("@expect ok\n"));
  c.kernel.header.outputs.push_back({0, {ir::Value::of_float(1.0)}});
  oracle::RunOutput run;
  ir::Buffer got(ir::ScalarType::Float32, 1);
  got.set(0, ir::Value::of_float(std::nextafter(1.0f, 2.0f)));  // one ULP above
  run.outputs.emplace(0, got);
  EXPECT_FALSE(check_expectations(c.kernel.header, run).pass);  // bit for bit by default
  OutputTolerance one_ulp;
  one_ulp.declared = Tolerance(1);
  EXPECT_TRUE(check_expectations(c.kernel.header, run, one_ulp).pass);
  got.set(0, ir::Value::of_float(std::nextafter(std::nextafter(1.0f, 2.0f), 2.0f)));
  run.outputs[0] = got;
  EXPECT_FALSE(check_expectations(c.kernel.header, run, one_ulp).pass);
}

}  // namespace
}  // namespace uopfuzz::check
