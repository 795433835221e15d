#include "gen/declines.h"

namespace uopfuzz::gen {

namespace {

struct Shape {
  const char* word;
  const char* knobs;
  void (*avoid)(GenPolicy&);
};

// One row a shape: its word, the knobs it zeroes (as the campaign's line names them), and
// how. The generator reads each knob's 0 as "never" (gen/builder.h, min_end; gen/mutate.cpp).
const Shape kShapes[] = {
    {"quantized",
     "p_quantized_output, p_dequantize, tensor.p_quantized_output, tensor.nodes.dequantize",
     [](GenPolicy& p) {
       p.p_quantized_output = 0;
       p.p_dequantize = 0;
       p.tensor.p_quantized_output = 0;
       p.tensor.nodes.dequantize = 0;
     }},
    {"range-end-0", "p_const_end_zero", [](GenPolicy& p) { p.p_const_end_zero = 0; }},
    {"range-end-1", "p_const_end_one", [](GenPolicy& p) { p.p_const_end_one = 0; }},
    {"range-closed-twice", "p_reuse_range, p_second_use",
     [](GenPolicy& p) {
       p.p_reuse_range = 0;
       p.p_second_use = 0;
     }},
};

}  // namespace

std::vector<std::string> known_declined_shapes() {
  std::vector<std::string> words;
  for (const Shape& s : kShapes) words.emplace_back(s.word);
  return words;
}

std::vector<AvoidedShape> avoid_declined_shapes(GenPolicy& policy,
                                                const std::set<std::string>& declined) {
  std::vector<AvoidedShape> avoided;
  for (const Shape& s : kShapes) {
    if (!declined.contains(s.word)) continue;
    s.avoid(policy);
    avoided.push_back({s.word, s.knobs});
  }
  return avoided;
}

}  // namespace uopfuzz::gen
