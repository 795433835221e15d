/** \file NodeMap: a flat hash map from nodes to values, for the per-graph tables of the
 * graph passes (the verifier, the oracle's compiler, open_ranges, graph_rewrite's memo).
 *
 * Why not std::unordered_map: it allocates a block per entry, and these tables are built
 * and dropped several times for every graph a fuzz campaign checks, so malloc and free
 * were a large share of a campaign's time. A NodeMap is two arrays (keys and values) with
 * open addressing and linear probing on the node's own hash, like Context's intern table.
 *
 * Like a std::vector, and unlike std::unordered_map, inserting may move the values:
 * references into the map are invalidated by an insertion (reserve() the expected size
 * first where a reference is held across one). There is no erase.
 */
#pragma once

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::ir {

template <class T>
class NodeMap {
  static_assert(!std::is_same_v<T, bool>, "std::vector<bool> has no T&: use uint8_t");

 public:
  NodeMap() = default;
  explicit NodeMap(size_t expected) { reserve(expected); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// Room for n entries without growing.
  void reserve(size_t n) {
    size_t want = 16;
    while (want < 2 * n) want *= 2;  // load factor at most 1/2: short probes
    if (want > keys_.size()) rehash(want);
  }

  /// The value of u, default-constructed (and inserted) if absent.
  T& operator[](UOp u) { return values_[insert(u)]; }

  /// Inserts (u, value) if u is absent; returns the value held and whether it was inserted.
  std::pair<T&, bool> emplace(UOp u, T value) {
    const size_t before = size_;
    const size_t i = insert(u);
    const bool fresh = size_ != before;
    if (fresh) values_[i] = std::move(value);
    return {values_[i], fresh};
  }

  /// The value of u, or nullptr if absent.
  T* find(UOp u) {
    const size_t i = slot(u);
    return keys_.empty() || !keys_[i] ? nullptr : &values_[i];
  }
  const T* find(UOp u) const { return const_cast<NodeMap*>(this)->find(u); }
  bool contains(UOp u) const { return find(u) != nullptr; }

  /// The value of u; throws std::out_of_range if absent (as std::unordered_map::at).
  const T& at(UOp u) const {
    if (const T* v = find(u)) return *v;
    throw std::out_of_range("NodeMap::at: node not in the map");
  }
  T& at(UOp u) { return const_cast<T&>(std::as_const(*this).at(u)); }

 private:
  // Where u is, or the empty slot where it would go (keys_ must not be empty).
  size_t slot(UOp u) const {
    if (keys_.empty()) return 0;
    const size_t mask = keys_.size() - 1;
    size_t i = u.hash() & mask;
    while (keys_[i] && keys_[i] != u) i = (i + 1) & mask;
    return i;
  }

  // The slot of u, inserted (with a default value) if absent. Only an insertion grows
  // the table, so looking up a present key never moves the values.
  size_t insert(UOp u) {
    size_t i = slot(u);
    if (!keys_.empty() && keys_[i]) return i;
    if (2 * (size_ + 1) > keys_.size()) {
      rehash(keys_.empty() ? 16 : 2 * keys_.size());
      i = slot(u);
    }
    keys_[i] = u;
    ++size_;
    return i;
  }

  void rehash(size_t capacity) {
    std::vector<UOp> old_keys(capacity);
    std::vector<T> old_values(capacity);
    old_keys.swap(keys_);
    old_values.swap(values_);
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (!old_keys[i]) continue;
      const size_t j = slot(old_keys[i]);
      keys_[j] = old_keys[i];
      values_[j] = std::move(old_values[i]);
    }
  }

  std::vector<UOp> keys_;  // a null UOp marks an empty slot
  std::vector<T> values_;  // values_[i] belongs to keys_[i]
  size_t size_ = 0;
};

}  // namespace uopfuzz::ir
