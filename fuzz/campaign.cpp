#include "fuzz/campaign.h"

#include <chrono>

#include <fmt/format.h>

#include "fuzz/corpus.h"
#include "ir/printer.h"
#include "ir/graph.h"
#include "ir/hash.h"
#include "oracle/interpreter.h"

namespace uopfuzz::fuzz {

uint64_t graph_seed(uint64_t campaign_seed, uint64_t index) {
  return ir::mix64(campaign_seed * 0x9e3779b97f4a7c15ull + index + 1);  // splitmix64 of (seed, i)
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The exact median of a stream of counts, kept as a histogram (value -> how often seen):
// graph sizes and run lengths repeat a lot, so it stays far smaller than the stream.
class Median {
 public:
  void add(uint64_t v) {
    ++count_[v];
    ++n_;
  }
  /// The lower median (the middle value of an odd count); 0 when empty.
  uint64_t get() const {
    uint64_t seen = 0;
    for (const auto& [v, c] : count_)
      if ((seen += c) * 2 >= n_) return v;
    return 0;
  }

 private:
  std::map<uint64_t, uint64_t> count_;
  uint64_t n_ = 0;
};

// The corpus entry: the reduced original graph, with what a replay checks (its oracle
// outputs, and that the faithful simplifier's rewrite agrees) and how it was found.
ir::Kernel corpus_entry(const ir::Kernel& k, const NewFinding& f, const CampaignOptions& o, const check::CheckOptions& co) {
  ir::Kernel out = k;
  out.header.name = "finding-" + content_hash(k).substr(0, 8);
  out.header.seed = co.base_seed;
  out.header.expect = ir::Expect::Ok;
  out.header.expect_given = true;
  out.header.outputs.clear();
  // VARs the check derived from the seed are pinned, so the replay runs what was found.
  oracle::Inputs in = oracle::make_inputs(k.root, co.base_seed, co.vars);
  out.header.vars.assign(in.vars.begin(), in.vars.end());
  if (auto run = oracle::run(k.root, in); run.ok() && run->status == oracle::RunStatus::Ok)
    for (const auto& [slot, buf] : run->outputs) {
      ir::ExpectedOutput e{slot, {}};
      for (size_t i = 0; i < buf.size(); ++i) e.values.push_back(buf.get(i));
      out.header.outputs.push_back(std::move(e));
    }
  // Header values are one line without '#' (a comment): keep free text printable.
  auto line = [](std::string s) {
    for (char& ch : s)
      if (ch == '#' || ch == '\n' || ch == '\r') ch = ' ';
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s.empty() ? std::string("-") : s;
  };
  out.header.extra.clear();
  out.header.extra.emplace_back("signature", f.signature.text());
  out.header.extra.emplace_back("check", "clean");  // the faithful simplifier must agree
  out.header.extra.emplace_back("found-by", line(o.found_by.empty() ? "uopfuzz fuzz" : o.found_by));
  out.header.extra.emplace_back("graph-seed", fmt::format("{}", f.graph_seed));
  out.header.extra.emplace_back("details", line(f.details));
  return out;
}

}  // namespace

CampaignResult run_campaign(const CampaignOptions& o, const GraphSource& source, const Shrinker& shrink) {
  CampaignResult res;
  CampaignProgress& p = res.totals;
  const auto start = Clock::now();
  auto last_report = start;
  Median nodes, iterations, steps;
  auto report = [&] {
    p.seconds = since(start);
    p.median_nodes = nodes.get();
    p.median_iterations = iterations.get();
    p.median_steps = steps.get();
    if (o.on_progress) o.on_progress(p);
  };
  for (uint64_t i = 0; (o.max_graphs == 0 || i < o.max_graphs) && since(start) < o.seconds; ++i) {
    const uint64_t gs = graph_seed(o.seed, i);
    ir::Context ctx;
    ir::Kernel k = source(ctx, gs);
    // The kernel's own @var values (the generator vouches for them) unless fixed by the options.
    check::CheckOptions co = o.check;
    for (const auto& [name, v] : k.header.vars) co.vars.emplace(name, v);
    check::CheckResult r = check::check_kernel(ctx, k, co);
    ++p.graphs;
    nodes.add(ir::toposort(k.root).size());
    if (r.original_ran) {
      iterations.add(r.original_iterations);
      steps.add(r.original_steps);
    }
    for (const auto& [name, n] : r.simplified.hits) p.rule_hits[name] += n;
    if (r.kind != check::FindingKind::None) {
      ++p.findings;
      check::Signature sig = check::signature_of(ctx, k, co, r);
      if (p.by_signature[sig.text()]++ == 0) {
        NewFinding f;
        f.signature = sig;
        f.graph_seed = gs;
        f.graph_index = i;
        f.seconds = since(start);
        f.details = r.details;
        f.nodes_found = ir::toposort(k.root).size();
        ir::Kernel small = shrink ? shrink(ctx, k, co, r.kind) : k;
        f.nodes_reduced = ir::toposort(small.root).size();
        f.reduced_text = ir::print_kernel(small);
        if (!o.corpus_dir.empty()) {
          auto path = write_case(o.corpus_dir, corpus_entry(small, f, o, co));
          if (path.ok()) f.path = *path;
          else f.write_error = path.error().message;
        }
        res.new_findings.push_back(std::move(f));
        if (o.stop_at_first_finding) break;
      }
    }
    if (o.on_progress && std::chrono::duration<double>(Clock::now() - last_report).count() >= 0.5) {
      last_report = Clock::now();
      report();
    }
  }
  report();
  return res;
}

}  // namespace uopfuzz::fuzz
