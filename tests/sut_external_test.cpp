// The external simplifier's client (docs/external-simplifier.md) against a fake child that
// misbehaves on demand (tests/fake_simplifier.cpp): each failure kind, the restart after
// it, hits, request options, fork safety, no zombies, the timeout.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "check/dedup.h"
#include "check/differential.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "sut/external.h"
#include "sut/frames.h"

namespace uopfuzz::sut {
namespace {

using Clock = std::chrono::steady_clock;

/// A kernel storing the int32 constant `c` (the fake's marker when c is 777).
ir::UOp kernel_with(ir::Context& ctx, int c) {
  const std::string text =
      "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n"
      "%3 = CONST " +
      std::to_string(c) + " : int32\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n";
  auto parsed = ir::parse_kernel(ctx, text);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed->kernel.root;
}

std::string fake_spec(const std::string& args) {
  return std::string("external:exec ") + UOPFUZZ_FAKE_SIMPLIFIER + " " + args;
}

std::shared_ptr<Simplifier> fake(const std::string& args, ExternalOptions options = {}) {
  auto sut = make_simplifier(fake_spec(args), options);
  EXPECT_TRUE(sut.ok()) << sut.error().message;
  return *sut;
}

Outcome simplify(Simplifier& sut, ir::Context& ctx, int c,
                 const simplifier::SimplifyOptions& options = {}) {
  return sut.simplify(ctx, kernel_with(ctx, c), options);
}

uint64_t hits_of(const Outcome& out, const std::string& rule) {
  auto it = out.result.hits.find(rule);
  return it == out.result.hits.end() ? 0 : it->second;
}

/// The children of this process that are zombies (exited, never reaped), from /proc.
std::vector<pid_t> zombie_children() {
  std::vector<pid_t> zombies;
  DIR* proc = opendir("/proc");
  if (!proc) return zombies;
  while (dirent* e = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing ')'.
    const size_t close = line.rfind(')');
    if (close == std::string::npos || close + 4 > line.size()) continue;
    const char state = line[close + 2];
    const pid_t ppid = static_cast<pid_t>(std::atoi(line.c_str() + close + 4));
    if (ppid == ::getpid() && state == 'Z') zombies.push_back(pid);
  }
  closedir(proc);
  return zombies;
}

/// The fake's pid, from the version its hello gives ("fake pid <pid>").
pid_t child_pid(Simplifier& sut) {
  const std::string v = sut.version();
  EXPECT_TRUE(v.starts_with("fake pid ")) << v;
  return static_cast<pid_t>(std::atoi(v.c_str() + 9));
}

TEST(SutFrames, ReadsAFrameOnlyOnceItHasAllArrived) {
  const std::string text = frame_text("ok", "abc\n", {{"stop-after", "3"}});
  EXPECT_EQ(text, "ok 4 stop-after=3\nabc\n");
  EXPECT_EQ(read_frame("ok 4").status, FrameRead::Status::Incomplete);
  EXPECT_EQ(read_frame("ok 4\nab").status, FrameRead::Status::Incomplete);
  FrameRead r = read_frame(text + "hits 0\n");
  ASSERT_EQ(r.status, FrameRead::Status::Complete);
  EXPECT_EQ(r.frame.type, "ok");
  EXPECT_EQ(r.frame.body, "abc\n");
  ASSERT_EQ(r.frame.options.size(), 1u);
  EXPECT_EQ(r.frame.options[0].first, "stop-after");
  EXPECT_EQ(r.frame.options[0].second, "3");
  EXPECT_EQ(r.size, text.size());
}

TEST(SutFrames, RejectsWhatCannotBeAHeader) {
  for (const char* bad :
       {"this is not a frame\n", "ok\n", "OK 3\nabc", "ok -1\n", "ok 3 x\nabc", "ok  3\nabc"})
    EXPECT_EQ(read_frame(bad).status, FrameRead::Status::Malformed) << bad;
  EXPECT_EQ(read_frame(std::string(5000, 'x')).status, FrameRead::Status::Malformed);
}

TEST(SutExternal, EchoAnswersTheKernelWithItsHits) {
  ir::Context ctx;
  auto sut = fake("--mode echo");
  EXPECT_EQ(sut->name(), fake_spec("--mode echo"));
  ir::UOp root = kernel_with(ctx, 5);
  Outcome out = sut->simplify(ctx, root, {});
  ASSERT_FALSE(out.failure) << out.failure->reason;
  EXPECT_EQ(out.result.root, root);            // interned in the same context: the same node
  EXPECT_EQ(hits_of(out, "fake_rule_a"), 3u);  // 2 + 1, over two hits frames
  EXPECT_EQ(hits_of(out, "fake_rule_b"), 1u);
  EXPECT_EQ(hits_of(out, "requests_served"), 1u);
  EXPECT_GT(out.child_seconds, 0);
  EXPECT_GT(out.protocol_seconds, 0);
  // The same child serves the next request.
  EXPECT_EQ(hits_of(simplify(*sut, ctx, 6), "requests_served"), 2u);
}

TEST(SutExternal, VersionAndCapabilitiesComeFromTheHello) {
  auto plain = fake("--capabilities hits");
  EXPECT_TRUE(plain->version().starts_with("fake pid "));
  EXPECT_FALSE(plain->capabilities().disable);
  EXPECT_FALSE(plain->capabilities().stop_after);
  auto able = fake("--capabilities 'hits disable stop-after'");
  EXPECT_TRUE(able->capabilities().disable);
  EXPECT_TRUE(able->capabilities().stop_after);
  EXPECT_FALSE(able->capabilities().bugs);
  EXPECT_FALSE(able->capabilities().zero_sign_free);
  EXPECT_TRUE(fake("--tolerances zero-sign")->capabilities().zero_sign_free);
}

TEST(SutExternal, DeclinesComeFromTheHelloUnknownWordsIncluded) {
  EXPECT_TRUE(fake("--capabilities hits")->capabilities().declines.empty());
  // Words are kept as given (the campaign ignores those it does not know); runs of spaces
  // separate them like one.
  auto sut = fake("--declines 'quantized  range-end-1 shape-from-the-future'");
  EXPECT_EQ(sut->capabilities().declines,
            (std::set<std::string>{"quantized", "range-end-1", "shape-from-the-future"}));
  EXPECT_EQ(fake("--declines quantized")->capabilities().declines,
            std::set<std::string>{"quantized"});
}

TEST(SutExternal, AnUnsupportedReasonsClassIsItsBracketedPrefix) {
  EXPECT_EQ(decline_class("[quantized] quantized dtype qint8 (tinygrad has no quantized types)"),
            "quantized");
  EXPECT_EQ(decline_class("[range-end-0-1] a RANGE of end 1"), "range-end-0-1");
  EXPECT_EQ(decline_class("fake: CONST 777 is not supported"), "unclassified");
  EXPECT_EQ(decline_class("[] empty"), "unclassified");
  EXPECT_EQ(decline_class("[not a class] x"), "unclassified");
  EXPECT_EQ(decline_class("[unclosed"), "unclassified");
}

TEST(SutExternal, RequestOptionsAreSentOnlyWhenTheHelloListsThem) {
  ir::Context ctx;
  simplifier::SimplifyOptions options;
  options.disabled = {"rule_b", "rule_a"};
  options.stop_after = 4;
  Outcome plain = simplify(*fake("--capabilities hits"), ctx, 5, options);
  ASSERT_FALSE(plain.failure);
  for (const auto& [rule, n] : plain.result.hits) EXPECT_FALSE(rule.starts_with("option:")) << rule;
  Outcome able = simplify(*fake("--capabilities 'hits disable stop-after'"), ctx, 5, options);
  ASSERT_FALSE(able.failure);
  EXPECT_EQ(hits_of(able, "option:disable=rule_a,rule_b"), 1u);
  EXPECT_EQ(hits_of(able, "option:stop-after=4"), 1u);
}

TEST(SutExternal, FormsComeFromTheHelloAndOnlyOfferedOnesAreSent) {
  EXPECT_TRUE(fake("--capabilities hits")->capabilities().forms.empty());
  auto sut = fake("--forms 'gate-sink gate-flip'");
  EXPECT_EQ(sut->capabilities().forms, (std::vector<std::string>{"gate-sink", "gate-flip"}));
  ir::Context ctx;
  simplifier::SimplifyOptions options;
  options.forms = {"gate-flip", "gate-twist", "gate-sink"};
  Outcome asked = simplify(*sut, ctx, 5, options);
  ASSERT_FALSE(asked.failure) << asked.failure->reason;
  EXPECT_EQ(hits_of(asked, "form:gate-flip"), 1u);
  EXPECT_EQ(hits_of(asked, "form:gate-sink"), 1u);
  EXPECT_EQ(hits_of(asked, "form:gate-twist"), 0u) << "a form the hello does not offer";
  // No form wanted, or none offered: no @forms line at all.
  Outcome none = simplify(*sut, ctx, 5);
  ASSERT_FALSE(none.failure);
  Outcome unoffered = simplify(*fake("--capabilities hits"), ctx, 5, options);
  ASSERT_FALSE(unoffered.failure);
  for (const Outcome* o : {&none, &unoffered})
    for (const auto& [rule, n] : o->result.hits) EXPECT_FALSE(rule.starts_with("form:")) << rule;
}

/// Requests the marker (777) and expects `kind`; then an ordinary request succeeds, served
/// by a fresh child unless `child_kept` (the fake counts the requests it has read).
Failure fails_then_recovers(const std::string& args, FailureKind kind, bool child_kept,
                            ExternalOptions options = {}) {
  ir::Context ctx;
  auto sut = fake(args, options);
  Outcome bad = simplify(*sut, ctx, 777);
  EXPECT_TRUE(bad.failure.has_value());
  if (!bad.failure) return {};
  EXPECT_EQ(bad.failure->kind, kind) << bad.failure->reason;
  Outcome next = simplify(*sut, ctx, 5);
  EXPECT_FALSE(next.failure) << next.failure->reason;
  EXPECT_EQ(hits_of(next, "requests_served"), child_kept ? 2u : 1u);
  EXPECT_EQ(zombie_children(), std::vector<pid_t>{});
  return *bad.failure;
}

TEST(SutExternal, AnExitIsACrashWithItsStatusAndStderr) {
  Failure f = fails_then_recovers("--mode exit --marker 777", FailureKind::Crash, false);
  EXPECT_EQ(f.reason, "exited with status 3");
  EXPECT_NE(f.log.find("fake: exiting on the marker"), std::string::npos) << f.log;
}

TEST(SutExternal, TheLogKeepsTheTailOfALongStderr) {
  Failure f = fails_then_recovers("--mode noisy-exit --marker 777", FailureKind::Crash, false);
  EXPECT_EQ(f.reason, "exited with status 3");
  EXPECT_LE(f.log.size(), 8192u);
  EXPECT_GT(f.log.size(), 4096u);
  EXPECT_TRUE(f.log.ends_with("x\nlast words\n")) << f.log.substr(f.log.size() - 40);
}

TEST(SutExternal, ASignalIsACrashNamingIt) {
  Failure f = fails_then_recovers("--mode segv --marker 777", FailureKind::Crash, false);
  EXPECT_EQ(f.reason, "killed by signal 11 (SIGSEGV)");
}

TEST(SutExternal, AnErrorFrameIsACrashWhereItSaysAndTheChildGoesOn) {
  Failure f = fails_then_recovers("--mode error --marker 777", FailureKind::Crash, true);
  EXPECT_EQ(f.reason, "ValueError: fake failure on the marker");
  EXPECT_EQ(f.where, "fake_rules.py:42");
  EXPECT_NE(f.log.find("Traceback"), std::string::npos);
}

TEST(SutExternal, UnsupportedGivesItsReasonAndTheChildGoesOn) {
  Failure f =
      fails_then_recovers("--mode unsupported --marker 777", FailureKind::Unsupported, true);
  EXPECT_EQ(f.reason, "fake: CONST 777 is not supported");
}

TEST(SutExternal, AHangIsKilledAtThePerRequestTimeout) {
  ExternalOptions options;
  options.timeout_s = 0.5;
  const auto start = Clock::now();
  Failure f = fails_then_recovers("--mode hang --marker 777", FailureKind::Hang, false, options);
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(f.reason, "no answer within 0.5 s");
}

TEST(SutExternal, AnswersOutsideTheProtocolAreProtocolErrors) {
  Failure garbage =
      fails_then_recovers("--mode garbage --marker 777", FailureKind::Protocol, false);
  EXPECT_NE(garbage.reason.find("frame header"), std::string::npos) << garbage.reason;
  Failure unknown =
      fails_then_recovers("--mode unknown-frame --marker 777", FailureKind::Protocol, false);
  EXPECT_EQ(unknown.reason, "an unexpected 'banana' frame");
  Failure hits = fails_then_recovers("--mode bad-hits --marker 777", FailureKind::Protocol, false);
  EXPECT_NE(hits.reason.find("hits line"), std::string::npos) << hits.reason;
}

TEST(SutExternal, ARewriteThatIsNotAKernelIsAProtocolError) {
  Failure unparsable =
      fails_then_recovers("--mode unparsable --marker 777", FailureKind::Protocol, false);
  EXPECT_TRUE(unparsable.reason.starts_with("the rewrite does not parse: 1:")) << unparsable.reason;
  Failure tensor =
      fails_then_recovers("--mode not-sink --marker 777", FailureKind::Protocol, false);
  EXPECT_EQ(tensor.reason, "the rewrite is not a kernel: its root is a REALIZE, not a SINK");
}

TEST(SutExternal, TheStartupTimeoutIsNotTheRequestTimeout) {
  ir::Context ctx;
  ExternalOptions options;
  options.timeout_s = 0.5;  // an echo takes well under a millisecond
  Outcome out = simplify(*fake("--hello slow --hello-delay 1.2", options), ctx, 5);
  EXPECT_FALSE(out.failure) << out.failure->reason;
  options.startup_timeout_s = 0.3;
  Outcome none = simplify(*fake("--hello none", options), ctx, 5);
  ASSERT_TRUE(none.failure);
  EXPECT_EQ(none.failure->kind, FailureKind::Hang);
  EXPECT_EQ(none.failure->reason, "no hello within 0.3 s");
}

TEST(SutExternal, ABadHelloOrNoChildAtAllFailsTheRequest) {
  ir::Context ctx;
  auto bad = fake("--hello bad");
  EXPECT_EQ(bad->version(), "");
  Outcome out = simplify(*bad, ctx, 5);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->kind, FailureKind::Protocol);
  EXPECT_EQ(out.failure->reason, "a hello without 'protocol: 1'");
  auto missing = make_simplifier("external:/nonexistent/simplifier --flag");
  ASSERT_TRUE(missing.ok());
  Outcome gone = simplify(**missing, ctx, 5);
  ASSERT_TRUE(gone.failure);
  EXPECT_EQ(gone.failure->kind, FailureKind::Crash);
  EXPECT_EQ(gone.failure->reason, "exited with status 127 before its hello");
  EXPECT_NE(gone.failure->log.find("not found"), std::string::npos) << gone.failure->log;
  EXPECT_EQ(zombie_children(), std::vector<pid_t>{});
}

TEST(SutExternal, WritingToADeadChildIsACrashNotASigpipe) {
  ir::Context ctx;
  // A child that says hello and exits without reading anything.
  auto sut = make_simplifier("external:printf 'hello 20\\nprotocol: 1\\nname: x\\n'");
  ASSERT_TRUE(sut.ok());
  EXPECT_EQ((*sut)->version(), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Outcome out = simplify(**sut, ctx, 5);
  ASSERT_TRUE(out.failure);
  EXPECT_EQ(out.failure->kind, FailureKind::Crash);
  EXPECT_EQ(out.failure->reason, "exited with status 0");
}

TEST(SutExternal, AForkedProcessStartsItsOwnChildAndLeavesTheParentsAlone) {
  ir::Context ctx;
  auto sut = fake("--mode echo");
  ASSERT_EQ(hits_of(simplify(*sut, ctx, 5), "requests_served"), 1u);
  const pid_t parents_child = child_pid(*sut);
  const pid_t worker = fork();
  ASSERT_GE(worker, 0);
  if (worker == 0) {
    // Exit status: 0 when the worker's requests went to a child of its own.
    int status = 0;
    Outcome out = simplify(*sut, ctx, 6);
    if (out.failure || hits_of(out, "requests_served") != 1) status |= 1;
    if (child_pid(*sut) == parents_child) status |= 2;
    sut.reset();  // reaps the worker's child
    _exit(status);
  }
  int status = -1;
  ASSERT_EQ(waitpid(worker, &status, 0), worker);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent's child was never written to by the worker, and still answers.
  Outcome again = simplify(*sut, ctx, 7);
  ASSERT_FALSE(again.failure) << again.failure->reason;
  EXPECT_EQ(hits_of(again, "requests_served"), 2u);
  EXPECT_EQ(child_pid(*sut), parents_child);
}

/// Whether process `pid` has ended (gone, or a zombie nobody has reaped yet).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

TEST(SutExternal, AKilledWorkersHungChildDiesWithIt) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t worker = fork();
  ASSERT_GE(worker, 0);
  if (worker == 0) {
    auto sut = fake("--mode hang");
    const pid_t child = child_pid(*sut);
    if (::write(report[1], &child, sizeof child) != sizeof child) _exit(1);
    ir::Context ctx;
    simplify(*sut, ctx, 5);  // hangs: the default timeout is 10 s
    _exit(1);
  }
  ::close(report[1]);
  pid_t child = -1;
  ASSERT_EQ(::read(report[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(report[0]);
  EXPECT_FALSE(ended(child));
  ::kill(worker, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(worker, &status, 0), worker);
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  while (!ended(child) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(ended(child));
}

TEST(SutExternal, DestroyingTheSimplifierReapsItsChild) {
  ir::Context ctx;
  auto sut = fake("--mode echo");
  ASSERT_FALSE(simplify(*sut, ctx, 5).failure);
  const pid_t pid = child_pid(*sut);
  ASSERT_EQ(::kill(pid, 0), 0);
  sut.reset();
  EXPECT_EQ(::kill(pid, 0), -1);  // neither running nor a zombie
  EXPECT_EQ(errno, ESRCH);
}

TEST(SutExternal, CheckKernelTakesTheExternalSimplifier) {
  ir::Context ctx;
  ir::Kernel kernel{{}, kernel_with(ctx, 777)};
  check::CheckOptions options;
  options.simplifier = fake("--mode echo");
  check::CheckResult clean = check::check_kernel(ctx, kernel, options);
  EXPECT_EQ(clean.kind, check::FindingKind::None) << clean.details;
  EXPECT_GT(clean.seeds_run, 0);
  EXPECT_GT(clean.child_seconds, 0);
  options.simplifier = fake("--mode exit --marker 777");
  check::CheckResult crash = check::check_kernel(ctx, kernel, options);
  EXPECT_EQ(crash.kind, check::FindingKind::Crash);
  EXPECT_EQ(crash.backend, fake_spec("--mode exit --marker 777"));
  ASSERT_TRUE(crash.simplifier_failure);
  EXPECT_EQ(crash.simplifier_failure->reason, "exited with status 3");
}

/// x*3+1 with x an int32 VAR in [2, 5], stored: %5 is the MUL, %7 the ADD.
ir::Kernel affine_kernel(ir::Context& ctx) {
  auto parsed = ir::parse_kernel(
      ctx,
      "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n"
      "%3 = VAR name=x min=2 max=5 : int32\n%4 = CONST 3 : int32\n%5 = MUL %3 %4 : int32\n"
      "%6 = CONST 1 : int32\n%7 = ADD %5 %6 : int32\n%8 = STORE %2 %7 : void\n"
      "%9 = SINK %8 : void\n");
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed->kernel;
}

check::CheckResult check_with_claims(ir::Context& ctx, const std::string& claims, int64_t x,
                                     bool check_bounds = true) {
  check::CheckOptions options;
  options.simplifier = fake("--capabilities \"hits bounds\" --bounds \"" + claims + "\"");
  options.vars["x"] = x;
  options.check_bounds = check_bounds;
  return check::check_kernel(ctx, affine_kernel(ctx), options);
}

TEST(SutExternal, BoundsAreAskedForOnlyWhenTheHelloListsThem) {
  ir::Context ctx;
  simplifier::SimplifyOptions asks;
  asks.bounds = true;
  auto plain = fake("--capabilities hits --bounds \"7 7 16\"");
  EXPECT_FALSE(plain->capabilities().bounds);
  EXPECT_TRUE(plain->simplify(ctx, affine_kernel(ctx).root, asks).bounds.empty());
  auto able = fake("--capabilities \"hits bounds\" --bounds \"7 7 16;5 6 15\"");
  EXPECT_TRUE(able->capabilities().bounds);
  EXPECT_TRUE(able->simplify(ctx, affine_kernel(ctx).root, {}).bounds.empty());
  const Outcome out = able->simplify(ctx, affine_kernel(ctx).root, asks);
  ASSERT_FALSE(out.failure) << out.failure->reason;
  ASSERT_EQ(out.bounds.size(), 2u);
  EXPECT_EQ(out.bounds[0].node.op(), ir::Op::Add);
  EXPECT_TRUE(out.bounds[0].lo == 7 && out.bounds[0].hi == 16);
  EXPECT_EQ(out.bounds[1].node.op(), ir::Op::Mul);
}

TEST(SutExternal, AMalformedBoundsLineIsAProtocolError) {
  ir::Context ctx;
  simplifier::SimplifyOptions asks;
  asks.bounds = true;
  for (const char* bad : {"7 7", "99 0 1", "x 0 1", "7 0 1 2"}) {
    auto sut = fake(std::string("--capabilities \"hits bounds\" --bounds \"") + bad + "\"");
    const Outcome out = sut->simplify(ctx, affine_kernel(ctx).root, asks);
    ASSERT_TRUE(out.failure) << bad;
    EXPECT_EQ(out.failure->kind, FailureKind::Protocol) << bad;
  }
}

TEST(SutExternal, AValueOutsideTheClaimedBoundsIsAFindingNamingTheInnermostOp) {
  ir::Context ctx;
  // Sound claims: clean at both ends of x's range.
  for (int64_t x : {2, 5})
    EXPECT_EQ(check_with_claims(ctx, "5 6 15;7 7 16", x).kind, check::FindingKind::None);
  // The ADD claimed one too low at the top: x = 5 gives 16.
  check::CheckResult r = check_with_claims(ctx, "5 6 15;7 7 15", 5);
  EXPECT_EQ(r.kind, check::FindingKind::UnsoundBounds);
  EXPECT_EQ(r.unsound_bounds_op, "ADD");
  EXPECT_NE(r.details.find("unsound-bounds: ADD of [6, 15], ? claimed [7, 15], value 16"),
            std::string::npos)
      << r.details;
  // x = 2 stays inside the wrong claim: nothing to see on that input.
  EXPECT_EQ(check_with_claims(ctx, "5 6 15;7 7 15", 2).kind, check::FindingKind::None);
  // The MUL is wrong too: the innermost wrong node is named, not the ADD built on it.
  r = check_with_claims(ctx, "5 6 14;7 7 15", 5);
  EXPECT_EQ(r.unsound_bounds_op, "MUL");
  // Off, the claims are not even asked for.
  EXPECT_EQ(check_with_claims(ctx, "5 6 14;7 7 15", 5, false).kind, check::FindingKind::None);
  // A signed claim past its dtype (no signed overflow assumed, as C does) is a declared
  // difference: neither it nor what is computed from it is held against the oracle.
  EXPECT_EQ(check_with_claims(ctx, "5 6 3000000000;7 7 8", 5).kind, check::FindingKind::None);
}

TEST(SutExternal, AnUnsoundBoundsFindingIsSignedByTheSimplifierAndOp) {
  ir::Context ctx;
  check::CheckOptions options;
  options.simplifier = fake("--capabilities \"hits bounds\" --bounds \"7 7 15\"");
  options.vars["x"] = 5;
  options.check_bounds = true;
  const ir::Kernel kernel = affine_kernel(ctx);
  const check::CheckResult r = check::check_kernel(ctx, kernel, options);
  ASSERT_EQ(r.kind, check::FindingKind::UnsoundBounds);
  const check::Signature sig = check::signature_of(ctx, kernel, options, r);
  EXPECT_EQ(sig.text(), "unsound-bounds/" + options.simplifier->name() + "/ADD");
}

/// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(SutMakeSimplifier, NamesWhatItCannotMake) {
  auto unknown = make_simplifier("tinygrd");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("expected builtin, tinygrad or external:CMD"),
            std::string::npos);
  EXPECT_FALSE(make_simplifier("external: ").ok());
  EXPECT_EQ((*make_simplifier("builtin"))->name(), "builtin");
}

TEST(SutMakeSimplifier, TinygradWithoutATinygradSaysHowToPointAtOne) {
  ScopedEnv no_path("TINYGRAD_PATH", nullptr);
  ExternalOptions options;
  options.python = "/nonexistent/python3";  // nothing can import tinygrad
  auto none = make_simplifier("tinygrad", options);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("--tinygrad PATH"), std::string::npos);
  EXPECT_NE(none.error().message.find("TINYGRAD_PATH=<checkout>"), std::string::npos);
  options.tinygrad_path = "/nonexistent/tinygrad-checkout";
  auto wrong = make_simplifier("tinygrad", options);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("no tinygrad/__init__.py"), std::string::npos);
}

TEST(SutMakeSimplifier, TinygradRunsTheAdapterWithItsFlags) {
  // A fake checkout and a fake adapter folder: the command is built, nothing is started.
  const std::string dir = ::testing::TempDir() + "/sut_tinygrad_layout";
  std::filesystem::create_directories(dir + "/checkout/tinygrad");
  std::filesystem::create_directories(dir + "/adapter");
  std::ofstream(dir + "/checkout/tinygrad/__init__.py") << "";
  std::ofstream(dir + "/adapter/uopfuzz_tinygrad.py") << "";
  ScopedEnv adapter("UOPFUZZ_TINYGRAD_ADAPTER", (dir + "/adapter").c_str());
  ExternalOptions options;
  options.tinygrad_path = dir + "/checkout";
  options.tinygrad_stage = "full";
  options.adapter_bugs = {"mod_fold_off_by_one"};
  auto command = tinygrad_command(options);
  ASSERT_TRUE(command.ok()) << command.error().message;
  EXPECT_EQ(*command, "exec 'python3' '" + dir + "/adapter/uopfuzz_tinygrad.py' --stage 'full' " +
                          "--tinygrad '" + dir + "/checkout' --bug 'mod_fold_off_by_one'");
  EXPECT_EQ((*make_simplifier("tinygrad", options))->name(), "tinygrad");
  options.tinygrad_stage = "everything";
  EXPECT_FALSE(tinygrad_command(options).ok());
}

}  // namespace
}  // namespace uopfuzz::sut
