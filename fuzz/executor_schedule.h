/** \file Which graphs a campaign's compiled backends check when they share its time with
 * the oracle (the default campaign): the oracle checks every graph, each sampled backend
 * the graphs it picks.
 *
 * Graph i's draw for backend B is a function of the graph's seed and B alone. B picks the
 * graph when the draw falls under B's rate times the graph's weight: a rewrite that
 * changed something weighs more (an unchanged one checks only the backend against the
 * oracle), and so does a graph that hit a rule the campaign has rarely seen. The rate
 * follows the measured time: each of N sampled backends keeps share/N of the worker's
 * time, so that a slow backend never throttles the oracle to its speed. A fixed rate
 * (`uopfuzz fuzz --backend-rate`) makes the graphs each backend checks a function of
 * their index alone (tests, and bisecting a campaign); with the rate following the time,
 * the set at a higher rate is a superset of the set at a lower one.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace uopfuzz::fuzz {

struct ExecutorSchedule {
  std::vector<std::string> backends;  ///< the sampled compiled backends (empty: none)
  double time_share = 0.5;            ///< of a worker's time, for all of them together
  std::optional<double> fixed_rate;   ///< the rate, instead of following the time share
};

/// A rule hit fewer times than this (by the worker so far) makes a graph that hits it rare.
inline constexpr uint64_t kRareRuleHits = 100;

/// The weight of a graph in a backend's draw: 1, more when its rewrite changed something
/// or it hit a rare rule.
double sample_weight(bool changed, bool rare);

/// One worker's picks: its rates, and the time it has seen spent.
class BackendSampler {
 public:
  explicit BackendSampler(const ExecutorSchedule& schedule);

  /// Whether the graph with seed `graph_seed` goes to `backend` (one of the schedule's).
  bool pick(const std::string& backend, uint64_t graph_seed, double weight) const;

  /// Told after each graph: the seconds it took in all, and those spent on each backend.
  void observe(double graph_seconds, const std::map<std::string, double>& backend_seconds);

  double rate(const std::string& backend) const;

 private:
  ExecutorSchedule schedule_;
  std::map<std::string, double> rate_;
  std::map<std::string, double> recent_;  // decayed seconds on each backend
  double recent_total_ = 0;               // decayed seconds of whole graphs
};

}  // namespace uopfuzz::fuzz
