// uopfuzz fuzz: a campaign of generated kernels and tensor programs, findings minimized into
// the corpus. The flags are in fuzz_flags.*, what it prints in fuzz_output.*, the campaign's
// policy in fuzz/campaign_setup.h and its JSON in report/campaign_json.h.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/registry.h"
#include "backends/vulkan/device_info.h"
#include "bench/run_context.h"
#include "cli/command.h"
#include "cli/compare_flags.h"
#include "cli/fuzz_flags.h"
#include "cli/fuzz_output.h"
#include "fuzz/campaign.h"
#include "fuzz/campaign_setup.h"
#include "gen/forms.h"
#include "gen/generator.h"
#include "gen/tensor_gen.h"
#include "report/campaign_json.h"

namespace uopfuzz::cli {
namespace {

int run_fuzz(const FuzzFlags& f, const std::string& command_line) {
  auto opts = simplify_options(f.simplify);
  if (!opts) return kExitBadInput;
  if (f.seconds <= 0 || f.check_seeds < 1 || f.jobs < 1 || f.graph_timeout <= 0) {
    fmt::print(stderr,
               "error: --time and --timeout must be positive, --seeds and --jobs at least 1\n");
    return kExitBadInput;
  }
  if (f.no_isolation && f.jobs > 1) {
    fmt::print(stderr, "error: --jobs needs isolation (drop --no-isolation)\n");
    return kExitBadInput;
  }
  const std::vector<std::string> checked =
      f.backends.empty() ? std::vector<std::string>{"oracle"} : f.backends;
  if (!valid_backends(checked)) return kExitBadInput;
  if (!(f.backend_share >= 0 && f.backend_share < 1) ||
      (f.backend_rate && !(*f.backend_rate > 0 && *f.backend_rate <= 1))) {
    fmt::print(stderr, "error: --backend-share must be in [0, 1), --backend-rate in (0, 1]\n");
    return kExitBadInput;
  }
  // The default campaign's compiled backends: the cpu always, Vulkan when a device opens.
  fuzz::ExecutorSchedule schedule;
  if (f.backends.empty() && f.backend_share > 0 && f.compare.empty()) {
    std::vector<std::pair<std::string, std::string>> skipped;
    schedule = fuzz::default_executor_schedule(backends::backend_names(), f.backend_share,
                                               f.backend_rate, device_problem, skipped);
    for (const auto& [b, why] : skipped) fmt::print("fuzz: {} checks no graphs: {}\n", b, why);
  }
  auto latency = latency_options(f.latency);
  if (!latency) return kExitBadInput;
  // Now, before any thread or Vulkan instance exists: a campaign runs each Vulkan kernel
  // a few times, so compiling it fast matters more than running it fast.
  if (!*latency || (*latency)->backend != "vulkan") backends::vulkan::prefer_fast_shader_compiles();
  if (!(f.mutate_share >= 0 && f.mutate_share <= 1)) {
    fmt::print(stderr, "error: --mutate-share must be in [0, 1]\n");
    return kExitBadInput;
  }
  if (f.latency_every < 1) {
    fmt::print(stderr, "error: --latency-every must be at least 1\n");
    return kExitBadInput;
  }
  fuzz::Shard shard;
  if (!f.shard.empty()) {
    auto s =
        f.shard == "env" ? fuzz::shard_from_environment(std::getenv) : fuzz::parse_shard(f.shard);
    if (!s) {
      fmt::print(stderr, "error: --shard: {}\n", s.error().message);
      return kExitBadInput;
    }
    if (!f.compare.empty()) {
      fmt::print(stderr, "error: --shard does not apply to --compare\n");
      return kExitBadInput;
    }
    shard = *s;
  }
  std::optional<backends::OptLevel> opt_level;
  if (f.cpu_opt != "mix") {
    opt_level = backends::parse_opt_level(f.cpu_opt);
    if (!opt_level) {
      fmt::print(stderr, "error: --cpu-opt must be O0, O1, O2, O3 or mix, not '{}'\n", f.cpu_opt);
      return kExitBadInput;
    }
  }
  auto level = fuzz::parse_level(f.level);
  if (!level) {
    fmt::print(stderr, "error: --level must be kernel, tensor or mixed\n");
    return kExitBadInput;
  }
  auto lowering = lowering_bugs(f.lowering_bugs);
  if (!lowering) return kExitBadInput;
  if (!valid_lowering_options(f.lowering)) return kExitBadInput;
  auto under_test = simplifier_under_test(f.simplify.simplifier, *opts);
  if (!under_test) return kExitBadInput;
  fuzz::CampaignOptions co;
  co.check.simplifier = *under_test;
  co.level = *level;
  co.lower.bugs = *lowering;
  co.lower = lower_options(co.lower, f.lowering);
  // An option given is every program's; one not given is drawn per program.
  co.vary_lowering.pcontig = !f.lowering.pcontig;
  co.vary_lowering.split_reduce_threshold = !f.lowering.split_reduce_threshold;
  co.seconds = f.seconds;
  co.seed = f.seed;
  co.max_graphs = f.max_graphs;
  co.shard = shard;
  co.check.simplify = *opts;
  co.check.seeds = f.check_seeds;
  co.check.max_steps = fuzz::campaign_check_max_steps();
  co.check.backends = checked;
  co.schedule = schedule;
  co.opt_level = opt_level;
  co.check.latency = *latency;
  co.latency_every = f.latency_every;
  const bool planted =
      opts->bugs.any() || !lowering->empty() || !f.simplify.simplifier.adapter_bugs.empty();
  co.corpus_dir = fuzz::findings_destination(f.corpus, planted);
  co.found_by = command_line;
  co.isolate = !f.no_isolation;
  co.jobs = f.jobs;
  co.graph_timeout_s = fuzz::campaign_graph_timeout(f.graph_timeout, *under_test != nullptr,
                                                    f.simplify.simplifier.timeout_s);
  co.mutation.share = f.mutate_share;
  co.mutation.corpus_size = f.mutate_corpus;
  const bool tty = ::isatty(STDOUT_FILENO);
  co.on_progress = progress_printer(tty);
  const fuzz::GenerationPlan plan =
      fuzz::plan_generation(f.large_share, *under_test, !f.compare.empty());
  const gen::GenPolicy& policy = plan.policy;
  const std::vector<std::string>& forms = plan.forms;
  if (!plan.avoided.empty()) {
    std::vector<std::string> words;
    for (const auto& a : plan.avoided) words.push_back(a.shape);
    fmt::print("fuzz: not generating {} ({} declines them at its stage{}; knobs set to 0: {})\n",
               fmt::join(words, ", "), f.simplify.simplifier.spec,
               (*under_test)->stage().empty() ? "" : " " + (*under_test)->stage(), [&] {
                 std::string knobs;
                 for (const auto& a : plan.avoided) knobs += (knobs.empty() ? "" : "; ") + a.knobs;
                 return knobs;
               }());
  }
  co.mutation.policy = plan.mutation_policy;  // mutants keep to it too (the range-end mutator)
  if (!forms.empty())
    fmt::print(
        "fuzz: asking {} to spell gated accesses its own ways ({}) in {:.0f}% of the "
        "kernels that have one\n",
        f.simplify.simplifier.spec, fmt::join(forms, ", "), 100 * policy.p_external_forms);
  fuzz::GraphSource source = [&](ir::Context& ctx, uint64_t gs) {
    ir::Kernel k = gen::generate(ctx, policy, gs).kernel;
    gen::draw_forms(k, forms, policy, gs);
    return k;
  };
  co.tensor_source = [&](ir::Context& ctx, uint64_t gs) {
    return gen::generate_tensor_program(ctx, policy, gs).program;
  };
  if (!f.compare.empty())
    return run_fuzz_compare(
        f.compare, external_options(f.simplify.simplifier), co.check, f.seed, f.seconds,
        f.max_graphs, source, f.json_path,
        co.level == fuzz::Level::Tensor ? co.tensor_source : fuzz::GraphSource{});
  fuzz::Shrinker shrink = f.no_reduce ? fuzz::Shrinker() : fuzz::reducer_shrinker(10);
  fuzz::CampaignResult r = fuzz::run_campaign(co, source, shrink);
  if (tty) fmt::print("\n");
  print_campaign_summary(f, r, shard, schedule, plan, *latency);
  std::vector<fuzz::FindingTriage> triage;
  if (*under_test) triage = triage_new_findings(f, co, r);
  print_new_findings(co, r, triage);
  if (!f.json_path.empty()) {
    // The devices of every backend measured: the checked ones and the timed one.
    std::vector<std::string> measured = checked;
    for (const std::string& b : schedule.backends) measured.push_back(b);
    if (latency->has_value() &&
        std::find(measured.begin(), measured.end(), (*latency)->backend) == measured.end())
      measured.push_back((*latency)->backend);
    const std::string context =
        bench::context_json("uopfuzz fuzz", bench::describe_devices(measured)).dump();
    std::ofstream out(f.json_path);
    const report::FuzzSummary s = report::campaign_summary(
        f.seed, checked, f.mutate_share, r, latency->has_value(), schedule.backends, triage);
    const auto doc = report::campaign_document(s, context, f.level, shard, r.totals, plan.avoided,
                                               plan.forms, plan.policy, f.cpu_opt);
    out << doc.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "error: cannot write {}\n", f.json_path);
      return kExitBadInput;
    }
  }
  return r.new_findings.empty() ? kExitOk : kExitFinding;
}

}  // namespace

Action add_fuzz(CLI::App& cmd, Invocation& invocation) {
  auto f = std::make_shared<FuzzFlags>();
  add_fuzz_flags(cmd, *f, invocation.device);
  const Invocation& inv = invocation;
  return [f, &inv] { return run_fuzz(*f, inv.command_line); };
}

}  // namespace uopfuzz::cli
