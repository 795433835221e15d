#include "check/pipeline_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "backends/float_sums.h"
#include "check/dedup.h"
#include "ir/graph.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"

namespace uopfuzz::check {

using namespace ir;

namespace {

// What a finding on one device of a run says, before the stage is known.
struct DeviceVerdict {
  std::string device;
  FindingKind kind = FindingKind::None;
  std::string details;
  std::optional<Mismatch> mismatch;
  std::optional<sut::Failure> failure;  ///< it raised there
};

// The first element of `got` (a device's outputs) that `want` (the reference's) does not
// accept under the declared zero-sign freedom and, for a float output that is a
// reassociable sum, its bound; `sums` gives those bounds by output.
std::optional<Mismatch> first_mismatch(uint64_t seed, const std::map<int, Buffer>& want,
                                       const std::map<int, Buffer>& got, bool zero_sign_free,
                                       const std::map<int, std::vector<double>>& sums,
                                       std::string& allowed) {
  for (const auto& [o, w] : want) {
    auto it = got.find(o);
    const Buffer* g = it == got.end() ? nullptr : &it->second;
    Tolerance tol(0, zero_sign_free);
    if (auto b = sums.find(o); b != sums.end()) tol.sum_bounds = &b->second;
    auto i = first_difference(w, g, tol);
    if (!i) continue;
    if (tol.sum_bounds && *i < tol.sum_bounds->size())
      allowed = fmt::format(" (a reassociated sum, allowed {:g} apart)", (*tol.sum_bounds)[*i]);
    const Value gv = g && *i < g->size() ? g->get(*i) : Value::of_int(0);
    return Mismatch{seed, o, *i, format_value(w.dtype(), w.get(*i)), format_value(w.dtype(), gv)};
  }
  return std::nullopt;
}

// A whole-run failure as a finding (kind, backend and details set); false when it declined
// (`unsupported` set instead).
template <class Result>
bool take_run_failure(const sut::Failure& f, const std::string& who, Result& res,
                      std::optional<std::string>& unsupported) {
  res.simplifier_failure = f;
  switch (f.kind) {
    case sut::FailureKind::Unsupported:
      unsupported = fmt::format("the simplifier under test ({}) declines it: {}", who, f.reason);
      return false;
    case sut::FailureKind::Crash: res.kind = FindingKind::Crash; break;
    case sut::FailureKind::Hang: res.kind = FindingKind::Timeout; break;
    case sut::FailureKind::Protocol: res.kind = FindingKind::Protocol; break;
  }
  res.backend = who;
  res.details = fmt::format("the simplifier under test ({}) running it: {}: {}", who,
                            sut::failure_kind_name(f.kind), f.reason);
  return true;
}

// Each device's verdict on one seed: a crash, the first mismatch, or none.
std::vector<DeviceVerdict> judge_devices(const sut::RunAnswer& answer, uint64_t seed,
                                         const std::map<int, Buffer>& want, bool zero_sign_free,
                                         const std::map<int, std::vector<double>>& sums,
                                         const std::string& reference) {
  std::vector<DeviceVerdict> verdicts;
  for (const sut::DeviceRun& d : answer.devices) {
    DeviceVerdict v{d.device, FindingKind::None, "", std::nullopt, std::nullopt};
    if (d.failure) {
      v.kind = FindingKind::Crash;
      v.failure = d.failure;
      v.details = fmt::format("seed {}: device {} raised: {}", seed, d.device, d.failure->reason);
    } else {
      std::string allowed;
      v.mismatch = first_mismatch(seed, want, d.outputs, zero_sign_free, sums, allowed);
      if (v.mismatch) {
        v.kind = FindingKind::Mismatch;
        v.details = fmt::format("seed {}: output {}[{}] is {} on {} but {} on device {}{}", seed,
                                v.mismatch->slot, v.mismatch->index, v.mismatch->expected,
                                reference, v.mismatch->got, d.device, allowed);
      }
    }
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

// The stage a device disagreement points at, given whether the scheduled kernels were had
// and agreed (`kernels_agree`), and whether some device agreed.
std::string stage_of(bool kernels_known, bool some_device_agrees) {
  if (some_device_agrees) return "device";
  return kernels_known ? "codegen" : "pipeline";
}

// A device's finding as the check's: on that device's executor, the culprit where it raised,
// else the stage a disagreement points at.
template <class Result>
void take_device_finding(const DeviceVerdict& bad, const std::string& who, const std::string& stage,
                         Result& res) {
  res.kind = bad.kind;
  res.backend = device_executor(who, bad.device);
  res.mismatch = bad.mismatch;
  res.details = bad.details;
  res.simplifier_failure = bad.failure;
  res.culprit = bad.failure ? failure_culprit(*bad.failure) : who + "-" + stage;
}

// The rules that fired, the most applied first: a run's pipeline fires a hundred, and a
// finding's one line names the few that did most (the case's header keeps them all).
std::string hits_text(const std::map<std::string, uint64_t>& hits) {
  constexpr size_t kShown = 6;
  std::vector<std::pair<uint64_t, std::string>> by_count;
  for (const auto& [rule, n] : hits) by_count.emplace_back(n, rule);
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = fmt::format("{} rules", hits.size());
  for (size_t i = 0; i < std::min(kShown, by_count.size()); ++i)
    out += fmt::format("{}{}x {}", i ? ", " : ", most applied ", by_count[i].first,
                       by_count[i].second);
  if (by_count.size() > kShown) out += ", ...";
  return out;
}

// The devices whose declared limit `work` is within (all of them when none is declared).
std::vector<std::string> devices_for(const sut::Capabilities& caps, int64_t work) {
  std::vector<std::string> devices;
  for (const std::string& d : caps.devices) {
    auto limit = caps.device_limits.find(d);
    if (limit == caps.device_limits.end() || work <= limit->second) devices.push_back(d);
  }
  return devices;
}

// A tensor program's work as device limits count it: the elements of all its nodes.
int64_t program_elements(UOp root) {
  int64_t total = 0;
  for (UOp u : toposort(root))
    if (u.op() != Op::Realize) total = std::min<int64_t>(INT64_MAX / 2, total + numel(u.shape()));
  return total;
}

}  // namespace

std::string device_executor(const std::string& simplifier, const std::string& device) {
  return simplifier + "-" + device;
}

bool runs_pipeline(const CheckOptions& options, UOp root) {
  if (!is_external(options)) return false;
  if (!options.simplifier->capabilities().run) return false;
  return is_tensor_program(root) || options.simplifier->stage() == "pipeline";
}

ProgramCheckResult check_program_pipeline(Context& ctx, const Kernel& program,
                                          const ProgramCheckOptions& options) {
  ProgramCheckResult res;
  const CheckOptions& co = options.check;
  sut::Simplifier& sim = *co.simplifier;
  const std::string who = sim.name();
  if (auto errors = verify(program.root); !errors.empty()) {
    res.unsupported = fmt::format("the program does not verify: [{}] {}",
                                  verify_rule_name(errors[0].rule), errors[0].message);
    return res;
  }
  const bool zero_sign_free = sim.capabilities().zero_sign_free;
  // The bounds of reassociated sums come from a lowering of the program: the simplifier's
  // own where it hands one back, else the built-in one (a bound is the sum's, not its order's).
  std::optional<Program> sums_from;
  if (auto lowered = schedule::lower(ctx, program.root, options.lower)) sums_from = *lowered;
  sut::RunRequest request;
  request.devices = devices_for(sim.capabilities(), program_elements(program.root));
  request.split_reduce_threshold = options.lower.split_reduce_threshold;
  if (request.devices.empty()) {
    res.unsupported =
        fmt::format("[device-limits] {} elements: more than any of {}'s devices takes",
                    program_elements(program.root), who);
    return res;
  }
  std::optional<DeviceVerdict> bad;  // the first device finding over the seeds
  bool some_device_agrees = false;
  for (int k = 0; k < co.seeds; ++k) {
    const uint64_t seed = co.base_seed + static_cast<uint64_t>(k);
    const Inputs inputs = make_inputs(program, seed, co.vars);
    auto want = oracle::eval_tensor_program(program.root, inputs);
    if (!want) {
      res.unsupported = "the tensor oracle cannot run it: " + want.error().message;
      return res;
    }
    if (want->status != RunStatus::Ok) {
      ++res.seeds_skipped;
      continue;
    }
    request.program = res.seeds_run == 0;
    sut::RunAnswer answer = sim.run(ctx, program.root, inputs, request);
    res.child_seconds += answer.child_seconds;
    res.protocol_seconds += answer.protocol_seconds;
    for (const auto& [rule, n] : answer.hits) res.simplified.hits[rule] += n;
    if (answer.failure) {
      if (take_run_failure(*answer.failure, who, res, res.unsupported))
        res.culprit = failure_culprit(*answer.failure);
      return res;
    }
    ++res.seeds_run;
    if (request.program) {
      if (answer.program) {
        if (auto faults = verify_program(*answer.program); faults.empty()) {
          res.simplified.program = *answer.program;
          res.kernels = answer.program->kernels.size();
          sums_from = *answer.program;
        } else {
          res.notes.push_back(fmt::format(
              "{}'s kernels, as handed back, are not a valid Program: {}", who, faults.front()));
        }
      } else if (!answer.program_missing.empty()) {
        res.notes.push_back(
            fmt::format("{}'s kernels have no .uop form: {}", who, answer.program_missing));
      }
    }
    std::map<int, std::vector<double>> sums;
    if (sums_from)
      for (const auto& [o, w] : want->outputs)
        if (w.dtype().is_float())
          if (auto b = output_sum_bounds(ctx, *sums_from, inputs, o, co.max_steps))
            sums[o] = std::move(*b);
    for (DeviceVerdict& v :
         judge_devices(answer, seed, want->outputs, zero_sign_free, sums, "the tensor oracle")) {
      if (v.kind == FindingKind::None) some_device_agrees = true;
      if (v.kind != FindingKind::None && !bad) bad = std::move(v);
    }
    if (bad) break;
  }
  if (res.seeds_run == 0) return res;

  // The kernels it scheduled, on uopfuzz's own executors.
  const bool kernels_known = !res.simplified.program.kernels.empty();
  if (kernels_known) {
    ProgramCheckResult ours = compare_lowered(ctx, program, res.simplified.program, co);
    for (std::string& n : ours.notes) res.notes.push_back(std::move(n));
    res.backend_times = ours.backend_times;
    // Its kernels may compute what its devices never use: a division under a gate that a
    // device evaluates lazily (WHERE, a gated load) is undefined on uopfuzz's eager oracle.
    // With every device right, that is a difference of semantics, not a finding.
    if (ours.kind == FindingKind::UbIntroduced && !bad) {
      res.notes.push_back(fmt::format(
          "{}'s kernels are undefined on uopfuzz's oracle where its devices are right: {}", who,
          ours.details));
      return res;
    }
    if (ours.kind != FindingKind::None) {
      res.kind = ours.kind;
      res.backend = ours.backend;
      res.mismatch = ours.mismatch;
      // On the oracle, its kernels are wrong already; elsewhere uopfuzz's backend is.
      res.culprit = ours.backend == "oracle" ? who + "-schedule" : "backend";
      res.details = fmt::format("{}'s scheduled kernels ({}): {}", who, res.kernels, ours.details);
      if (!res.simplified.hits.empty())
        res.details += fmt::format("; rules that fired: {}", hits_text(res.simplified.hits));
      return res;
    }
  }
  if (!bad) return res;
  take_device_finding(*bad, who, stage_of(kernels_known, some_device_agrees), res);
  if (kernels_known && !bad->failure)
    res.details += fmt::format("; its {} scheduled kernels agree on uopfuzz's oracle", res.kernels);
  if (!bad->failure && !res.simplified.hits.empty())
    res.details += fmt::format("; rules that fired: {}", hits_text(res.simplified.hits));
  return res;
}

CheckResult check_kernel_pipeline(Context& ctx, const Kernel& kernel, const CheckOptions& options) {
  CheckResult res;
  sut::Simplifier& sim = *options.simplifier;
  const std::string who = sim.name();
  const bool zero_sign_free = sim.capabilities().zero_sign_free;
  oracle::RunOptions ro;
  ro.max_steps = options.max_steps;
  std::optional<DeviceVerdict> bad;
  bool some_device_agrees = false;
  for (int k = 0; k < options.seeds && !bad; ++k) {
    const uint64_t seed = options.base_seed + static_cast<uint64_t>(k);
    const Inputs inputs = make_inputs(kernel, seed, options.vars);
    auto want = oracle::run(kernel.root, inputs, ro);
    if (!want) {
      res.kind = FindingKind::RewriteError;
      res.details = "the original does not run on the oracle: " + want.error().message;
      return res;
    }
    if (k == 0) {
      res.original_ran = true;
      res.original_steps = want->steps;
      res.original_iterations = want->iterations;
    }
    if (want->status != RunStatus::Ok) {
      ++res.seeds_skipped;
      continue;
    }
    sut::RunRequest request;
    request.devices = devices_for(sim.capabilities(), static_cast<int64_t>(want->iterations));
    request.forms = options.simplify.forms;
    if (request.devices.empty()) {
      res.simplifier_failure = sut::Failure{
          sut::FailureKind::Unsupported,
          fmt::format("[device-limits] {} loop iterations: more than any of {}'s devices takes",
                      want->iterations, who),
          "", ""};
      return res;
    }
    sut::RunAnswer answer = sim.run(ctx, kernel.root, inputs, request);
    res.child_seconds += answer.child_seconds;
    res.protocol_seconds += answer.protocol_seconds;
    for (const auto& [rule, n] : answer.hits) res.simplified.hits[rule] += n;
    if (answer.failure) {
      std::optional<std::string> declined;
      if (take_run_failure(*answer.failure, who, res, declined))
        res.culprit = failure_culprit(*answer.failure);
      return res;
    }
    ++res.seeds_run;
    std::map<int, std::vector<double>> sums;
    if (auto b = backends::sum_bounds(ctx, kernel.root, inputs)) sums = std::move(*b);
    for (DeviceVerdict& v :
         judge_devices(answer, seed, want->outputs, zero_sign_free, sums, "the original")) {
      if (v.kind == FindingKind::None) some_device_agrees = true;
      if (v.kind != FindingKind::None && !bad) bad = std::move(v);
    }
  }
  res.simplified.root = kernel.root;
  if (!bad) return res;
  take_device_finding(*bad, who, stage_of(false, some_device_agrees), res);
  if (!bad->failure && !res.simplified.hits.empty())
    res.details += fmt::format("; rules that fired: {}", hits_text(res.simplified.hits));
  return res;
}

}  // namespace uopfuzz::check
