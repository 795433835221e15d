/** \file The corpus of rule-coverage-guided mutation that each campaign checker keeps: the
 * clean graphs that first fired a rule, or a pair of rules together, and the draw of a parent
 * weighted toward the rules this checker has seen fire least. */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/kernel.h"

namespace uopfuzz::fuzz {

class MutationCorpus {
 public:
  /// One kept graph, in a Context of its own (the checker's contexts live for one graph).
  struct Entry {
    std::unique_ptr<ir::Context> ctx;
    ir::Kernel kernel;
    std::string text;             ///< its printed form: what a MutantRecipe carries
    std::vector<uint32_t> rules;  ///< the rules it fired (ids of this corpus)
  };
  struct Pick {
    const Entry* parent;
    const Entry* donor;  ///< for splicing (may be the parent itself)
  };

  explicit MutationCorpus(size_t capacity) : capacity_(capacity) {}

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }

  /// Counts the rules one checked graph fired (`hits`, the simplifier's). A `clean` graph
  /// (no finding) is kept when it fired a rule, or a pair of rules, for the first time; when
  /// the corpus is full, the entry of the most-fired rules makes room. True when kept.
  bool observe(const ir::Kernel& k, const std::map<std::string, uint64_t>& hits, bool clean);

  /// A parent drawn with weight 1 / (1 + fewest hits among its rules), and a donor drawn
  /// uniformly; a function of `seed` and the corpus. Not on an empty corpus.
  Pick draw(uint64_t seed) const;

 private:
  double weight(const Entry& e) const;
  uint32_t id_of(const std::string& rule);

  size_t capacity_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<uint64_t> hits_;               ///< by rule id: times fired in graphs observed
  std::unordered_set<uint64_t> pairs_seen_;  ///< (a << 32 | b), a < b
};

}  // namespace uopfuzz::fuzz
