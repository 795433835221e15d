// The simplifier under test is a value: fake in-process simplifiers, each wrong in one known
// way, go through the check, the signature, the reducer, a campaign and the corpus.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "check/dedup.h"
#include "check/differential.h"
#include "check/program_check.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus_header.h"
#include "ir/graph.h"
#include "ir/parser.h"
#include "reduce/predicates.h"

namespace uopfuzz {
namespace {

// out[0] = 3, and an unused input: a constant the faulty fake changes, something to reduce.
constexpr const char* kStoresThree = R"(@name stores_three
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = PARAM slot=1 size=4 in : int32
%4 = INDEX %3 %1 : int32
%5 = LOAD %4 : int32
%6 = CONST 0 : int32
%7 = MUL %5 %6 : int32
%8 = CONST 3 : int32
%9 = ADD %8 %7 : int32
%10 = STORE %2 %9 : void
%11 = SINK %10 : void
)";

// The built-in rewrite, then every int32 CONST 3 made a 4: a wrong rewrite whose one "rule"
// (three_to_four) it reports hitting and can switch off, like a simplifier with the disable
// capability and nothing else.
class ThreeToFour final : public sut::Simplifier {
 public:
  std::string name() const override { return "fake"; }
  std::string version() override { return "fake-1"; }
  sut::Capabilities capabilities() override { return {false, true, false, false, false}; }
  sut::Outcome simplify(ir::Context& ctx, ir::UOp root,
                        const simplifier::SimplifyOptions& options) override {
    ++calls;
    sut::Outcome out = sut::simplify_with(nullptr, ctx, root, options);
    if (options.disabled.count("three_to_four")) return out;
    std::unordered_map<ir::UOp, ir::UOp, ir::UOpHash> made;
    uint64_t changed = 0;
    for (ir::UOp u : ir::toposort(out.result.root)) {
      if (u.is_const() && u.dtype() == ir::dtypes::Int32 && u.const_value().i == 3) {
        made[u] = ctx.const_int(ir::dtypes::Int32, 4);
        ++changed;
        continue;
      }
      std::vector<ir::UOp> src;
      for (ir::UOp s : u.src()) src.push_back(made.at(s));
      made[u] = ctx.make(u.op(), u.dtype(), src, u.arg(), u.shape());
    }
    out.result.root = made.at(out.result.root);
    out.result.hits.clear();
    if (changed) out.result.hits["three_to_four"] = changed;
    return out;
  }
  int calls = 0;
};

// Gives no rewrite: the failure it is made with, on every kernel.
class Failing final : public sut::Simplifier {
 public:
  explicit Failing(sut::Failure failure) : failure_(std::move(failure)) {}
  std::string name() const override { return "fake"; }
  std::string version() override { return "fake-1"; }
  sut::Capabilities capabilities() override { return {}; }
  sut::Outcome simplify(ir::Context&, ir::UOp, const simplifier::SimplifyOptions&) override {
    ++calls;
    sut::Outcome out;
    out.failure = failure_;
    out.child_seconds = 0.25;
    out.protocol_seconds = 0.125;
    return out;
  }
  int calls = 0;

 private:
  sut::Failure failure_;
};

ir::Kernel parse(ir::Context& ctx, const std::string& text) {
  auto k = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(k.ok()) << k.error().message;
  return k->kernel;
}

check::CheckOptions with(std::shared_ptr<sut::Simplifier> s) {
  check::CheckOptions o;
  o.simplifier = std::move(s);
  return o;
}

fuzz::GraphSource always(std::string text) {
  return [text](ir::Context& ctx, uint64_t) { return ir::parse_kernel(ctx, text)->kernel; };
}

std::filesystem::path temp_dir(const std::string& what) {
  auto dir = std::filesystem::temp_directory_path() /
             ("uopfuzz_sut_" + what + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(SutPlumbing, AWrongRewriteIsAMismatchSignedByItsOwnRule) {
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kStoresThree);
  auto fake = std::make_shared<ThreeToFour>();
  const check::CheckOptions o = with(fake);
  check::CheckResult r = check::check_kernel(ctx, k, o);
  ASSERT_EQ(r.kind, check::FindingKind::Mismatch) << r.details;
  ASSERT_TRUE(r.mismatch);
  EXPECT_EQ(r.mismatch->expected, "3");
  EXPECT_EQ(r.mismatch->got, "4");
  // No stop_after: the rules it reported are bisected, by its own names.
  EXPECT_EQ(check::signature_of(ctx, k, o, r, r.backend).text(), "mismatch/three_to_four/oracle");
  // The built-in simplifier gets this kernel right: the finding is the fake's.
  EXPECT_EQ(check::check_kernel(ctx, k).kind, check::FindingKind::None);
}

TEST(SutPlumbing, TheReducerKeepsTheSignatureWithTheSameSimplifier) {
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kStoresThree);
  auto fake = std::make_shared<ThreeToFour>();
  const check::CheckOptions o = with(fake);
  const check::CheckResult r = check::check_kernel(ctx, k, o);
  const check::Signature sig = check::signature_of(ctx, k, o, r, r.backend);
  const int before = fake->calls;
  reduce::ReduceResult small = reduce::reduce(ctx, k, reduce::keeps_signature(o, sig));
  EXPECT_TRUE(small.start_interesting);
  // The unused load and the multiplication by 0 go; the store of 3 cannot.
  EXPECT_LT(small.final_nodes, small.start_nodes);
  EXPECT_GT(fake->calls, before);  // every candidate asked the one shared object
  EXPECT_EQ(check::check_kernel(ctx, small.kernel, o).kind, check::FindingKind::Mismatch);
}

TEST(SutPlumbing, UnsupportedIsCountedByReasonAndNeverAFinding) {
  ir::Context ctx;
  const ir::Kernel k = parse(ctx, kStoresThree);
  auto fake = std::make_shared<Failing>(
      sut::Failure{sut::FailureKind::Unsupported, "no LOAD here", "", ""});
  check::CheckResult r = check::check_kernel(ctx, k, with(fake));
  EXPECT_EQ(r.kind, check::FindingKind::None);
  ASSERT_TRUE(r.simplifier_failure);
  EXPECT_EQ(r.simplifier_failure->reason, "no LOAD here");

  for (bool isolate : {false, true}) {
    fuzz::CampaignOptions o;
    o.max_graphs = 6;
    o.check.simplifier = fake;
    o.isolate = isolate;
    o.jobs = isolate ? 2 : 1;
    o.corpus_dir = temp_dir("unsupported").string();
    fuzz::CampaignResult c = fuzz::run_campaign(o, always(kStoresThree));
    EXPECT_EQ(c.totals.graphs, 6u) << "isolate " << isolate;
    EXPECT_EQ(c.totals.findings, 0u);
    EXPECT_TRUE(c.new_findings.empty());
    EXPECT_EQ(c.totals.unsupported, (std::map<std::string, uint64_t>{{"no LOAD here", 6}}));
    EXPECT_DOUBLE_EQ(c.totals.child_seconds, 6 * 0.25);
    EXPECT_DOUBLE_EQ(c.totals.protocol_seconds, 6 * 0.125);
    EXPECT_EQ(c.totals.simplifier, "fake");
    EXPECT_EQ(c.totals.simplifier_version, "fake-1");
    EXPECT_TRUE(fuzz::rules_below(c.totals, 100).empty());  // built-in coverage does not apply
    EXPECT_FALSE(std::filesystem::exists(o.corpus_dir + "/fake"));
  }
}

TEST(SutPlumbing, FailuresAreFindingsOfTheirOwnKindAndSignature) {
  struct Case {
    sut::Failure failure;
    check::FindingKind kind;
    std::string signature;
  };
  const std::vector<Case> cases = {
      {{sut::FailureKind::Crash, "ZeroDivisionError", "tinygrad/uop/symbolic.py:42", ""},
       check::FindingKind::Crash,
       "crash/external@tinygrad/uop/symbolic.py:42/fake"},
      {{sut::FailureKind::Crash, "exited with status 3", "", ""},
       check::FindingKind::Crash,
       "crash/external/fake"},
      {{sut::FailureKind::Hang, "no answer in 10 s", "", ""},
       check::FindingKind::Timeout,
       "timeout/external/fake"},
      {{sut::FailureKind::Protocol, "frame 'hits' without a length", "", ""},
       check::FindingKind::Protocol,
       "protocol/external/fake"},
  };
  for (const Case& c : cases) {
    ir::Context ctx;
    const ir::Kernel k = parse(ctx, kStoresThree);
    const check::CheckOptions o = with(std::make_shared<Failing>(c.failure));
    check::CheckResult r = check::check_kernel(ctx, k, o);
    EXPECT_EQ(r.kind, c.kind) << c.signature;
    EXPECT_EQ(r.backend, "fake");
    EXPECT_EQ(check::signature_of(ctx, k, o, r, r.backend).text(), c.signature);
  }
}

TEST(SutPlumbing, ACampaignSignsReducesAndKeepsAFindingUnderTheSimplifiersFolder) {
  const auto dir = temp_dir("mismatch");
  fuzz::CampaignOptions o;
  o.max_graphs = 3;
  o.check.simplifier = std::make_shared<ThreeToFour>();
  o.corpus_dir = dir.string();
  fuzz::CampaignResult c = fuzz::run_campaign(o, always(kStoresThree), fuzz::reducer_shrinker(5));
  ASSERT_EQ(c.new_findings.size(), 1u);
  const fuzz::NewFinding& f = c.new_findings[0];
  EXPECT_EQ(f.signature.text(), "mismatch/three_to_four/oracle");
  EXPECT_EQ(c.totals.findings, 3u);
  EXPECT_EQ(c.totals.rule_hits, (std::map<std::string, uint64_t>{{"three_to_four", 3}}));
  EXPECT_LT(f.nodes_reduced, f.nodes_found);
  ASSERT_FALSE(f.path.empty()) << f.write_error;
  EXPECT_EQ(std::filesystem::path(f.path).parent_path(), dir / "fake");
  ir::Context ctx;
  std::ifstream in(f.path);
  std::stringstream text;
  text << in.rdbuf();
  auto kept = ir::parse_kernel(ctx, text.str());
  ASSERT_TRUE(kept.ok());
  auto header = fuzz::read_corpus_header(kept->kernel.header, text.str());
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->simplifier, "fake");
  EXPECT_EQ(header->simplifier_version, "fake-1");
  EXPECT_EQ(header->signature, "mismatch/three_to_four/oracle");
  std::filesystem::remove_all(dir);
}

TEST(SutPlumbing, ACrashingSimplifiersFindingIsReducedWithoutARestartPerCandidate) {
  auto fake = std::make_shared<Failing>(
      sut::Failure{sut::FailureKind::Crash, "AssertionError", "ops.py:7", "Traceback ..."});
  fuzz::CampaignOptions o;
  o.max_graphs = 2;
  o.check.simplifier = fake;
  fuzz::CampaignResult c = fuzz::run_campaign(o, always(kStoresThree), fuzz::reducer_shrinker(5));
  ASSERT_EQ(c.new_findings.size(), 1u);
  EXPECT_EQ(c.new_findings[0].signature.text(), "crash/external@ops.py:7/fake");
  EXPECT_LT(c.new_findings[0].nodes_reduced, c.new_findings[0].nodes_found);
  EXPECT_GT(fake->calls, 2);  // the reducer's candidates went to the same object
}

TEST(SutPlumbing, AProgramWithADeclinedKernelIsUnsupported) {
  std::filesystem::path tensor = std::string(UOPFUZZ_SOURCE_DIR) + "/corpus/examples/tensor";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(tensor))
    if (e.path().extension() == ".uop") files.push_back(e.path());
  ASSERT_FALSE(files.empty());
  std::sort(files.begin(), files.end());
  std::ifstream in(files[0]);
  std::stringstream text;
  text << in.rdbuf();
  ir::Context ctx;
  const ir::Kernel program = parse(ctx, text.str());
  check::ProgramCheckOptions po;
  ASSERT_EQ(check::check_program(ctx, program, po).unsupported, std::nullopt) << files[0];
  auto fake = std::make_shared<Failing>(
      sut::Failure{sut::FailureKind::Unsupported, "no REDUCE here", "", ""});
  po.check.simplifier = fake;
  check::ProgramCheckResult r = check::check_program(ctx, program, po);
  EXPECT_EQ(r.kind, check::FindingKind::None);
  ASSERT_TRUE(r.unsupported);
  EXPECT_NE(r.unsupported->find("no REDUCE here"), std::string::npos) << *r.unsupported;
  EXPECT_EQ(fake->calls, 1);  // the first kernel declined: the rest are not asked
}

TEST(SutPlumbing, CorpusHeaderRoundTripsTheSimplifier) {
  fuzz::CorpusHeader h;
  h.signature = "mismatch/three_to_four/oracle";
  h.check_clean = true;
  h.found_by = "uopfuzz fuzz --simplifier tinygrad";
  h.simplifier = "tinygrad";
  h.simplifier_version = "a9069c1";
  const auto lines = fuzz::corpus_header_lines(h);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      std::pair<std::string, std::string>{"simplifier", "tinygrad"}),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      std::pair<std::string, std::string>{"simplifier-version", "a9069c1"}),
            lines.end());
  ir::KernelHeader kh;
  kh.extra = lines;
  auto back = fuzz::read_corpus_header(kh);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, h);
  // The built-in simplifier's cases have no such line (they read as they always have).
  h.simplifier.clear();
  h.simplifier_version.clear();
  for (const auto& [key, value] : fuzz::corpus_header_lines(h)) EXPECT_NE(key, "simplifier");
}

TEST(SutPlumbing, FindingsOfAnExternalSimplifierGoToItsOwnFolder) {
  EXPECT_EQ(fuzz::findings_dir("corpus/findings", "builtin"), "corpus/findings");
  EXPECT_EQ(fuzz::findings_dir("corpus/findings", "tinygrad"), "corpus/findings/tinygrad");
  EXPECT_EQ(fuzz::findings_dir("corpus/findings", "external:python3 my.py"),
            "corpus/findings/external");
  EXPECT_EQ(fuzz::findings_dir("", "tinygrad"), "");
}

}  // namespace
}  // namespace uopfuzz
