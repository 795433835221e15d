#include "gen/forms.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gen/entropy.h"
#include "ir/graph.h"

namespace uopfuzz::gen {

namespace {

// Salt of the forms' draw, apart from the generator's use of the graph seed.
constexpr uint64_t kFormsSalt = 0x666f726d73ull;

}  // namespace

bool has_gated_access(const ir::Kernel& kernel) {
  for (ir::UOp u : ir::toposort(kernel.root))
    if (u.op() == ir::Op::Index && u.num_src() == 2 && u.src(1).op() == ir::Op::Where &&
        u.src(1).src(2).op() == ir::Op::Invalid)
      return true;
  return false;
}

bool draw_forms(ir::Kernel& kernel, const std::vector<std::string>& offered,
                const GenPolicy& policy, uint64_t seed) {
  if (offered.empty() || !has_gated_access(kernel)) return false;
  SeedEntropy e(seed ^ kFormsSalt);
  if (!e.chance(policy.p_external_forms)) return false;
  std::vector<std::string> chosen;
  for (const std::string& form : offered)
    if (e.chance(policy.p_each_form)) chosen.push_back(form);
  if (chosen.empty()) chosen.push_back(offered[e.below(offered.size())]);
  kernel.header.extra.emplace_back("forms", fmt::format("{}", fmt::join(chosen, " ")));
  return true;
}

}  // namespace uopfuzz::gen
