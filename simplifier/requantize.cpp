// requantize_fixed_point: a REQUANTIZE of a reinterpreted plain integer becomes the
// definition's integer arithmetic (ir/quant.h, SEMANTICS.md "Quantized types"), so a
// backend runs int64 ALU ops and the symbolic rules see through it.
//
// Only REQUANTIZE(BITCAST(v)) with v a plain integer is expanded: that is the quantized
// reduce's int32 accumulator (rangeify writes REQUANTIZE(BITCAST(acc -> qint32<s,0>)))
// or any integer read as a quantized value. A REQUANTIZE of a LOAD, a WHERE or a CONST
// stays (the constant folder takes the CONST), so the unit-axis lowering still shows
// its requantize.
//
// The expansion, with S the input's storage integer and r = requantizer(s_in, s_out):
//   x = CAST(v as S, int64) - z_in    (|x| < 2^32: requantize_unsupported bounds it)
//   p = x * m0                        (|p| < 2^62, exact in int64)
//   y = (p + h + (p >> 63)) >> n      (n = r.shift(), h = 2^(n-1); n = 0: y = p)
//   q = CAST(min(max(y + z_out, qmin), qmax), storage of the output) as the output type
// The rounding line is ties away from zero: for p >= 0 it is floor((p + h) / 2^n); for
// p < 0, p >> 63 is -1 and floor((p + h - 1) / 2^n) = -floor((-p + h) / 2^n) because
// 2^n = 2h. Every intermediate stays inside int64, so no int64 wrap is ever relied on.
#include "ir/quant.h"
#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

UOp requantize_fixed_point(RewriteCtx& rc, const Bindings& b) {
  const UOp n = b["n"], reinterpreted = b["q"], v = b["v"];
  const DType from = reinterpreted.dtype(), to = n.dtype();
  if (!v.dtype().is_int() || !from.is_quantized() || !to.is_quantized()) return UOp();
  if (quant_type_error(from) || quant_type_error(to) || requantize_unsupported(from, to))
    return UOp();  // the verifier refuses it: nothing to rewrite into
  const std::optional<Requantizer> r =
      requantizer(quant_params(from).scale, quant_params(to).scale);
  if (!r) return UOp();
  const BugSet& bugs = state(rc).bugs;
  Context& ctx = rc.ctx;
  const DType i64 = dtypes::Int64;
  auto k = [&](int64_t c) { return ctx.const_int(i64, c); };

  // v's bits as the input's storage integer (a uint8 read as qint8 is its int8 value).
  const DType in_storage = from.storage(), out_storage = to.storage();
  const UOp stored = v.dtype() == in_storage ? v : ctx.make(Op::Bitcast, in_storage, {v});
  UOp x = ctx.make(Op::Cast, i64, {stored});
  const int64_t z_in = quant_params(from).zero_point;
  if (z_in != 0 && !bugs.has(Bug::RequantizeIgnoresInputZero))  // planted: x = q, not q - z
    x = ctx.alu(Op::Sub, {x, k(z_in)});
  const UOp p = ctx.alu(Op::Mul, {x, k(r->m0)});
  UOp y = p;
  if (const int shift = r->shift(); shift > 0) {
    const int64_t half = int64_t{1} << (shift - 1);
    UOp biased;
    if (bugs.has(Bug::RequantizeTiesToEven))  // planted: a tie goes to the even neighbour
      biased = ctx.alu(Op::Add, {ctx.alu(Op::Add, {p, k(half - 1)}),
                                 ctx.alu(Op::And, {ctx.alu(Op::Shr, {p, k(shift)}), k(1)})});
    else
      biased = ctx.alu(Op::Add, {ctx.alu(Op::Add, {p, k(half)}), ctx.alu(Op::Shr, {p, k(63)})});
    y = ctx.alu(Op::Shr, {biased, k(shift)});
  }
  const int64_t z_out = quant_params(to).zero_point;
  if (z_out != 0 && !bugs.has(Bug::RequantizeIgnoresOutputZero))  // planted: no + z_out
    y = ctx.alu(Op::Add, {y, k(z_out)});
  if (!bugs.has(Bug::RequantizeNoSaturate))  // planted: the CAST below wraps instead
    y = ctx.alu(Op::Min,
                {ctx.alu(Op::Max, {y, k(out_storage.int_min())}), k(out_storage.int_max())});
  return ctx.make(Op::Bitcast, to, {ctx.make(Op::Cast, out_storage, {y})});
}

}  // namespace

RuleSet pm_requantize() {
  RuleSet r;
  r.add("requantize_fixed_point",
        Pat::op(Op::Requantize, {Pat::op(Op::Bitcast, {Pat::var("v")}).named("q")}).named("n"),
        requantize_fixed_point);  // REQUANTIZE(BITCAST(int v)) -> int64 fixed point on v
  return r;
}

}  // namespace uopfuzz::simplifier
