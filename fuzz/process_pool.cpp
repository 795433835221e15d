#include "fuzz/process_pool.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "fuzz/graph_checker.h"
#include "fuzz/isolate.h"
#include "fuzz/tensor_graph.h"
#include "ir/tensor.h"
#include "reduce/predicates.h"

namespace uopfuzz::fuzz {

namespace {

using json = nlohmann::json;

// An isolated worker's own slot (set in the worker process only): the check hook
// restarts its hang timer.
ChildSlot* g_timed_slot = nullptr;

// A message is a 4-byte length and that many bytes of JSON.
bool send(int fd, const json& j) {
  const std::string body = j.dump();
  const uint32_t n = static_cast<uint32_t>(body.size());
  return write_all(fd, std::string(reinterpret_cast<const char*>(&n), 4) + body);
}

std::optional<json> next_message(std::string& buf) {
  if (buf.size() < 4) return std::nullopt;
  uint32_t n = 0;
  std::memcpy(&n, buf.data(), 4);
  if (buf.size() < 4 + size_t{n}) return std::nullopt;
  json j = json::parse(buf.substr(4, n), nullptr, /*allow_exceptions=*/false);
  buf.erase(0, 4 + size_t{n});
  return j;
}

json to_json(const NewFinding& f) {
  return {{"type", "finding"},
          {"kind", static_cast<int>(f.signature.kind)},
          {"culprit", f.signature.culprit},
          {"backend", f.signature.backend},
          {"checks_run", f.signature.checks_run},
          {"graph_seed", f.graph_seed},
          {"graph_index", f.graph_index},
          {"seconds", f.seconds},
          {"nodes_found", f.nodes_found},
          {"nodes_reduced", f.nodes_reduced},
          {"details", f.details},
          {"reduced_text", f.reduced_text},
          {"corpus_text", f.corpus_text},
          {"tensor", f.tensor},
          {"latency", f.latency ? json{{"ratio", f.latency->ratio},
                                       {"p_value", f.latency->p_value},
                                       {"rerun_ratio", f.latency->rerun_ratio},
                                       {"rerun_p_value", f.latency->rerun_p_value},
                                       {"confirmed", f.latency->confirmed}}
                                : json()}};
}

NewFinding finding_from_json(const json& j) {
  NewFinding f;
  f.signature.kind = static_cast<check::FindingKind>(j.value("kind", 0));
  f.signature.culprit = j.value("culprit", "");
  f.signature.backend = j.value("backend", "oracle");
  f.signature.checks_run = j.value("checks_run", 0);
  f.graph_seed = j.value("graph_seed", uint64_t{0});
  f.graph_index = j.value("graph_index", uint64_t{0});
  f.seconds = j.value("seconds", 0.0);
  f.nodes_found = j.value("nodes_found", size_t{0});
  f.nodes_reduced = j.value("nodes_reduced", size_t{0});
  f.details = j.value("details", "");
  f.reduced_text = j.value("reduced_text", "");
  f.corpus_text = j.value("corpus_text", "");
  f.tensor = j.value("tensor", false);
  if (const auto it = j.find("latency"); it != j.end() && it->is_object())
    f.latency = LatencyFigures{it->value("ratio", 1.0), it->value("p_value", 1.0),
                               it->value("rerun_ratio", 1.0), it->value("rerun_p_value", 1.0),
                               it->value("confirmed", false)};
  return f;
}

// rule -> [[accepted, declined], ...], gate by gate.
json gate_counts_json(const ir::GateCounts& counts) {
  json j = json::object();
  for (const auto& [rule, gates] : counts) {
    json g = json::array();
    for (const ir::GateCount& c : gates) g.push_back({c.accepted, c.declined});
    j[rule] = std::move(g);
  }
  return j;
}

void add_gate_counts_json(ir::GateCounts& into, const json& j) {
  ir::GateCounts got;
  for (const auto& [rule, gates] : j.items())
    for (const auto& g : gates)
      got[rule].push_back({g.at(0).get<uint64_t>(), g.at(1).get<uint64_t>()});
  ir::add_gate_counts(into, got);
}

json executors_json(const CampaignProgress& t) {
  json j = json::object();
  for (const auto& [name, e] : t.executors) j[name] = {e.graphs, e.seconds};
  return j;
}

json compile_us_json(const CampaignProgress& t) {
  json j = json::object();
  for (const auto& [key, h] : t.compile_us) j[key] = h.counts;
  return j;
}

json tally_message(const CampaignProgress& t) {
  return {{"type", "tally"},
          {"graphs", t.graphs},
          {"findings", t.findings},
          {"latency_timed", t.latency_timed},
          {"mutated", t.mutated},
          {"mutants_rejected", t.mutants_rejected},
          {"by_signature", t.by_signature},
          {"rule_hits", t.rule_hits},
          {"near_misses", t.near_misses},
          {"gate_counts", gate_counts_json(t.gate_counts)},
          {"nodes", t.nodes.counts},
          {"iterations", t.iterations.counts},
          {"steps", t.steps.counts},
          {"small_graphs", t.small_graphs},
          {"large_graphs", t.large_graphs},
          {"small_seconds", t.small_seconds},
          {"large_seconds", t.large_seconds},
          {"tensor_programs", t.tensor_programs},
          {"tensor_unsupported", t.tensor_unsupported},
          {"tensor_seconds", t.tensor_seconds},
          {"tensor_nodes", t.tensor_nodes.counts},
          {"simplifier_version", t.simplifier_version},
          {"unsupported", t.unsupported},
          {"child_seconds", t.child_seconds},
          {"protocol_seconds", t.protocol_seconds},
          {"executors", executors_json(t)},
          {"compile_us", compile_us_json(t)}};
}

void add_histogram(Histogram& h, const json& j) {
  for (const auto& pair : j) h.add(pair.at(0).get<uint64_t>(), pair.at(1).get<uint64_t>());
}

// Graphs are counted in the workers' shared slots instead, which survive a crash.
void add_tally(CampaignProgress& p, const json& j) {
  p.findings += j.value("findings", uint64_t{0});
  p.latency_timed += j.value("latency_timed", uint64_t{0});
  p.mutated += j.value("mutated", uint64_t{0});
  p.mutants_rejected += j.value("mutants_rejected", uint64_t{0});
  for (const auto& [k, v] : j.at("by_signature").items()) p.by_signature[k] += v.get<uint64_t>();
  for (const auto& [k, v] : j.at("rule_hits").items()) p.rule_hits[k] += v.get<uint64_t>();
  for (const auto& [k, v] : j.at("near_misses").items()) p.near_misses[k] += v.get<uint64_t>();
  add_gate_counts_json(p.gate_counts, j.at("gate_counts"));
  add_histogram(p.nodes, j.at("nodes"));
  add_histogram(p.iterations, j.at("iterations"));
  add_histogram(p.steps, j.at("steps"));
  p.small_graphs += j.value("small_graphs", uint64_t{0});
  p.large_graphs += j.value("large_graphs", uint64_t{0});
  p.small_seconds += j.value("small_seconds", 0.0);
  p.large_seconds += j.value("large_seconds", 0.0);
  p.tensor_programs += j.value("tensor_programs", uint64_t{0});
  p.tensor_unsupported += j.value("tensor_unsupported", uint64_t{0});
  p.tensor_seconds += j.value("tensor_seconds", 0.0);
  add_histogram(p.tensor_nodes, j.at("tensor_nodes"));
  if (const std::string v = j.value("simplifier_version", ""); !v.empty()) p.simplifier_version = v;
  for (const auto& [k, v] : j.at("unsupported").items()) p.unsupported[k] += v.get<uint64_t>();
  p.child_seconds += j.value("child_seconds", 0.0);
  p.protocol_seconds += j.value("protocol_seconds", 0.0);
  for (const auto& [name, e] : j.at("executors").items()) {
    p.executors[name].graphs += e.at(0).get<uint64_t>();
    p.executors[name].seconds += e.at(1).get<double>();
  }
  for (const auto& [key, h] : j.at("compile_us").items()) add_histogram(p.compile_us[key], h);
}

// Where each worker lane leaves the recipe of the mutant it is on (length 0: a generated
// graph), in memory shared with the parent, so that a crash's triage makes the same graph.
class RecipeSlots {
 public:
  static constexpr size_t kBytes = size_t{1} << 18;  // per lane; a longer recipe is not kept

  explicit RecipeSlots(size_t lanes) : lanes_(lanes) {
    void* m =
        ::mmap(nullptr, lanes * kBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    base_ = m == MAP_FAILED ? nullptr : static_cast<char*>(m);
  }
  ~RecipeSlots() {
    if (base_) ::munmap(base_, lanes_ * kBytes);
  }
  RecipeSlots(const RecipeSlots&) = delete;
  RecipeSlots& operator=(const RecipeSlots&) = delete;

  // Layout of a lane: total length (0: none), seed, parent length, parent text, donor text.
  void put(size_t lane, const MutantRecipe* r) {
    if (!base_) return;
    char* at = base_ + lane * kBytes;
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(at)).store(0);
    const size_t body = r ? 16 + r->parent_text.size() + r->donor_text.size() : 0;
    if (!r || 8 + body > kBytes) return;
    const uint64_t parent_len = r->parent_text.size();
    std::memcpy(at + 8, &r->seed, 8);
    std::memcpy(at + 16, &parent_len, 8);
    std::memcpy(at + 24, r->parent_text.data(), r->parent_text.size());
    std::memcpy(at + 24 + parent_len, r->donor_text.data(), r->donor_text.size());
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(at)).store(body);
  }
  // Read by the parent once the lane's worker is dead.
  std::optional<MutantRecipe> get(size_t lane) const {
    if (!base_) return std::nullopt;
    const char* at = base_ + lane * kBytes;
    uint64_t body = 0, parent_len = 0;
    std::memcpy(&body, at, 8);
    if (body < 16 || 8 + body > kBytes) return std::nullopt;
    MutantRecipe r;
    std::memcpy(&r.seed, at + 8, 8);
    std::memcpy(&parent_len, at + 16, 8);
    if (parent_len > body - 16) return std::nullopt;
    r.parent_text.assign(at + 24, parent_len);
    r.donor_text.assign(at + 24 + parent_len, body - 16 - parent_len);
    return r;
  }

 private:
  size_t lanes_;
  char* base_ = nullptr;
};

// A crash or hang is signed by the rule that was running, the analogue of the top stack
// frame; outside every rule (the oracle, the generator) it is "outside-rules".
check::Signature failure_signature(check::FindingKind kind, const std::string& rule) {
  check::Signature s;
  s.kind = kind;
  s.culprit = rule.empty() ? "outside-rules" : rule;
  return s;
}

// In a triage process: regenerate graph i, make sure the crash or hang reproduces, and
// shrink it with a predicate that re-runs each candidate in its own child.
NewFinding triage(const CampaignOptions& o, const GraphSource& source, const Shrinker& shrink,
                  check::FindingKind kind, const std::string& rule, uint64_t i, double seconds,
                  const std::optional<MutantRecipe>& recipe) {
  NewFinding f;
  f.signature = failure_signature(kind, rule);
  f.graph_seed = graph_seed(o.seed, i);
  f.graph_index = i;
  f.seconds = seconds;
  ir::Context ctx;
  std::optional<ir::Kernel> mutant;
  if (recipe) mutant = make_mutant(ctx, *recipe, o.mutation.policy);
  ir::Kernel k = mutant ? std::move(*mutant)
                 : is_tensor_graph(o.level, o.seed, i)
                     ? campaign_tensor_program(o, ctx, f.graph_seed)
                     : source(ctx, f.graph_seed);
  check::CheckOptions co = options_for(o, k, i);
  // The graph is re-run on every executor: the worker's sampler may have given it to any.
  for (const std::string& b : o.schedule.backends) check::add_backend(co.backends, b);
  // A re-run that takes longer than this counts as a hang: candidates are small, and a
  // legitimate check of one takes milliseconds.
  const double limit = o.triage_timeout_s;
  auto rerun = [&](const ir::Kernel& candidate) {
    return run_isolated(
        [&] {
          ir::Context c;
          ir::Kernel copy = reduce::clone_kernel(c, candidate);
          if (!ir::is_tensor_program(copy.root) && !reduce::original_is_defined(copy, co))
            return std::string("undefined");
          return check_kind_name(c, copy, o, co);
        },
        limit);
  };
  auto same_failure = [&](const ChildOutcome& out) {
    const bool died = kind == check::FindingKind::Timeout
                          ? out.status == ChildOutcome::Status::TimedOut
                          : out.status == ChildOutcome::Status::Crashed;
    return died && out.rule == rule;
  };
  // Reproduce with the full per-graph limit: a slow but finite check is not a hang.
  ChildOutcome first =
      run_isolated([&] { return check_kind_name(ctx, k, o, co); }, o.graph_timeout_s);
  if (!same_failure(first)) {
    f.details =
        fmt::format("the check {} on graph {}, but {} when re-run alone (not reproducible)",
                    kind == check::FindingKind::Timeout ? "hung" : "crashed", i, first.describe());
    return f;
  }
  f.details = "the check " + first.describe();
  finish_case(
      f, ctx, k, [&](const ir::Kernel& c) { return same_failure(rerun(c)); }, o, co, shrink);
  return f;
}

// A child process: a worker lane or a triage, with the pipe it talks through.
struct Child {
  int pid = -1;
  int fd = -1;
  std::string buf;
  bool done = false;           // a worker said it finished its share
  uint64_t next = 0;           // worker: the first graph index it takes
  size_t lane = 0;             // worker: its slot in SharedSlots
  check::Signature signature;  // triage: what it is reducing
  int64_t started_ns = 0;
};

// Forks a child that runs `body(write_fd)` (fork_child), read without blocking: the
// parent polls many children at once.
Child spawn(const std::function<void(int)>& body) {
  Child c;
  const ForkedChild forked = fork_child([&](int fd) {
    body(fd);
    return 0;
  });
  if (forked.pid < 0) return c;
  c.pid = forked.pid;
  c.fd = forked.fd;
  ::fcntl(c.fd, F_SETFL, O_NONBLOCK);
  c.started_ns = monotonic_ns();
  return c;
}

// Reads what is there; false at EOF.
bool drain(Child& c) {
  char tmp[65536];
  while (true) {
    ssize_t n = ::read(c.fd, tmp, sizeof tmp);
    if (n > 0) {
      c.buf.append(tmp, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);  // 0 or an error: the pipe is done
  }
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return fmt::format("crashed (SIG{})", name ? name : "?");
  }
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

class ProcessPool {
 public:
  ProcessPool(const CampaignOptions& o, const GraphSource& source, const Shrinker& shrink)
      : o_(o),
        source_(source),
        shrink_(shrink),
        jobs_(std::max(1, o.jobs)),
        stride_(static_cast<uint64_t>(jobs_) * std::max<uint64_t>(o.shard.count, 1)),
        slots_(jobs_),
        recipes_(static_cast<size_t>(jobs_)) {}

  CampaignResult run() {
    p().jobs = jobs_;
    p().simplifier = o_.check.simplifier ? o_.check.simplifier->name() : "builtin";
    // Lane l takes the shard's indices shard.index + count*l, then every stride_-th.
    for (size_t lane = 0; lane < static_cast<size_t>(jobs_); ++lane)
      start_worker(lane, o_.shard.index + std::max<uint64_t>(o_.shard.count, 1) * lane);
    auto last_report = start_;
    while (!workers_.empty() || !triages_.empty()) {
      if (stop_) break;
      wait_for_messages();
      check_for_hangs();
      if (o_.on_progress && seconds_since(last_report) >= 0.5) {
        last_report = Clock::now();
        count_graphs();
        settle_medians(p());
        p().seconds = seconds_since(start_);
        o_.on_progress(p());
      }
    }
    count_graphs();
    for (Child* c : all_children()) {
      ::kill(c->pid, SIGKILL);
      reap(c->pid);
      ::close(c->fd);
    }
    settle_medians(p());
    p().seconds = seconds_since(start_);
    if (o_.on_progress) o_.on_progress(p());
    return std::move(res_);
  }

 private:
  CampaignProgress& p() { return res_.totals; }

  // Graphs done: those of workers that ended, plus what the live ones report.
  void count_graphs() {
    uint64_t live = 0;
    for (const Child& w : workers_) live += slots_[w.lane].graphs_done.load();
    p().graphs = ended_graphs_ + live;
  }
  void worker_ended(const Child& w) { ended_graphs_ += slots_[w.lane].graphs_done.load(); }

  bool more_graphs(uint64_t next) const {
    return (o_.max_graphs == 0 || next < o_.max_graphs) && seconds_since(start_) < o_.seconds;
  }

  std::vector<Child*> all_children() {
    std::vector<Child*> out;
    for (Child& c : workers_) out.push_back(&c);
    for (Child& c : triages_) out.push_back(&c);
    return out;
  }

  void start_worker(size_t lane, uint64_t first) {
    if (!more_graphs(first)) return;
    ChildSlot& slot = slots_[lane];
    slot.started_ns.store(0);
    slot.graphs_done.store(0);
    slot.crumb_written.store(0);
    slot.rule[0] = '\0';
    recipes_.put(lane, nullptr);
    Child c = spawn([&](int fd) {
      install_breadcrumb_handlers(slot);
      // The hang timer covers one check at a time: a finding's signing and shrinking run
      // many checks (each compiling on every backend), each with the full --timeout.
      g_timed_slot = &slot;
      check::set_check_started_hook([] {
        if (g_timed_slot->started_ns.load() != 0) g_timed_slot->started_ns.store(monotonic_ns());
      });
      CampaignProgress tally;
      GraphChecker checker(o_, source_, shrink_, start_);
      checker.on_graph([&](const MutantRecipe* r) { recipes_.put(lane, r); });
      auto last_sent = Clock::now();
      for (uint64_t i = first; o_.max_graphs == 0 || i < o_.max_graphs; i += stride_) {
        if (seconds_since(start_) >= o_.seconds) break;
        slot.graph_index.store(i);
        slot.started_ns.store(monotonic_ns());
        const uint64_t findings_before = tally.findings;
        std::optional<NewFinding> f = checker.check(i, tally);
        slot.started_ns.store(0);
        slot.graphs_done.fetch_add(1);
        if (f && !send(fd, to_json(*f))) return;
        // A finding's count goes out at once; the rest (rule hits) in batches: a crash
        // loses at most the last 0.2 s of rule hits, never a finding.
        if (tally.findings != findings_before || seconds_since(last_sent) >= 0.2) {
          if (!send(fd, tally_message(tally))) return;
          tally = CampaignProgress{};
          last_sent = Clock::now();
        }
      }
      send(fd, tally_message(tally));
      send(fd, json{{"type", "done"}});
    });
    if (c.pid < 0) {
      lost_finding(check::FindingKind::Crash, "", first, "could not start a worker (fork failed)");
      return;
    }
    c.lane = lane;
    c.next = first;
    workers_.push_back(std::move(c));
  }

  void start_triage(check::FindingKind kind, const std::string& rule, uint64_t index,
                    const std::optional<MutantRecipe>& recipe) {
    const double seconds = seconds_since(start_);
    Child c = spawn([&](int fd) {
      NewFinding f = triage(o_, source_, shrink_, kind, rule, index, seconds, recipe);
      send(fd, to_json(f));
    });
    c.signature = failure_signature(kind, rule);
    c.next = index;
    if (c.pid < 0) {
      lost_finding(kind, rule, index, "could not start the triage (fork failed)");
      return;
    }
    triages_.push_back(std::move(c));
  }

  // A finding that cannot be reduced or reproduced is still reported (without a case).
  void lost_finding(check::FindingKind kind, const std::string& rule, uint64_t index,
                    const std::string& why) {
    NewFinding f;
    f.signature = failure_signature(kind, rule);
    f.graph_index = index;
    f.graph_seed = graph_seed(o_.seed, index);
    f.seconds = seconds_since(start_);
    f.details = why;
    accept(std::move(f));
  }

  void accept(NewFinding f) {
    if (!kept_.insert(f.signature.text()).second) return;
    keep(f, o_);
    res_.new_findings.push_back(std::move(f));
    if (o_.stop_when && o_.stop_when(res_.new_findings.back())) stop_ = true;
  }

  void on_message(Child& c, const json& j) {
    const std::string type = j.value("type", "");
    if (type == "tally")
      add_tally(p(), j);
    else if (type == "finding")
      accept(finding_from_json(j));
    else if (type == "done")
      c.done = true;
  }

  // A worker lost on graph `index` (crashed, or killed as hung): one finding, and a new
  // worker for the rest of its share.
  void worker_failed(const Child& w, check::FindingKind kind, const std::string& rule,
                     uint64_t index) {
    ++p().workers_lost;
    ++ended_graphs_;  // the graph it died on
    ++p().findings;
    const check::Signature sig = failure_signature(kind, rule);
    if (p().by_signature[sig.text()]++ == 0) start_triage(kind, rule, index, recipes_.get(w.lane));
    start_worker(w.lane, index + stride_);
  }

  void wait_for_messages() {
    std::vector<Child*> children = all_children();
    std::vector<pollfd> fds;
    for (Child* c : children) fds.push_back({c->fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 100) <= 0) return;
    std::vector<int> finished;  // pids whose pipe closed
    for (size_t k = 0; k < children.size(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child& c = *children[k];
      const bool open = drain(c);
      while (auto m = next_message(c.buf)) on_message(c, *m);
      if (!open) finished.push_back(c.pid);
    }
    for (int pid : finished) child_exited(pid);
  }

  void child_exited(int pid) {
    const int status = reap(pid);
    if (auto w = find(workers_, pid); w != workers_.end()) {
      Child c = std::move(*w);
      workers_.erase(w);
      ::close(c.fd);
      worker_ended(c);
      ChildSlot& slot = slots_[c.lane];
      const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 && c.done;
      if (!clean) {
        const std::string rule = slot.crumb_written.load() ? std::string(slot.rule) : std::string();
        worker_failed(c, check::FindingKind::Crash, rule, slot.graph_index.load());
      }
      return;
    }
    if (auto t = find(triages_, pid); t != triages_.end()) {
      Child c = std::move(*t);
      triages_.erase(t);
      ::close(c.fd);
      // The triage sent its finding before it exited; if it died first, report it bare.
      if (!kept_.count(c.signature.text()))
        lost_finding(
            c.signature.kind, c.signature.culprit == "outside-rules" ? "" : c.signature.culprit,
            c.next,
            "the triage process " + describe_status(status) + " before it could reduce the case");
    }
  }

  void check_for_hangs() {
    const int64_t now = monotonic_ns();
    const int64_t limit = static_cast<int64_t>(o_.graph_timeout_s * 1e9);
    for (size_t k = 0; k < workers_.size(); ++k) {
      ChildSlot& slot = slots_[workers_[k].lane];
      const int64_t began = slot.started_ns.load();
      if (began == 0 || now - began < limit) continue;
      Child c = std::move(workers_[k]);
      workers_.erase(workers_.begin() + static_cast<long>(k));
      worker_ended(c);
      const uint64_t index = slot.graph_index.load();
      const std::string rule = stop_hung_child(c.pid, slot);
      drain(c);
      while (auto m = next_message(c.buf)) on_message(c, *m);
      ::close(c.fd);
      worker_failed(c, check::FindingKind::Timeout, rule, index);
      return;  // the vector changed; the next round looks again
    }
    // A triage is bounded by its reduction budget; one that overruns it badly is stopped.
    for (size_t k = 0; k < triages_.size(); ++k) {
      if (now - triages_[k].started_ns < static_cast<int64_t>(120e9)) continue;
      ::kill(triages_[k].pid, SIGKILL);  // its exit is handled as a lost triage
    }
  }

  static std::vector<Child>::iterator find(std::vector<Child>& v, int pid) {
    return std::find_if(v.begin(), v.end(), [pid](const Child& c) { return c.pid == pid; });
  }

  const CampaignOptions& o_;
  const GraphSource& source_;
  const Shrinker& shrink_;
  const int jobs_;
  const uint64_t stride_;  ///< between one worker's graph indices: jobs times shards
  SharedSlots slots_;
  RecipeSlots recipes_;
  const Clock::time_point start_ = Clock::now();
  CampaignResult res_;
  std::vector<Child> workers_, triages_;
  std::set<std::string> kept_;  // signatures with a NewFinding
  uint64_t ended_graphs_ = 0;   // graphs of workers no longer running
  bool stop_ = false;
};

}  // namespace

CampaignResult run_in_worker_processes(const CampaignOptions& o, const GraphSource& source,
                                       const Shrinker& shrink) {
  return ProcessPool(o, source, shrink).run();
}

}  // namespace uopfuzz::fuzz
