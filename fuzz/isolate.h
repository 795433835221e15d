/** \file Process isolation: run code under test in a forked child, so that a crash or a
 * hang in it becomes an outcome to report instead of the end of the campaign.
 *
 * A child records a breadcrumb before it dies: the name of the rewrite rule it was
 * running (ir::current_rule), copied into memory it shares with the parent by a signal
 * handler: on a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) just before the
 * child dies, and on SIGUSR1, which the parent sends a hung child before it kills it.
 * The breadcrumb is what names a crash or a hang in a finding's signature, the way the
 * top stack frame names a crash in a bug tracker.
 */
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace uopfuzz::fuzz {

/// What a child shares with its parent: where it is (for hang detection) and, once it
/// has crashed or been asked, the rule it was in. Lives in a MAP_SHARED mapping.
struct ChildSlot {
  std::atomic<uint64_t> graph_index{0};  ///< the graph the child is working on
  std::atomic<int64_t> started_ns{0};    ///< CLOCK_MONOTONIC when it began that graph (0: idle)
  std::atomic<uint64_t> graphs_done{0};  ///< graphs it has finished (survives its death)
  std::atomic<int> crumb_written{0};     ///< 1 once `rule` holds a breadcrumb
  char rule[120] = {};                   ///< the rule it was running ("" : none)
};

/// A mapping of `n` ChildSlots shared with every process forked after it; unmapped on
/// destruction. Not copyable.
class SharedSlots {
 public:
  explicit SharedSlots(size_t n);
  ~SharedSlots();
  SharedSlots(const SharedSlots&) = delete;
  SharedSlots& operator=(const SharedSlots&) = delete;
  ChildSlot& operator[](size_t i) { return slots_[i]; }
  size_t size() const { return n_; }

 private:
  ChildSlot* slots_ = nullptr;
  size_t n_ = 0;
};

/// In a child: install the handlers that write the breadcrumb into `slot` on a fatal
/// signal or SIGUSR1. A fatal signal is then re-raised with its default action, so the
/// parent sees the real cause of death.
void install_breadcrumb_handlers(ChildSlot& slot);

/// Asks a child (which installed the handlers) for its breadcrumb, waits up to
/// `wait_s` for it, then kills it with SIGKILL and reaps it. Returns the rule ("" if none).
std::string stop_hung_child(int pid, ChildSlot& slot, double wait_s = 0.2);

/// A forked child and the read end of the pipe it writes to.
struct ForkedChild {
  int pid = -1;  ///< -1: the pipe or the fork failed (fd is then -1 too)
  int fd = -1;   ///< the read end (close-on-exec), for the parent to close
};

/// Forks a child that runs `body(write_fd)` and leaves with `_exit` of what it returns:
/// never through atexit hooks, and never back into the parent's code (an exception in it
/// is a crash: abort). The child dies with its parent; its output is silenced.
ForkedChild fork_child(const std::function<int(int write_fd)>& body);

/// How a child ended.
struct ChildOutcome {
  enum class Status { Returned, Crashed, TimedOut, ForkFailed };
  Status status = Status::ForkFailed;
  int signal = 0;      ///< Crashed: the fatal signal (0 when it exited non-zero instead)
  int exit_code = 0;   ///< Crashed without a signal: its exit status (a sanitizer's report)
  std::string output;  ///< Returned: what the function returned
  std::string rule;    ///< Crashed or TimedOut: the breadcrumb ("" : outside every rule)
  std::string describe() const;  ///< "returned", "crashed (SIGSEGV) in gather_ne", ...
};

/// Runs `fn` in a forked child and returns its result string, or how the child died, or
/// that it ran past `timeout_s` (then it is asked for its breadcrumb and killed).
ChildOutcome run_isolated(const std::function<std::string()>& fn, double timeout_s);

/// In a child: send stdout and stderr to /dev/null. A crash that repeats in thousands of
/// children would otherwise bury the campaign's own output under the same message; the
/// finding names the signal and the rule, and re-running its case shows the message.
void silence_output();

/// write(2) all of `data`, retrying short writes and EINTR; false on an error.
bool write_all(int fd, std::string_view data);

/// waitpid(2) for `pid`, retrying EINTR; returns its wait status.
int reap(int pid);

/// Nanoseconds of CLOCK_MONOTONIC (one clock for parent and children).
int64_t monotonic_ns();

}  // namespace uopfuzz::fuzz
