// Split: RANGE(N) % c with c | N or not, VAR ends, axis types the rule refuses.
#include <algorithm>
#include <cstdint>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
enum class SplitEnd : uint8_t {
  Divisible,  ///< a CONST multiple of c
  Const,      ///< a CONST in [1, 24], usually not a multiple
  Var,        ///< a VAR, maybe declaring multiple_of c
  Any,        ///< make_end's draw, a VAR more often than not
};
constexpr SplitEnd kSplitEnds[] = {SplitEnd::Divisible, SplitEnd::Divisible, SplitEnd::Const,
                                   SplitEnd::Var, SplitEnd::Any};
/// How r % c is used.
enum class SplitUse : uint8_t {
  Bare,          ///< r % c
  WithQuotient,  ///< r%c + (r//c)*10
  TwoModuli,     ///< r%c + r%c2
  WithRange,     ///< r%c + r
  Scaled,        ///< (r%c) * k
};
constexpr SplitUse kSplitUses[] = {SplitUse::Bare, SplitUse::WithQuotient, SplitUse::TwoModuli,
                                   SplitUse::WithRange, SplitUse::Scaled};
}  // namespace

void InstanceBuilder::split() {
  const int64_t c = one_of<int64_t>({1, 2, 2, 3, 4, 4, 5, 6, 8});
  End e;
  switch (option(kSplitEnds)) {
    case SplitEnd::Divisible: e = {I(c * between(1, 5)), 0}; break;
    case SplitEnd::Const: e = make_end(1, 24, kNeverVar); break;
    case SplitEnd::Var: {
      int64_t m = chance(w_.p_split_var_multiple) ? c : 1;
      e = {var(policy_.negative_range_ends ? -2 : 0, 24, m), 24};
      break;
    }
    case SplitEnd::Any: e = make_end(0, 24, w_.p_split_var_end); break;
  }
  if (e.node.is_const()) e.hi = hi_of(e.node.const_value().i);
  const ir::AxisType t =
      one_of<ir::AxisType>({ir::AxisType::Loop, ir::AxisType::Loop, ir::AxisType::Global,
                            ir::AxisType::Warp, ir::AxisType::Device, ir::AxisType::Upcast});
  const bool in_reduce = chance(w_.p_split_in_reduce);
  UOp r = range(e.node, in_reduce ? ir::AxisType::Reduce : t);
  auto mod = [&](int64_t m) {
    return alu(chance(w_.p_split_floor_mod) ? Op::FloorMod : Op::Cmod, r, I(m));
  };
  UOp m1 = mod(c);
  UOp use = m1;
  switch (option(kSplitUses)) {
    case SplitUse::Bare: break;
    case SplitUse::WithQuotient: use = add(m1, mul(alu(Op::FloorDiv, r, I(c)), I(10))); break;
    case SplitUse::TwoModuli: use = add(m1, mod(one_of<int64_t>({2, 3, 4}))); break;
    case SplitUse::WithRange: use = add(m1, r); break;
    case SplitUse::Scaled: use = mul(m1, I(between(-3, 3))); break;
  }
  if (in_reduce) {
    // out[0] = sum_r int(use) (+ load(in[r % c]))
    UOp v = cast(ir::dtypes::Int32, use);
    if (chance(w_.p_split_reduce_load)) v = add(v, load(in_i32(), m1));
    Op rop = one_of<Op>({Op::Add, Op::Add, Op::Max, Op::Min});
    UOp out = buffer(ir::dtypes::Int32, 1, true);
    effects_.push_back(store(out, I(0), reduce(rop, v, {r})));
    return;
  }
  UOp out = buffer(ir::dtypes::Int32, std::max<int64_t>(e.hi, 1), true);
  UOp v = cast(ir::dtypes::Int32, use);
  if (chance(w_.p_split_store_load)) v = load(in_i32(), chance(w_.p_split_load_at_mod) ? m1 : r);
  effects_.push_back(end(store(out, r, v), {r}));
}

}  // namespace uopfuzz::gen
