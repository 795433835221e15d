#include "ir/run_io.h"

#include <algorithm>

#include "ir/graph.h"
#include "ir/hash.h"

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
        if (dt.is_float())
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

}  // namespace uopfuzz::ir
