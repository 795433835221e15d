// Buffer removal (tinygrad's remove_bufferize, "pcontig"): seed 001's decision tree on
// INDEX(BUFFERIZE(src, ranges...), idx...), one row a rule or a keep row (buffers.h).
//
// "Always-run ops keep": rangeify marks CONTIGUOUS and outputs not removable, and the only
// copy this IR has is the kernel bufferize() makes for an output listed twice (an output
// too). There is no device COPY: a BUFFERIZE whose value is a bare read of another buffer
// only re-indexes it ("stored just for permutes", in tinygrad's words) and is inlined.

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/ops.h"
#include "ir/tensor.h"
#include "schedule/bufferize.h"
#include "schedule/buffers.h"

namespace uopfuzz::schedule {

using ir::Op;
using ir::UOp;

namespace {

constexpr const char* kKeepLimit = "buffer_keep_limit";
constexpr const char* kKeepUnary = "buffer_keep_unary";
constexpr const char* kKeepReduce = "buffer_keep_reduce";
constexpr const char* kKeepRatio = "buffer_keep_ratio";
constexpr const char* kKeepGate = "buffer_keep_gate";

using NodeSet = std::unordered_set<UOp, ir::UOpHash>;
using Subst = std::unordered_map<UOp, UOp, ir::UOpHash>;

/// What `src` reads, not looking inside the buffers it reads (their kernels are their own).
struct ValueScan {
  std::vector<UOp> buffers;  ///< input PARAMs and BUFFERIZEs, each once
  bool reduce = false;
  bool divides_by_read = false;  ///< an integer division or modulo by a loaded value
};

bool is_int_division(Op op) {
  return op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod;
}

/// Calls `f` on every node under `root` once, not below a BUFFERIZE.
template <class F>
void walk(UOp root, F&& f) {
  NodeSet seen;
  std::vector<UOp> stack{root};
  while (!stack.empty()) {
    UOp u = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second) continue;
    f(u);
    if (u.op() == Op::Bufferize) continue;
    for (UOp s : u.src()) stack.push_back(s);
  }
}

bool reads_a_buffer(UOp root) {
  bool read = false;
  walk(root, [&](UOp u) { read = read || u.op() == Op::Param || u.op() == Op::Bufferize; });
  return read;
}

ValueScan scan(UOp src) {
  ValueScan out;
  walk(src, [&](UOp u) {
    if (u.op() == Op::Param || u.op() == Op::Bufferize) {
      if (std::find(out.buffers.begin(), out.buffers.end(), u) == out.buffers.end())
        out.buffers.push_back(u);
    }
    if (u.op() == Op::Reduce) out.reduce = true;
    if (is_int_division(u.op()) && reads_a_buffer(u.src(1))) out.divides_by_read = true;
  });
  return out;
}

int64_t elements(UOp buffer) {
  if (buffer.op() == Op::Param) return ir::numel(buffer.shape());
  Result<ir::Shape> shape = bufferize_shape(buffer);
  return shape ? ir::numel(*shape) : 0;
}

bool uses_reduce_range(UOp expr) {
  bool found = false;
  walk(expr, [&](UOp u) {
    found = found || (u.op() == Op::Range && u.arg<ir::RangeArg>().type == ir::AxisType::Reduce);
  });
  return found;
}

UOp gated(ir::Context& ctx, UOp gate, UOp idx) {
  if (idx.op() == Op::Invalid) return idx;
  if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid)
    return ctx.alu(Op::Where, {ctx.alu(Op::And, {idx.src(0), gate}), idx.src(1), idx.src(2)});
  return ctx.alu(Op::Where, {gate, idx, ctx.invalid()});
}

/// `src` with the ranges in `with` replaced, not inside the buffers it reads (their ranges
/// are theirs). With a `gate`, every read whose index uses a replaced range is gated by it
/// too, so that where the gate is off it reads 0 and never out of bounds.
class Inliner {
 public:
  Inliner(ir::Context& ctx, const Subst& with, UOp gate) : ctx_(ctx), with_(with), gate_(gate) {}

  UOp operator()(UOp u) {
    if (auto it = with_.find(u); it != with_.end()) return it->second;
    if (auto it = memo_.find(u); it != memo_.end()) return it->second;
    UOp out = u;
    if (u.op() != Op::Bufferize) {
      std::vector<UOp> src;
      bool changed = false;
      for (UOp s : u.src()) {
        src.push_back((*this)(s));
        changed = changed || src.back() != s;
      }
      const bool read =
          u.op() == Op::Index && (u.src(0).op() == Op::Param || u.src(0).op() == Op::Bufferize);
      const bool gate_it = gate_ && read && uses_replaced(u);
      if (gate_it) {
        for (size_t i = 1; i < src.size(); ++i) src[i] = gated(ctx_, gate_, src[i]);
        changed = true;
      }
      if (changed) out = ctx_.make(u.op(), u.dtype(), std::move(src), u.arg());
      if (gate_it) gated_reads_.insert(out);
    }
    memo_.emplace(u, out);
    return out;
  }

  /// `v` (a result of this inliner) reads 0 where the gate is off already.
  bool reads_zero_when_gated(UOp v) const {
    if (v.op() == Op::Load) v = v.src(0);
    return gated_reads_.contains(v);
  }

 private:
  bool uses_replaced(UOp u) {
    bool found = false;
    walk(u, [&](UOp x) { found = found || with_.contains(x); });
    return found;
  }

  ir::Context& ctx_;
  const Subst& with_;
  UOp gate_;
  Subst memo_;
  NodeSet gated_reads_;
};

enum class Outcome { Keep, Inline, PartialInline };

struct Decision {
  Outcome outcome = Outcome::Keep;
  const char* row = nullptr;  ///< the keep row that decided (null: not counted)
  BufferRead read;
};

bool row_on(const LowerOptions& o, const char* row) {
  return !o.disabled.contains(row);
}

bool has(const LowerOptions& o, LoweringBug bug) {
  return o.bugs.contains(bug);
}

/// The decision tree on `index` = INDEX(BUFFERIZE(src, ranges...), idx...) of a removable
/// BUFFERIZE. A cost row switched off by name (LowerOptions::disabled) or by a planted bug
/// falls through to the next; buffer_keep_gate guards correctness and stays on.
Decision decide(const LowerOptions& o, UOp buf, UOp index) {
  Decision d;
  d.read = buffer_read(index);
  if (d.read.invalid) return d;  // index_invalid folds it to 0
  auto keep = [&](const char* row) {
    d.row = row;
    return d;
  };
  UOp src = buf.src(0);
  ValueScan s = scan(src);
  // Inlining makes the reader read what src reads.
  if (static_cast<int>(s.buffers.size()) > kBufferLimit && row_on(o, kKeepLimit) &&
      !has(o, LoweringBug::ExceedBufferLimit))
    return keep(kKeepLimit);
  // argmax(-x): a unary op inlined in a reduce is recomputed every reduce iteration.
  const bool in_reduce = std::any_of(index.src().begin() + 1, index.src().end(), uses_reduce_range);
  if (ir::op_in(src.op(), ir::Unary) && in_reduce && row_on(o, kKeepUnary) &&
      !has(o, LoweringBug::InlineUnaryInReduce))
    return keep(kKeepUnary);
  // A gated read's value must be defined where the gate is off (its loads then read 0).
  const bool gate_blocks =
      d.read.gate && s.divides_by_read && !has(o, LoweringBug::InlineIgnoresGate);
  const bool reduce_inlines =
      o.pcontig <= 2 && (has(o, LoweringBug::InlineReduceInScope) || !row_on(o, kKeepReduce));
  if (!s.reduce || reduce_inlines) {
    if (gate_blocks) return keep(kKeepGate);
    d.outcome = Outcome::Inline;
    return d;
  }
  if (o.pcontig <= 2) return keep(kKeepReduce);  // recomputing the reduce per use costs too much
  int64_t in = 0;
  for (UOp b : s.buffers) in += elements(b);
  const double ratio = static_cast<double>(elements(buf) + 1) / static_cast<double>(in + 1);
  if (ratio < kPartialInlineRatio && row_on(o, kKeepRatio)) return keep(kKeepRatio);
  // Dims read at an expression of a reduce range stay in a buffer, the others are inlined.
  bool pcontig = false, subs = false;
  for (size_t i = 1; i < buf.num_src(); ++i) {
    if (buf.src(i).op() != Op::Range) continue;
    (uses_reduce_range(index.src(i)) ? pcontig : subs) = true;
  }
  if (!subs) return d;  // nothing to inline: the buffer as it is
  // A smaller buffer would be computed where the gate is off.
  if (d.read.gate && (pcontig || gate_blocks)) return keep(kKeepGate);
  d.outcome = pcontig ? Outcome::PartialInline : Outcome::Inline;
  return d;
}

/// The removable BUFFERIZE read by `index`, or null.
UOp removable_buffer(const ir::Bindings& b) {
  UOp buf = b["buf"];
  if (!buf.arg<ir::BufferizeArg>().removable || buf.num_src() != b["idx"].num_src()) return UOp();
  for (size_t i = 1; i < buf.num_src(); ++i)
    if (buf.src(i).op() != Op::Range && buf.src(i).op() != Op::Const) return UOp();
  return buf;
}

/// `src` computed at the read's expressions instead of the buffer's ranges.
UOp inline_read(ir::Context& ctx, const LowerOptions& o, UOp buf, const BufferRead& read) {
  Subst with;
  for (size_t i = 1; i < buf.num_src(); ++i)
    if (buf.src(i).op() == Op::Range) with.emplace(buf.src(i), read.idx[i - 1]);
  if (!read.gate || has(o, LoweringBug::InlineIgnoresGate))
    return Inliner(ctx, with, UOp())(buf.src(0));
  Inliner inl(ctx, with, read.gate);
  UOp v = inl(buf.src(0));
  return inl.reads_zero_when_gated(v) ? v : gated_value(ctx, read, v);
}

/// tinygrad's partial contiguous: the dims read at a reduce range's expression stay in a
/// smaller buffer, the others are substituted. The new buffer loops over the reader's ranges
/// those substituted expressions use (a kernel closes every range it reads), so it holds
/// only what this read needs (a constant index: one row of the old buffer).
UOp partial_inline(ir::Context& ctx, UOp buf, UOp index) {
  Subst with;
  std::vector<UOp> kept_ranges, kept_idx;
  bool identity = true;
  for (size_t i = 1; i < buf.num_src(); ++i) {
    UOp r = buf.src(i), x = index.src(i);
    if (r.op() != Op::Range) continue;
    if (uses_reduce_range(x)) {
      kept_ranges.push_back(r);
      kept_idx.push_back(x);
    } else {
      with.emplace(r, x);
      identity = identity && r == x;
    }
  }
  if (identity) return UOp();  // already in the reader's ranges
  std::vector<UOp> outer;
  for (const auto& [r, x] : with)
    walk(x, [&](UOp u) {
      if (u.op() == Op::Range && std::find(outer.begin(), outer.end(), u) == outer.end())
        outer.push_back(u);
    });
  std::sort(outer.begin(), outer.end(), [](UOp a, UOp b) { return a.id() < b.id(); });
  std::vector<UOp> bsrc{Inliner(ctx, with, UOp())(buf.src(0))}, isrc;
  bsrc.insert(bsrc.end(), outer.begin(), outer.end());
  bsrc.insert(bsrc.end(), kept_ranges.begin(), kept_ranges.end());
  UOp smaller = ctx.make(Op::Bufferize, buf.dtype(), std::move(bsrc), ir::BufferizeArg{});
  isrc.push_back(smaller);
  isrc.insert(isrc.end(), outer.begin(), outer.end());
  isrc.insert(isrc.end(), kept_idx.begin(), kept_idx.end());
  return ctx.make(Op::Index, index.dtype(), std::move(isrc));
}

BufferRuleState& state(ir::RewriteCtx& rc) {
  return rc.get<BufferRuleState>();
}

}  // namespace

std::vector<std::string> buffer_removal_keep_rows() {
  return {kKeepLimit, kKeepUnary, kKeepReduce, kKeepRatio, kKeepGate};
}

ir::RuleSet buffer_removal_rules() {
  using ir::Pat;
  const Pat read = Pat::op(Op::Index, {Pat::op(Op::Bufferize).named("buf")}).rest().named("idx");
  ir::RuleSet rules;
  rules.add("buffer_inline", read, [](ir::RewriteCtx& rc, const ir::Bindings& b) -> UOp {
    UOp buf = removable_buffer(b);
    if (!buf) return UOp();
    BufferRuleState& st = state(rc);
    Decision d = decide(*st.options, buf, b["idx"]);
    if (d.outcome == Outcome::Keep && d.row) ++st.kept[d.row];
    if (d.outcome != Outcome::Inline) return UOp();
    return inline_read(rc.ctx, *st.options, buf, d.read);
  });  // INDEX(BUFFERIZE(src, r...), e...) -> src[r := e], under the read's gate
  rules.add("buffer_partial_inline", read, [](ir::RewriteCtx& rc, const ir::Bindings& b) -> UOp {
    UOp buf = removable_buffer(b);
    if (!buf) return UOp();
    Decision d = decide(*state(rc).options, buf, b["idx"]);
    if (d.outcome != Outcome::PartialInline) return UOp();
    return partial_inline(rc.ctx, buf, b["idx"]);
  });  // reduce-fed dims stay in a smaller BUFFERIZE, the others are substituted
  return rules;
}

}  // namespace uopfuzz::schedule
