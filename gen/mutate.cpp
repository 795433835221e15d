// The mutators of gen/mutate.h. Each finds its candidate places in the parent's toposort (a
// structural order, so the choice does not depend on node ids), draws one, and builds the
// changed graph; mutate_with() then verifies, bounds the loops and repairs the result.
#include "gen/mutate.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <unordered_map>

#include "gen/builder.h"
#include "gen/edge_values.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/verify.h"

namespace uopfuzz::gen {

using namespace ir;

std::string_view mutator_name(Mutator m) {
  switch (m) {
#define MUTATOR(e, name, what) \
  case Mutator::e:             \
    return name;
#include "gen/mutators.def"
#undef MUTATOR
  }
  return "?";
}

const std::vector<Mutator>& all_mutators() {
  static const std::vector<Mutator> all = {
#define MUTATOR(e, name, what) Mutator::e,
#include "gen/mutators.def"
#undef MUTATOR
  };
  return all;
}

namespace {

/// One use of a node: `user`'s source `slot`.
struct Use {
  UOp user;
  size_t slot;
  UOp child() const { return user.src(slot); }
};

/// A graph change: `from` becomes `to` everywhere, with a line saying what was done.
struct Change {
  UOp from, to;
  std::string what;
  std::vector<std::pair<std::string, int64_t>> new_vars;  ///< header values of added VARs
};

bool is_gated_index(UOp u) {
  return u.op() == Op::Where && u.src(2).op() == Op::Invalid;
}
bool sized_int(DType d) {
  return d.is_int() && !d.is_index();
}
bool value_dtype(DType d) {
  return sized_int(d) || d.is_float();
}

UOp with_src(Context& ctx, UOp u, size_t slot, UOp src) {
  std::vector<UOp> s(u.src().begin(), u.src().end());
  s[slot] = src;
  return ctx.make(u.op(), u.dtype(), std::move(s), u.arg());
}

/// Uses whose child may be replaced by another value of its dtype: ALU operands, a stored
/// value, a reduced value (never a gate's INVALID, nor a gated index inside its INDEX).
std::vector<Use> value_uses(const std::vector<UOp>& topo) {
  std::vector<Use> out;
  for (UOp u : topo) {
    const bool alu = op_in(u.op(), Alu);
    for (size_t s = 0; s < u.num_src(); ++s) {
      UOp c = u.src(s);
      if (c.op() == Op::Invalid || is_gated_index(c)) continue;
      if (alu || (u.op() == Op::Store && s == 1) || (u.op() == Op::Reduce && s == 0) ||
          (u.op() == Op::Index && s == 1))
        out.push_back({u, s});
    }
  }
  return out;
}

template <class T>
const T& draw(Entropy& e, const std::vector<T>& v) {
  return v[e.below(v.size())];
}

/// An edge value of dt (gen/edge_values.h, by the policy's weights). Index values stay
/// within the generator's magnitude: index arithmetic is undefined on overflow.
UOp edge_const(Context& ctx, DType dt, Entropy& e, const GenPolicy& p) {
  if (dt.is_bool()) return ctx.const_bool(e.chance(0.5));
  if (dt.is_float()) return ctx.const_float(dt, edge_float(e, p.float_edges, dt, p.inexact_floats));
  IntRange r = int_range(dt);
  if (dt.is_index()) r.lo = -(r.hi = p.max_index_magnitude);
  return ctx.const_int(dt, as_const_bits(edge_int(e, p.int_edges, r, std::nullopt)));
}

std::optional<Change> edge_const_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e,
                                        const GenPolicy& p) {
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (u.child().is_const()) uses.push_back(u);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp c = edge_const(ctx, u.child().dtype(), e, p);
  return Change{u.user, with_src(ctx, u.user, u.slot, c), "a constant to an edge value"};
}

std::vector<UOp> binary_alus(const std::vector<UOp>& topo) {
  std::vector<UOp> out;
  for (UOp u : topo)
    if ((op_in(u.op(), Binary) && u.src(0).dtype() == u.src(1).dtype()) || u.op() == Op::Where)
      out.push_back(u);
  return out;
}

std::optional<Change> swap_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : binary_alus(topo))
    if (u.src(u.num_src() - 2) != u.src(u.num_src() - 1) && !is_gated_index(u)) nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  const size_t a = n.num_src() - 2, b = n.num_src() - 1;
  UOp swapped = with_src(ctx, with_src(ctx, n, a, n.src(b)), b, n.src(a));
  return Change{n, swapped, fmt::format("{}'s operands swapped", op_name(n.op()))};
}

std::optional<Change> duplicate_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : binary_alus(topo))
    if (u.src(u.num_src() - 2) != u.src(u.num_src() - 1) && !is_gated_index(u)) nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  const size_t a = n.num_src() - 2, b = n.num_src() - 1;
  const bool first = e.chance(0.5);
  UOp dup = first ? with_src(ctx, n, b, n.src(a)) : with_src(ctx, n, a, n.src(b));
  return Change{
      n, dup,
      fmt::format("{}'s {} operand duplicated", op_name(n.op()), first ? "first" : "second")};
}

/// The ops a binary op may become without changing what its operands must satisfy (a divisor
/// stays a divisor, a shift amount a shift amount).
std::vector<Op> siblings(Op op, DType in) {
  const std::vector<std::vector<Op>> families = {{Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min},
                                                 {Op::Cdiv, Op::FloorDiv},
                                                 {Op::Cmod, Op::FloorMod},
                                                 {Op::CmpLt, Op::CmpNe, Op::CmpEq},
                                                 {Op::And, Op::Or, Op::Xor},
                                                 {Op::Shl, Op::Shr}};
  for (const auto& f : families) {
    if (std::find(f.begin(), f.end(), op) == f.end()) continue;
    std::vector<Op> out;
    for (Op o : f) {
      if (o == op) continue;
      if (in.is_float() && op_in(o, IntOnly)) continue;
      if (in.is_float() && o == Op::Mul) continue;  // a product of two values may round
      if (in.is_bool() && !(op_in(o, Comparison) || o == Op::And || o == Op::Or || o == Op::Xor))
        continue;
      out.push_back(o);
    }
    return out;
  }
  return {};
}

std::optional<Change> change_op(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : topo)
    if (op_in(u.op(), Binary) && u.src(0).dtype() == u.src(1).dtype() &&
        !siblings(u.op(), u.src(0).dtype()).empty())
      nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  const Op to = draw(e, siblings(n.op(), n.src(0).dtype()));
  return Change{n, ctx.alu(to, {n.src(0), n.src(1)}),
                fmt::format("{} became {}", op_name(n.op()), op_name(to))};
}

std::optional<Change> change_dtype(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : topo)
    if (op_in(u.op(), Alu) && u.op() != Op::Cast && u.op() != Op::Bitcast &&
        value_dtype(operand_dtype(u)))
      nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  std::vector<DType> to;
  for (DType d : kBufferTypes)
    if (value_dtype(d) && d != operand_dtype(n) && !(op_in(n.op(), IntOnly) && !d.is_int()) &&
        !(op_in(n.op(), FloatOnly) && !d.is_float()))
      to.push_back(d);
  if (to.empty()) return std::nullopt;
  const DType dt = draw(e, to);
  Nodes mk(ctx);
  std::vector<UOp> src;
  for (size_t s = 0; s < n.num_src(); ++s)
    src.push_back(n.op() == Op::Where && s == 0 ? n.src(0) : mk.convert(dt, n.src(s)));
  UOp inner = ctx.alu(n.op(), std::move(src));
  return Change{n, mk.convert(n.dtype(), inner),
                fmt::format("{} computed in {}", op_name(n.op()), dt.name())};
}

std::optional<Change> range_end_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e,
                                       const GenPolicy& p) {
  std::vector<UOp> ranges;
  for (UOp u : topo)
    if (u.op() == Op::Range && u.src(0).is_const()) ranges.push_back(u);
  if (ranges.empty()) return std::nullopt;
  UOp r = draw(e, ranges);
  const int64_t end = r.src(0).const_value().i;
  const int64_t choices[] = {0,
                             1,
                             end - 1,
                             end + 1,
                             2 * end,
                             int64_t{1} << e.between(1, 4),
                             e.between(2, p.max_range_end)};
  const int64_t to = std::max<int64_t>(0, choices[e.below(std::size(choices))]);
  if (to == end) return std::nullopt;
  // A policy without ends 0 or 1 (a simplifier declines them, gen/declines.h) gets none here.
  if ((to == 0 && p.p_const_end_zero <= 0) || (to == 1 && p.p_const_end_one <= 0))
    return std::nullopt;
  UOp nr = ctx.make(Op::Range, r.dtype(), {ctx.const_int(r.src(0).dtype(), to)}, r.arg());
  return Change{r, nr, fmt::format("a range end {} -> {}", end, to)};
}

int32_t fresh_axis(const std::vector<UOp>& topo) {
  int32_t next = 0;
  for (UOp u : topo)
    if (u.op() == Op::Range && !u.arg<RangeArg>().axis.empty())
      next = std::max(next, u.arg<RangeArg>().axis[0] + 1);
  return next;
}

std::optional<Change> wrap_in_reduce(Context& ctx, const std::vector<UOp>& topo, Entropy& e,
                                     const GenPolicy& p) {
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (value_dtype(u.child().dtype())) uses.push_back(u);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp v = u.child();
  const DType dt = v.dtype();
  const int64_t trips = e.chance(0.1) ? 0 : e.between(1, 4);
  // A policy without ends 0 or 1 (a simplifier declines them, gen/declines.h) gets none here.
  if ((trips == 0 && p.p_const_end_zero <= 0) || (trips == 1 && p.p_const_end_one <= 0))
    return std::nullopt;
  Nodes mk(ctx);
  UOp r = ctx.make(Op::Range, dtypes::Index, {ctx.const_int(dtypes::Index, trips)},
                   RangeArg{{fresh_axis(topo)}, AxisType::Reduce});
  Op op = Op::Add;
  UOp body = v;
  std::string shape;
  switch (e.below(4)) {
    case 0:
      op = std::array{Op::Add, Op::Mul, Op::Max, Op::Min}[e.below(4)];
      shape = "unparented";
      break;
    case 1: {
      UOp cut = ctx.const_int(dtypes::Index, e.between(-1, trips + 1));
      const bool upper = e.chance(0.6);
      body = mk.where(mk.lt(r, cut), upper ? v : mk.zero(dt), upper ? mk.zero(dt) : v);
      shape = upper ? "bounded above" : "bounded below";
      break;
    }
    case 2:
      body = ctx.alu(Op::Add, {v, mk.convert(dt, r)});
      shape = "plus the range";
      break;
    default:
      body =
          ctx.alu(Op::Mul,
                  {v, mk.convert(dt, mk.lt(r, ctx.const_int(dtypes::Index, e.between(0, trips))))});
      shape = "times a casted bound";
      break;
  }
  UOp red = ctx.make(Op::Reduce, dt, {body, r}, ReduceArg{op});
  return Change{
      u.user, with_src(ctx, u.user, u.slot, red),
      fmt::format("a value wrapped in a REDUCE {} over {} ({})", op_name(op), trips, shape)};
}

/// Copies a range-free sub-graph of a donor, with its buffers, VARs and range axes renumbered
/// past the parent's so that nothing merges by accident.
class Splicer {
 public:
  Splicer(Context& ctx, const std::vector<UOp>& parent_topo, const Kernel& donor)
      : ctx_(ctx), donor_(donor) {
    for (UOp u : parent_topo) {
      if (u.op() == Op::Param) slot_offset_ = std::max(slot_offset_, u.arg<ParamArg>().slot + 1);
      if (u.op() == Op::Var) names_.insert(u.arg<VarArg>().name);
    }
    axis_offset_ = fresh_axis(parent_topo);
  }

  UOp copy(UOp root) {
    for (UOp u : toposort(root)) {
      std::vector<UOp> src;
      for (UOp s : u.src()) src.push_back(done_.at(s));
      Arg arg = u.arg();
      if (u.op() == Op::Param) {
        ParamArg pa = u.arg<ParamArg>();
        pa.slot += slot_offset_;
        arg = pa;
      } else if (u.op() == Op::Var) {
        VarArg va = u.arg<VarArg>();
        const std::string old = va.name;
        for (int k = 0; names_.count(va.name); ++k) va.name = fmt::format("v{}", k);
        names_.insert(va.name);
        for (const auto& [name, value] : donor_.header.vars)
          if (name == old) vars_.emplace_back(va.name, value);
        arg = va;
      } else if (u.op() == Op::Range) {
        RangeArg ra = u.arg<RangeArg>();
        if (!ra.axis.empty()) ra.axis[0] += axis_offset_;
        arg = ra;
      }
      done_[u] = ctx_.make(u.op(), u.dtype(), std::move(src), std::move(arg));
    }
    return done_.at(root);
  }
  std::vector<std::pair<std::string, int64_t>> vars() const { return vars_; }

 private:
  Context& ctx_;
  const Kernel& donor_;
  int slot_offset_ = 0;
  int32_t axis_offset_ = 0;
  std::set<std::string> names_;
  std::unordered_map<UOp, UOp, UOpHash> done_;
  std::vector<std::pair<std::string, int64_t>> vars_;
};

std::optional<Change> splice(Context& ctx, const std::vector<UOp>& topo, const Kernel& donor,
                             Entropy& e) {
  const std::vector<UOp> dtopo = toposort(donor.root);
  const NodeMap<RangeSet> open = open_ranges(dtopo);
  // Per node: whether its sub-graph reads an output buffer, and its size counted as a tree
  // (an upper bound of its node count: shared sources count once per use).
  NodeMap<bool> reads_output(dtopo.size());
  NodeMap<size_t> size(dtopo.size());
  for (UOp u : dtopo) {
    bool reads = u.op() == Op::Param && u.arg<ParamArg>().output;
    size_t n = 1;
    for (UOp s : u.src()) {
      reads |= reads_output.at(s);
      n = std::min<size_t>(n + size.at(s), 1000);
    }
    reads_output[u] = reads;
    size[u] = n;
  }
  std::vector<UOp> pieces;
  for (UOp u : dtopo) {
    if (!(op_in(u.op(), Alu) || u.op() == Op::Reduce) || u.dtype().is_index() ||
        !open.at(u).empty() || is_gated_index(u))
      continue;
    if (!reads_output.at(u) && size.at(u) <= 40) pieces.push_back(u);
  }
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (!u.child().dtype().is_index()) uses.push_back(u);
  if (pieces.empty() || uses.empty()) return std::nullopt;
  const UOp piece = draw(e, pieces);
  const Use u = draw(e, uses);
  Splicer s(ctx, topo, donor);
  UOp copied = Nodes(ctx).convert(u.child().dtype(), s.copy(piece));
  return Change{u.user, with_src(ctx, u.user, u.slot, copied),
                fmt::format("a {}-node {} spliced in for a {}", toposort(piece).size(),
                            op_name(piece.op()), op_name(u.child().op())),
                s.vars()};
}

std::optional<Change> insert_cast(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<Use> uses = value_uses(topo);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp c = u.child();
  const DType dt = c.dtype();
  Nodes mk(ctx);
  const uint64_t shape = e.below(3);
  if (shape == 0)
    return Change{u.user, with_src(ctx, u.user, u.slot, mk.cast(dt, c)),
                  fmt::format("a CAST of a {} to its own dtype", op_name(c.op()))};
  if (shape == 1 || !value_dtype(dt)) {
    std::vector<DType> to;
    for (DType d : kBufferTypes)
      if (d != dt && !d.is_bool()) to.push_back(d);
    if (!dt.is_index()) to.push_back(dtypes::Index);
    const DType via = draw(e, to);
    return Change{u.user, with_src(ctx, u.user, u.slot, mk.convert(dt, mk.convert(via, c))),
                  fmt::format("a {} round trip through {}", dt.name(), via.name())};
  }
  // x * cast(g): a bool that is defined wherever x is (its open ranges are among x's).
  const NodeMap<RangeSet> open = open_ranges(topo);
  const RangeSet& mine = open.at(c);
  std::vector<UOp> gates;
  for (UOp g : topo)
    if (g.dtype().is_bool() && op_in(g.op(), Alu) &&
        std::includes(mine.begin(), mine.end(), open.at(g).begin(), open.at(g).end(),
                      [](UOp a, UOp b) { return a.id() < b.id(); }))
      gates.push_back(g);
  if (gates.empty()) return std::nullopt;
  UOp g = draw(e, gates);
  return Change{u.user, with_src(ctx, u.user, u.slot, ctx.alu(Op::Mul, {c, mk.cast(dt, g)})),
                "a value times a casted bool"};
}

std::optional<Change> index_op(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (u.child().dtype().is_index()) uses.push_back(u);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp x = u.child();
  static const int64_t divisors[] = {1, 2, 2, 3, 4, 4, 8, 16};
  UOp k = ctx.const_int(dtypes::Index, divisors[e.below(std::size(divisors))]);
  UOp to;
  switch (e.below(6)) {
    case 0: to = ctx.alu(Op::Mul, {x, k}); break;
    case 1: to = ctx.alu(Op::FloorDiv, {x, k}); break;
    case 2: to = ctx.alu(Op::Cdiv, {x, k}); break;
    case 3: to = ctx.alu(Op::FloorMod, {x, k}); break;
    case 4: to = ctx.alu(Op::Cmod, {x, k}); break;
    default:
      to = ctx.alu(Op::Add, {ctx.alu(Op::Mul, {ctx.alu(Op::FloorDiv, {x, k}), k}),
                             ctx.alu(Op::FloorMod, {x, k})});
      break;
  }
  return Change{u.user, with_src(ctx, u.user, u.slot, to),
                fmt::format("an index {} became {}", op_name(x.op()), op_name(to.op()))};
}

/// A near miss of an exact match (gen/near_miss.h does the same by construction): a multi-operand
/// rule matches a node that appears twice ((x//c)*c + x%c, x - x, both compares of a range), and
/// forgetting to check that the two are the same is the fault a near miss shows. So one use of a
/// node used at least twice changes: a constant to its value +-1 (never 0, which could divide), a
/// range to another range (verify rejects one out of scope), anything else to a sibling of its
/// dtype built before the user (so no cycle is made).
std::optional<Change> near_miss_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::unordered_map<UOp, std::vector<Use>, UOpHash> uses_of;
  for (const Use& u : value_uses(topo)) uses_of[u.child()].push_back(u);
  std::unordered_map<UOp, size_t, UOpHash> pos;
  std::vector<UOp> repeated;
  for (UOp u : topo) {
    pos.emplace(u, pos.size());
    if (auto it = uses_of.find(u);
        it != uses_of.end() && it->second.size() >= 2 && !u.dtype().is_bool())
      repeated.push_back(u);
  }
  if (repeated.empty()) return std::nullopt;
  const UOp x = draw(e, repeated);
  const Use use = draw(e, uses_of.at(x));
  const DType dt = x.dtype();
  UOp to;
  std::string what;
  if (x.is_const() && dt.is_int()) {
    const int64_t v = x.const_value().i;
    int64_t d = e.chance(0.5) ? 1 : -1;
    if (v + d == 0 || (d > 0 && v == std::numeric_limits<int64_t>::max()) ||
        (d < 0 && v == std::numeric_limits<int64_t>::min()))
      d = -d;
    to = ctx.const_int(dt, v + d);
    what = fmt::format("one use of the shared constant {} became {}", v, v + d);
  } else {
    std::vector<UOp> siblings;
    for (UOp s : topo) {
      if (pos.at(s) >= pos.at(use.user)) break;
      if (s == x || s.dtype() != dt || is_gated_index(s)) continue;
      const bool range = x.op() == Op::Range;
      if (range ? s.op() == Op::Range
                : (op_in(s.op(), Alu) || s.op() == Op::Load || s.op() == Op::Const ||
                   s.op() == Op::Var || s.op() == Op::Reduce))
        siblings.push_back(s);
    }
    if (siblings.empty()) return std::nullopt;
    to = draw(e, siblings);
    what = fmt::format("one use of a repeated {} became a {}", op_name(x.op()), op_name(to.op()));
  }
  return Change{use.user, with_src(ctx, use.user, use.slot, to), what};
}

std::optional<Change> change_for(Mutator m, Context& ctx, const std::vector<UOp>& topo,
                                 const Kernel& donor, Entropy& e, const GenPolicy& p) {
  switch (m) {
    case Mutator::EdgeConst: return edge_const_change(ctx, topo, e, p);
    case Mutator::SwapOperands: return swap_change(ctx, topo, e);
    case Mutator::DuplicateOperand: return duplicate_change(ctx, topo, e);
    case Mutator::ChangeOp: return change_op(ctx, topo, e);
    case Mutator::ChangeDType: return change_dtype(ctx, topo, e);
    case Mutator::RangeEnd: return range_end_change(ctx, topo, e, p);
    case Mutator::WrapInReduce: return wrap_in_reduce(ctx, topo, e, p);
    case Mutator::Splice: return splice(ctx, topo, donor, e);
    case Mutator::InsertCast: return insert_cast(ctx, topo, e);
    case Mutator::IndexOp: return index_op(ctx, topo, e);
    case Mutator::NearMiss: return near_miss_change(ctx, topo, e);
  }
  return std::nullopt;
}

/// The largest trip count of one loop nest: the product of the ends (their maxima) of the
/// ranges open at, or closed by, an END or REDUCE.
int64_t largest_nest(const std::vector<UOp>& topo, const NodeMap<RangeSet>& open) {
  Analysis an;
  int64_t most = 1;
  for (UOp u : topo) {
    if (u.op() != Op::End && u.op() != Op::Reduce) continue;
    RangeSet rs = open.at(u);
    for (size_t s = 1; s < u.num_src(); ++s) rs.push_back(u.src(s));
    __int128 trips = 1;
    for (UOp r : rs)
      if (r.op() == Op::Range) trips *= std::max<int64_t>(1, an.vmax(r.src(0)));
    most = std::max<int64_t>(most, static_cast<int64_t>(std::min<__int128>(trips, 1ll << 60)));
  }
  return most;
}

}  // namespace

std::optional<Mutant> mutate_with(Context& ctx, const Kernel& parent, const Kernel* donor,
                                  Mutator m, uint64_t seed, const GenPolicy& policy) {
  SeedEntropy e(seed);
  const std::vector<UOp> topo = toposort(parent.root);
  std::optional<Change> ch = change_for(m, ctx, topo, donor ? *donor : parent, e, policy);
  if (!ch || ch->from == ch->to) return std::nullopt;
  Mutant out;
  out.mutator = m;
  out.what = ch->what;
  out.kernel = parent;
  out.kernel.root = replace(ctx, parent.root, {ch->from}, {ch->to});
  if (out.kernel.root == parent.root) return std::nullopt;
  // Mutants that grew past twice the generator's size budget, or whose loops did, are dropped:
  // generations of them would slow the campaign down (every check simplifies and runs them).
  const std::vector<UOp> after = toposort(out.kernel.root);
  if (after.size() > 2 * static_cast<size_t>(policy.max_positions)) return std::nullopt;
  const NodeMap<RangeSet> open = open_ranges(after);
  if (!verify(out.kernel.root, after, open).empty() ||
      largest_nest(after, open) > 4 * policy.max_iterations)
    return std::nullopt;
  for (const auto& v : ch->new_vars) out.kernel.header.vars.push_back(v);
  auto& extra = out.kernel.header.extra;
  extra.erase(std::remove_if(extra.begin(), extra.end(),
                             [](const auto& kv) { return kv.first == "mutated-by"; }),
              extra.end());
  extra.emplace_back("mutated-by",
                     fmt::format("{} (seed {:#x}): {}", mutator_name(m), seed, ch->what));
  // A mutant's new conversions (a float computed in an integer type, say) are undefined for
  // some inputs the parent never met, and the campaign checks every kernel on several seeds:
  // one seed of checking leaves mutants whose second seed is skipped as undefined.
  GenPolicy checked = policy;
  if (checked.check_seeds > 0) checked.check_seeds = std::max(checked.check_seeds, 2);
  check_and_repair(ctx, out.kernel, checked, out.stats);
  if (!out.stats.oracle_error.empty() || out.kernel.root.src().empty() ||
      out.kernel.root == parent.root)
    return std::nullopt;
  return out;
}

std::optional<Mutant> mutate(Context& ctx, const Kernel& parent, const Kernel* donor, uint64_t seed,
                             const GenPolicy& policy, int tries) {
  const auto& all = all_mutators();
  for (int t = 0; t <= tries; ++t) {
    const uint64_t s = mix64(seed + static_cast<uint64_t>(t) * 0x9e3779b97f4a7c15ull);
    if (auto m = mutate_with(ctx, parent, donor, all[s % all.size()], s, policy)) return m;
  }
  return std::nullopt;
}

}  // namespace uopfuzz::gen
