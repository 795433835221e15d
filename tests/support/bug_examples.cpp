#include "tests/support/bug_examples.h"

#include <fstream>
#include <sstream>

namespace uopfuzz::test_support {

const std::map<std::string, std::string>& bug_examples() {
  static const std::map<std::string, std::string> table = {
      {"split-no-divisibility", "range_mod_nondivisible"},
      {"split-dynamic-end", "range_mod_var_end"},
      {"merge-wrong-end", "adjacent_merge"},
      {"flatten-first-range-only", "range_mod_split"},
      {"shrink-despite-ungated", "gated_shrink_ungated"},
      {"shrink-reduce-range", "gated_reduce_range"},
      {"shrink-smallest-guard", "gated_two_guards"},
      {"mod-ignores-negative", "mod_negative"},
      {"unparented-max-multiplies", "unparented_max"},
      {"unparented-mul-multiplies", "unparented_mul"},
      {"bound-off-by-one", "window_sum"},
      {"gather-no-bounds-check", "gather_oob"},
      {"collapse-zero-trip", "collapse_zero_trip"},
      {"lift-mul-nonpositive", "lift_mul_negative"},
      {"requantize-ignores-input-zero", "requantize_bitcast"},
      {"requantize-ignores-output-zero", "requantize_bitcast"},
      {"requantize-ties-to-even", "requantize_bitcast"},
      {"requantize-no-saturate", "requantize_bitcast"},
      // crash: the check dies (or hangs) with the bug, so it runs in a child process
      {"fold-reduce-unchecked-end", "var_end_sum"},
      {"fold-reduce-empty-loop", "empty_sum"},
      // latency-only: results must stay right
      {"merge-more-divmod", "adjacent_ranges"},
  };
  return table;
}

std::string read_example(const std::string& name) {
  std::ifstream f(std::string(UOPFUZZ_SOURCE_DIR) + "/corpus/examples/" + name + ".uop");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace uopfuzz::test_support
