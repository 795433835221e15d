#include "fuzz/mutation_corpus.h"

#include <algorithm>

#include "ir/graph.h"
#include "ir/hash.h"
#include "ir/printer.h"

namespace uopfuzz::fuzz {

uint32_t MutationCorpus::id_of(const std::string& rule) {
  auto [it, added] = ids_.emplace(rule, static_cast<uint32_t>(hits_.size()));
  if (added) hits_.push_back(0);
  return it->second;
}

double MutationCorpus::weight(const Entry& e) const {
  uint64_t fewest = UINT64_MAX;
  for (uint32_t r : e.rules) fewest = std::min(fewest, hits_[r]);
  return 1.0 / (1.0 + static_cast<double>(fewest));
}

bool MutationCorpus::observe(const ir::Kernel& k, const std::map<std::string, uint64_t>& hits,
                             bool clean) {
  std::vector<uint32_t> rules;
  for (const auto& [name, n] : hits) rules.push_back(id_of(name));
  bool fresh = false;
  for (size_t a = 0; a < rules.size(); ++a) {
    fresh |= hits_[rules[a]] == 0;
    for (size_t b = a + 1; b < rules.size(); ++b) {
      const uint32_t lo = std::min(rules[a], rules[b]), hi = std::max(rules[a], rules[b]);
      fresh |= pairs_seen_.insert(uint64_t{lo} << 32 | hi).second;
    }
  }
  for (const auto& [name, n] : hits) hits_[id_of(name)] += n;
  if (!fresh || !clean || capacity_ == 0) return false;
  Entry e;
  e.ctx = std::make_unique<ir::Context>();
  e.kernel = k;
  e.kernel.root = ir::copy_graph(*e.ctx, k.root);
  e.text = ir::print_kernel(e.kernel);
  e.rules = std::move(rules);
  if (entries_.size() < capacity_) {
    entries_.push_back(std::move(e));
    return true;
  }
  auto lightest =
      std::min_element(entries_.begin(), entries_.end(),
                       [&](const Entry& a, const Entry& b) { return weight(a) < weight(b); });
  *lightest = std::move(e);
  return true;
}

MutationCorpus::Pick MutationCorpus::draw(uint64_t seed) const {
  std::vector<double> cumulative;
  double total = 0;
  for (const Entry& e : entries_) cumulative.push_back(total += weight(e));
  const double u = static_cast<double>(ir::mix64(seed) >> 11) * 0x1.0p-53 * total;
  const size_t p = std::min<size_t>(
      std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin(),
      entries_.size() - 1);
  const size_t d = ir::mix64(seed ^ 0x5bd1e995u) % entries_.size();
  return {&entries_[p], &entries_[d]};
}

}  // namespace uopfuzz::fuzz
