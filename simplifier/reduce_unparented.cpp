// pm_reduce_unparented: a REDUCE over ranges its value does not use drops them (sum:
// times the trip count, product: to its power, max/min: unchanged). Where this is
// stricter than tinygrad's rule, SEMANTICS.md is why: a REDUCE over zero iterations is
// its identity, and a node is evaluated only inside the loops of its ranges, so dropping
// a range is only exact when it runs at least once (end.vmin >= 1), except when no range
// is left at all (ADD, MUL only); and a float sum or product is regrouped only where the
// exact-float proof (exact_float.h) says no step rounds differently.
#include <algorithm>
#include <vector>

#include "simplifier/exact_float.h"
#include "simplifier/reduce_helpers.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

constexpr int64_t kMaxFloatPowerChain = 64;  // x^n for floats as n-1 exact MULs, n at most this

UOp reduce_unparented(RewriteCtx& rc, const Bindings& b) {
  UOp red = b["red"];
  const Op op = red.arg<ReduceArg>().op;
  if (op != Op::Add && op != Op::Mul && op != Op::Max && op != Op::Min) return UOp();
  SimplifyState& st = state(rc);
  UOp x = red.src(0);
  auto open = open_ranges(toposort(x));
  const RangeSet& used = open[x];

  // How each dropped range changes the result (a planted bug may treat MAX/MIN or MUL as ADD).
  Op mode = op;
  if ((op == Op::Max || op == Op::Min) && st.bugs.has(Bug::UnparentedMaxMultiplies)) mode = Op::Add;
  if (op == Op::Mul && st.bugs.has(Bug::UnparentedMulMultiplies)) mode = Op::Add;
  const bool fdt = red.dtype().is_float();

  std::vector<UOp> keep, sure, zero_trip;  // sure: runs >= 1 time; zero_trip: may run 0 times
  for (size_t i = 1; i < red.num_src(); ++i) {
    UOp r = red.src(i);
    if (r.op() != Op::Range || in_set(used, r)) {
      keep.push_back(r);
      continue;
    }
    UOp end = r.src(0);
    if (mode == Op::Mul) {  // the power needs a constant exponent
      if (!end.is_const() || (fdt && end.const_value().i > kMaxFloatPowerChain)) {
        keep.push_back(r);
        continue;
      }
    }
    // Extra gate (SEMANTICS.md): a zero-trip REDUCE is the identity, so a range is only
    // dropped when it provably runs, unless no range at all is left (below). A float
    // product also waits for that: (prod x)^n rounds differently from the interleaved
    // product, while x*x*...*x of one value is the REDUCE's own sequence of steps.
    const bool only_alone = mode == Op::Mul && fdt;
    (st.analysis.vmin(end) >= 1 && !only_alone ? sure : zero_trip).push_back(r);
  }
  // A range that may run zero times goes only when every range goes: then the value is
  // evaluated outside the loops anyway, and ADD (count max(end, 0)) and MUL (x^0 = 1) are
  // exact. MAX/MIN of zero iterations is the identity, never the value: those stay.
  const bool all_go = keep.empty() && (mode == Op::Add || mode == Op::Mul) && !may_fault(rc, x);
  if (!all_go) {
    keep.insert(keep.end(), zero_trip.begin(), zero_trip.end());
    zero_trip.clear();
  }
  if (sure.empty() && zero_trip.empty()) return UOp();
  // A float sum regrouped (x*n0 summed n1 times instead of x summed n0*n1 times) rounds
  // like the original only if no partial sum of the original rounds either: prove it for
  // the original's whole trip count, the kept ranges' included (a fuzzer found
  // float16 sums of a subnormal constant over 6 x 7 iterations that rounded).
  if (fdt && mode == Op::Add) {
    __int128 total = 1;
    for (size_t i = 1; i < red.num_src(); ++i) {
      UOp r = red.src(i);
      if (r.op() != Op::Range) continue;
      total *= std::max<int64_t>(1, st.analysis.vmax(r.src(0)));
      if (total > (__int128{1} << 40)) return UOp();
    }
    if (!exact_multiple(rc, x, static_cast<int64_t>(total))) return UOp();
  }

  Context& ctx = rc.ctx;
  UOp ret = x;
  if (!keep.empty()) {
    std::vector<UOp> src{x};
    for (size_t i = 1; i < red.num_src(); ++i)  // keep the original order
      if (std::find(keep.begin(), keep.end(), red.src(i)) != keep.end()) src.push_back(red.src(i));
    ret = ctx.make(Op::Reduce, red.dtype(), std::move(src), red.arg());
  }
  std::vector<UOp> gone = sure;
  gone.insert(gone.end(), zero_trip.begin(), zero_trip.end());
  if (mode == Op::Mul && fdt) {
    // A float product of one value over several ranges is one left fold of all their
    // iterations: x^(n0*n1*...) as x*x*...*x, never (x^n0)^n1 (which rounds differently).
    int64_t n = 1;
    for (UOp r : gone) {
      n *= std::max<int64_t>(0, r.src(0).const_value().i);
      if (n > kMaxFloatPowerChain) return UOp();
    }
    return n >= 1 ? power(ctx, ret, n) : ctx.const_int(red.dtype(), 1);
  }
  for (UOp r : gone) {
    UOp end = r.src(0);
    if (mode == Op::Add) {  // sum over r of x -> x * end
      ret = times_count(rc, ret, end);
      if (!ret) return UOp();      // a float sum we cannot prove exact
    } else if (mode == Op::Mul) {  // product over r of x -> x ^ end
      int64_t n = end.const_value().i;
      ret = n >= 1 ? power(ctx, ret, n) : ctx.const_int(red.dtype(), 1);
    }  // max/min over r of x -> x
  }
  return ret;
}

}  // namespace

RuleSet pm_reduce_unparented() {
  RuleSet r;
  // sum/prod/max/min over ranges x does not use -> x * end, x ^ end, x
  r.add("reduce_unparented", Pat::op(Op::Reduce).named("red"), reduce_unparented);
  return r;
}

}  // namespace uopfuzz::simplifier
