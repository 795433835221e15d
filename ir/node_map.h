/** \file NodeMap: a flat hash map from nodes to values, for the per-graph tables of the
 * graph passes (the verifier, the oracle's compiler, open_ranges, graph_rewrite's memo).
 *
 * Why not std::unordered_map: it allocates a block per entry, and these tables are built
 * and dropped several times for every graph a fuzz campaign checks, so malloc and free
 * were a large share of a campaign's time. A NodeMap keeps its entries in one vector, in
 * insertion order, and finds them through an open-addressing index (linear probing on
 * the node's own hash, like Context's intern table).
 *
 * Like a std::vector, and unlike std::unordered_map, inserting may move the values:
 * references into the map are invalidated by an insertion (looking up a present node
 * never inserts). There is no erase.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::ir {

template <class T>
class NodeMap {
 public:
  NodeMap() = default;
  explicit NodeMap(size_t expected) { reserve(expected); }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  /// Room for n entries without growing.
  void reserve(size_t n) {
    entries_.reserve(n);
    size_t want = 16;
    while (want < 2 * n) want *= 2;  // load factor at most 1/2: short probes
    if (want > slots_.size()) rehash(want);
  }

  /// The value of u, default-constructed (and inserted) if absent.
  T& operator[](UOp u) { return entries_[insert(u)].second; }

  /// Inserts (u, value) if u is absent; returns the value held and whether it was inserted.
  std::pair<T&, bool> emplace(UOp u, T value) {
    const size_t before = entries_.size();
    T& held = entries_[insert(u)].second;
    const bool fresh = entries_.size() != before;
    if (fresh) held = std::move(value);
    return {held, fresh};
  }

  /// The value of u, or nullptr if absent.
  T* find(UOp u) {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[slot(u)];
    return s.key ? &entries_[s.entry].second : nullptr;
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
  struct Slot {
    UOp key;             // null: an empty slot
    uint32_t entry = 0;  // index into entries_
  };

  // Where u is in the index, or the empty slot where it would go (slots_ not empty).
  size_t slot(UOp u) const {
    const size_t mask = slots_.size() - 1;
    size_t i = u.hash() & mask;
    while (slots_[i].key && slots_[i].key != u) i = (i + 1) & mask;
    return i;
  }

  // The entry of u, appended (with a default value) if absent.
  size_t insert(UOp u) {
    if (slots_.empty()) rehash(16);
    size_t i = slot(u);
    if (slots_[i].key) return slots_[i].entry;
    if (2 * (entries_.size() + 1) > slots_.size()) {
      rehash(2 * slots_.size());
      i = slot(u);
    }
    slots_[i] = {u, static_cast<uint32_t>(entries_.size())};
    entries_.emplace_back(u, T{});
    return slots_[i].entry;
  }

  // Rebuilds the index with `capacity` slots (a power of two); entries stay where they are.
  void rehash(size_t capacity) {
    slots_.assign(capacity, Slot{});
    for (size_t e = 0; e < entries_.size(); ++e)
      slots_[slot(entries_[e].first)] = {entries_[e].first, static_cast<uint32_t>(e)};
  }

  std::vector<Slot> slots_;                 // the index: a power-of-two number of slots
  std::vector<std::pair<UOp, T>> entries_;  // the entries, in insertion order
};

}  // namespace uopfuzz::ir
