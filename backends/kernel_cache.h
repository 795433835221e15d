/** \file The compiled-kernel cache every compiled backend keeps, so that re-running a
 * graph (the same graph on several input seeds, a rewrite that changed nothing, a
 * reducer's repeated candidates) does not compile it again.
 *
 * Keyed by the hash of the printed graph, with the text compared too (a hash collision
 * is a miss, never a wrong kernel); the least recently used entry goes first. Kernels
 * hold process-bound resources (JIT memory, Vulkan device objects), so entries made by
 * another process, inherited through fork(), are abandoned: never used, never destroyed
 * (destroying them would free what the parent owns). abandon() does the same at exit,
 * when a driver may already be unloaded.
 */
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/backend.h"
#include "ir/hash.h"
#include "ir/printer.h"

namespace uopfuzz::backends {

struct CacheStats {
  uint64_t hits = 0, misses = 0;
  size_t entries = 0;
};

class KernelCache {
 public:
  using Build = std::function<Result<std::shared_ptr<Kernel>>()>;

  explicit KernelCache(size_t capacity) : capacity_(capacity) {}
  ~KernelCache() { abandon(); }
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  /// The cached kernel for `root` compiled as `variant` says (a backend's own encoding of
  /// its CompileOptions: with or without a listing, the optimization level), or
  /// `build()`'s, which is kept when it succeeds. `build` runs without the lock held.
  Result<std::shared_ptr<Kernel>> get_or_build(ir::UOp root, uint64_t variant, const Build& build) {
    const std::string text = ir::print_graph(root);
    if (auto hit = find(text, variant)) return hit;
    auto made = build();
    if (made) insert(text, variant, made.value());
    return made;
  }

  /// The cached kernel for the printed graph `text` (ir::print_graph) and `variant`, or
  /// nullptr (counted as a miss).
  std::shared_ptr<Kernel> find(const std::string& text, uint64_t variant) {
    std::lock_guard<std::mutex> l(mutex_);
    forget_inherited();
    if (auto it = entries_.find(key(text, variant));
        it != entries_.end() && it->second.text == text) {
      ++hits_;
      lru_.splice(lru_.begin(), lru_, it->second.pos);
      return it->second.kernel;
    }
    ++misses_;
    return nullptr;
  }

  /// Keeps `kernel` for `text` and `variant` (replacing what was there).
  void insert(const std::string& text, uint64_t variant, std::shared_ptr<Kernel> kernel) {
    const uint64_t k = key(text, variant);
    std::lock_guard<std::mutex> l(mutex_);
    forget_inherited();
    if (auto it = entries_.find(k); it != entries_.end()) {
      lru_.erase(it->second.pos);
      entries_.erase(it);
    }
    lru_.push_front(k);
    entries_[k] = Entry{text, std::move(kernel), lru_.begin()};
    while (entries_.size() > capacity_) {
      entries_.erase(lru_.back());
      lru_.pop_back();
    }
  }

  CacheStats stats() {
    std::lock_guard<std::mutex> l(mutex_);
    return {hits_, misses_, entries_.size()};
  }

  /// Drops every entry (benchmarks measure cold compiles with it).
  void clear() {
    std::lock_guard<std::mutex> l(mutex_);
    if (pid_ != ::getpid()) {
      forget_inherited();
      return;
    }
    entries_.clear();
    lru_.clear();
  }

  /// Lets go of every entry without destroying it.
  void abandon() {
    std::lock_guard<std::mutex> l(mutex_);
    leak();
  }

 private:
  struct Entry {
    std::string text;
    std::shared_ptr<Kernel> kernel;
    std::list<uint64_t>::iterator pos;
  };

  static uint64_t key(const std::string& text, uint64_t variant) {
    return ir::fnv1a(text) ^ (variant * 0x9e3779b97f4a7c15ULL);
  }

  void leak() {
    // Never freed, but reachable (a leak checker stays quiet about what a global holds).
    static auto* graveyard = new std::vector<std::unordered_map<uint64_t, Entry>>();
    graveyard->push_back(std::move(entries_));
    entries_.clear();
    lru_.clear();
  }
  void forget_inherited() {
    if (pid_ == ::getpid()) return;
    leak();
    pid_ = ::getpid();
  }

  const size_t capacity_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, Entry> entries_;
  std::list<uint64_t> lru_;
  pid_t pid_ = ::getpid();
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace uopfuzz::backends
