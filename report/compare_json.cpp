#include "report/compare_json.h"

namespace uopfuzz::report {

using json = nlohmann::ordered_json;

json strength_json(const check::StrengthTally& t) {
  json families = json::object();
  for (check::StrengthFamily f : check::all_strength_families()) {
    const auto& fam = t.families[size_t(f)];
    families[std::string(check::strength_family_name(f))] = {
        {"stronger", {fam.a_stronger, fam.b_stronger}},
        {"left", {fam.a_left, fam.b_left}},
        {"examples", {fam.a_examples, fam.b_examples}}};
  }
  return {{"simplifiers", {t.a, t.b}},
          {"compared", t.compared},
          {"differences", t.differences},
          {"not_compared", t.not_compared},
          {"families", families}};
}

json side_json(const fuzz::CompareSide& s, uint64_t graphs) {
  return {{"name", s.name},
          {"version", s.version},
          {"rewrites", s.rewrites},
          {"unsupported", s.unsupported},
          {"findings", s.findings},
          {"first_graph", s.first_graph},
          {"first_details", s.first_details},
          {"rule_hits", s.rule_hits},
          {"check_seconds", s.check_seconds},
          {"child_seconds", s.child_seconds},
          {"protocol_seconds", s.protocol_seconds},
          {"graphs_per_second", s.check_seconds > 0 ? double(graphs) / s.check_seconds : 0.0}};
}

json lowering_json(const fuzz::LoweringTally& t) {
  auto figure = [](const fuzz::LoweringTally::Figure& f) {
    return json{{"a_fewer", f.a_fewer}, {"b_fewer", f.b_fewer},       {"a_total", f.a_total},
                {"b_total", f.b_total}, {"a_examples", f.a_examples}, {"b_examples", f.b_examples}};
  };
  return json{{"compared", t.compared},
              {"differences", t.differences},
              {"not_compared", t.not_compared},
              {"kernels", figure(t.kernels)},
              {"intermediate_buffers", figure(t.intermediates)}};
}

}  // namespace uopfuzz::report
