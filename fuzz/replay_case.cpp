#include "fuzz/replay_case.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <string_view>

#include "check/expectations.h"
#include "check/program_check.h"
#include "fuzz/root_causes.h"
#include "ir/run_io.h"
#include "ir/tensor.h"
#include "oracle/tensor_eval.h"

namespace uopfuzz::fuzz {

ReplaySimplifiers::ReplaySimplifiers(std::string default_spec, sut::ExternalOptions options)
    : default_spec_(std::move(default_spec)), options_(std::move(options)) {}

Result<std::shared_ptr<sut::Simplifier>> ReplaySimplifiers::get(const std::string& recorded,
                                                                const std::string& stage) {
  const std::string spec = recorded.empty() ? default_spec_ : recorded;
  if (spec == "builtin") return std::shared_ptr<sut::Simplifier>();
  auto it = made_.find({spec, stage});
  if (it == made_.end()) {
    sut::ExternalOptions eo = options();
    if (!stage.empty()) eo.tinygrad_stage = stage;
    it = made_.emplace(std::pair{spec, stage}, sut::make_simplifier(spec, eo)).first;
  }
  return it->second;
}

schedule::LowerOptions lower_with_overrides(const CorpusHeader& recorded,
                                            const LoweringOverrides& given) {
  schedule::LowerOptions o = with_recorded_lowering({}, recorded);
  if (given.pcontig) o.pcontig = *given.pcontig;
  if (given.split_reduce_threshold) o.split_reduce_threshold = *given.split_reduce_threshold;
  return o;
}

namespace {

/// The replay check's options with the case's simplifier under test; nullopt (and the reason
/// noted) when it cannot be made.
std::optional<check::CheckOptions> with_simplifier(check::CheckOptions co,
                                                   const CorpusHeader& corpus,
                                                   ReplaySimplifiers& simplifiers,
                                                   const std::string& file,
                                                   std::vector<std::string>& notes) {
  auto s = simplifiers.get(corpus.simplifier, corpus.simplifier_stage);
  if (!s) {
    notes.push_back(fmt::format("{}: skipped: simplifier '{}' cannot be made: {}", file,
                                corpus.simplifier, s.error().message));
    return std::nullopt;
  }
  co.simplifier = *s;
  return co;
}

/// The root cause a known bug's case is filed under: its @root-cause, else the entry of
/// root-causes.md beside it that explains its signature ("" when none does).
std::string root_cause_of(const std::string& file, const CorpusHeader& corpus,
                          std::vector<std::string>& notes) {
  if (!corpus.root_cause.empty()) return corpus.root_cause;
  static std::map<std::string, RootCauses> by_folder;
  const std::string folder = std::filesystem::path(file).parent_path().string();
  auto it = by_folder.find(folder);
  if (it == by_folder.end()) {
    auto read = read_root_causes(root_causes_path(folder.empty() ? "." : folder));
    if (!read)
      notes.push_back(fmt::format("{}:{}: error: {}", root_causes_path(folder),
                                  read.error().loc.line, read.error().message));
    it = by_folder.emplace(folder, read ? *read : RootCauses{}).first;
  }
  const RootCause* c = it->second.explain(corpus.signature, corpus.details);
  return c ? c->id : "";
}

/// Whether `r`, the replay of a case an external simplifier's finding made, still shows the
/// finding it records (same kind as its @signature): then it is that simplifier's known bug.
/// Notes what the replay shows either way; a built-in case is left to the caller.
bool judge_external(const std::string& file, const CorpusHeader& corpus, check::FindingKind found,
                    const std::string& details, std::string& cause,
                    std::vector<std::string>& notes) {
  const bool external = !corpus.simplifier.empty() && corpus.simplifier != "builtin";
  const std::string_view kind = check::finding_kind_name(found);
  const std::string_view recorded =
      std::string_view(corpus.signature).substr(0, corpus.signature.find('/'));
  if (external && found == check::FindingKind::None) {
    notes.push_back(fmt::format("{}: note: the {} bug it records ({}) no longer shows with this {}",
                                file, corpus.simplifier, corpus.signature, corpus.simplifier));
    return false;
  }
  if (found == check::FindingKind::None) return false;
  notes.push_back(fmt::format("{}: check: {}: {}", file, kind, details));
  if (!external || kind != recorded) return false;
  cause = root_cause_of(file, corpus, notes);
  notes.push_back(fmt::format("{}: known bug of {} ({}, root cause {}): it still shows", file,
                              corpus.simplifier, corpus.signature,
                              cause.empty() ? "not yet triaged" : cause));
  return true;
}

/// A tensor program: its @output values on the tensor oracle, its @kernels count, then, for
/// `@check clean`, the program check with the faithful lowering and simplifier; the lowering
/// at the options the case records (--pcontig and --split-reduce-threshold win).
ReplayVerdict replay_tensor_case(const std::string& file, ir::Context& ctx,
                                 const ir::Kernel& program, const std::string& text,
                                 ReplaySimplifiers& simplifiers, const LoweringOverrides& lowering,
                                 std::string& cause, std::vector<std::string>& notes) {
  const uint64_t seed = program.header.seed.value_or(0);
  std::map<std::string, int64_t> vars(program.header.vars.begin(), program.header.vars.end());
  auto run = oracle::eval_tensor_program(program.root, ir::make_inputs(program, seed, vars));
  if (!run) {
    notes.push_back(
        fmt::format("{}: error: the tensor oracle cannot run it: {}", file, run.error().message));
    return ReplayVerdict::Error;
  }
  if (run->status != ir::RunStatus::Ok) {
    notes.push_back(
        fmt::format("{}: the tensor program has undefined behaviour on seed {}", file, seed));
    return ReplayVerdict::Fail;
  }
  for (const ir::ExpectedOutput& want : program.header.outputs) {
    auto got = run->outputs.find(want.slot);
    if (got == run->outputs.end() || got->second.size() != want.values.size()) {
      notes.push_back(fmt::format("{}: @output {}: the program has no output of {} elements there",
                                  file, want.slot, want.values.size()));
      return ReplayVerdict::Fail;
    }
    for (size_t i = 0; i < want.values.size(); ++i)
      if (!check::agrees_at(got->second, i, want.values[i])) {
        notes.push_back(fmt::format("{}: @output {}[{}] is {} on the tensor oracle, expected {}",
                                    file, want.slot, i,
                                    ir::format_value(got->second.dtype(), got->second.get(i)),
                                    ir::format_value(got->second.dtype(), want.values[i])));
        return ReplayVerdict::Fail;
      }
  }
  auto corpus = read_corpus_header(program.header, text);
  if (!corpus) {
    notes.push_back(
        fmt::format("{}:{}: error: {}", file, corpus.error().loc.line, corpus.error().message));
    return ReplayVerdict::Error;
  }
  const schedule::LowerOptions lower_opts = lower_with_overrides(*corpus, lowering);
  if (corpus->kernels) {
    auto lowered = schedule::lower(ctx, program.root, lower_opts);
    if (!lowered) {
      notes.push_back(fmt::format("{}: error: cannot lower the tensor program: {}", file,
                                  lowered.error().message));
      return ReplayVerdict::Fail;
    }
    if (static_cast<int64_t>(lowered->kernels.size()) != *corpus->kernels) {
      notes.push_back(fmt::format("{}: expected {} kernels, the lowering gives {}", file,
                                  *corpus->kernels, lowered->kernels.size()));
      return ReplayVerdict::Fail;
    }
  }
  if (!corpus->check_clean) return ReplayVerdict::Pass;
  check::ProgramCheckOptions po;
  po.lower = lower_opts;
  auto co = with_simplifier(replay_check_options(*corpus, program.header), *corpus, simplifiers,
                            file, notes);
  if (!co) return ReplayVerdict::Skipped;
  po.check = *co;
  po.check.latency.reset();
  auto r = check::check_program(ctx, program, po);
  if (r.unsupported && r.simplifier_failure) {
    notes.push_back(fmt::format("{}: skipped: {}", file, *r.unsupported));
    return ReplayVerdict::Skipped;
  }
  if (r.unsupported) {
    notes.push_back(fmt::format("{}: error: {}", file, *r.unsupported));
    return ReplayVerdict::Error;
  }
  return judge_external(file, *corpus, r.kind, r.details, cause, notes) ? ReplayVerdict::Known
         : r.kind == check::FindingKind::None                           ? ReplayVerdict::Pass
                                                                        : ReplayVerdict::Fail;
}

}  // namespace

ReplayVerdict replay_case(const std::string& file, ir::Context& ctx, const ir::Kernel& kernel,
                          const std::string& text, ReplaySimplifiers& simplifiers,
                          const LoweringOverrides& lowering, std::string& cause,
                          std::vector<std::string>& notes) {
  if (ir::is_tensor_program(kernel.root))
    return replay_tensor_case(file, ctx, kernel, text, simplifiers, lowering, cause, notes);
  check::CaseRunOptions o;
  o.seed = kernel.header.seed.value_or(0);
  o.vars.insert(kernel.header.vars.begin(), kernel.header.vars.end());
  auto ran = check::run_case(ctx, kernel, o);
  if (auto* e = std::get_if<check::CaseError>(&ran)) {
    notes.push_back(fmt::format("{}: error: {}", file, e->message));
    return e->finding ? ReplayVerdict::Fail : ReplayVerdict::Error;
  }
  if (!std::get<check::CaseRun>(ran).verdict.pass) return ReplayVerdict::Fail;
  auto corpus = read_corpus_header(kernel.header, text);
  if (!corpus) {
    notes.push_back(
        fmt::format("{}:{}: error: {}", file, corpus.error().loc.line, corpus.error().message));
    return ReplayVerdict::Error;
  }
  if (!corpus->check_clean) return ReplayVerdict::Pass;
  auto co = with_simplifier(replay_check_options(*corpus, kernel.header), *corpus, simplifiers,
                            file, notes);
  if (!co) return ReplayVerdict::Skipped;
  auto r = check::check_kernel(ctx, kernel, *co);
  if (r.simplifier_failure && r.kind == check::FindingKind::None) {
    notes.push_back(fmt::format("{}: skipped: the simplifier declines it: {}", file,
                                r.simplifier_failure->reason));
    return ReplayVerdict::Skipped;
  }
  return judge_external(file, *corpus, r.kind, r.details, cause, notes) ? ReplayVerdict::Known
         : r.kind == check::FindingKind::None                           ? ReplayVerdict::Pass
                                                                        : ReplayVerdict::Fail;
}

}  // namespace uopfuzz::fuzz
