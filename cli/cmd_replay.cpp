// uopfuzz replay PATHS: every .uop case against its recorded expectations.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "check/expectations.h"
#include "check/program_check.h"
#include "cli/command.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "fuzz/corpus_header.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"

namespace uopfuzz::cli {
namespace {

/// A case replay_case could not check: the simplifier it records cannot be made here.
constexpr int kSkipped = -1;
/// A case an external simplifier's finding made still shows that finding: a known bug of
/// that simplifier (uopfuzz does not own its fix), not a failure of the replay.
constexpr int kKnown = -2;

/// The simplifiers cases name (@simplifier, else --simplifier), each made once and shared by
/// all its cases (one child process for all of them).
class Simplifiers {
 public:
  explicit Simplifiers(const SimplifierFlags& flags) : flags_(flags) {}
  /// The one `recorded` names ("" : --simplifier's), or why it cannot be made.
  Result<std::shared_ptr<sut::Simplifier>> get(const std::string& recorded) {
    const std::string spec = recorded.empty() ? flags_.spec : recorded;
    if (spec == "builtin") return std::shared_ptr<sut::Simplifier>();
    auto it = made_.find(spec);
    if (it == made_.end()) {
      sut::ExternalOptions eo;
      eo.timeout_s = flags_.timeout_s;
      eo.tinygrad_path = flags_.tinygrad_path;
      eo.tinygrad_stage = flags_.tinygrad_stage;
      eo.adapter_bugs = flags_.adapter_bugs;
      it = made_.emplace(spec, sut::make_simplifier(spec, eo)).first;
    }
    return it->second;
  }

 private:
  const SimplifierFlags& flags_;
  std::map<std::string, Result<std::shared_ptr<sut::Simplifier>>> made_;
};

/// The replay check's options with the case's simplifier under test; nullopt (and the reason
/// printed) when it cannot be made.
std::optional<check::CheckOptions> with_simplifier(check::CheckOptions co,
                                                   const fuzz::CorpusHeader& corpus,
                                                   Simplifiers& simplifiers,
                                                   const std::string& file) {
  auto s = simplifiers.get(corpus.simplifier);
  if (!s) {
    fmt::print(stderr, "{}: skipped: simplifier '{}' cannot be made: {}\n", file, corpus.simplifier,
               s.error().message);
    return std::nullopt;
  }
  co.simplifier = *s;
  return co;
}

/// Whether `r`, the replay of a case an external simplifier's finding made, still shows the
/// finding it records (same kind as its @signature): then it is that simplifier's known bug.
/// Prints what the replay shows either way; a built-in case is left to the caller.
bool judge_external(const std::string& file, const fuzz::CorpusHeader& corpus,
                    check::FindingKind found, const std::string& details) {
  const bool external = !corpus.simplifier.empty() && corpus.simplifier != "builtin";
  const std::string_view kind = check::finding_kind_name(found);
  const std::string_view recorded =
      std::string_view(corpus.signature).substr(0, corpus.signature.find('/'));
  if (external && found == check::FindingKind::None) {
    fmt::print(stderr, "{}: note: the {} bug it records ({}) no longer shows with this {}\n", file,
               corpus.simplifier, corpus.signature, corpus.simplifier);
    return false;
  }
  if (found == check::FindingKind::None) return false;
  fmt::print(stderr, "{}: check: {}: {}\n", file, kind, details);
  if (!external || kind != recorded) return false;
  fmt::print(stderr, "{}: known bug of {} ({}): it still shows\n", file, corpus.simplifier,
             corpus.signature);
  return true;
}

/// One case: its header's expectations on the oracle, then, for a case whose header says
/// `@check clean` (every corpus finding), the differential check with the faithful
/// simplifier (the bug it found stays fixed; a latency finding is re-timed), the one its
/// @simplifier names (kSkipped when that cannot be made here). Prints why it fails, if it
/// does, on stderr.
int replay_tensor_case(const std::string& file, ir::Context& ctx, const ir::Kernel& program,
                       const std::string& text, Simplifiers& simplifiers,
                       const LoweringOptionFlags& lowering);

int replay_case(const std::string& file, Simplifiers& simplifiers,
                const LoweringOptionFlags& lowering) {
  auto k = load_kernel(file);
  if (!k) return kExitBadInput;
  const ir::Kernel& kernel = k->parsed.kernel;
  if (ir::is_tensor_program(kernel.root))
    return replay_tensor_case(file, *k->ctx, kernel, k->text, simplifiers, lowering);
  check::CaseRunOptions o;
  o.seed = kernel.header.seed.value_or(0);
  o.vars.insert(kernel.header.vars.begin(), kernel.header.vars.end());
  auto ran = check::run_case(*k->ctx, kernel, o);
  if (auto* e = std::get_if<check::CaseError>(&ran)) {
    fmt::print(stderr, "{}: error: {}\n", file, e->message);
    return e->finding ? kExitFinding : kExitBadInput;
  }
  if (!std::get<check::CaseRun>(ran).verdict.pass) return kExitFinding;
  auto corpus = fuzz::read_corpus_header(kernel.header, k->text);
  if (!corpus) {
    fmt::print(stderr, "{}:{}: error: {}\n", file, corpus.error().loc.line, corpus.error().message);
    return kExitBadInput;
  }
  if (!corpus->check_clean) return kExitOk;
  auto co = with_simplifier(fuzz::replay_check_options(*corpus, kernel.header), *corpus,
                            simplifiers, file);
  if (!co) return kSkipped;
  auto r = check::check_kernel(*k->ctx, kernel, *co);
  if (r.simplifier_failure && r.kind == check::FindingKind::None) {
    fmt::print(stderr, "{}: skipped: the simplifier declines it: {}\n", file,
               r.simplifier_failure->reason);
    return kSkipped;
  }
  return judge_external(file, *corpus, r.kind, r.details) ? kKnown
         : r.kind == check::FindingKind::None             ? kExitOk
                                                          : kExitFinding;
}

/// A tensor program: its @output values on the tensor oracle, its @kernels count, then, for
/// `@check clean`, the program check with the faithful lowering and simplifier; the lowering
/// at the options the case records (--pcontig and --split-reduce-threshold win).
int replay_tensor_case(const std::string& file, ir::Context& ctx, const ir::Kernel& program,
                       const std::string& text, Simplifiers& simplifiers,
                       const LoweringOptionFlags& lowering) {
  const uint64_t seed = program.header.seed.value_or(0);
  std::map<std::string, int64_t> vars(program.header.vars.begin(), program.header.vars.end());
  auto run = oracle::eval_tensor_program(program.root, ir::make_inputs(program, seed, vars));
  if (!run) {
    fmt::print(stderr, "{}: error: the tensor oracle cannot run it: {}\n", file,
               run.error().message);
    return kExitBadInput;
  }
  if (run->status != ir::RunStatus::Ok) {
    fmt::print(stderr, "{}: the tensor program has undefined behaviour on seed {}\n", file, seed);
    return kExitFinding;
  }
  for (const ir::ExpectedOutput& want : program.header.outputs) {
    auto got = run->outputs.find(want.slot);
    if (got == run->outputs.end() || got->second.size() != want.values.size()) {
      fmt::print(stderr, "{}: @output {}: the program has no output of {} elements there\n", file,
                 want.slot, want.values.size());
      return kExitFinding;
    }
    for (size_t i = 0; i < want.values.size(); ++i)
      if (!check::agrees_at(got->second, i, want.values[i])) {
        fmt::print(stderr, "{}: @output {}[{}] is {} on the tensor oracle, expected {}\n", file,
                   want.slot, i, ir::format_value(got->second.dtype(), got->second.get(i)),
                   ir::format_value(got->second.dtype(), want.values[i]));
        return kExitFinding;
      }
  }
  auto corpus = fuzz::read_corpus_header(program.header, text);
  if (!corpus) {
    fmt::print(stderr, "{}:{}: error: {}\n", file, corpus.error().loc.line, corpus.error().message);
    return kExitBadInput;
  }
  const schedule::LowerOptions lower_opts = lower_options({}, lowering, *corpus);
  if (corpus->kernels) {
    auto lowered = schedule::lower(ctx, program.root, lower_opts);
    if (!lowered) {
      fmt::print(stderr, "{}: error: cannot lower the tensor program: {}\n", file,
                 lowered.error().message);
      return kExitFinding;
    }
    if (static_cast<int64_t>(lowered->kernels.size()) != *corpus->kernels) {
      fmt::print(stderr, "{}: expected {} kernels, the lowering gives {}\n", file, *corpus->kernels,
                 lowered->kernels.size());
      return kExitFinding;
    }
  }
  if (!corpus->check_clean) return kExitOk;
  check::ProgramCheckOptions po;
  po.lower = lower_opts;
  auto co = with_simplifier(fuzz::replay_check_options(*corpus, program.header), *corpus,
                            simplifiers, file);
  if (!co) return kSkipped;
  po.check = *co;
  po.check.latency.reset();
  auto r = check::check_program(ctx, program, po);
  if (r.unsupported && r.simplifier_failure) {
    fmt::print(stderr, "{}: skipped: {}\n", file, *r.unsupported);
    return kSkipped;
  }
  if (r.unsupported) {
    fmt::print(stderr, "{}: error: {}\n", file, *r.unsupported);
    return kExitBadInput;
  }
  return judge_external(file, *corpus, r.kind, r.details) ? kKnown
         : r.kind == check::FindingKind::None             ? kExitOk
                                                          : kExitFinding;
}

/// The .uop files under PATHS (directories searched recursively), sorted; nullopt (and a
/// printed error) when a path does not exist.
std::optional<std::vector<std::string>> case_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".uop")
          files.push_back(e.path().string());
    } else if (std::filesystem::exists(p, ec)) {
      files.push_back(p);
    } else {
      fmt::print(stderr, "error: no such file or directory: {}\n", p);
      return std::nullopt;
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct ReplayFlags {
  std::vector<std::string> paths;
  SimplifierFlags simplifier;
  LoweringOptionFlags lowering;
};

int run_replay(const ReplayFlags& f) {
  auto files = case_files(f.paths);
  if (!files) return kExitBadInput;
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  Simplifiers simplifiers(f.simplifier);
  int passed = 0, failed = 0, skipped = 0, known = 0;
  for (const std::string& file : *files) {
    const int rc = replay_case(file, simplifiers, f.lowering);
    fmt::print("{} {}\n",
               rc == kExitOk        ? "PASS"
               : rc == kSkipped     ? "SKIP"
               : rc == kKnown       ? "KNOWN"
               : rc == kExitFinding ? "FAIL"
                                    : "ERROR",
               file);
    (rc == kExitOk ? passed : rc == kSkipped ? skipped : rc == kKnown ? known : failed)++;
  }
  fmt::print("replay: {} passed, {} failed{}{}\n", passed, failed,
             known ? fmt::format(", {} known bugs of an external simplifier", known) : "",
             skipped ? fmt::format(", {} skipped", skipped) : "");
  return failed ? kExitFinding : kExitOk;
}

}  // namespace

Action add_replay(CLI::App& cmd, Invocation&) {
  auto f = std::make_shared<ReplayFlags>();
  cmd.add_option("PATHS", f->paths, "files or directories (searched recursively for *.uop)")
      ->required();
  add_simplifier_flags(cmd, f->simplifier);
  add_lowering_option_flags(cmd, f->lowering, "each case's");
  cmd.footer(
      "A tensor program is lowered at the options its header records (@pcontig, "
      "@split-reduce-threshold; a flag given wins) and FAILs when its @kernels count differs. "
      "A case whose header says @simplifier NAME is checked with that simplifier (--tinygrad and "
      "the other simplifier flags say how to run it); one without, with --simplifier. A case "
      "whose simplifier cannot be made here, or declines it, is SKIPped with the reason: "
      "neither passed nor failed. A finding of an external simplifier that still shows (same "
      "kind as its @signature) is KNOWN: that simplifier's open bug, not a failure.");
  return [f] { return run_replay(*f); };
}

}  // namespace uopfuzz::cli
