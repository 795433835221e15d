#include "ir/run_io.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/graph.h"
#include "ir/hash.h"
#include "ir/quant.h"

namespace uopfuzz::ir {
namespace {

/// Uniform in [lo, hi] (inclusive), rounded down to a multiple of `mult` inside the range.
int64_t pick(uint64_t& state, int64_t lo, int64_t hi, std::optional<int64_t> mult) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  uint64_t r = span == ~uint64_t{0} ? splitmix64(state) : splitmix64(state) % (span + 1);
  int64_t v = static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
  if (mult && *mult > 1) {
    int64_t m = *mult;
    int64_t down = v - ((v % m) + m) % m;
    if (down >= lo) return down;
    if (down + m <= hi) return down + m;  // no multiple below: take the next one up if it fits
  }
  return v;
}

/// A stored integer of quantized `dt` (SEMANTICS.md, "Inputs"): one in four an edge (qmin,
/// qmax, z, z - 1, z + 1, clamped to the storage range), where requantize rounds, saturates
/// and maps real 0; the rest uniform over the whole storage range.
int64_t pick_quantized(uint64_t& state, DType dt) {
  const int64_t lo = dt.int_min(), hi = dt.int_max();
  if (splitmix64(state) % 4 != 0) return pick(state, lo, hi, std::nullopt);
  const int64_t z = quant_params(dt).zero_point;
  const int64_t edges[] = {lo, hi, z, z - 1, z + 1};
  return std::clamp(edges[splitmix64(state) % 5], lo, hi);
}

}  // namespace

Inputs make_inputs(UOp root, uint64_t seed, const std::map<std::string, int64_t>& vars) {
  Inputs in;
  in.vars = vars;
  for (UOp u : toposort(root)) {
    if (u.op() == Op::Param && !u.arg<ParamArg>().output) {
      const ParamArg& p = u.arg<ParamArg>();
      uint64_t state =
          seed * 0x100000001b3ull + static_cast<uint64_t>(p.slot) * 0x9e3779b97f4a7c15ull + 1;
      Buffer b(u.dtype(), static_cast<size_t>(p.size));
      const DType dt = u.dtype();
      // Small values: sums and products of them stay far from overflow, and floats
      // (multiples of 1/8 in [-8, 8]) add exactly in any order.
      int64_t lo = std::max<int64_t>(dt.int_min(),
                                     p.vmin.value_or(dt.kind() == DTypeKind::Unsigned ? 0 : -8));
      int64_t hi = std::min<int64_t>(dt.int_max(),
                                     p.vmax.value_or(dt.kind() == DTypeKind::Unsigned ? 16 : 8));
      for (size_t i = 0; i < b.size(); ++i) {
        if (dt.is_quantized())
          b.set(i, wrap_int(dt, pick_quantized(state, dt)));
        else if (dt.is_float())
          b.set(i, Value::of_float(static_cast<double>(pick(state, -64, 64, std::nullopt)) / 8.0));
        else if (dt.is_bool())
          b.set(i, Value::of_int(static_cast<int64_t>(splitmix64(state) & 1)));
        else
          b.set(i, wrap_int(dt, pick(state, lo, hi, p.multiple_of)));
      }
      in.buffers.emplace(p.slot, std::move(b));
    } else if (u.op() == Op::Var) {
      const VarArg& v = u.arg<VarArg>();
      if (in.vars.count(v.name)) continue;
      uint64_t state = seed ^ fnv1a(v.name);
      in.vars[v.name] = pick(state, v.min, v.max, v.multiple_of);
    }
  }
  return in;
}

Inputs make_inputs(const Kernel& kernel, uint64_t seed,
                   const std::map<std::string, int64_t>& vars) {
  Inputs in = make_inputs(kernel.root, seed, vars);
  for (const GivenInput& g : kernel.header.inputs) {
    auto it = in.buffers.find(g.slot);
    if (it == in.buffers.end() || it->second.dtype() != g.dtype ||
        it->second.size() != g.values.size())
      continue;
    for (size_t i = 0; i < g.values.size(); ++i) it->second.set(i, g.values[i]);
  }
  return in;
}

void fit_given_inputs(Kernel& kernel) {
  if (kernel.header.inputs.empty()) return;
  std::map<int, UOp> params;
  for (UOp u : toposort(kernel.root))
    if (u.op() == Op::Param && !u.arg<ParamArg>().output) params.emplace(u.arg<ParamArg>().slot, u);
  std::erase_if(kernel.header.inputs, [&](GivenInput& g) {
    auto it = params.find(g.slot);
    if (it == params.end() || it->second.dtype() != g.dtype) return true;
    const size_t size = static_cast<size_t>(it->second.arg<ParamArg>().size);
    if (g.values.size() < size) return true;
    g.values.resize(size);
    return std::any_of(g.values.begin(), g.values.end(),
                       [&](Value v) { return input_value_problem(it->second, v).has_value(); });
  });
}

std::optional<std::string> input_value_problem(UOp param, Value v) {
  const DType dt = param.dtype();
  if (!dt.is_int()) return std::nullopt;
  const ParamArg& p = param.arg<ParamArg>();
  // Unsigned values above int64's range compare exactly as 128-bit integers.
  const __int128 x = dt.kind() == DTypeKind::Unsigned ? static_cast<__int128>(v.u) : v.i;
  if (p.vmin && x < *p.vmin)
    return fmt::format("{} is below the PARAM's vmin={}", format_value(dt, v), *p.vmin);
  if (p.vmax && x > *p.vmax)
    return fmt::format("{} is above the PARAM's vmax={}", format_value(dt, v), *p.vmax);
  if (p.multiple_of && *p.multiple_of > 0 && x % *p.multiple_of != 0)
    return fmt::format("{} is not a multiple of the PARAM's multiple_of={}", format_value(dt, v),
                       *p.multiple_of);
  return std::nullopt;
}

}  // namespace uopfuzz::ir
