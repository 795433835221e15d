// Hard inputs: @input lines a program carries, so every replay reads the same values: the
// sized-integer inputs at their types' caps (p_edge_inputs) and the float inputs rounding
// (p_hard_float_inputs, HardFloatWeights), where no float sum reads them.
#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "gen/tensor/builder.h"
#include "ir/graph.h"
#include "ir/run_io.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {

/// An element of a sized integer type at or next to its caps (min, max, 0, +-1, the
/// signed/unsigned boundary 2^(bits-1)), else a small value: what compares, MAX and MIN
/// of a wrapped or sign-confused value get wrong.
Value edge_int(Entropy& e, DType dt, const TensorGenPolicy& p) {
  const int bits = dt.bits();
  if (e.chance(p.p_edge_int_small))
    return wrap_int(dt, e.between(-p.edge_int_small_max, p.edge_int_small_max));
  if (dt.is_signed()) {
    const int64_t lo = dt.int_min(), hi = dt.int_max();
    const std::array<int64_t, 8> caps = {lo, lo + 1, hi, hi - 1, -1, 0, 1, hi / 2 + 1};
    return wrap_int(dt, caps[e.below(caps.size())]);
  }
  // Unsigned, as raw bits: 2^bits - 1 (all ones), 2^(bits-1) and its neighbours.
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t half = uint64_t{1} << (bits - 1);
  const std::array<uint64_t, 8> caps = {0, 1, all, all - 1, half - 1, half, half + 1, all / 3};
  return wrap_int(dt, static_cast<int64_t>(caps[e.below(caps.size())]));
}

/// A float element that rounds (HardFloatWeights): a finite value anywhere in the type's
/// range (random bits), a mixed magnitude (m * 10^k, |k| up to 30, clamped to what the type
/// holds, next to 1), signed zeros, the neighbours of 1, eighths and, with `specials`,
/// infinities and NaN.
Value hard_float(Entropy& e, DType dt, bool specials, const HardFloatWeights& w) {
  const int max_exp10 = dt.bytes() == 2 ? 4 : 30;
  const int min_exp10 = dt.bytes() == 2 ? -7 : -30;
  const double sign = e.coin() ? -1.0 : 1.0;
  switch (e.pick({w.random_bits, w.mixed_magnitude, w.signed_zero, w.near_one, w.eighths,
                  specials ? w.special : 0.0})) {
    case 0: {  // random finite bits
      for (;;) {
        double v;
        if (dt.bytes() == 2) {
          v = half_value(static_cast<uint16_t>(e.below(uint64_t{1} << 16)));
        } else if (dt.bytes() == 4) {
          v = std::bit_cast<float>(static_cast<uint32_t>(e.below(uint64_t{1} << 32)));
        } else {
          v = std::bit_cast<double>(e.below(~uint64_t{0}));
        }
        if (std::isfinite(v)) return round_float(dt, v);
      }
    }
    case 1: {  // a mixed magnitude
      const double m = 1.0 + static_cast<double>(e.below(1000)) / 1000.0;
      return round_float(dt, sign * m * std::pow(10.0, e.between(min_exp10, max_exp10)));
    }
    case 2: return round_float(dt, sign * 0.0);
    case 3: return round_float(dt, sign * (e.coin() ? 1.0 : 1.0 + std::ldexp(1.0, -10)));
    case 4: return round_float(dt, sign * static_cast<double>(e.between(-64, 64)) / 8.0);
    default: {
      const double specials_[] = {std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
      return round_float(dt, specials_[e.below(3)]);
    }
  }
}

/// True when a float REDUCE_AXIS ADD or MUL sums a value that `reaches` holds for (a float
/// input; an integer converted to float): the sum's order is the lowering's choice (split
/// reduce), and its result compares bit for bit against the tensor oracle's, so values
/// that round must not reach it. MAX and MIN give the same result in any order.
template <class F>
bool float_sum_reads(UOp root, F&& reaches) {
  for (UOp u : toposort(root)) {
    if (u.op() != Op::ReduceAxis || !u.dtype().is_float()) continue;
    const Op op = u.arg<ReduceAxisArg>().op;
    if (op == Op::Max || op == Op::Min) continue;
    for (UOp x : toposort(u))
      if (reaches(x)) return true;
  }
  return false;
}

bool float_input(UOp u) {
  return u.op() == Op::Param && u.dtype().is_float();
}

bool int_to_float(UOp u) {
  return (u.op() == Op::Cast || u.op() == Op::Bitcast) && u.dtype().is_float() &&
         !u.src(0).dtype().is_float();
}

}  // namespace

/// Each a draw after the program is built, so that the program draws what it drew before.
/// Inputs with stated bounds (a nonzero divisor) keep their seed fill.
void draw_hard_inputs(Kernel& k, const TensorGenPolicy& p, Entropy& e) {
  const bool ints = e.chance(p.p_edge_inputs) && !float_sum_reads(k.root, int_to_float);
  const bool floats = e.chance(p.p_hard_float_inputs) && !float_sum_reads(k.root, float_input);
  const bool specials = floats && e.chance(p.p_float_specials);
  if (!ints && !floats) return;
  for (UOp u : toposort(k.root)) {
    if (u.op() != Op::Param || u.arg<ParamArg>().output) continue;
    const ParamArg& pa = u.arg<ParamArg>();
    const DType dt = u.dtype();
    const bool edge = ints && dt.is_int() && !dt.is_bool() && !dt.is_quantized() && !pa.vmin &&
                      !pa.vmax && !pa.multiple_of;
    const bool hard = floats && dt.is_float();
    if (!edge && !hard) continue;
    GivenInput g{pa.slot, dt, {}};
    for (int64_t i = 0; i < pa.size; ++i)
      g.values.push_back(edge ? edge_int(e, dt, p) : hard_float(e, dt, specials, p.hard_floats));
    k.header.inputs.push_back(std::move(g));
  }
}

}  // namespace uopfuzz::gen
