// Dead axis removal (buffers.h): a removable BUFFERIZE keeps only the axes its value varies
// along. The rule fires at each INDEX of it, dropping the axis there and in the BUFFERIZE;
// hash-consing makes every reader get the same smaller BUFFERIZE. The dropped index is
// simply not read: the value is the same along it (the seed's RESHAPE + EXPAND back).

#include <unordered_map>
#include <unordered_set>

#include "ir/graph.h"
#include "schedule/buffers.h"

namespace uopfuzz::schedule {

using ir::Bindings;
using ir::Op;
using ir::Pat;
using ir::RewriteCtx;
using ir::UOp;

namespace {

/// Which axes of the BUFFERIZE `b` are dead; empty if the rule leaves `b` alone (an output,
/// an always-run op, a range of symbolic end). Bugged (DeadAxisDropsUsed): the last axis
/// the value uses is declared dead as well.
std::vector<bool> dead_axes(UOp b, const LoweringBugSet& bugs) {
  std::vector<bool> dead;
  for (size_t k = 1; k < b.num_src(); ++k) {
    UOp r = b.src(k);
    if (r.op() == Op::Range && r.src(0).op() != Op::Const) return {};
    dead.push_back(r.op() == Op::Const);
  }
  std::unordered_set<UOp, ir::UOpHash> used;
  for (UOp u : ir::toposort(b.src(0)))
    if (u.op() == Op::Range) used.insert(u);
  int last_used = -1;
  for (size_t k = 0; k < dead.size(); ++k) {
    if (dead[k]) continue;
    if (used.count(b.src(k + 1))) {
      last_used = static_cast<int>(k);
    } else {
      dead[k] = true;
    }
  }
  if (bugs.count(LoweringBug::DeadAxisDropsUsed) && last_used >= 0) dead[last_used] = true;
  return dead;
}

bool any_of(const std::vector<bool>& v) {
  for (bool x : v)
    if (x) return true;
  return false;
}

bool all_of(const std::vector<bool>& v) {
  for (bool x : v)
    if (!x) return false;
  return true;
}

const LoweringBugSet& bugs_of(RewriteCtx& rc) {
  return rc.get<BufferRuleState>().options->bugs;
}

/// INDEX(BUFFERIZE(v, r...), i...) with the dead axes dropped from both.
UOp drop_dead_axes(RewriteCtx& rc, const Bindings& b) {
  UOp buf = b["b"], index = b["i"];
  if (!buf.arg<ir::BufferizeArg>().removable) return UOp();
  const LoweringBugSet& bugs = bugs_of(rc);
  std::vector<bool> dead = dead_axes(buf, bugs);
  if (!any_of(dead)) return UOp();
  const BufferRead read = buffer_read(index);
  if (read.invalid || read.idx.size() != dead.size()) return UOp();
  ir::Context& ctx = rc.ctx;
  UOp value = buf.src(0);
  std::vector<UOp> ranges{value}, idx;
  std::unordered_map<UOp, UOp, ir::UOpHash> zero;
  for (size_t k = 0; k < dead.size(); ++k) {
    UOp r = buf.src(k + 1);
    if (!dead[k]) {
      ranges.push_back(r);
      idx.push_back(gated_index(ctx, read, read.idx[k]));
    } else if (r.op() == Op::Range) {
      zero.emplace(r, ctx.const_int(ir::dtypes::Index, 0));  // bugged only: a used range
    }
  }
  if (!zero.empty()) ranges[0] = ir::substitute(ctx, value, zero);
  UOp smaller = ctx.make(Op::Bufferize, buf.dtype(), std::move(ranges), buf.arg());
  std::vector<UOp> src{smaller};
  src.insert(src.end(), idx.begin(), idx.end());
  UOp out = ctx.make(Op::Index, index.dtype(), std::move(src));
  // A read of a buffer with no ranges carries no gate (bufferize.h): the gate moves out.
  return idx.empty() ? gated_value(ctx, read, out) : out;
}

/// Bugged (DeadAxisDeletesScalar): a BUFFERIZE whose axes are all dead, an output's too,
/// is replaced by its value, leaving no kernel to store it.
UOp delete_scalar(RewriteCtx& rc, const Bindings& b) {
  UOp buf = b["b"];
  if (!bugs_of(rc).count(LoweringBug::DeadAxisDeletesScalar)) return UOp();
  for (size_t k = 1; k < buf.num_src(); ++k) {
    UOp r = buf.src(k);
    if (r.op() == Op::Range && r.src(0).op() != Op::Const) return UOp();
  }
  std::vector<bool> dead = dead_axes(buf, {});
  return all_of(dead) ? buf.src(0) : UOp();
}

}  // namespace

ir::RuleSet dead_axis_rules() {
  ir::RuleSet r;
  Pat buf = Pat::op(Op::Bufferize).named("b");
  r.add("dead_axis",  // INDEX(BUFFERIZE(v, r0, r1), i0, i1) -> INDEX(BUFFERIZE(v, r0), i0), r1 dead
        Pat::op(Op::Index, {buf}).rest().named("i"), drop_dead_axes);
  r.add("dead_axis",  // BUFFERIZE(v, dead...) -> v (a planted bug only: the buffer must stay)
        buf, delete_scalar);
  return r;
}

}  // namespace uopfuzz::schedule
