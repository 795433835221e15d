// uopfuzz replay PATHS: every .uop case against its recorded expectations.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "check/expectations.h"
#include "check/program_check.h"
#include "cli/command.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "fuzz/corpus_header.h"
#include "fuzz/finding_triage.h"
#include "fuzz/root_causes.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"
#include "schedule/lower.h"
#include "sut/reproducer.h"

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
  /// The one `recorded` names ("" : --simplifier's) at the stage the case ran (""
  /// : --tinygrad-stage), or why it cannot be made.
  Result<std::shared_ptr<sut::Simplifier>> get(const std::string& recorded,
                                               const std::string& stage = "") {
    const std::string spec = recorded.empty() ? flags_.spec : recorded;
    if (spec == "builtin") return std::shared_ptr<sut::Simplifier>();
    auto it = made_.find({spec, stage});
    if (it == made_.end()) {
      sut::ExternalOptions eo = options();
      if (!stage.empty()) eo.tinygrad_stage = stage;
      it = made_.emplace(std::pair{spec, stage}, sut::make_simplifier(spec, eo)).first;
    }
    return it->second;
  }

  sut::ExternalOptions options() const {
    sut::ExternalOptions eo;
    eo.timeout_s = flags_.timeout_s;
    eo.tinygrad_path = flags_.tinygrad_path;
    eo.tinygrad_stage = flags_.tinygrad_stage;
    eo.adapter_bugs = flags_.adapter_bugs;
    return eo;
  }

 private:
  const SimplifierFlags& flags_;
  std::map<std::pair<std::string, std::string>, Result<std::shared_ptr<sut::Simplifier>>> made_;
};

/// The replay check's options with the case's simplifier under test; nullopt (and the reason
/// printed) when it cannot be made.
std::optional<check::CheckOptions> with_simplifier(check::CheckOptions co,
                                                   const fuzz::CorpusHeader& corpus,
                                                   Simplifiers& simplifiers,
                                                   const std::string& file) {
  auto s = simplifiers.get(corpus.simplifier, corpus.simplifier_stage);
  if (!s) {
    fmt::print(stderr, "{}: skipped: simplifier '{}' cannot be made: {}\n", file, corpus.simplifier,
               s.error().message);
    return std::nullopt;
  }
  co.simplifier = *s;
  return co;
}

/// The root cause a known bug's case is filed under: its @root-cause, else the entry of
/// root-causes.md beside it that explains its signature ("" when none does).
std::string root_cause_of(const std::string& file, const fuzz::CorpusHeader& corpus) {
  if (!corpus.root_cause.empty()) return corpus.root_cause;
  static std::map<std::string, fuzz::RootCauses> by_folder;
  const std::string folder = std::filesystem::path(file).parent_path().string();
  auto it = by_folder.find(folder);
  if (it == by_folder.end()) {
    auto read = fuzz::read_root_causes(fuzz::root_causes_path(folder.empty() ? "." : folder));
    if (!read)
      fmt::print(stderr, "{}:{}: error: {}\n", fuzz::root_causes_path(folder),
                 read.error().loc.line, read.error().message);
    it = by_folder.emplace(folder, read ? *read : fuzz::RootCauses{}).first;
  }
  const fuzz::RootCause* c = it->second.explain(corpus.signature, corpus.details);
  return c ? c->id : "";
}

/// Whether `r`, the replay of a case an external simplifier's finding made, still shows the
/// finding it records (same kind as its @signature): then it is that simplifier's known bug.
/// Prints what the replay shows either way; a built-in case is left to the caller.
bool judge_external(const std::string& file, const fuzz::CorpusHeader& corpus,
                    check::FindingKind found, const std::string& details, std::string& cause) {
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
  cause = root_cause_of(file, corpus);
  fmt::print(stderr, "{}: known bug of {} ({}, root cause {}): it still shows\n", file,
             corpus.simplifier, corpus.signature, cause.empty() ? "not yet triaged" : cause);
  return true;
}

/// One case: its header's expectations on the oracle, then, for a case whose header says
/// `@check clean` (every corpus finding), the differential check with the faithful
/// simplifier (the bug it found stays fixed; a latency finding is re-timed), the one its
/// @simplifier names (kSkipped when that cannot be made here). Prints why it fails, if it
/// does, on stderr.
int replay_tensor_case(const std::string& file, ir::Context& ctx, const ir::Kernel& program,
                       const std::string& text, Simplifiers& simplifiers,
                       const LoweringOptionFlags& lowering, std::string& cause);

int replay_case(const std::string& file, Simplifiers& simplifiers,
                const LoweringOptionFlags& lowering, std::string& cause) {
  auto k = load_kernel(file);
  if (!k) return kExitBadInput;
  const ir::Kernel& kernel = k->parsed.kernel;
  if (ir::is_tensor_program(kernel.root))
    return replay_tensor_case(file, *k->ctx, kernel, k->text, simplifiers, lowering, cause);
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
  return judge_external(file, *corpus, r.kind, r.details, cause) ? kKnown
         : r.kind == check::FindingKind::None                    ? kExitOk
                                                                 : kExitFinding;
}

/// A tensor program: its @output values on the tensor oracle, its @kernels count, then, for
/// `@check clean`, the program check with the faithful lowering and simplifier; the lowering
/// at the options the case records (--pcontig and --split-reduce-threshold win).
int replay_tensor_case(const std::string& file, ir::Context& ctx, const ir::Kernel& program,
                       const std::string& text, Simplifiers& simplifiers,
                       const LoweringOptionFlags& lowering, std::string& cause) {
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
  return judge_external(file, *corpus, r.kind, r.details, cause) ? kKnown
         : r.kind == check::FindingKind::None                    ? kExitOk
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
  std::string emit;  ///< --emit SYSTEM: write reproducers instead of checking
  std::string out;   ///< -o: the script (one case) or the folder for them
};

/// Where the reproducer of `file` goes: `out` itself when it names one .py file for one
/// case, else `<out or the case's folder>/<case stem>.py`.
std::string reproducer_path(const std::string& file, const std::string& out, size_t cases) {
  namespace fs = std::filesystem;
  const std::string stem = fs::path(file).stem().string() + ".py";
  if (out.empty()) return (fs::path(file).parent_path() / stem).string();
  std::error_code ec;
  if (cases == 1 && fs::path(out).extension() == ".py" && !fs::is_directory(out, ec)) return out;
  return (fs::path(out) / stem).string();
}

/// --emit: a standalone reproducer for every case of the system's findings; cases of other
/// simplifiers are skipped with the reason.
int emit_reproducers(const ReplayFlags& f, const std::vector<std::string>& files,
                     Simplifiers& simplifiers) {
  if (!sut::can_emit_reproducer(f.emit)) {
    fmt::print(stderr, "error: --emit {}: reproducers can be written for tinygrad only\n", f.emit);
    return kExitBadInput;
  }
  if (!f.out.empty() && (files.size() != 1 || std::filesystem::path(f.out).extension() != ".py")) {
    std::error_code ec;
    std::filesystem::create_directories(f.out, ec);
    if (ec) {
      fmt::print(stderr, "error: -o {}: cannot create the folder: {}\n", f.out, ec.message());
      return kExitBadInput;
    }
  }
  int written = 0, skipped = 0, failed = 0;
  for (const std::string& file : files) {
    auto k = load_kernel(file);
    if (!k) {
      ++failed;
      continue;
    }
    auto corpus = fuzz::read_corpus_header(k->parsed.kernel.header, k->text);
    if (!corpus || corpus->simplifier != f.emit) {
      fmt::print("SKIP {}: not a finding of {}\n", file, f.emit);
      ++skipped;
      continue;
    }
    const std::string path = reproducer_path(file, f.out, files.size());
    // A tensor program's finding is reproduced by the lowered kernel that shows it.
    check::CheckOptions co = fuzz::replay_check_options(*corpus, k->parsed.kernel.header);
    auto sut = simplifiers.get(corpus->simplifier, corpus->simplifier_stage);
    if (!sut) {
      fmt::print("ERROR {}: {}\n", file, sut.error().message);
      ++failed;
      continue;
    }
    co.simplifier = *sut;
    auto kernel = fuzz::kernel_to_reproduce(*k->ctx, k->parsed.kernel, co);
    if (!kernel) {
      fmt::print("ERROR {}: {}\n", file, kernel.error().message);
      ++failed;
      continue;
    }
    auto made = sut::emit_tinygrad_reproducer(*kernel, simplifiers.options(), path);
    if (!made) {
      fmt::print("ERROR {}: {}\n", file, made.error().message);
      ++failed;
      continue;
    }
    fmt::print("EMIT {} -> {}\n", file, path);
    ++written;
  }
  fmt::print("emit: {} reproducer(s) written, {} failed{}\n", written, failed,
             skipped ? fmt::format(", {} case(s) of other simplifiers skipped", skipped) : "");
  return failed ? kExitFinding : kExitOk;
}

int run_replay(const ReplayFlags& f) {
  auto files = case_files(f.paths);
  if (!files) return kExitBadInput;
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  Simplifiers simplifiers(f.simplifier);
  if (!f.emit.empty()) return emit_reproducers(f, *files, simplifiers);
  int passed = 0, failed = 0, skipped = 0, known = 0;
  std::map<std::string, std::vector<std::string>> known_by_cause;
  for (const std::string& file : *files) {
    std::string cause;
    const int rc = replay_case(file, simplifiers, f.lowering, cause);
    fmt::print("{} {}{}\n",
               rc == kExitOk        ? "PASS"
               : rc == kSkipped     ? "SKIP"
               : rc == kKnown       ? "KNOWN"
               : rc == kExitFinding ? "FAIL"
                                    : "ERROR",
               file, rc == kKnown && !cause.empty() ? " [" + cause + "]" : "");
    (rc == kExitOk ? passed : rc == kSkipped ? skipped : rc == kKnown ? known : failed)++;
    if (rc == kKnown) known_by_cause[cause.empty() ? "(no root cause yet)" : cause].push_back(file);
  }
  if (!known_by_cause.empty()) {
    fmt::print("known bugs by root cause:\n");
    for (const auto& [cause, cases] : known_by_cause)
      fmt::print("  {}: {} case(s): {}\n", cause, cases.size(), fmt::join(cases, " "));
  }
  fmt::print("replay: {} passed, {} failed{}{}\n", passed, failed,
             known ? fmt::format(", {} known bugs of an external simplifier in {} root cause(s)",
                                 known, known_by_cause.size())
                   : "",
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
  cmd.add_option("--emit", f->emit,
                 "instead of checking, write a standalone reproducer of each finding of this "
                 "system (tinygrad): a script that needs only it, exits 1 while the bug is there");
  cmd.add_option("-o,--out", f->out,
                 "with --emit: the script (one case, a .py path) or the folder for the scripts "
                 "(default: beside each case)");
  cmd.footer(
      "A tensor program is lowered at the options its header records (@pcontig, "
      "@split-reduce-threshold; a flag given wins) and FAILs when its @kernels count differs. "
      "A case whose header says @simplifier NAME is checked with that simplifier (--tinygrad and "
      "the other simplifier flags say how to run it); one without, with --simplifier. A case "
      "whose simplifier cannot be made here, or declines it, is SKIPped with the reason: "
      "neither passed nor failed. A finding of an external simplifier that still shows (same "
      "kind as its @signature) is KNOWN: that simplifier's open bug, not a failure, shown with "
      "its root cause (its @root-cause, else the entry of root-causes.md beside it that "
      "explains its signature), and the known bugs are listed by root cause at the end.");
  return [f] { return run_replay(*f); };
}

}  // namespace uopfuzz::cli
