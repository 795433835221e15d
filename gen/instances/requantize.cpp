// Requantize: REQUANTIZE of a reinterpreted integer (requantize_fixed_point).
#include <algorithm>
#include <cstdint>

#include "gen/instances/builder.h"
#include "ir/quant.h"

namespace uopfuzz::gen {

namespace {
/// The integer reinterpreted as the quantized input.
enum class Integer : uint8_t {
  Small,        ///< a loaded integer: ties
  NearLimit,    ///< plus max - 4 or min + 4: saturation
  Spread,       ///< times 2..40, both signs
  FillerEdges,  ///< a quantized input's storage (the input filler's edges)
  Shifted,      ///< minus a small integer
};
constexpr Integer kIntegers[] = {Integer::Small, Integer::NearLimit, Integer::Spread,
                                 Integer::FillerEdges, Integer::Shifted};
}  // namespace

/// REQUANTIZE of a reinterpreted integer (requantize_fixed_point's left-hand side): ratios
/// whose products land on exact ties (powers of two, with odd and even centered values),
/// integers pushed to both storage ends (saturation), and zero points on both sides.
void InstanceBuilder::requantize() {
  using S = ir::ScalarType;
  auto zero_point = [&](S s) -> int64_t {
    if (s == S::Int32) return 0;  // q - z must stay in int32
    const DType st(s);
    return one_of<int64_t>({st.int_min(), st.int_max(), between(-3, 3), between(1, 9)});
  };
  auto clamp_z = [](S s, int64_t z) {
    return std::clamp(z, DType(s).int_min(), DType(s).int_max());
  };
  const S in_s = one_of<S>({S::Int8, S::UInt8, S::Int16, S::Int32});
  const S out_s = one_of<S>({S::Int8, S::UInt8, S::Int16, S::Int32});
  const double s_in = one_of<double>({0.25, 0.5, 1.0, 0.03, 3.0});
  const double ratio = one_of<double>({0.25, 0.5, 0.125, 2.0, 4.0, 0.25, 0.03 / 0.12, 1.0 / 3});
  DType qin = DType::quantized(in_s, s_in, clamp_z(in_s, zero_point(in_s)));
  DType qout = DType::quantized(out_s, s_in / ratio, clamp_z(out_s, zero_point(out_s)));
  if (ir::requantize_unsupported(qin, qout)) {
    qin = DType::quantized(S::Int8, 0.25, 3);
    qout = DType::quantized(S::Int8, 1.0, -2);
  }
  const DType st = qin.storage();
  auto c = [&](int64_t v) { return ctx_.const_int(st, v); };
  UOp ints = buffer(st, kInSize, false);
  UOp quants = buffer(qin, kInSize, false);
  store_per_outer(qout, [&](UOp i) {
    UOp v = load(ints, i);
    switch (option(kIntegers)) {
      case Integer::Small: break;
      case Integer::NearLimit:
        v = alu(Op::Add, v, c(one_of<int64_t>({st.int_max() - 4, st.int_min() + 4})));
        break;
      case Integer::Spread: v = alu(Op::Mul, v, c(between(2, 40))); break;
      case Integer::FillerEdges: v = n_.mk(Op::Bitcast, st, {load(quants, i)}); break;
      case Integer::Shifted: v = alu(Op::Sub, v, c(between(-9, 9))); break;
    }
    return n_.mk(Op::Requantize, qout, {n_.mk(Op::Bitcast, qin, {v})});
  });
}

}  // namespace uopfuzz::gen
