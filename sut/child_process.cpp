#include "sut/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace uopfuzz::sut {

namespace {

constexpr size_t kStderrTail = 8192;

/// Blocks SIGPIPE in this thread while writing to a pipe whose reader may be gone, and
/// discards the SIGPIPE such a write raised: the write's EPIPE says it already. Ignoring
/// SIGPIPE process-wide instead would change how the CLI behaves when its own output closes.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    sigset_t pending;
    sigpending(&pending);
    pending_before_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeBlocked() {
    if (!pending_before_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        timespec now{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &now) == -1 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_, old_;
  bool pending_before_ = false;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return fmt::format("killed by signal {} (SIG{})", sig, abbrev ? abbrev : "?");
  }
  return fmt::format("ended with wait status {}", status);
}

/// Milliseconds from now to `deadline`, rounded up (0 once it has passed).
int ms_until(ChildProcess::Clock::time_point deadline) {
  auto left = deadline - ChildProcess::Clock::now();
  if (left <= ChildProcess::Clock::duration::zero()) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return ms > 1'000'000 ? 1'000'000 : static_cast<int>(ms);
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::start(const std::string& command) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
  if (pipe2(out, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(in[0]), ::close(in[1]);
    return Error{fmt::format("pipe: {}", std::strerror(e))};
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return Error{fmt::format("pipe: {}", std::strerror(e))};
  }
  const pid_t parent = ::getpid();
  const char* cmd = command.c_str();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec. Its own process group, so a hang is
    // killed with everything it started; killed too when this process dies (a campaign
    // worker killed as hung must not leave a simplifier spinning); no signal blocked and
    // SIGPIPE at its default, whatever this process does with them.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int ends[3] = {in[0], out[1], err[1]};
    for (int fd = 0; fd < 3; ++fd) {
      if (ends[fd] == fd)
        ::fcntl(fd, F_SETFD, 0);  // dup2 onto itself would leave it close-on-exec
      else
        ::dup2(ends[fd], fd);
    }
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execl("/bin/sh", "sh", "-c", cmd, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (pid < 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    return Error{
        fmt::format("cannot start /bin/sh -c '{}': {}", command, std::strerror(fork_errno))};
  }
  ::setpgid(pid, pid);  // also here: kill(-pid) must reach it even before it runs
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->owner_ = ::getpid();
  child->in_ = in[1];
  child->out_ = out[0];
  child->err_ = err[0];
  for (int fd : {child->in_, child->out_, child->err_})
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return child;
}

ChildProcess::~ChildProcess() {
  if (pid_ < 0 || !owned_here()) {
    close_pipes();
    return;
  }
  if (!reaped_) {
    close_fd(in_);  // a well-behaved child exits at EOF on stdin
    reap_and_describe(1.0);
  }
  close_pipes();
}

bool ChildProcess::owned_here() const {
  return owner_ == ::getpid();
}

void ChildProcess::abandon() {
  close_pipes();
  pid_ = -1;
}

void ChildProcess::close_pipes() {
  close_fd(in_);
  close_fd(out_);
  close_fd(err_);
}

void ChildProcess::read_stderr() {
  char buf[4096];
  while (err_ >= 0) {
    const ssize_t n = ::read(err_, buf, sizeof buf);
    if (n > 0) {
      stderr_tail_.append(buf, static_cast<size_t>(n));
      if (stderr_tail_.size() > kStderrTail)
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
    } else if (n == 0) {
      close_fd(err_);
    } else if (errno != EINTR) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) close_fd(err_);
      return;
    }
  }
}

bool ChildProcess::wait_ready(bool want_write, Clock::time_point deadline) {
  while (true) {
    pollfd fds[2];
    fds[0] = {want_write ? in_ : out_, static_cast<short>(want_write ? POLLOUT : POLLIN), 0};
    nfds_t n = 1;
    if (err_ >= 0) fds[n++] = {err_, POLLIN, 0};
    const int rc = ::poll(fds, n, ms_until(deadline));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return true;  // let the read or write itself report what is wrong
    }
    if (n == 2 && fds[1].revents != 0) read_stderr();
    if (fds[0].revents != 0) return true;
    if (rc == 0 || Clock::now() >= deadline) return false;
  }
}

ChildProcess::Io ChildProcess::write_all(std::string_view data, Clock::time_point deadline) {
  if (in_ < 0) return Io::Eof;
  SigpipeBlocked guard;
  while (!data.empty()) {
    const ssize_t n = ::write(in_, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(true, deadline)) return Io::Timeout;
    } else {
      return Io::Eof;  // EPIPE: nobody reads its stdin any more
    }
  }
  return Io::Ok;
}

ChildProcess::Io ChildProcess::read_some(std::string& into, Clock::time_point deadline) {
  if (out_ < 0) return Io::Eof;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(out_, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<size_t>(n));
      return Io::Ok;
    }
    if (n == 0) return Io::Eof;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Io::Eof;
    if (!wait_ready(false, deadline)) return Io::Timeout;
  }
}

void ChildProcess::drain_stderr(bool until_eof, Clock::time_point deadline) {
  read_stderr();
  while (until_eof && err_ >= 0) {
    pollfd fd{err_, POLLIN, 0};
    const int rc = ::poll(&fd, 1, ms_until(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) return;
    read_stderr();
  }
}

void ChildProcess::kill_group() {
  if (pid_ < 0 || reaped_ || !owned_here()) return;
  ::kill(-pid_, SIGKILL);
  reap_and_describe(0);
}

std::string ChildProcess::reap_and_describe(double grace_s) {
  if (pid_ < 0 || reaped_ || !owned_here()) return exit_description_;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(grace_s));
  // Wait without reaping: while it is a zombie its process group id cannot be reused, so
  // the group kill below can only reach what it left behind.
  while (true) {
    siginfo_t info{};
    const int rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid_) break;
    if (rc < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(-pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  exit_description_ = describe_status(status);
  drain_stderr(true, Clock::now() + std::chrono::milliseconds(200));
  close_pipes();
  return exit_description_;
}

}  // namespace uopfuzz::sut
