#include "simplifier/unfireable.h"

namespace uopfuzz::simplifier {

const std::map<std::string, std::string>& unfireable_rules() {
  static const std::map<std::string, std::string> m = {
      {"reduce_where_invalid",
       "its left-hand side, a REDUCE over WHERE(g, x, INVALID), fails the verifier's gate rule "
       "(a gated index may only be an INDEX's index), and no rule builds one: tinygrad's "
       "index-typed sums of gated indexes are gated INDEXes in this IR"},
      // Tensor stage (schedule/buffer_folds.cpp); the campaign's tensor coverage skips it.
      {"index_bufferize_identity",
       "rangeify gives every realized node fresh RANGEs and every reader indexes at its own "
       "ranges (partial inline at the reader's outer ranges and its reduce-range expressions, "
       "flattening at a fresh linear range), so no lowered reader reads a BUFFERIZE at that "
       "buffer's own RANGEs; hand-built graphs reach it (tests/schedule_buffer_folds_test.cpp)"},
  };
  return m;
}

const std::map<std::string, std::string>& recording_rules() {
  static const std::map<std::string, std::string> m = {
      {"mark_range_mod",
       "it records RANGE % c for the split at SINK and rewrites nothing: split_range counts the "
       "splits it makes of the marks"},
  };
  return m;
}

}  // namespace uopfuzz::simplifier
