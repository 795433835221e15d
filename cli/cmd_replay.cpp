// uopfuzz replay PATHS: every .uop case against its recorded expectations.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "check/expectations.h"
#include "check/program_check.h"
#include "cli/command.h"
#include "cli/kernel_file.h"
#include "fuzz/corpus_header.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::cli {
namespace {

/// One case: its header's expectations on the oracle, then, for a case whose header says
/// `@check clean` (every corpus finding), the differential check with the faithful
/// simplifier (the bug it found stays fixed; a latency finding is re-timed). Prints why
/// it fails, if it does, on stderr.
int replay_tensor_case(const std::string& file, ir::Context& ctx, const ir::Kernel& program,
                       const std::string& text);

int replay_case(const std::string& file) {
  auto k = load_kernel(file);
  if (!k) return kExitBadInput;
  const ir::Kernel& kernel = k->parsed.kernel;
  if (ir::is_tensor_program(kernel.root)) return replay_tensor_case(file, *k->ctx, kernel, k->text);
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
  auto r = check::check_kernel(*k->ctx, kernel, fuzz::replay_check_options(*corpus, kernel.header));
  if (r.kind == check::FindingKind::None) return kExitOk;
  fmt::print(stderr, "{}: check: {}: {}\n", file, check::finding_kind_name(r.kind), r.details);
  return kExitFinding;
}

/// A tensor program: its @output values on the tensor oracle, then, for `@check clean`, the
/// program check with the faithful lowering and simplifier.
int replay_tensor_case(const std::string& file, ir::Context& ctx, const ir::Kernel& program,
                       const std::string& text) {
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
  if (!corpus->check_clean) return kExitOk;
  check::ProgramCheckOptions po;
  po.check = fuzz::replay_check_options(*corpus, program.header);
  po.check.latency.reset();
  auto r = check::check_program(ctx, program, po);
  if (r.unsupported) {
    fmt::print(stderr, "{}: error: {}\n", file, *r.unsupported);
    return kExitBadInput;
  }
  if (r.kind == check::FindingKind::None) return kExitOk;
  fmt::print(stderr, "{}: check: {}: {}\n", file, check::finding_kind_name(r.kind), r.details);
  return kExitFinding;
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

int run_replay(const std::vector<std::string>& paths) {
  auto files = case_files(paths);
  if (!files) return kExitBadInput;
  int passed = 0, failed = 0;
  for (const std::string& file : *files) {
    const int rc = replay_case(file);
    fmt::print("{} {}\n", rc == kExitOk ? "PASS" : rc == kExitFinding ? "FAIL" : "ERROR", file);
    (rc == kExitOk ? passed : failed)++;
  }
  fmt::print("replay: {} passed, {} failed\n", passed, failed);
  return failed ? kExitFinding : kExitOk;
}

}  // namespace

Action add_replay(CLI::App& cmd, Invocation&) {
  auto paths = std::make_shared<std::vector<std::string>>();
  cmd.add_option("PATHS", *paths, "files or directories (searched recursively for *.uop)")
      ->required();
  return [paths] { return run_replay(*paths); };
}

}  // namespace uopfuzz::cli
