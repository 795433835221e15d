// The corpus lines of a finding's header (@signature, @check, @check-backends,
// @check-latency, ...) read back as written, through the .uop printer and parser, for
// every kind of finding; a malformed line is an error at its own line.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/corpus_header.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace uopfuzz::fuzz {
namespace {

const char* kGraph =
    "%0 = PARAM slot=0 size=1 out : int32\n"
    "%1 = CONST 0 : index\n"
    "%2 = INDEX %0 %1 : int32\n"
    "%3 = CONST 7 : int32\n"
    "%4 = STORE %2 %3 : void\n"
    "%5 = SINK %4 : void\n";

/// `corpus` written into a case's header, printed as .uop text, parsed and read back.
CorpusHeader round_trip(const CorpusHeader& corpus) {
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, kGraph);
  EXPECT_TRUE(parsed.ok());
  ir::Kernel k = parsed->kernel;
  k.header.name = "finding-1";
  k.header.seed = 3;
  k.header.expect_given = true;
  k.header.extra = corpus_header_lines(corpus);
  const std::string text = ir::print_kernel(k);
  ir::Context ctx2;
  auto back = ir::parse_kernel(ctx2, text);
  EXPECT_TRUE(back.ok()) << text;
  if (!back.ok()) return {};
  auto read = read_corpus_header(back->kernel.header, text);
  EXPECT_TRUE(read.ok()) << (read.ok() ? "" : read.error().message) << "\n" << text;
  return read.ok() ? read.value() : CorpusHeader{};
}

TEST(FuzzCorpusHeader, OracleMismatchRoundTrips) {
  CorpusHeader h;
  h.signature = "mismatch/shrink_range/oracle";
  h.check_clean = true;
  h.found_by = "uopfuzz fuzz --time 10 --seed 1";
  h.graph_seed = 3415692675833625711ull;
  h.details = "seed 0: out[0][24] is -8 on the original but 0 on the rewrite";
  EXPECT_EQ(round_trip(h), h);
}

TEST(FuzzCorpusHeader, CompiledBackendFindingRoundTrips) {
  CorpusHeader h;
  h.signature = "mismatch/lift_add_ne/cpu";
  h.check_clean = true;
  h.check_backends = {"oracle", "cpu"};
  h.found_by = "uopfuzz fuzz --backends oracle,cpu";
  h.graph_seed = 15548176952909425907ull;
  h.details = "seed 0: out[1][2] is 0 on the original but -1 on the rewrite on cpu";
  EXPECT_EQ(round_trip(h), h);
}

// A cpu finding keeps the level it was compiled at, and its replay compiles there.
TEST(FuzzCorpusHeader, CpuOptLevelRoundTripsAndReplaysThere) {
  for (int i = 0; i < backends::kOptLevelCount; ++i) {
    CorpusHeader h;
    h.signature = "mismatch/outside-rules/cpu";
    h.check_clean = true;
    h.check_backends = {"oracle", "cpu"};
    h.cpu_opt = static_cast<backends::OptLevel>(i);
    EXPECT_EQ(round_trip(h), h);
    EXPECT_EQ(replay_check_options(h, ir::KernelHeader{}).opt_level, *h.cpu_opt);
  }
  // Without the line: the default level.
  EXPECT_EQ(replay_check_options(CorpusHeader{}, ir::KernelHeader{}).opt_level,
            backends::OptLevel::O2);
}

TEST(FuzzCorpusHeader, LatencyFindingRoundTrips) {
  CorpusHeader h;
  h.signature = "latency/merge_adjacent/cpu";
  h.check_clean = true;
  h.found_by = "uopfuzz selftest";
  h.graph_seed = 42;
  h.details = "2.5x slower";
  // Figures the 3-digit format keeps exactly.
  h.latency = CorpusLatency{"cpu", 2.5, 0.000125, 1.75, 0.002, true};
  EXPECT_EQ(round_trip(h), h);
  h.latency->confirmed = false;
  EXPECT_EQ(round_trip(h), h);
}

TEST(FuzzCorpusHeader, HandWrittenCaseRoundTrips) {
  CorpusHeader h;  // @check clean and @found-by only, as in hand-written findings
  h.check_clean = true;
  h.found_by = "a sweep of generator seeds";
  EXPECT_EQ(round_trip(h), h);
  EXPECT_EQ(round_trip(CorpusHeader{}), CorpusHeader{});
}

TEST(FuzzCorpusHeader, FreeTextBecomesOnePrintableLine) {
  CorpusHeader h;
  h.found_by = "fuzz # not a comment\nsecond line  ";
  h.details = "";
  CorpusHeader back = round_trip(h);
  EXPECT_EQ(back.found_by, "fuzz   not a comment second line");
  EXPECT_EQ(back.details, "");
}

TEST(FuzzCorpusHeader, ReplayCheckFollowsTheHeader) {
  CorpusHeader h;
  h.check_clean = true;
  h.check_backends = {"oracle", "cpu"};
  ir::KernelHeader k;
  k.seed = 9;
  k.vars = {{"n", 4}};
  check::CheckOptions o = replay_check_options(h, k);
  EXPECT_EQ(o.base_seed, 9u);
  EXPECT_EQ(o.vars.at("n"), 4);
  EXPECT_EQ(o.backends, h.check_backends);
  EXPECT_FALSE(o.latency.has_value());
  h.check_backends.clear();
  h.latency = CorpusLatency{"cpu"};
  o = replay_check_options(h, k);
  EXPECT_EQ(o.backends, std::vector<std::string>{"oracle"});
  ASSERT_TRUE(o.latency.has_value());
  EXPECT_EQ(o.latency->backend, "cpu");
  EXPECT_FALSE(o.simplify.bugs.any());
}

// The spellings an external simplifier was asked for come back, and the replay asks again.
TEST(FuzzCorpusHeader, FormsRoundTripAndReplayAsksForThem) {
  CorpusHeader h;
  h.signature = "mismatch/uop-symbolic.py-80/tinygrad";
  h.simplifier = "tinygrad";
  h.forms = {"gate-sink", "gate-flip"};
  EXPECT_EQ(round_trip(h), h);
  ir::KernelHeader k;
  k.extra = corpus_header_lines(h);
  EXPECT_EQ(recorded_forms(k), h.forms);
  EXPECT_EQ(replay_check_options(h, k).simplify.forms, h.forms);
  EXPECT_TRUE(recorded_forms(ir::KernelHeader{}).empty());
}

/// The error of reading `header_lines` above kGraph: its message and line.
Error read_error(const std::string& header_lines) {
  const std::string text = "@name bad\n" + header_lines + kGraph;
  ir::Context ctx;
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed.ok()) return {};
  auto read = read_corpus_header(parsed->kernel.header, text);
  EXPECT_FALSE(read.ok()) << header_lines;
  return read.ok() ? Error{} : read.error();
}

TEST(FuzzCorpusHeader, MalformedLinesAreErrorsAtTheirLine) {
  Error e = read_error("@signature x\n@check dirty\n");
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_NE(e.message.find("@check must be 'clean'"), std::string::npos) << e.message;

  e = read_error("@check clean\n@check-backends oracle,nope\n");
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_NE(e.message.find("'nope' is not one"), std::string::npos) << e.message;

  e = read_error("@check-backends oracle,,cpu\n");
  EXPECT_EQ(e.loc.line, 2);
  EXPECT_NE(e.message.find("'' is not one"), std::string::npos) << e.message;

  e = read_error("@check clean\n@found-by x\n@check-latency oracle\n");
  EXPECT_EQ(e.loc.line, 4);
  EXPECT_NE(e.message.find("not a compiled backend"), std::string::npos) << e.message;

  e = read_error("@graph-seed 12x\n");
  EXPECT_EQ(e.loc.line, 2);
  EXPECT_NE(e.message.find("@graph-seed must be an unsigned integer"), std::string::npos);

  e = read_error("@check-latency cpu\n@latency-ratio fast\n");
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_NE(e.message.find("@latency-ratio must be a number"), std::string::npos);

  e = read_error("@check-latency cpu\n@latency-confirmed maybe\n");
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_NE(e.message.find("yes or no"), std::string::npos);

  e = read_error("@check clean\n@cpu-opt O4\n");
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_NE(e.message.find("@cpu-opt must be O0, O1, O2 or O3, not 'O4'"), std::string::npos)
      << e.message;

  e = read_error("@check clean\n@latency-p 0.01\n");
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_NE(e.message.find("without @check-latency"), std::string::npos) << e.message;
}

TEST(FuzzCorpusHeader, ErrorWithoutTheTextHasNoLine) {
  ir::KernelHeader k;
  k.extra = {{"check", "later"}};
  auto read = read_corpus_header(k);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().loc.line, 0);
}

}  // namespace
}  // namespace uopfuzz::fuzz
