#include "check/quant_metamorphic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ir/graph.h"
#include "ir/hash.h"
#include "ir/printer.h"
#include "ir/quant.h"
#include "ir/run_io.h"
#include "ir/tensor.h"

namespace uopfuzz::check {

using namespace ir;

namespace {

// Reduces checked per program, and elements per reduce: the check runs on every clean
// quantized program of a campaign, so it stays a small fraction of the differential check.
constexpr int kMaxPairs = 8;
constexpr int64_t kMaxElems = int64_t{1} << 16;

bool is_unit_axis_reduce(UOp u) {
  if (u.op() != Op::ReduceAxis || !u.src(0).dtype().is_quantized() || !u.dtype().is_quantized())
    return false;
  const ReduceAxisArg& r = u.arg<ReduceAxisArg>();
  if (r.op == Op::Mul) return false;  // the verifier refuses it
  const Shape& in = u.src(0).shape();
  return std::all_of(r.axes.begin(), r.axes.end(),
                     [&](int64_t a) { return in[static_cast<size_t>(a)] == 1; });
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}
int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

/// The second input domain of a reduce from `in` to `out`: scale s_in * 2^-k and another
/// storage and zero point, so that a centered integer x of `in` is x * 2^k in it. A power of
/// two keeps every real s_in * x exact in both (the multiplier's m0 is the same, only its
/// exponent moves), so a faithful lowering gives the same output integers in both domains.
struct Domain {
  DType type;
  int64_t grid_in = 1, grid_second = 1;  ///< x_in = m * grid_in, x_second = m * grid_second
  int64_t m_lo = 0, m_hi = 0;            ///< the m whose two encodings fit both ranges
};

std::optional<Domain> second_domain(DType in, DType out, uint64_t& state) {
  static constexpr ScalarType kStorages[] = {ScalarType::Int8, ScalarType::UInt8, ScalarType::Int16,
                                             ScalarType::Int32};
  static constexpr int kShifts[] = {-2, -1, 1, 2, 3};
  const QuantParams& a = quant_params(in);
  const DType sa(a.storage);
  for (int attempt = 0; attempt < 16; ++attempt) {
    const ScalarType st = kStorages[splitmix64(state) % 4];
    const int k = kShifts[splitmix64(state) % 5];
    const DType s(st);
    // qint32 needs z = 0 (its centered values must fit int32); other storages any z.
    const int64_t z = st == ScalarType::Int32
                          ? 0
                          : s.int_min() + static_cast<int64_t>(
                                              splitmix64(state) %
                                              static_cast<uint64_t>(s.int_max() - s.int_min() + 1));
    // Another zero point than 0 where the storage allows it: the integer of real 0 is then
    // not 0, where a lost zero point shows.
    const int64_t zero_point = z == 0 && st != ScalarType::Int32 ? 1 : z;
    Domain d;
    d.type = DType::quantized(st, std::ldexp(a.scale, -k), zero_point);
    if (d.type == in || quant_type_error(d.type) || requantize_unsupported(d.type, out)) continue;
    (k >= 0 ? d.grid_second : d.grid_in) = int64_t{1} << (k >= 0 ? k : -k);
    d.m_lo = std::max(ceil_div(sa.int_min() - a.zero_point, d.grid_in),
                      ceil_div(s.int_min() - zero_point, d.grid_second));
    d.m_hi = std::min(floor_div(sa.int_max() - a.zero_point, d.grid_in),
                      floor_div(s.int_max() - zero_point, d.grid_second));
    if (d.m_lo < d.m_hi) return d;
  }
  return std::nullopt;
}

/// One in four an edge of the common range (its ends, 0 and +-1: real 0 and its
/// neighbours), the rest uniform over it.
int64_t draw_m(const Domain& d, uint64_t& state) {
  if (splitmix64(state) % 4 == 0) {
    const int64_t edges[] = {d.m_lo, d.m_hi, 0, -1, 1};
    return std::clamp(edges[splitmix64(state) % 5], d.m_lo, d.m_hi);
  }
  const auto span = static_cast<uint64_t>(d.m_hi - d.m_lo) + 1;
  return d.m_lo + static_cast<int64_t>(splitmix64(state) % span);
}

/// The program that runs `reduce` on both domains: input 0 of `in`, input 1 of the second
/// type, each reduced as `reduce` is to its type, output 0 and output 1; inputs given.
Kernel pair_program(Context& ctx, UOp reduce, const Domain& d, const std::vector<int64_t>& ms) {
  const DType in = reduce.src(0).dtype();
  const int64_t z_in = quant_params(in).zero_point;
  const int64_t z_second = quant_params(d.type).zero_point;
  Kernel k;
  std::vector<UOp> outputs;
  const DType types[2] = {in, d.type};
  for (int slot = 0; slot < 2; ++slot) {
    UOp x = tensor::input(ctx, types[slot], reduce.src(0).shape(), slot);
    outputs.push_back(ctx.make(Op::ReduceAxis, reduce.dtype(), {x}, reduce.arg(), reduce.shape()));
    GivenInput given{slot, types[slot], {}};
    for (int64_t m : ms)
      given.values.push_back(slot == 0 ? wrap_int(in, m * d.grid_in + z_in)
                                       : wrap_int(d.type, m * d.grid_second + z_second));
    k.header.inputs.push_back(std::move(given));
  }
  k.root = tensor::realize(ctx, std::move(outputs));
  k.header.name = "quantized unit-axis reduce in two domains";
  return k;
}

/// Why the outputs of pair_program disagree, or nullopt: element i of both must be within one
/// output step of each other and of the (saturated) real it encodes.
std::optional<std::string> compare_pair(UOp reduce, const Domain& d, const std::vector<int64_t>& ms,
                                        const Buffer& first, const Buffer& second) {
  const DType in = reduce.src(0).dtype(), out = reduce.dtype();
  const QuantParams& a = quant_params(in);
  const QuantParams& o = quant_params(out);
  const double qmin = static_cast<double>(out.int_min()), qmax = static_cast<double>(out.int_max());
  const auto& r = reduce.arg<ReduceAxisArg>();
  for (size_t i = 0; i < ms.size(); ++i) {
    const double real = a.scale * static_cast<double>(ms[i] * d.grid_in);
    const double want = std::clamp(real / o.scale + static_cast<double>(o.zero_point), qmin, qmax);
    const int64_t q1 = first.get(i).i, q2 = second.get(i).i;
    // The Q31 multiplier is exact to 2^-31 relative: far below a step but for qint32 outputs.
    const double slack = 1.0 + std::abs(want) * 0x1p-30;
    const bool close1 = std::abs(static_cast<double>(q1) - want) <= slack;
    const bool close2 = std::abs(static_cast<double>(q2) - want) <= slack;
    if (std::abs(q1 - q2) <= 1 && close1 && close2) continue;
    return fmt::format(
        "REDUCE_AXIS {} axes={} of {}{} to {}, element {}: the real {} is {} in {} and {} in {}; "
        "the outputs {} and {} decode to {} and {} (one step {}, expected about {})",
        op_name(r.op), shape_text(r.axes), in.name(), shape_text(reduce.src(0).shape()), out.name(),
        i, real, ms[i] * d.grid_in + a.zero_point, in.name(),
        ms[i] * d.grid_second + quant_params(d.type).zero_point, d.type.name(), q1, q2,
        o.scale * static_cast<double>(q1 - o.zero_point),
        o.scale * static_cast<double>(q2 - o.zero_point), o.scale, real);
  }
  return std::nullopt;
}

}  // namespace

QuantMetamorphicResult check_quant_metamorphic(Context& ctx, const Kernel& program,
                                               const ProgramCheckOptions& options, uint64_t seed) {
  QuantMetamorphicResult res;
  if (!program.root) return res;
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 0x51ed27;
  for (UOp u : toposort(program.root)) {
    if (res.pairs >= kMaxPairs) break;
    if (!is_unit_axis_reduce(u)) continue;
    const int64_t n = numel(u.src(0).shape());
    if (n == 0 || n > kMaxElems) continue;
    // Two second domains per reduce: one may be qint32, whose zero point must be 0.
    for (int domain = 0; domain < 2 && res.pairs < kMaxPairs; ++domain) {
      auto d = second_domain(u.src(0).dtype(), u.dtype(), state);
      if (!d) break;
      std::vector<int64_t> ms;
      for (int64_t i = 0; i < n; ++i) ms.push_back(draw_m(*d, state));
      Kernel pair = pair_program(ctx, u, *d, ms);
      auto outs = run_under_test(ctx, pair, options, make_inputs(pair, seed, options.check.vars));
      if (!outs) {
        if (outs.error().message.rfind("unsupported", 0) == 0) continue;  // not a finding
        ++res.pairs;
        res.disagreement =
            fmt::format("the program of REDUCE_AXIS {} -> {} in two domains fails: {}",
                        u.src(0).dtype().name(), u.dtype().name(), outs.error().message);
        res.witness = std::move(pair);
        return res;
      }
      ++res.pairs;
      auto first = outs->find(0), second = outs->find(1);
      if (first == outs->end() || second == outs->end()) {
        res.disagreement = "the program in two domains lost an output";
        res.witness = std::move(pair);
        return res;
      }
      if (auto why = compare_pair(u, *d, ms, first->second, second->second)) {
        res.disagreement = std::move(why);
        res.witness = std::move(pair);
        return res;
      }
    }
  }
  return res;
}

}  // namespace uopfuzz::check
