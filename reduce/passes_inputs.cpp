// Reducer pass (passes.def) on a case's own input data, its @input lines: a line dropped
// (the buffer seed-filled again), or its values moved toward 0 and 1.
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "ir/graph.h"
#include "ir/run_io.h"
#include "reduce/passes.h"

namespace uopfuzz::reduce {

using namespace ir;

namespace {

// One value at a time is tried only in buffers this small, and runs of values down to
// 1/kMaxRuns of the buffer: each candidate copies the whole line, so a line of n values
// costs O(n) candidates of O(n) values at most.
constexpr size_t kMaxRuns = 64;

Value small_value(DType dt, int x) {
  if (dt.is_float()) return Value::of_float(x);
  if (dt.kind() == DTypeKind::Unsigned) return Value::of_uint(static_cast<uint64_t>(x));
  return Value::of_int(x);
}

/// Values of dtype `dt` toward 0 and 1 from `v`, as a CONST shrinks (edit.h, const_candidates);
/// the reducer keeps only those smaller by its Size.
std::vector<Value> smaller_values(DType dt, Value v) {
  std::vector<Value> out;
  auto add = [&](Value x) {
    if (!same_bits(x, v) &&
        std::none_of(out.begin(), out.end(), [&](Value y) { return same_bits(x, y); }))
      out.push_back(x);
  };
  add(small_value(dt, 0));
  if (dt.is_bool()) return out;
  add(small_value(dt, 1));
  if (dt.is_float()) {
    if (std::isfinite(v.f)) {
      if (std::signbit(v.f)) add(round_float(dt, -v.f));
      add(round_float(dt, std::trunc(v.f)));
      add(round_float(dt, std::trunc(v.f / 2)));
      add(round_float(dt, v.f / 2));
    }
  } else if (dt.kind() == DTypeKind::Unsigned) {
    if (v.u > 0) add(Value::of_uint(v.u / 2)), add(Value::of_uint(v.u - 1));
  } else {
    for (int64_t x : toward_zero_one(v.i)) add(Value::of_int(x));
  }
  return out;
}

}  // namespace

void propose_ShrinkInputs(Context&, const Kernel& k, Candidates& out) {
  if (k.header.inputs.empty()) return;
  std::map<int, UOp> params;
  for (UOp u : toposort(k.root))
    if (u.op() == Op::Param && !u.arg<ParamArg>().output) params.emplace(u.arg<ParamArg>().slot, u);
  for (size_t line = 0; line < k.header.inputs.size(); ++line) {
    Kernel c = k;
    c.header.inputs.erase(c.header.inputs.begin() + static_cast<std::ptrdiff_t>(line));
    out.push_back(std::move(c));
  }
  for (size_t line = 0; line < k.header.inputs.size(); ++line) {
    const GivenInput& given = k.header.inputs[line];
    auto param = params.find(given.slot);
    if (param == params.end()) continue;
    const size_t n = given.values.size();
    // Values [from, to) set to x, when that changes something and the PARAM's bounds allow x.
    auto fill = [&](size_t from, size_t to, Value x) {
      if (input_value_problem(param->second, x)) return;
      Kernel c = k;
      std::vector<Value>& values = c.header.inputs[line].values;
      bool changed = false;
      for (size_t i = from; i < to; ++i) {
        changed |= !same_bits(values[i], x);
        values[i] = x;
      }
      if (changed) out.push_back(std::move(c));
    };
    fill(0, n, small_value(given.dtype, 0));
    fill(0, n, small_value(given.dtype, 1));
    // Runs of zeros, halves first, as delta debugging splits.
    for (size_t run = n / 2; run >= 1 && n / run <= kMaxRuns; run /= 2)
      for (size_t from = 0; from < n; from += run)
        fill(from, std::min(n, from + run), small_value(given.dtype, 0));
    if (n > kMaxRuns) continue;
    for (size_t i = 0; i < n; ++i)
      for (Value x : smaller_values(given.dtype, given.values[i])) fill(i, i + 1, x);
  }
}

}  // namespace uopfuzz::reduce
