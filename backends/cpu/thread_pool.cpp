#include "backends/cpu/thread_pool.h"

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace uopfuzz::backends::cpu {
namespace {

class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { loop(i + 1); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  // Runs fn(0) here and fn(1..n-1) on workers 1..n-1; returns when all are done.
  void run(int n, const std::function<void(int)>& fn) {
    {
      std::lock_guard<std::mutex> l(m_);
      fn_ = &fn;
      active_ = n;
      pending_ = n - 1;
      ++generation_;
    }
    cv_.notify_all();
    fn(0);
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, [&] { return pending_ == 0; });
    fn_ = nullptr;
  }

 private:
  void loop(int id) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* fn;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (id >= active_) continue;
        fn = fn_;
      }
      (*fn)(id);
      std::lock_guard<std::mutex> l(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex m_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* fn_ = nullptr;
  int active_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

std::mutex g_pool_mutex;
Pool* g_pool =
    nullptr;  // never destroyed at exit: workers may be blocked, and a child must not join them
pid_t g_pool_pid = 0;

}  // namespace

void parallel_for(int n, const std::function<void(int)>& fn) {
  if (n <= 1) {
    fn(0);
    return;
  }
  std::lock_guard<std::mutex> l(g_pool_mutex);  // one parallel kernel at a time
  if (!g_pool || g_pool_pid != ::getpid() || g_pool->workers() < n - 1) {
    // A pool from before a fork has no threads here: abandon it (its memory is the
    // parent's copy; joining would wait forever). A too-small pool is replaced.
    if (g_pool && g_pool_pid == ::getpid()) delete g_pool;
    g_pool = new Pool(n - 1);
    g_pool_pid = ::getpid();
  }
  g_pool->run(n, fn);
}

}  // namespace uopfuzz::backends::cpu
