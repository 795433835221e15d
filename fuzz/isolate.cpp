#include "fuzz/isolate.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include "ir/rewrite.h"

namespace uopfuzz::fuzz {

int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

bool write_all(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

int reap(int pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

SharedSlots::SharedSlots(size_t n) : n_(n) {
  void* p = ::mmap(nullptr, sizeof(ChildSlot) * n, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  slots_ = static_cast<ChildSlot*>(p);
  for (size_t i = 0; i < n; ++i) new (&slots_[i]) ChildSlot();
}

SharedSlots::~SharedSlots() {
  if (slots_) ::munmap(slots_, sizeof(ChildSlot) * n_);
}

namespace {

ChildSlot* g_slot = nullptr;  // this child's slot, for the signal handlers

// Async-signal-safe: reads a thread-local pointer and copies bytes.
void write_breadcrumb() {
  if (!g_slot) return;
  const char* rule = ir::current_rule();
  size_t i = 0;
  for (; rule && rule[i] && i + 1 < sizeof(g_slot->rule); ++i) g_slot->rule[i] = rule[i];
  g_slot->rule[i] = '\0';
  g_slot->crumb_written.store(1, std::memory_order_release);
}

// SA_RESETHAND: once the handler returns, the fault happens again (or abort re-raises)
// under the default action, so the child dies of the signal it got.
void on_fatal(int) {
  write_breadcrumb();
}
void on_ask(int) {
  write_breadcrumb();
}

}  // namespace

void silence_output() {
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  ::close(null);
}

void install_breadcrumb_handlers(ChildSlot& slot) {
  g_slot = &slot;
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_fatal;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
  sa.sa_handler = on_ask;
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGUSR1, &sa, nullptr);
}

std::string stop_hung_child(int pid, ChildSlot& slot, double wait_s) {
  ::kill(pid, SIGUSR1);
  const int64_t until = monotonic_ns() + static_cast<int64_t>(wait_s * 1e9);
  while (!slot.crumb_written.load(std::memory_order_acquire) && monotonic_ns() < until)
    ::usleep(1000);
  ::kill(pid, SIGKILL);
  reap(pid);
  return slot.crumb_written.load(std::memory_order_acquire) ? std::string(slot.rule)
                                                            : std::string();
}

std::string ChildOutcome::describe() const {
  std::string where = rule.empty() ? "" : " in " + rule;
  switch (status) {
    case Status::Returned: return "returned";
    case Status::Crashed:
      return signal ? fmt::format("crashed (SIG{}){}",
                                  sigabbrev_np(signal) ? sigabbrev_np(signal) : "?", where)
                    : fmt::format("exited with status {}{}", exit_code, where);
    case Status::TimedOut: return "timed out" + where;
    case Status::ForkFailed: return "could not fork";
  }
  return "?";
}

ForkedChild fork_child(const std::function<int(int)>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  std::fflush(nullptr);  // nothing buffered may be written twice
  const int pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {};
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG,
            SIGKILL);  // a hung or orphaned child never outlives whoever waits for it
    silence_output();
    // Up the stack is the parent's code (a test framework's handler would go on running
    // the parent's tests here): an exception is a crash.
    int status = 0;
    try {
      status = body(fds[1]);
    } catch (...) {
      std::abort();
    }
    ::_exit(status);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

ChildOutcome run_isolated(const std::function<std::string()>& fn, double timeout_s) {
  ChildOutcome out;
  SharedSlots shared(1);
  ChildSlot& slot = shared[0];
  const ForkedChild child = fork_child([&](int fd) {
    install_breadcrumb_handlers(slot);
    return write_all(fd, fn()) ? 0 : 3;
  });
  if (child.pid < 0) return out;
  const int pid = child.pid;
  const int64_t deadline = monotonic_ns() + static_cast<int64_t>(timeout_s * 1e9);
  char buf[65536];
  bool timed_out = false;
  while (true) {
    const int64_t left_ms = (deadline - monotonic_ns()) / 1'000'000;
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{child.fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(child.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child is done (or dead)
    out.output.append(buf, static_cast<size_t>(n));
  }
  ::close(child.fd);
  if (timed_out) {
    out.status = ChildOutcome::Status::TimedOut;
    out.rule = stop_hung_child(pid, slot);
    out.output.clear();
    return out;
  }
  const int status = reap(pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    out.status = ChildOutcome::Status::Returned;
    return out;
  }
  out.status = ChildOutcome::Status::Crashed;
  out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  out.rule = slot.crumb_written.load() ? std::string(slot.rule) : std::string();
  out.output.clear();
  return out;
}

}  // namespace uopfuzz::fuzz
