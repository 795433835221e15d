#include "cli/fuzz_flags.h"

#include "cli/compare_flags.h"

namespace uopfuzz::cli {

void add_fuzz_flags(CLI::App& cmd, FuzzFlags& f, std::string& device) {
  cmd.add_option("--time", f.seconds, "seconds to run")->capture_default_str();
  cmd.add_option("--seed", f.seed,
                 "campaign seed: the same seed tries the same graphs on any machine")
      ->capture_default_str();
  cmd.add_option("--max-graphs", f.max_graphs, "stop after this many graphs (0: until --time)")
      ->capture_default_str();
  cmd.add_option("--seeds", f.check_seeds, "input seeds each graph is checked on")
      ->capture_default_str();
  cmd.add_option("--corpus", f.corpus,
                 "directory for new findings (default: corpus/findings; none with --inject-bug)");
  cmd.add_option("--json", f.json_path, "write a JSON summary to this file");
  cmd.add_flag("--no-reduce", f.no_reduce, "keep findings as found (no minimization)");
  cmd.add_option("--large-share", f.large_share,
                 "share of graphs with real sizes (loops of 10^4..10^6 iterations)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--level", f.level,
                 "what graph i is: kernel, tensor (a tensor program, lowered to kernels), or mixed "
                 "(one graph in four a tensor program, drawn from the graph's seed)")
      ->check(CLI::IsMember({"kernel", "tensor", "mixed"}))
      ->capture_default_str();
  add_lowering_bug_flag(cmd, f.lowering_bugs);
  add_lowering_option_flags(cmd, f.lowering, nullptr);
  add_compare_flag(cmd, f.compare);
  cmd.add_option("--shard", f.shard,
                 "K/N: check only the graph indices i with i mod N = K, so that N machines split "
                 "one campaign (same --seed) with no coordination; env: take K/N from "
                 "UOPFUZZ_SHARD, a Slurm array task (SLURM_ARRAY_TASK_ID/_MIN/_COUNT) or a "
                 "Kubernetes Indexed Job (JOB_COMPLETION_INDEX with UOPFUZZ_SHARD_COUNT)");
  cmd.add_option(
         "--jobs,-j", f.jobs,
         "worker processes (graph i goes to worker i mod N; with --shard K/S, (i div S) mod N)")
      ->capture_default_str();
  cmd.add_option("--timeout", f.graph_timeout,
                 "seconds one graph may take before it counts as a hang (with an external "
                 "simplifier, at least --simplifier-timeout + 5)")
      ->capture_default_str();
  cmd.add_option("--cpu-opt", f.cpu_opt,
                 "the level the cpu backend compiles at: O0, O1, O2, O3, or mix (drawn per graph "
                 "from its seed: O0 50%, O1 15%, O2 25%, O3 10%; a finding records its level as "
                 "@cpu-opt and replays there)")
      ->capture_default_str();
  cmd.add_option("--backends", f.backends,
                 "backends every graph is checked on (available: " + backend_list() +
                     "); default: the oracle on every graph and each compiled backend whose "
                     "device opens on the graphs it picks, in --backend-share of the time")
      ->delimiter(',');
  cmd.add_option("--backend-share", f.backend_share,
                 "without --backends: the share of the time the compiled backends get together "
                 "(each picks graphs by a draw from the graph's seed, likelier for a rewrite that "
                 "changed something or hit a rare rule, at a rate that follows the time; 0: the "
                 "oracle alone)")
      ->capture_default_str();
  cmd.add_option("--backend-rate", f.backend_rate,
                 "without --backends: a fixed rate for that draw instead of following the time "
                 "share (the graphs each backend checks are then a function of their index)");
  cmd.add_flag("--no-isolation", f.no_isolation,
               "check in this process (for a debugger): a crash or hang then ends the campaign");
  add_simplify_flags(cmd, f.simplify);
  add_latency_flags(cmd, f.latency);
  cmd.add_option("--latency-every", f.latency_every,
                 "with --latency: time one graph in N (graph i when i mod N = 0)")
      ->capture_default_str();
  cmd.add_option("--mutate-share", f.mutate_share,
                 "share of graphs that are mutants of the graphs that first fired a rule or a "
                 "pair of rules (rule-coverage-guided mutation; 0: generated graphs only)")
      ->capture_default_str();
  cmd.add_option("--mutate-corpus", f.mutate_corpus,
                 "graphs each worker keeps to mutate (the least-fired rules' first)")
      ->capture_default_str();
  cmd.add_flag("--check-bounds,!--no-check-bounds", f.check_bounds,
               "hold the bounds the simplifier believes of each node (tinygrad's vmin/vmax, the "
               "built-in ir/analysis) against the oracle's values: a value outside them is an "
               "unsound-bounds finding, and names the wrong fact behind a wrong rewrite (on by "
               "default)");
  cmd.add_option("--emit", f.emit,
                 "with --simplifier tinygrad: write a standalone reproducer (a script that needs "
                 "only tinygrad, exits 1 while the bug is there) beside each kept finding")
      ->check(CLI::IsMember({"tinygrad"}));
  cmd.add_option("--root-causes", f.root_causes,
                 "with an external simplifier: the root-causes file that names each finding's "
                 "cause (default: root-causes.md in the findings folder, else the repository's "
                 "corpus/findings/<simplifier>/root-causes.md); findings none explains are NEW");
  add_device_flag(cmd, device);
}

}  // namespace uopfuzz::cli
