// Interning (hash-consing) of UOp nodes: equality is identity, constants are canonical,
// ids are a topological order, and the table survives growth.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "ir/graph.h"
#include "ir/uop.h"

namespace uopfuzz::ir {
namespace {

uint64_t bits_of(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

UOp param(Context& ctx, DType dt, int slot, bool out = false, int64_t size = 4) {
  ParamArg p;
  p.slot = slot;
  p.size = size;
  p.output = out;
  return ctx.make(Op::Param, dt, {}, p);
}

TEST(Uop, EqualNodesAreTheSameObject) {
  Context ctx;
  UOp a = ctx.const_int(dtypes::Int32, 3);
  UOp b = ctx.const_int(dtypes::Int32, 4);
  const size_t before = ctx.size();
  UOp add1 = ctx.make(Op::Add, dtypes::Int32, {a, b});
  UOp add2 = ctx.make(Op::Add, dtypes::Int32, {a, b});
  EXPECT_EQ(add1, add2);
  EXPECT_EQ(add1.node(), add2.node());
  EXPECT_EQ(add1.hash(), add2.hash());
  EXPECT_EQ(ctx.size(), before + 1);  // the second make allocated nothing
  // Rebuilding the leaves gives the same leaves, so the same ADD.
  UOp add3 = ctx.make(Op::Add, dtypes::Int32,
                      {ctx.const_int(dtypes::Int32, 3), ctx.const_int(dtypes::Int32, 4)});
  EXPECT_EQ(add3, add1);
  EXPECT_EQ(ctx.size(), before + 1);
}

TEST(Uop, AccessorsReturnWhatWasMade) {
  Context ctx;
  UOp a = ctx.const_int(dtypes::Int16, -7);
  UOp b = ctx.const_int(dtypes::Int16, 9);
  UOp m = ctx.make(Op::Max, dtypes::Int16, {a, b});
  EXPECT_EQ(m.op(), Op::Max);
  EXPECT_EQ(m.dtype(), dtypes::Int16);
  ASSERT_EQ(m.num_src(), 2u);
  EXPECT_EQ(m.src(0), a);
  EXPECT_EQ(m.src(1), b);
  EXPECT_EQ(m.src()[1], b);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(m.arg()));
  EXPECT_TRUE(a.is_const());
  EXPECT_FALSE(m.is_const());
  EXPECT_EQ(a.const_value().i, -7);
  EXPECT_FALSE(static_cast<bool>(UOp()));
  EXPECT_TRUE(static_cast<bool>(m));
}

TEST(Uop, DifferentDtypesArgsOrSourcesGiveDifferentNodes) {
  Context ctx;
  UOp i32_1 = ctx.const_int(dtypes::Int32, 1);
  UOp i64_1 = ctx.const_int(dtypes::Int64, 1);
  UOp i32_2 = ctx.const_int(dtypes::Int32, 2);
  UOp u32_1 = ctx.const_int(dtypes::UInt32, 1);
  UOp idx_1 = ctx.const_int(dtypes::Index, 1);
  EXPECT_NE(i32_1, i64_1);
  EXPECT_NE(i32_1, i32_2);
  EXPECT_NE(i32_1, u32_1);
  EXPECT_NE(i64_1, idx_1);

  // Source order matters: the interner does not canonicalize commutative operands.
  UOp ab = ctx.make(Op::Add, dtypes::Int32, {i32_1, i32_2});
  UOp ba = ctx.make(Op::Add, dtypes::Int32, {i32_2, i32_1});
  EXPECT_NE(ab, ba);
  EXPECT_NE(ab, ctx.make(Op::Mul, dtypes::Int32, {i32_1, i32_2}));
  EXPECT_NE(ab, ctx.make(Op::Add, dtypes::Int64, {i32_1, i32_2}));  // dtype is part of identity
  EXPECT_NE(ctx.make(Op::Sink, dtypes::Void, {}), ctx.make(Op::Sink, dtypes::Void, {ab}));

  // PARAM: every field counts.
  ParamArg p0;
  p0.slot = 0;
  p0.size = 4;
  UOp base = ctx.make(Op::Param, dtypes::Int32, {}, p0);
  ParamArg p = p0;
  p.slot = 1;
  EXPECT_NE(base, ctx.make(Op::Param, dtypes::Int32, {}, p));
  p = p0;
  p.size = 5;
  EXPECT_NE(base, ctx.make(Op::Param, dtypes::Int32, {}, p));
  p = p0;
  p.output = true;
  EXPECT_NE(base, ctx.make(Op::Param, dtypes::Int32, {}, p));
  p = p0;
  p.vmin = 0;
  UOp with_vmin0 = ctx.make(Op::Param, dtypes::Int32, {}, p);
  EXPECT_NE(base, with_vmin0);
  p.vmin = 1;
  EXPECT_NE(with_vmin0, ctx.make(Op::Param, dtypes::Int32, {}, p));
  p = p0;
  p.vmax = 0;  // vmax=0 must differ from vmin=0
  EXPECT_NE(with_vmin0, ctx.make(Op::Param, dtypes::Int32, {}, p));
  p = p0;
  p.multiple_of = 2;
  EXPECT_NE(base, ctx.make(Op::Param, dtypes::Int32, {}, p));
  EXPECT_EQ(base, ctx.make(Op::Param, dtypes::Int32, {}, p0));

  // VAR
  UOp v = ctx.make(Op::Var, dtypes::Index, {}, VarArg{"n", 0, 10, {}});
  EXPECT_EQ(v, ctx.make(Op::Var, dtypes::Index, {}, VarArg{"n", 0, 10, {}}));
  EXPECT_NE(v, ctx.make(Op::Var, dtypes::Index, {}, VarArg{"m", 0, 10, {}}));
  EXPECT_NE(v, ctx.make(Op::Var, dtypes::Index, {}, VarArg{"n", 1, 10, {}}));
  EXPECT_NE(v, ctx.make(Op::Var, dtypes::Index, {}, VarArg{"n", 0, 11, {}}));
  EXPECT_NE(v, ctx.make(Op::Var, dtypes::Index, {}, VarArg{"n", 0, 10, 2}));
  EXPECT_NE(v, ctx.make(Op::Var, dtypes::Int32, {}, VarArg{"n", 0, 10, {}}));

  // RANGE: axis path and type.
  UOp end = ctx.const_int(dtypes::Index, 8);
  UOp r0 = ctx.make(Op::Range, dtypes::Index, {end}, RangeArg{{0}, AxisType::Loop});
  EXPECT_EQ(r0, ctx.make(Op::Range, dtypes::Index, {end}, RangeArg{{0}, AxisType::Loop}));
  EXPECT_NE(r0, ctx.make(Op::Range, dtypes::Index, {end}, RangeArg{{1}, AxisType::Loop}));
  EXPECT_NE(r0, ctx.make(Op::Range, dtypes::Index, {end}, RangeArg{{0, 0}, AxisType::Loop}));
  EXPECT_NE(r0, ctx.make(Op::Range, dtypes::Index, {end}, RangeArg{{0}, AxisType::Reduce}));
  EXPECT_NE(r0, ctx.make(Op::Range, dtypes::Index, {ctx.const_int(dtypes::Index, 9)},
                         RangeArg{{0}, AxisType::Loop}));

  // REDUCE op
  UOp red_add = ctx.make(Op::Reduce, dtypes::Int32, {i32_1, r0}, ReduceArg{Op::Add});
  EXPECT_NE(red_add, ctx.make(Op::Reduce, dtypes::Int32, {i32_1, r0}, ReduceArg{Op::Max}));
  EXPECT_EQ(red_add, ctx.make(Op::Reduce, dtypes::Int32, {i32_1, r0}, ReduceArg{Op::Add}));

  // Different arg kinds with "equal" payloads are different: INVALID (no arg) vs a CONST index 0.
  EXPECT_NE(ctx.invalid(), ctx.const_int(dtypes::Index, 0));
}

TEST(Uop, ConstIntsWrapToTheirDtype) {
  Context ctx;
  EXPECT_EQ(ctx.const_int(dtypes::Int8, 200).const_value().i, -56);
  EXPECT_EQ(ctx.const_int(dtypes::Int8, 200), ctx.const_int(dtypes::Int8, -56));
  EXPECT_EQ(ctx.const_int(dtypes::Int8, -129).const_value().i, 127);
  EXPECT_EQ(ctx.const_int(dtypes::UInt8, -1).const_value().u, 255u);
  EXPECT_EQ(ctx.const_int(dtypes::UInt8, -1), ctx.const_int(dtypes::UInt8, 255));
  EXPECT_EQ(ctx.const_int(dtypes::UInt16, 70000).const_value().u, 70000u - 65536u);
  EXPECT_EQ(ctx.const_int(dtypes::Int16, 40000).const_value().i, 40000 - 65536);
  EXPECT_EQ(ctx.const_int(dtypes::Int32, int64_t{0x100000001}).const_value().i, 1);
  EXPECT_EQ(ctx.const_int(dtypes::Int32, int64_t{0x80000000}).const_value().i, -2147483648LL);
  EXPECT_EQ(ctx.const_int(dtypes::UInt32, -1).const_value().u, 0xffffffffu);
  EXPECT_EQ(ctx.const_int(dtypes::UInt64, -1).const_value().u,
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ctx.const_int(dtypes::Int64, std::numeric_limits<int64_t>::min()).const_value().i,
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ctx.const_int(dtypes::Index, -5).const_value().i, -5);
  // bool: any non-zero is true.
  EXPECT_EQ(ctx.const_int(dtypes::Bool, 5), ctx.const_bool(true));
  EXPECT_EQ(ctx.const_int(dtypes::Bool, 5).const_value().i, 1);
  EXPECT_EQ(ctx.const_int(dtypes::Bool, 0), ctx.const_bool(false));
  EXPECT_NE(ctx.const_bool(true), ctx.const_bool(false));
  // const_value canonicalizes too.
  EXPECT_EQ(ctx.const_value(dtypes::Int8, Value::of_int(255)), ctx.const_int(dtypes::Int8, -1));
  EXPECT_EQ(ctx.const_value(dtypes::UInt8, Value::of_int(256)), ctx.const_int(dtypes::UInt8, 0));
}

TEST(Uop, ConstFloatsRoundToTheirDtype) {
  Context ctx;
  EXPECT_EQ(ctx.const_float(dtypes::Float32, 0.1).const_value().f, static_cast<double>(0.1f));
  EXPECT_NE(ctx.const_float(dtypes::Float32, 0.1).const_value().f, 0.1);
  EXPECT_EQ(ctx.const_float(dtypes::Float64, 0.1).const_value().f, 0.1);
  // float16: 0.1 is 0x2e66 = 0.0999755859375.
  EXPECT_EQ(ctx.const_float(dtypes::Float16, 0.1).const_value().f, 0.0999755859375);
  EXPECT_EQ(ctx.const_float(dtypes::Float16, 65504.0).const_value().f, 65504.0);
  EXPECT_TRUE(std::isinf(ctx.const_float(dtypes::Float16, 65520.0).const_value().f));
  EXPECT_EQ(ctx.const_float(dtypes::Float16, std::ldexp(1.0, -24)).const_value().f,
            std::ldexp(1.0, -24));
  EXPECT_EQ(ctx.const_float(dtypes::Float16, std::ldexp(1.0, -26)).const_value().f, 0.0);
  EXPECT_TRUE(std::isinf(ctx.const_float(dtypes::Float32, 1e39).const_value().f));
  // Ints become floats and floats become ints through the typed builders.
  EXPECT_EQ(ctx.const_int(dtypes::Float32, 3), ctx.const_float(dtypes::Float32, 3.0));
  EXPECT_EQ(ctx.const_float(dtypes::Int32, 3.7), ctx.const_int(dtypes::Int32, 3));
  // Values that round to the same float are the same node.
  EXPECT_EQ(ctx.const_float(dtypes::Float32, 1.0 + 1e-12), ctx.const_float(dtypes::Float32, 1.0));
  EXPECT_NE(ctx.const_float(dtypes::Float64, 1.0 + 1e-12), ctx.const_float(dtypes::Float64, 1.0));
}

TEST(Uop, AllNanConstsInternToOneNodePerDtype) {
  Context ctx;
  UOp a = ctx.const_float(dtypes::Float32, std::nan(""));
  UOp b = ctx.const_float(dtypes::Float32, -std::nan(""));
  UOp c = ctx.const_float(dtypes::Float32, std::nan("0x1234"));
  double payload;
  uint64_t raw = 0x7ff0000000000001ull;  // a signalling-NaN bit pattern
  std::memcpy(&payload, &raw, 8);
  UOp d = ctx.const_float(dtypes::Float32, payload);
  UOp e = ctx.const_value(dtypes::Float32, Value::of_float(-std::nan("7")));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a, d);
  EXPECT_EQ(a, e);
  EXPECT_TRUE(std::isnan(a.const_value().f));
  EXPECT_FALSE(std::signbit(a.const_value().f));
  EXPECT_EQ(ctx.const_float(dtypes::Float64, -std::nan("3")),
            ctx.const_float(dtypes::Float64, std::nan("")));
  EXPECT_EQ(ctx.const_float(dtypes::Float16, -std::nan("3")),
            ctx.const_float(dtypes::Float16, std::nan("")));
  EXPECT_NE(ctx.const_float(dtypes::Float64, std::nan("")), a);
  EXPECT_NE(ctx.const_float(dtypes::Float16, std::nan("")), a);
}

TEST(Uop, NegativeAndPositiveZeroAreDifferentNodes) {
  for (DType dt : {dtypes::Float16, dtypes::Float32, dtypes::Float64}) {
    Context ctx;
    UOp pz = ctx.const_float(dt, 0.0);
    UOp nz = ctx.const_float(dt, -0.0);
    EXPECT_NE(pz, nz) << dt.name();
    EXPECT_TRUE(std::signbit(nz.const_value().f)) << dt.name();
    EXPECT_FALSE(std::signbit(pz.const_value().f)) << dt.name();
    EXPECT_EQ(bits_of(nz.const_value().f), 0x8000000000000000ull) << dt.name();
    EXPECT_EQ(nz, ctx.const_float(dt, -0.0)) << dt.name();
    // A negative value too small for a narrow dtype rounds to -0, not +0.
    if (dt != dtypes::Float64) {
      EXPECT_EQ(ctx.const_float(dt, -1e-300), nz) << dt.name();
    }
  }
}

TEST(Uop, IdsAreCreationOrderAndTopological) {
  Context ctx;
  std::mt19937_64 rng(42);
  std::vector<UOp> made;
  for (int i = 0; i < 8; ++i) made.push_back(ctx.const_int(dtypes::Int32, i));
  for (int i = 0; i < 2000; ++i) {
    UOp a = made[rng() % made.size()], b = made[rng() % made.size()];
    static constexpr Op kOps[] = {Op::Add, Op::Mul, Op::Sub, Op::Max, Op::Xor};
    made.push_back(ctx.make(kOps[rng() % 5], dtypes::Int32, {a, b}));
  }
  ASSERT_GT(ctx.size(), 1000u);
  for (UOp u : made) {
    EXPECT_LT(u.id(), ctx.size());
    for (UOp s : u.src()) ASSERT_LT(s.id(), u.id());
  }
  // Ids are dense: every id below size() belongs to exactly one node we made.
  std::vector<bool> seen(ctx.size(), false);
  for (UOp u : made) seen[u.id()] = true;
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_TRUE(seen[i]) << "id " << i;
  // The first node made has id 0; a fresh node gets id size()-1.
  EXPECT_EQ(made[0].id(), 0u);
  UOp fresh = ctx.make(Op::Neg, dtypes::Int32, {made.back()});
  EXPECT_EQ(fresh.id(), ctx.size() - 1);
  // toposort of the last node lists sources first, so ids increase along it for a chain.
  UOp chain = made[7];
  for (int i = 0; i < 50; ++i) chain = ctx.make(Op::Neg, dtypes::Int32, {chain});
  std::vector<UOp> topo = toposort(chain);
  ASSERT_EQ(topo.size(), 51u);
  for (size_t i = 1; i < topo.size(); ++i) EXPECT_LT(topo[i - 1].id(), topo[i].id());
}

TEST(Uop, HashTableSurvivesGrowth) {
  Context ctx;
  constexpr int kN = 100000;
  std::vector<UOp> consts, adds;
  consts.reserve(kN);
  for (int i = 0; i < kN; ++i) consts.push_back(ctx.const_int(dtypes::Int64, i));
  // Nodes whose identity depends on sources, created across many table resizes.
  for (int i = 1; i < kN; ++i)
    adds.push_back(ctx.make(Op::Add, dtypes::Int64, {consts[i - 1], consts[i]}));
  const size_t size = ctx.size();
  EXPECT_EQ(size, size_t{2 * kN - 1});
  std::set<const Node*> distinct;
  for (UOp u : consts) distinct.insert(u.node());
  for (UOp u : adds) distinct.insert(u.node());
  EXPECT_EQ(distinct.size(), size);
  for (int i = 0; i < kN; i += 97) {
    EXPECT_EQ(ctx.const_int(dtypes::Int64, i), consts[i]);
    EXPECT_EQ(consts[i].const_value().i, i);
    if (i > 0) {
      EXPECT_EQ(ctx.make(Op::Add, dtypes::Int64, {consts[i - 1], consts[i]}), adds[i - 1]);
    }
  }
  EXPECT_EQ(ctx.const_int(dtypes::Int64, kN - 1), consts.back());
  EXPECT_EQ(ctx.size(), size);  // nothing was re-created
  // And new nodes still go in after all that growth.
  UOp extra = ctx.const_int(dtypes::Int64, kN);
  EXPECT_EQ(ctx.size(), size + 1);
  EXPECT_EQ(extra.id(), size);
}

TEST(Uop, ContextsDoNotShareNodes) {
  Context a, b;
  UOp x = a.const_int(dtypes::Int32, 1);
  UOp y = b.const_int(dtypes::Int32, 1);
  EXPECT_NE(x, y);
  EXPECT_EQ(x.hash(), y.hash());  // structural hash, not identity
  EXPECT_EQ(x.id(), y.id());
}

TEST(Uop, AluInfersTheResultDtype) {
  Context ctx;
  UOp i = ctx.const_int(dtypes::Int64, 1);
  UOp f = ctx.const_float(dtypes::Float16, 1.5);
  UOp g = ctx.const_float(dtypes::Float16, 2.5);
  UOp b = ctx.const_bool(true);
  UOp idx = ctx.const_int(dtypes::Index, 3);
  EXPECT_EQ(ctx.alu(Op::Add, {i, i}).dtype(), dtypes::Int64);
  EXPECT_EQ(ctx.alu(Op::Mul, {f, g}).dtype(), dtypes::Float16);
  EXPECT_EQ(ctx.alu(Op::CmpLt, {f, g}).dtype(), dtypes::Bool);
  EXPECT_EQ(ctx.alu(Op::CmpNe, {i, i}).dtype(), dtypes::Bool);
  EXPECT_EQ(ctx.alu(Op::CmpEq, {idx, idx}).dtype(), dtypes::Bool);
  EXPECT_EQ(ctx.alu(Op::Where, {b, f, g}).dtype(), dtypes::Float16);
  EXPECT_EQ(ctx.alu(Op::Where, {b, idx, ctx.invalid()}).dtype(), dtypes::Index);
  EXPECT_EQ(ctx.alu(Op::Neg, {f}).dtype(), dtypes::Float16);
  EXPECT_EQ(ctx.alu(Op::And, {b, b}).dtype(), dtypes::Bool);
  EXPECT_EQ(ctx.alu(Op::Shl, {i, i}).dtype(), dtypes::Int64);
  // alu() interns like make() does.
  EXPECT_EQ(ctx.alu(Op::Add, {i, i}), ctx.make(Op::Add, dtypes::Int64, {i, i}));
  EXPECT_EQ(ctx.alu(Op::Where, {b, f, g}), ctx.make(Op::Where, dtypes::Float16, {b, f, g}));
}

TEST(Uop, InvalidIsOneIndexTypedLeaf) {
  Context ctx;
  UOp inv = ctx.invalid();
  EXPECT_EQ(inv.op(), Op::Invalid);
  EXPECT_EQ(inv.dtype(), dtypes::Index);
  EXPECT_EQ(inv.num_src(), 0u);
  EXPECT_EQ(inv, ctx.invalid());
  EXPECT_EQ(inv, ctx.make(Op::Invalid, dtypes::Index));
}

TEST(Uop, ParamsWithSameSlotButDifferentDirectionAreDistinct) {
  Context ctx;
  UOp in = param(ctx, dtypes::Float32, 0, false);
  UOp out = param(ctx, dtypes::Float32, 0, true);
  EXPECT_NE(in, out);
  EXPECT_EQ(in, param(ctx, dtypes::Float32, 0, false));
  EXPECT_NE(in, param(ctx, dtypes::Float64, 0, false));
}

}  // namespace
}  // namespace uopfuzz::ir
