#include "report/run_json.h"

#include <cmath>

#include "ir/printer.h"

namespace uopfuzz::report {

using json = nlohmann::ordered_json;

json value_json(ir::DType dt, ir::Value v) {
  switch (dt.kind()) {
    case ir::DTypeKind::Bool: return v.i != 0;
    case ir::DTypeKind::Unsigned: return v.u;
    case ir::DTypeKind::Float:
      // JSON has no NaN or infinity.
      if (std::isnan(v.f) || std::isinf(v.f)) return ir::format_value(dt, v);
      return v.f;
    case ir::DTypeKind::Quantized: return value_json(dt.storage(), v);  // the stored integer
    case ir::DTypeKind::Void:
    case ir::DTypeKind::Signed:
    case ir::DTypeKind::Index: return v.i;
  }
  return v.i;
}

const char* status_name(oracle::RunStatus s) {
  switch (s) {
    case oracle::RunStatus::Ok: return "ok";
    case oracle::RunStatus::Ub: return "ub";
    case oracle::RunStatus::StepLimit: return "step-limit";
  }
  return "?";
}

json run_json(const std::string& file, const ir::KernelHeader& h, const std::string& backend,
              uint64_t seed, const check::CaseRun& c, int failed_kernel,
              const std::function<std::string(ir::UOp)>& name_of,
              const std::function<int(ir::UOp)>& line_of) {
  const oracle::RunOutput& out = c.run;
  const bool pass = c.verdict.pass;
  json mismatches = json::array();
  for (const auto& m : c.verdict.mismatches)
    mismatches.push_back(
        {{"slot", m.slot}, {"index", m.index}, {"expected", m.expected}, {"got", m.got}});
  json j;
  j["file"] = file;
  j["name"] = h.name;
  j["backend"] = backend;
  j["seed"] = seed;
  j["vars"] = c.inputs.vars;
  j["status"] = status_name(out.status);
  j["steps"] = out.steps;
  if (out.ub) {
    json it = json::array();
    for (auto [r, v] : out.ub->iteration) it.push_back({{"range", name_of(r)}, {"value", v}});
    j["ub"] = {{"node", name_of(out.ub->node)},
               {"op", ir::op_name(out.ub->node.op())},
               {"line", line_of(out.ub->node)},
               {"what", out.ub->what},
               {"iteration", it}};
    if (failed_kernel >= 0) j["ub"]["kernel"] = failed_kernel;
  }
  json outputs = json::array();
  for (const auto& [slot, buf] : out.outputs) {
    json values = json::array();
    for (size_t i = 0; i < buf.size(); ++i) values.push_back(value_json(buf.dtype(), buf.get(i)));
    outputs.push_back({{"slot", slot}, {"dtype", buf.dtype().name()}, {"values", values}});
  }
  j["outputs"] = outputs;
  j["expected"] = {{"outcome", h.expect == ir::Expect::Ub ? "ub" : "ok"},
                   {"outputs_checked", !h.outputs.empty()},
                   {"mismatches", mismatches},
                   {"pass", pass}};
  return j;
}

}  // namespace uopfuzz::report
