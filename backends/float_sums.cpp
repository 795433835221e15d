#include "backends/float_sums.h"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "ir/analysis.h"
#include "ir/graph.h"

namespace uopfuzz::backends {

using namespace ir;

namespace {

bool is_float_sum(UOp u) {
  return u.op() == Op::Reduce && u.arg<ReduceArg>().op == Op::Add &&
         (u.dtype().scalar() == ScalarType::Float32 || u.dtype().scalar() == ScalarType::Float64);
}

UOp stored_buffer(UOp store) {
  return store.src(0).src(0);
}

// The largest number of terms of a sum: the product of its ranges' largest trip counts.
int64_t max_terms(Analysis& analysis, UOp sum) {
  int64_t n = 1;
  for (size_t i = 1; i < sum.num_src(); ++i) {
    const int64_t trips = std::max<int64_t>(analysis.vmax(sum.src(i).src(0)), 1);
    n = n > std::numeric_limits<int64_t>::max() / trips ? std::numeric_limits<int64_t>::max()
                                                        : n * trips;
  }
  return n;
}

}  // namespace

ReassociableSums reassociable_sums(UOp root) {
  ReassociableSums out;
  const std::vector<UOp> topo = toposort(root);
  // Who uses each float sum, and what each output buffer is given to hold.
  NodeMap<std::vector<UOp>> users;        // float sum -> its users
  NodeMap<std::vector<UOp>> stored_into;  // output PARAM -> the values its STOREs store
  for (UOp u : topo) {
    for (UOp s : u.src())
      if (is_float_sum(s)) users[s].push_back(u);
    if (u.op() == Op::Store) stored_into[stored_buffer(u)].push_back(u.src(1));
  }
  // Start from every candidate and strike out until nothing changes: a sum used other
  // than as a stored value, a buffer given anything but such sums, a sum stored into a
  // buffer that was struck out.
  NodeMap<bool> sums, buffers;
  for (UOp u : topo) {
    if (is_float_sum(u)) {
      bool only_stored = true;
      for (UOp user : users[u])
        only_stored = only_stored && user.op() == Op::Store && user.src(1) == u;
      if (only_stored) sums.emplace(u, true);
    }
    if (u.op() == Op::Param && u.arg<ParamArg>().output) buffers.emplace(u, true);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (UOp u : topo) {
      if (u.op() == Op::Param && buffers.contains(u) && buffers[u]) {
        for (UOp v : stored_into[u])
          if (!sums.contains(v) || !sums[v]) {
            buffers[u] = false;
            changed = true;
            break;
          }
      }
      if (sums.contains(u) && sums[u]) {
        for (UOp user : users[u])
          if (!buffers.contains(stored_buffer(user)) || !buffers[stored_buffer(user)]) {
            sums[u] = false;
            changed = true;
            break;
          }
      }
    }
  }
  for (UOp u : topo) {
    if (sums.contains(u) && sums[u]) out.reduces.emplace(u, true);
    if (u.op() == Op::Param && buffers.contains(u) && buffers[u] && !stored_into[u].empty())
      out.slots.insert(u.arg<ParamArg>().slot);
  }
  return out;
}

Result<std::map<int, std::vector<double>>> sum_bounds(Context& ctx, UOp root,
                                                      const oracle::Inputs& inputs) {
  std::map<int, std::vector<double>> bounds;
  const ReassociableSums sums = reassociable_sums(root);
  if (sums.empty()) return bounds;
  // The magnitude graph: each reassociable sum becomes sum |x_i| in float64, stored into
  // its buffer made float64.
  Analysis analysis;
  std::map<int, int64_t> terms;  // slot -> most terms of a sum stored there
  std::map<int, DType> dtype;    // slot -> the sums' dtype
  const std::vector<UOp> topo = toposort(root);
  NodeMap<UOp> copy(topo.size());
  auto magnitude_buffer = [&](UOp u) {
    return u.op() == Op::Param && sums.slots.count(u.arg<ParamArg>().slot);
  };
  for (UOp u : topo) {
    std::vector<UOp> src;
    for (UOp s : u.src()) src.push_back(copy.at(s));
    UOp c;
    if (magnitude_buffer(u)) {
      c = ctx.make(Op::Param, dtypes::Float64, {}, u.arg());
      dtype.emplace(u.arg<ParamArg>().slot, u.dtype());
    } else if (u.op() == Op::Index && magnitude_buffer(u.src(0))) {
      c = ctx.make(Op::Index, dtypes::Float64, std::move(src), u.arg());
    } else if (sums.reduces.contains(u)) {
      UOp x = u.dtype() == dtypes::Float64 ? src[0] : ctx.make(Op::Cast, dtypes::Float64, {src[0]});
      src[0] = ctx.alu(Op::Max, {x, ctx.alu(Op::Neg, {x})});
      c = ctx.make(Op::Reduce, dtypes::Float64, std::move(src), u.arg());
    } else {
      c = ctx.make(u.op(), u.dtype(), std::move(src), u.arg());
    }
    if (u.op() == Op::Store && sums.reduces.contains(u.src(1))) {
      int64_t& n = terms[stored_buffer(u).arg<ParamArg>().slot];
      n = std::max(n, max_terms(analysis, u.src(1)));
    }
    copy.emplace(u, c);
  }
  auto run = oracle::run(copy.at(root), inputs);
  if (!run) return Error{"the magnitude graph does not run: " + run.error().message};
  if (run->status != oracle::RunStatus::Ok)
    return Error{"the magnitude graph does not run to the end on these inputs"};
  for (int slot : sums.slots) {
    const bool f32 = dtype.at(slot).scalar() == ScalarType::Float32;
    const double u = f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
    const double largest = f32 ? FLT_MAX : DBL_MAX;
    const double k = static_cast<double>(std::max<int64_t>(terms[slot], 1) - 1);
    // gamma_k; no bound once k*u nears 1 (about 2^23 float32 terms).
    const double gamma =
        k * u < 0.5 ? k * u / (1 - k * u) : std::numeric_limits<double>::infinity();
    const Buffer& magnitudes = run->outputs.at(slot);
    std::vector<double>& b = bounds[slot];
    b.resize(magnitudes.size());
    for (size_t i = 0; i < magnitudes.size(); ++i) {
      // The float64 magnitude sum is itself within (n-1) * 2^-53 of the exact one; the
      // factor 1 + 2^-20 covers that below 2^32 terms.
      const double a = magnitudes.get(i).f * (1 + std::ldexp(1.0, -20));
      b[i] = a < largest ? 2 * gamma * a : std::numeric_limits<double>::infinity();
    }
  }
  return bounds;
}

}  // namespace uopfuzz::backends
