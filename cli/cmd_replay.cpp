// uopfuzz replay PATHS: every .uop case against its recorded expectations (the judging of
// one case is fuzz/replay_case.h's).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "cli/command.h"
#include "cli/compare_flags.h"
#include "cli/kernel_file.h"
#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "fuzz/corpus_header.h"
#include "fuzz/finding_triage.h"
#include "fuzz/replay_case.h"
#include "sut/reproducer.h"

namespace uopfuzz::cli {
namespace {

/// A case replay_case could not check: the simplifier it records cannot be made here.
constexpr int kSkipped = -1;
/// A case an external simplifier's finding made still shows that finding: a known bug of
/// that simplifier (uopfuzz does not own its fix), not a failure of the replay.
constexpr int kKnown = -2;

/// One case: loaded (kExitBadInput when it cannot be), judged by fuzz::replay_case, what the
/// judging says printed on stderr; kExitOk, kExitFinding, kSkipped or kKnown as it came out.
int replay_case(const std::string& file, fuzz::ReplaySimplifiers& simplifiers,
                const LoweringOptionFlags& lowering, std::string& cause) {
  auto k = load_kernel(file);
  if (!k) return kExitBadInput;
  std::vector<std::string> notes;
  const fuzz::ReplayVerdict v =
      fuzz::replay_case(file, *k->ctx, k->parsed.kernel, k->text, simplifiers,
                        {lowering.pcontig, lowering.split_reduce_threshold}, cause, notes);
  for (const std::string& n : notes) fmt::print(stderr, "{}\n", n);
  switch (v) {
    case fuzz::ReplayVerdict::Pass: return kExitOk;
    case fuzz::ReplayVerdict::Fail: return kExitFinding;
    case fuzz::ReplayVerdict::Error: return kExitBadInput;
    case fuzz::ReplayVerdict::Skipped: return kSkipped;
    case fuzz::ReplayVerdict::Known: return kKnown;
  }
  return kExitBadInput;
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
                     fuzz::ReplaySimplifiers& simplifiers) {
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
  fuzz::ReplaySimplifiers simplifiers(f.simplifier.spec, external_options(f.simplifier));
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
