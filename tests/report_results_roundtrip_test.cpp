// A fuzz summary written by fuzz_summary_json reads back, through the results reader the
// dashboard uses, with every field it was written with.
#include <gtest/gtest.h>

#include <string>

#include "report/results.h"

namespace uopfuzz::report {
namespace {

// clang-format off
const char* kContext = R"json({"date": "2026-11-29T10:20:30+01:00", "host_name": "box",
  "executable": "uopfuzz fuzz", "uopfuzz_version": "0.1.0", "commit": "0123456789abcdef-dirty",
  "machine": "box (a CPU, 2 cores)", "load_avg": [0.25, 1.5, 2.0],
  "devices": [{"backend": "oracle", "device": "interpreter", "driver": "uopfuzz"},
              {"backend": "cpu", "device": "Some CPU", "driver": "LLVM 15", "driver_info": "O2",
               "api_version": "", "device_type": "cpu"}]})json";
// clang-format on

FuzzSummary full_summary() {
  FuzzSummary s;
  s.seed = 18446744073709551557ull;  // above INT64_MAX: the seed is unsigned
  s.seconds = 12.25;
  s.graphs = 4321;
  s.graphs_per_second = 352.734693877551;
  s.jobs = 3;
  s.backends = {"oracle", "cpu"};
  s.latency = true;
  s.workers_lost = 2;
  s.latency_timed = 87;
  s.median_nodes = 41;
  s.median_iterations = 960;
  s.median_steps = 15873;
  s.small_graphs = 4300;
  s.large_graphs = 21;
  s.small_graphs_per_second = 5012.5;
  s.large_graphs_per_second = 6.75;
  s.findings = 7;
  // Not in sorted order: the file keeps the order written.
  s.by_signature = {{"mismatch/split_mod/oracle", 5}, {"latency/merge/cpu", 2}};
  s.rule_hits = {{"fold_add_zero", 1200}, {"bound_upper", 3}};
  s.mutate_share = 0.375;
  s.graphs_mutated = 1234;
  s.rule_hit_target = 100;
  s.rules_below_target = {{"mod_mod", 42}, {"cast_noop", 0}};
  s.unfireable_rules = {{"reduce_where_invalid", "its left-hand side fails the verifier"}};
  s.gate_counts = {{"bound_upper", {{4, 0}}}, {"reduce_and_gate", {{0, 9}, {2, 5}}}};
  s.gates_never_declined = {"bound_upper#0"};
  s.gates_never_accepted = {"reduce_and_gate#0", "cast_noop#0"};
  FuzzFinding mismatch;
  mismatch.signature = "mismatch/split_mod/oracle";
  mismatch.kind = "mismatch";
  mismatch.backend = "oracle";
  mismatch.graph_index = 17;
  mismatch.graph_seed = 15548176952909425907ull;
  mismatch.seconds = 0.75;
  mismatch.nodes_found = 55;
  mismatch.nodes_reduced = 9;
  mismatch.path = "corpus/findings/0123456789abcdef.uop";
  mismatch.details = "seed 0: out[0][3] is 1 on the original but 2 on the rewrite";
  FuzzFinding slow;
  slow.signature = "latency/merge/cpu";
  slow.kind = "latency";
  slow.backend = "cpu";
  slow.graph_index = 230;
  slow.graph_seed = 99;
  slow.seconds = 8.5;
  slow.nodes_found = 30;
  slow.nodes_reduced = 12;
  slow.write_error = "cannot create /read-only: Permission denied";
  slow.details = "3.1x slower";
  slow.latency = LatencyStats{3.125, 0.0004, 2.875, 0.0009, false};
  s.new_findings = {mismatch, slow};
  return s;
}

void expect_same_finding(const FuzzFinding& got, const FuzzFinding& want) {
  EXPECT_EQ(got.signature, want.signature);
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.backend, want.backend);
  EXPECT_EQ(got.graph_index, want.graph_index);
  EXPECT_EQ(got.graph_seed, want.graph_seed);
  EXPECT_EQ(got.seconds, want.seconds);
  EXPECT_EQ(got.nodes_found, want.nodes_found);
  EXPECT_EQ(got.nodes_reduced, want.nodes_reduced);
  EXPECT_EQ(got.path, want.path);
  EXPECT_EQ(got.write_error, want.write_error);
  EXPECT_EQ(got.details, want.details);
  ASSERT_EQ(got.latency.has_value(), want.latency.has_value());
  if (!want.latency) return;
  EXPECT_EQ(got.latency->ratio, want.latency->ratio);
  EXPECT_EQ(got.latency->p_value, want.latency->p_value);
  EXPECT_EQ(got.latency->confirm_ratio, want.latency->confirm_ratio);
  EXPECT_EQ(got.latency->confirm_p_value, want.latency->confirm_p_value);
  EXPECT_EQ(got.latency->confirmed, want.latency->confirmed);
}

TEST(ReportResultsRoundtrip, FuzzSummaryReadsBackEveryField) {
  const FuzzSummary want = full_summary();
  auto back = parse_results(fuzz_summary_json(want, kContext), "summary.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kind, ResultsKind::Fuzz);
  const FuzzSummary& got = back->fuzz;
  EXPECT_EQ(got.seed, want.seed);
  EXPECT_EQ(got.seconds, want.seconds);
  EXPECT_EQ(got.graphs, want.graphs);
  EXPECT_EQ(got.graphs_per_second, want.graphs_per_second);
  EXPECT_EQ(got.jobs, want.jobs);
  EXPECT_EQ(got.backends, want.backends);
  EXPECT_EQ(got.latency, want.latency);
  EXPECT_EQ(got.workers_lost, want.workers_lost);
  EXPECT_EQ(got.latency_timed, want.latency_timed);
  EXPECT_EQ(got.median_nodes, want.median_nodes);
  EXPECT_EQ(got.median_iterations, want.median_iterations);
  EXPECT_EQ(got.median_steps, want.median_steps);
  EXPECT_EQ(got.small_graphs, want.small_graphs);
  EXPECT_EQ(got.large_graphs, want.large_graphs);
  EXPECT_EQ(got.small_graphs_per_second, want.small_graphs_per_second);
  EXPECT_EQ(got.large_graphs_per_second, want.large_graphs_per_second);
  EXPECT_EQ(got.findings, want.findings);
  EXPECT_EQ(got.by_signature, want.by_signature);
  EXPECT_EQ(got.rule_hits, want.rule_hits);
  EXPECT_EQ(got.mutate_share, want.mutate_share);
  EXPECT_EQ(got.graphs_mutated, want.graphs_mutated);
  EXPECT_EQ(got.rule_hit_target, want.rule_hit_target);
  EXPECT_EQ(got.rules_below_target, want.rules_below_target);
  EXPECT_EQ(got.unfireable_rules, want.unfireable_rules);
  EXPECT_EQ(got.gate_counts, want.gate_counts);
  EXPECT_EQ(got.gates_never_declined, want.gates_never_declined);
  EXPECT_EQ(got.gates_never_accepted, want.gates_never_accepted);
  ASSERT_EQ(got.new_findings.size(), want.new_findings.size());
  for (size_t i = 0; i < want.new_findings.size(); ++i)
    expect_same_finding(got.new_findings[i], want.new_findings[i]);
}

TEST(ReportResultsRoundtrip, ContextBlockIsCopiedAsGiven) {
  auto back = parse_results(fuzz_summary_json(full_summary(), kContext), "summary.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const RunContext& c = back->context;
  EXPECT_EQ(c.date, "2026-11-29T10:20:30+01:00");
  EXPECT_EQ(c.epoch_seconds, int64_t(1795944030));  // 09:20:30 UTC
  EXPECT_EQ(c.commit, "0123456789abcdef-dirty");
  EXPECT_EQ(c.host_name, "box");
  EXPECT_EQ(c.uopfuzz_version, "0.1.0");
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.devices[1].backend, "cpu");
  EXPECT_EQ(c.devices[1].device, "Some CPU");
  EXPECT_EQ(c.devices[1].driver_info, "O2");
  EXPECT_EQ(c.devices[1].device_type, "cpu");
}

TEST(ReportResultsRoundtrip, AbsentOptionalFiguresStayAbsent) {
  FuzzSummary s = full_summary();
  s.seed.reset();
  s.new_findings[0].graph_index.reset();
  s.new_findings[0].seconds.reset();
  s.new_findings[1].latency->p_value.reset();
  s.new_findings[1].latency->confirm_ratio.reset();
  const std::string text = fuzz_summary_json(s, kContext);
  EXPECT_EQ(text.find("\"seed\""), std::string::npos);
  auto back = parse_results(text, "summary.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->fuzz.seed.has_value());
  EXPECT_FALSE(back->fuzz.new_findings[0].graph_index.has_value());
  EXPECT_FALSE(back->fuzz.new_findings[0].seconds.has_value());
  EXPECT_EQ(back->fuzz.new_findings[0].nodes_found, int64_t(55));
  EXPECT_FALSE(back->fuzz.new_findings[1].latency->p_value.has_value());
  EXPECT_FALSE(back->fuzz.new_findings[1].latency->confirm_ratio.has_value());
  EXPECT_EQ(back->fuzz.new_findings[1].latency->confirm_p_value, 0.0009);
}

}  // namespace
}  // namespace uopfuzz::report
