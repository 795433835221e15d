#include "gen/forms.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gen/entropy.h"
#include "ir/graph.h"

namespace uopfuzz::gen {

namespace {

// Salt of the forms' draw, apart from the generator's use of the graph seed.
constexpr uint64_t kFormsSalt = 0x666f726d73ull;

}  // namespace

void prepare_for_forms(GenPolicy& policy, const std::vector<std::string>& offered) {
  if (std::find(offered.begin(), offered.end(), "float-var") != offered.end())
    policy.leaves.float_var = policy.leaves.var;
}

bool has_gated_access(const ir::Kernel& kernel) {
  for (ir::UOp u : ir::toposort(kernel.root))
    if (u.op() == ir::Op::Index && u.num_src() == 2 && u.src(1).op() == ir::Op::Where &&
        u.src(1).src(2).op() == ir::Op::Invalid)
      return true;
  return false;
}

bool has_float_cast_of_var(const ir::Kernel& kernel) {
  for (ir::UOp u : ir::toposort(kernel.root))
    if (u.op() == ir::Op::Cast && u.dtype().is_float() && u.src(0).op() == ir::Op::Var) return true;
  return false;
}

std::vector<std::string> applicable_forms(const ir::Kernel& kernel,
                                          const std::vector<std::string>& offered) {
  const bool gated = has_gated_access(kernel), float_var = has_float_cast_of_var(kernel);
  std::vector<std::string> out;
  for (const std::string& form : offered) {
    const bool applies =
        form == "float-var" ? float_var
        : form == "gate-value" || form == "gate-nest" || form == "gate-sink" || form == "gate-flip"
            ? gated
            : false;
    if (applies) out.push_back(form);
  }
  return out;
}

bool draw_forms(ir::Kernel& kernel, const std::vector<std::string>& offered,
                const GenPolicy& policy, uint64_t seed) {
  const std::vector<std::string> forms = applicable_forms(kernel, offered);
  if (forms.empty()) return false;
  SeedEntropy e(seed ^ kFormsSalt);
  if (!e.chance(policy.p_external_forms)) return false;
  std::vector<std::string> chosen;
  for (const std::string& form : forms)
    if (e.chance(policy.p_each_form)) chosen.push_back(form);
  if (chosen.empty()) chosen.push_back(forms[e.below(forms.size())]);
  kernel.header.extra.emplace_back("forms", fmt::format("{}", fmt::join(chosen, " ")));
  return true;
}

}  // namespace uopfuzz::gen
