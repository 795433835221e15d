/** \file Entropy: where the generator's choices come from. One interface, two sources: a
 * 64-bit seed (splitmix64) or libFuzzer's input bytes, so coverage guidance steers generation.
 *
 * Everything here is integer arithmetic on fixed-width types (no std distributions, no
 * std::hash), so one seed gives one sequence of choices, hence one graph, on every
 * machine. Probabilities become 16-bit fixed-point thresholds, weights 20-bit integers.
 *
 * An exhausted byte source answers 0 to every draw, and every helper maps 0 to its
 * simplest answer: below() -> 0, chance(p) -> false unless p >= 1, pick() -> the first
 * option of nonzero weight. Generation then still terminates and stays valid.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "ir/hash.h"

namespace uopfuzz::gen {

class Entropy {
 public:
  virtual ~Entropy() = default;

  /// A draw in [0, n); 0 when n <= 1 (and from an exhausted source).
  virtual uint64_t below(uint64_t n) = 0;
  /// True once a byte source has run out (a seed source never does).
  virtual bool exhausted() const { return false; }

  /// True with probability p (p <= 0: never; p >= 1: always).
  bool chance(double p) {
    if (p <= 0) return false;
    if (p >= 1) return true;
    const auto threshold = static_cast<uint64_t>(p * 65536.0);
    return below(65536) >= 65536 - threshold;  // a draw of 0 is "no"
  }
  /// A fair choice between equivalent spellings or symmetric values (operand order, which
  /// of two ranges, a sign): chance(0.5), named so that it is not mistaken for a knob.
  bool coin() { return chance(0.5); }
  /// One of a table of named options, uniformly (a name repeated is drawn that much more
  /// often): the same draw as below(N), its cases named.
  template <class T, size_t N>
  T option(const T (&table)[N]) {
    return table[below(N)];
  }
  /// Uniform in [lo, hi] (hi < lo: lo).
  int64_t between(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t r = span == ~uint64_t{0} ? below(~uint64_t{0}) : below(span + 1);
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
  }
  /// An index into `weights` drawn by relative weight; the first positive weight when
  /// the draw is 0; 0 when no weight is positive.
  size_t pick(std::span<const double> weights) {
    uint64_t total = 0;
    for (double w : weights) total += units(w);
    if (total == 0) return 0;
    uint64_t r = below(total);
    for (size_t i = 0; i < weights.size(); ++i) {
      const uint64_t u = units(weights[i]);
      if (r < u) return i;
      r -= u;
    }
    return weights.size() - 1;
  }
  size_t pick(std::initializer_list<double> weights) {
    return pick(std::span<const double>(weights.begin(), weights.size()));
  }

 private:
  static uint64_t units(double w) {
    return w <= 0 ? 0 : w >= 1e6 ? uint64_t{1} << 40 : static_cast<uint64_t>(w * (1 << 20));
  }
};

/// Entropy from a 64-bit seed: splitmix64, mapped to [0, n) by a 128-bit multiply.
class SeedEntropy final : public Entropy {
 public:
  explicit SeedEntropy(uint64_t seed) : state_(seed) {}
  uint64_t below(uint64_t n) override {
    if (n <= 1) return 0;
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  uint64_t next() { return ir::splitmix64(state_); }
  uint64_t state_;
};

/// Entropy from a byte string (libFuzzer's input): each draw consumes the fewest bytes
/// that can express n - 1 (little-endian), reduced mod n. Exhausted: every draw is 0.
/// The bytes are not copied: they must outlive the source.
class ByteEntropy final : public Entropy {
 public:
  ByteEntropy(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  explicit ByteEntropy(std::span<const uint8_t> bytes) : ByteEntropy(bytes.data(), bytes.size()) {}

  uint64_t below(uint64_t n) override {
    if (n <= 1) return 0;
    uint64_t v = 0;
    int shift = 0;
    for (uint64_t m = n - 1; m != 0 && shift < 64; m >>= 8, shift += 8) {
      if (pos_ >= size_) {
        ran_out_ = true;
        return 0;
      }
      v |= static_cast<uint64_t>(data_[pos_++]) << shift;
    }
    return v % n;
  }
  bool exhausted() const override { return ran_out_; }
  size_t consumed() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool ran_out_ = false;
};

}  // namespace uopfuzz::gen
