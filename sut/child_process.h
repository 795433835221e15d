/** \file A child process run by /bin/sh in its own process group, with pipes for its stdin,
 * stdout and stderr and deadline-bounded I/O on them: what an external simplifier runs in.
 *
 * Reads and writes never block past their deadline, and while either waits the child's
 * stderr is drained (its last few KB kept), so a child that logs a lot cannot stall on a full
 * pipe. Writing to a child that has died reports Eof instead of raising SIGPIPE. The child
 * is killed when the thread that started it dies (PR_SET_PDEATHSIG), so a process killed
 * while its child hangs leaves nothing spinning; start it from a thread that outlives its
 * use (a process's main thread). A
 * ChildProcess created in one process and found in a forked one (fork copies it) is
 * abandoned there: its pipes are closed, never written, and the child is left to its owner.
 */
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "ir/result.h"

namespace uopfuzz::sut {

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Io { Ok, Eof, Timeout };

  /// Starts `/bin/sh -c command`. Errors: no pipes or no process could be made.
  static Result<std::unique_ptr<ChildProcess>> start(const std::string& command);
  /// Closes its stdin, gives it `grace_s` to exit, then kills its group and reaps it; in a
  /// forked process, only closes the pipes.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  /// Whether this process is the one that started the child (false in a forked copy).
  bool owned_here() const;
  /// Closes the pipes without writing or signalling: for a forked copy.
  void abandon();

  /// Writes all of `data` to its stdin. Eof: the child closed its stdin (or died).
  Io write_all(std::string_view data, Clock::time_point deadline);
  /// Appends what its stdout has (at least one byte) to `into`. Eof: its stdout closed.
  Io read_some(std::string& into, Clock::time_point deadline);

  /// SIGKILL to its process group, then reaps it (no zombie is left).
  void kill_group();
  /// Once its stdout has closed: waits up to `grace_s` for it to exit (killing the group
  /// after that), reaps it and says how it ended: "exited with status 3", "killed by signal
  /// 11 (SIGSEGV)".
  std::string reap_and_describe(double grace_s);
  /// The last bytes it wrote to stderr (at most about 8 KB), read so far.
  const std::string& stderr_tail() const { return stderr_tail_; }
  void clear_stderr_tail() { stderr_tail_.clear(); }
  /// Reads what stderr holds now, without waiting (up to `deadline` for its EOF when
  /// `until_eof`): after the child died, so the tail has its last words.
  void drain_stderr(bool until_eof, Clock::time_point deadline);

 private:
  ChildProcess() = default;
  /// Waits for I/O on stdin (`want_write`) or stdout until `deadline`, draining stderr.
  /// Returns whether the awaited descriptor is ready (or hung up).
  bool wait_ready(bool want_write, Clock::time_point deadline);
  void read_stderr();
  void close_pipes();

  pid_t pid_ = -1;
  pid_t owner_ = -1;  ///< getpid() of the process that started it
  bool reaped_ = false;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string stderr_tail_;
  std::string exit_description_;
};

}  // namespace uopfuzz::sut
