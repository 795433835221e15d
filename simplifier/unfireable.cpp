#include "simplifier/unfireable.h"

namespace uopfuzz::simplifier {

const std::map<std::string, std::string>& unfireable_rules() {
  static const std::map<std::string, std::string> m = {
      {"reduce_where_invalid",
       "its left-hand side, a REDUCE over WHERE(g, x, INVALID), fails the verifier's gate rule "
       "(a gated index may only be an INDEX's index), and no rule builds one: tinygrad's "
       "index-typed sums of gated indexes are gated INDEXes in this IR"},
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
