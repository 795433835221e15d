// Reduce rules: pm_reduce_unparented, reduce_collapse with pm_reduce_collapse, and the
// load-collapse variants. (Being written.)
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

RuleSet pm_reduce_unparented() { return RuleSet(); }
RuleSet pm_reduce_collapse() { return RuleSet(); }
RuleSet pm_reduce_load_collapse() { return RuleSet(); }
RuleSet pm_reduce_simplify() { return RuleSet(); }
RuleSet pm_load_collapse() { return RuleSet(); }

}  // namespace uopfuzz::simplifier
