#include "rule_check.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/rewrite.h"
#include "ir/verify.h"
#include "oracle/interpreter.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::selfcheck {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Agree: return "agree";
    case Verdict::Mismatch: return "mismatch";
    case Verdict::UbIntroduced: return "ub-introduced";
    case Verdict::VerifierFailure: return "verifier-failure";
    case Verdict::NonConvergence: return "non-convergence";
    case Verdict::RewriteError: return "rewrite-error";
  }
  return "?";
}

std::map<std::string, int64_t> var_values(ir::UOp root, int k) {
  std::map<std::string, int64_t> out;
  if (k % 3 == 2) return out;
  for (ir::UOp u : ir::toposort(root)) {
    if (u.op() != ir::Op::Var) continue;
    const auto& v = u.arg<ir::VarArg>();
    const int64_t m = v.multiple_of.value_or(1);
    auto floor_to = [m](int64_t x) { return x - (((x % m) + m) % m); };
    int64_t lo = floor_to(v.min) < v.min ? floor_to(v.min) + m : floor_to(v.min);
    int64_t hi = floor_to(v.max);
    if (lo > v.max) lo = v.min;
    if (hi < v.min) hi = v.max;
    out[v.name] = k % 3 == 0 ? lo : hi;
  }
  return out;
}

Comparison compare_on_oracle(ir::UOp original, ir::UOp rewritten, int runs, uint64_t base_seed) {
  Comparison res;
  auto errors = ir::verify(rewritten);
  if (!errors.empty()) {
    res.verdict = Verdict::VerifierFailure;
    res.details = std::string(ir::verify_rule_name(errors[0].rule)) + ": " + errors[0].message +
                  " at " + ir::describe(errors[0].node);
    return res;
  }
  auto a_prog = oracle::Program::compile(original);
  auto b_prog = oracle::Program::compile(rewritten);
  if (!a_prog || !b_prog) {
    res.verdict = Verdict::RewriteError;
    res.details = "does not compile on the oracle: " +
                  (a_prog ? b_prog.error().message : a_prog.error().message);
    return res;
  }
  oracle::RunOptions ro;
  ro.max_steps = 2'000'000;
  for (int k = 0; k < runs; ++k) {
    const uint64_t seed = base_seed + static_cast<uint64_t>(k);
    oracle::Inputs in = oracle::make_inputs(original, seed, var_values(original, k));
    auto a = a_prog->run(in, ro);
    if (!a || a->status != oracle::RunStatus::Ok) {
      ++res.runs_skipped;
      continue;
    }
    auto b = b_prog->run(in, ro);
    std::string vars;
    for (const auto& [name, v] : in.vars) vars += " " + name + "=" + std::to_string(v);
    if (!b) {
      res.verdict = Verdict::RewriteError;
      res.details =
          "seed " + std::to_string(seed) + vars + ": the rewrite cannot run: " + b.error().message;
      return res;
    }
    if (b->status == oracle::RunStatus::Ub) {
      res.verdict = Verdict::UbIntroduced;
      res.details = "seed " + std::to_string(seed) + vars + ": the rewrite has UB at " +
                    ir::describe(b->ub->node) + ": " + b->ub->what;
      return res;
    }
    if (b->status != oracle::RunStatus::Ok) {
      ++res.runs_skipped;
      continue;
    }
    ++res.runs_compared;
    for (const auto& [slot, want] : a->outputs) {
      auto it = b->outputs.find(slot);
      for (size_t i = 0; i < want.size(); ++i) {
        ir::Value g = it != b->outputs.end() && i < it->second.size() ? it->second.get(i)
                                                                      : ir::Value::of_int(0);
        if (ir::same_bits(want.get(i), g)) continue;
        res.verdict = Verdict::Mismatch;
        res.details = "seed " + std::to_string(seed) + vars + ": out[" + std::to_string(slot) +
                      "][" + std::to_string(i) + "] is " +
                      ir::format_value(want.dtype(), want.get(i)) + " on the original but " +
                      ir::format_value(want.dtype(), g) + " on the rewrite";
        return res;
      }
    }
  }
  return res;
}

const std::vector<Mode>& modes() {
  static const std::vector<Mode> all = {{"optimize", true, false},
                                        {"no-optimize", false, false},
                                        {"optimize, -fold_bounds", true, true}};
  return all;
}

void probe_markers(ir::Context& ctx, ir::UOp root, std::map<std::string, uint64_t>& hits) {
  const auto names = simplifier::all_rule_names();
  auto known = [&](const char* n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (known("mark_range_mod") && known("split_range")) {
    simplifier::SimplifyState st;
    std::unordered_set<std::string> off{"split_range"};
    ir::RewriteOptions o;
    o.state = &st;
    o.disabled = &off;
    ir::graph_rewrite(ctx, root, simplifier::pm_split_ranges(), o);
    if (!st.split_marks.empty()) ++hits["mark_range_mod"];
  }
}

}  // namespace uopfuzz::selfcheck
