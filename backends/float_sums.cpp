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

Result<std::map<int, SumTerms>> sum_terms(Context& ctx, UOp root, const oracle::Inputs& inputs,
                                          const std::map<int, SumTerms>& carried) {
  std::map<int, SumTerms> out;
  const ReassociableSums sums = reassociable_sums(root);
  if (sums.empty()) return out;
  // The magnitude graph: each reassociable sum becomes sum |x_i| in float64, stored into
  // its buffer made float64.
  Analysis analysis;
  const std::vector<UOp> topo = toposort(root);
  NodeMap<UOp> copy(topo.size());
  auto magnitude_buffer = [&](UOp u) {
    return u.op() == Op::Param && sums.slots.count(u.arg<ParamArg>().slot);
  };
  // A term that is a plain load of a carried slot: the slot, else -1.
  auto carried_slot = [&](UOp term) {
    if (term.op() != Op::Load || term.num_src() != 1 || term.src(0).op() != Op::Index) return -1;
    UOp buffer = term.src(0).src(0);
    if (buffer.op() != Op::Param) return -1;
    const int slot = buffer.arg<ParamArg>().slot;
    return carried.count(slot) ? slot : -1;
  };
  // Carried magnitudes are read from float64 buffers in slots after every slot of `root`.
  int next_slot = 0;
  for (UOp u : topo)
    if (u.op() == Op::Param) next_slot = std::max(next_slot, u.arg<ParamArg>().slot + 1);
  oracle::Inputs with_carried = inputs;
  std::map<int, UOp> carried_param;  // carried slot -> its magnitude PARAM
  NodeMap<int64_t> reduce_terms;     // reassociable sum -> its most terms
  for (UOp u : topo) {
    std::vector<UOp> src;
    for (UOp s : u.src()) src.push_back(copy.at(s));
    UOp c;
    if (magnitude_buffer(u)) {
      c = ctx.make(Op::Param, dtypes::Float64, {}, u.arg());
      out[u.arg<ParamArg>().slot].dtype = u.dtype();
    } else if (u.op() == Op::Index && magnitude_buffer(u.src(0))) {
      c = ctx.make(Op::Index, dtypes::Float64, std::move(src), u.arg());
    } else if (sums.reduces.contains(u)) {
      int64_t terms = max_terms(analysis, u);
      if (const int from = carried_slot(u.src(0)); from >= 0) {
        const SumTerms& t = carried.at(from);
        UOp& param = carried_param[from];
        if (!param) {
          ParamArg arg = u.src(0).src(0).src(0).arg<ParamArg>();
          arg.slot = next_slot++;
          arg.output = false;
          param = ctx.make(Op::Param, dtypes::Float64, {}, arg);
          Buffer b(dtypes::Float64, t.magnitudes.size());
          for (size_t i = 0; i < t.magnitudes.size(); ++i)
            b.set(i, Value::of_float(t.magnitudes[i]));
          with_carried.buffers[arg.slot] = std::move(b);
        }
        const UOp read = copy.at(u.src(0).src(0));
        std::vector<UOp> index(read.src().begin(), read.src().end());
        index[0] = param;
        src[0] = ctx.make(
            Op::Load, dtypes::Float64,
            {ctx.make(Op::Index, dtypes::Float64, std::move(index), u.src(0).src(0).arg())},
            u.src(0).arg());
        terms = terms > std::numeric_limits<int64_t>::max() / t.terms
                    ? std::numeric_limits<int64_t>::max()
                    : terms * t.terms;
      } else {
        UOp x =
            u.dtype() == dtypes::Float64 ? src[0] : ctx.make(Op::Cast, dtypes::Float64, {src[0]});
        src[0] = ctx.alu(Op::Max, {x, ctx.alu(Op::Neg, {x})});
      }
      c = ctx.make(Op::Reduce, dtypes::Float64, std::move(src), u.arg());
      reduce_terms[u] = terms;
    } else {
      c = ctx.make(u.op(), u.dtype(), std::move(src), u.arg());
    }
    if (u.op() == Op::Store && sums.reduces.contains(u.src(1))) {
      int64_t& n = out[stored_buffer(u).arg<ParamArg>().slot].terms;
      n = std::max(n, reduce_terms.at(u.src(1)));
    }
    copy.emplace(u, c);
  }
  auto run = oracle::run(copy.at(root), with_carried);
  if (!run) return Error{"the magnitude graph does not run: " + run.error().message};
  if (run->status != oracle::RunStatus::Ok)
    return Error{"the magnitude graph does not run to the end on these inputs"};
  for (int slot : sums.slots) {
    const Buffer& magnitudes = run->outputs.at(slot);
    std::vector<double>& m = out[slot].magnitudes;
    m.resize(magnitudes.size());
    for (size_t i = 0; i < magnitudes.size(); ++i) m[i] = magnitudes.get(i).f;
  }
  for (auto it = out.begin(); it != out.end();)
    it = sums.slots.count(it->first) ? std::next(it) : out.erase(it);
  return out;
}

std::vector<double> bounds_of(const SumTerms& t) {
  const bool f32 = t.dtype.scalar() == ScalarType::Float32;
  const double u = f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double largest = f32 ? FLT_MAX : DBL_MAX;
  const double k = static_cast<double>(std::max<int64_t>(t.terms, 1) - 1);
  // gamma_k; no bound once k*u nears 1 (about 2^23 float32 terms).
  const double gamma = k * u < 0.5 ? k * u / (1 - k * u) : std::numeric_limits<double>::infinity();
  std::vector<double> b(t.magnitudes.size());
  for (size_t i = 0; i < b.size(); ++i) {
    // The float64 magnitude sum is itself within (n-1) * 2^-53 of the exact one; the
    // factor 1 + 2^-20 covers that below 2^32 terms.
    const double a = t.magnitudes[i] * (1 + std::ldexp(1.0, -20));
    b[i] = a < largest ? 2 * gamma * a : std::numeric_limits<double>::infinity();
  }
  return b;
}

Result<std::map<int, std::vector<double>>> sum_bounds(Context& ctx, UOp root,
                                                      const oracle::Inputs& inputs) {
  auto terms = sum_terms(ctx, root, inputs);
  if (!terms) return terms.error();
  std::map<int, std::vector<double>> bounds;
  for (const auto& [slot, t] : *terms) bounds[slot] = bounds_of(t);
  return bounds;
}

}  // namespace uopfuzz::backends
