"""Where tinygrad's semantics and SEMANTICS.md differ, in one place.

semantic_gate(sink) looks at a kernel after to_tinygrad() and before any rewrite, and
returns the reason it must not be checked (the server answers `unsupported` with it), or
None. A kernel is refused only where one of tinygrad's rules is right by tinygrad's own
semantics and wrong by ours, so the check would report a difference of definitions as a
bug. Each difference is one function below, with why; the README's table lists them and
the differences judged harmless.

Harmless (no check): division by zero (UB here, 0 in tinygrad's evaluator: a kernel the
check runs has none, and tinygrad's folds only remove divisions, e.g. x//x -> 1);
CDIV/CMOD/FLOORDIV/FLOORMOD rounding (tinygrad's cdiv/cmod truncate and floordiv/floormod
floor, as here); sized INT_MIN // -1 (both wrap); float constants (tinygrad keeps -0.0,
inf and nan distinct, ConstFloat); the weak int width (converter: a weak constant takes
the dtype of its use, a weak value an integer CAST).
"""
import math

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops

from uopfuzz_adapter.declines import tag

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
SIGNED = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _describe(u):
  return f"{u.op.name} of {u.dtype}"


def index_may_leave_int64(u):
  """index is int64 here (overflow is UB) and unbounded in tinygrad (weakint): where
  tinygrad's own bounds already reach past int64, its rewrites may compute intermediates
  past it too, which the check would report as introduced index overflow."""
  if u.dtype is not dtypes.weakint or u.op in (Ops.PARAM, Ops.CONST): return None
  lo, hi = u.vmin, u.vmax
  if lo < INT64_MIN or hi > INT64_MAX:
    return tag("index-past-int64", f"index {_describe(u)} may leave int64 (by tinygrad's bounds; its index is unbounded, ours is int64)")
  return None


WRAPPING = (Ops.ADD, Ops.SUB, Ops.MUL, Ops.SHL)
# Ops whose result carries a wrapped operand along without looking at its bounds.
CARRIERS = (Ops.ADD, Ops.SUB, Ops.MUL, Ops.SHL, Ops.NEG, Ops.XOR, Ops.OR, Ops.WHERE)
# Ops whose folds read an operand's bounds (min==max -> CONST, c0+x<c1, MAX by bounds,
# cast and div/mod folding).
BOUND_READERS = (Ops.CMPLT, Ops.CMPNE, Ops.CMPEQ, Ops.FLOORDIV, Ops.FLOORMOD, Ops.CDIV, Ops.CMOD,
                 Ops.MAX, Ops.CAST, Ops.SHR, Ops.AND)


def signed_int_may_wrap(sink):
  """Sized signed integers wrap here; tinygrad's bounds (vmin/vmax) ignore wrapping, as C
  assumes no signed overflow, and its folds read them (c0+x<c1 -> x<c1-c0, min==max ->
  CONST, MAX and CAST by bounds). Refused where a signed ADD/SUB/MUL/SHL whose bounds leave
  its dtype reaches, through ops that carry it, an op whose folds read bounds: a wrapped
  value only stored or reduced is judged as it is. Unsigned wrapping is defined in C as
  here, so a fold that ignores it stays reportable."""
  wrapped = {}
  for u in sink.toposort():
    if u.op in BOUND_READERS:
      for s in u.src:
        if s in wrapped: return tag("signed-wrap", f"{wrapped[s]} may wrap before {u.op.name} reads its bounds (tinygrad assumes no signed overflow; here it wraps)")
    if u.dtype in SIGNED and u.op in WRAPPING and u.overflows(u.dtype):
      wrapped[u] = f"{_describe(u)} whose bounds leave its dtype"
    elif u.op in CARRIERS and dtypes.is_int(u.dtype):
      carried = next((wrapped[s] for s in u.src if s in wrapped), None)
      if carried is not None: wrapped[u] = carried
  return None


def _const(u, pred=lambda v: True):
  return u.op is Ops.CONST and isinstance(u.arg, float) and pred(u.arg)


def float_fast_math(u):
  """Floats are compared by bits here (-0 is not +0; NaN and inf propagate). tinygrad's
  symbolic rules fold as fast-math does: x*0 -> 0 (x = inf, nan, or a negative: -0),
  -1*(x+c) -> -x+-c (sign of a zero sum), and regroup constants across float ADD/MUL chains
  ((x+c1)+c2 -> x+(c1+c2), (x+c1)+y -> (x+y)+c1, x*c0+x*c1 -> x*(c0+c1)), which round
  differently. Refused where the graph has such a shape. x+0 -> x is refused only where the
  sum reaches an op that shows the sign of a zero (float_zero_sign_shows): elsewhere it
  differs only in the sign of a zero result (x = -0), which the hello's `tolerances:
  zero-sign` declares, so the check compares this simplifier's float outputs with +0
  matching -0."""
  if u.dtype not in FLOATS or u.op not in (Ops.ADD, Ops.MUL): return None
  a, b = u.src
  if u.op is Ops.MUL and (_const(a, lambda v: v == 0) or _const(b, lambda v: v == 0)):
    return tag("float-fast-math", "float x*0 (tinygrad folds it to 0; here inf*0 is nan and -1*0 is -0)")
  if u.op is Ops.MUL and any(_const(s, lambda v: v == -1) for s in u.src) and any(s.op is Ops.ADD for s in u.src):
    return tag("float-fast-math", "float -1*(x+c) (tinygrad distributes it; the sign of a zero sum differs)")
  for s in (a, b):
    if s.op is u.op and s.dtype == u.dtype and (any(_const(x) for x in s.src) or any(_const(x) for x in u.src)):
      return tag("float-fast-math", f"float {u.op.name} chain with a constant (tinygrad regroups it; float {u.op.name} is not associative here)")
  if u.op is Ops.ADD and _scaled_terms_share_factor(a, b):
    return tag("float-fast-math", "float x*c0+x*c1 (tinygrad combines it to x*(c0+c1), which rounds differently)")
  return None


# Ops whose result shows the sign of a zero operand as more than the sign of a zero:
# RECIPROCAL (1/-0 is -inf) and BITCAST (the sign bit). Every other op gives a zero or the
# same value for -0 and +0 (SQRT, SIN, TRUNC, NEG, MUL keep a zero a zero; LOG2 of either
# is -inf; comparisons, MAX/MIN and casts to integers cannot tell them apart; the integer
# divisions take no floats).
SIGN_READERS = (Ops.RECIPROCAL, Ops.BITCAST)


def zero_sign_source(u):
  """What tinygrad folds to a value that differs from ours only in the sign of a zero, or
  None: x+0 -> x (x = -0, where -0+0 is +0 here); MAX with a zero constant, folded by
  Python's max (max(-0.0, 0.0) is -0.0, here +0) or by bounds; TRUNC of a constant in
  (-1, -0], which math.trunc folds to +0 (here -0)."""
  if u.dtype not in FLOATS: return None
  if u.op is Ops.ADD and any(_const(s, lambda v: v == 0) for s in u.src): return "x+0", "fast-math"
  if u.op is Ops.MAX and any(_const(s, lambda v: v == 0) for s in u.src): return "MAX with a zero constant", "const-fold"
  if u.op is Ops.TRUNC and _const(u.src[0], lambda v: -1 < v < 0 or (v == 0 and math.copysign(1, v) < 0)):
    return "TRUNC of a constant in (-1, -0]", "const-fold"
  return None


def float_zero_sign_shows(sink):
  """The hello's `tolerances: zero-sign` covers the zero_sign_source folds in a stored
  result (the check compares this simplifier's float outputs with +0 matching -0), not
  after an op that turns the sign of a zero into another value: refused where such a
  shape reaches, through any ops, a RECIPROCAL or a BITCAST (1/(x+0) is +inf here and
  -inf after the fold)."""
  source = {}
  for u in sink.toposort():
    carried = next((source[s] for s in u.src if s in source), None)
    if carried is not None and u.op in SIGN_READERS:
      what, cls = carried
      return tag(f"float-{cls}", f"float {what} reaching {u.op.name} (tinygrad's fold differs in the sign of a zero, which {u.op.name} shows)")
    found = carried or zero_sign_source(u)
    if found is not None: source[u] = found
  return None


def _scaled_terms_share_factor(a, b):
  def factors(t):
    if t.op is Ops.MUL and any(_const(s) for s in t.src): return {s for s in t.src if not _const(s)}
    return {t}
  terms_a = factors(a) | (set().union(*(factors(s) for s in a.src)) if a.op is Ops.ADD else set())
  return bool(factors(b) & terms_a) and (a.op is Ops.MUL or b.op is Ops.MUL)


def float_where_is_max(u):
  """tinygrad folds (a<b).where(b,a) with a constant a into MAX(a,b); here MAX propagates
  NaN and MAX(-0,+0) is +0, where the select keeps a: the two differ on NaN and zeros."""
  if u.op is not Ops.WHERE or u.dtype not in FLOATS or u.src[0].op is not Ops.CMPLT: return None
  (x, y), t, f = u.src[0].src, u.src[1], u.src[2]
  if (x.op is Ops.CONST and t is y and f.op is Ops.CONST) or (y.op is Ops.CONST and t.op is Ops.CONST and f is x):
    return tag("float-fast-math", "float WHERE(a<b, b, a) with constants (tinygrad folds it to MAX, which differs on NaN and -0)")
  return None


def float_const_fold_differs(u):
  """tinygrad folds constants with Python: max(a, b) keeps a NaN by operand order (here MAX
  propagates NaN; its bounds rule picks a too). Its other Python folds differ only in the
  sign of a zero (zero_sign_source)."""
  if u.dtype not in FLOATS: return None
  if u.op is Ops.MAX and any(_const(s, math.isnan) for s in u.src):
    return tag("float-const-fold", "float MAX of a NaN constant (tinygrad folds it by Python's max, which keeps NaN by operand order)")
  return None


def range_closed_twice(sink):
  """Here a RANGE may be closed by several ENDs (the loop runs once per END); tinygrad's
  full rewrite gives each RANGE one END (its linearizer asserts otherwise)."""
  seen = {}
  for u in sink.toposort():
    if u.op is Ops.END:
      for r in u.src[1:]:
        if r in seen: return tag("range-closed-twice", "a RANGE closed by two ENDs (tinygrad's full rewrite takes one END per RANGE)")
        seen[r] = u
  return None


def range_tinygrad_never_makes(sink):
  """tinygrad's scheduler makes no RANGE of end 1 (indexing.new_range gives CONST 0 for a
  dimension of 1) and no kernel for an empty tensor; its full rewrite assumes both: a REDUCE
  over a RANGE of end 1 asserts in reduce_unparented ("some reduce srcs aren't ranges", once
  symbolic folds the range) and nested RANGEs of end 0 raise a KeyError in graph_rewrite."""
  for u in sink.toposort():
    # an end pinned by its bounds (a folded expression) is the constant symbolic makes of it
    end = u.src[0] if u.op is Ops.RANGE else None
    if end is not None and end.vmin == end.vmax and end.vmin in (0, 1):
      return tag("range-end-0-1", f"a RANGE of end {end.vmin} (tinygrad's scheduler makes none; its full rewrite assumes so)")
  return None


NODE_CHECKS = (index_may_leave_int64, float_fast_math, float_where_is_max, float_const_fold_differs)


def semantic_gate(sink, full_rewrite=False):
  """None if checking tinygrad's rewrite of `sink` (from to_tinygrad) against SEMANTICS.md
  is meaningful, else the difference that makes it not (a reason for `unsupported`).
  `full_rewrite`: the rewrite is full_rewrite_to_sink, not the symbolic rules alone."""
  for u in sink.toposort():
    for check in NODE_CHECKS:
      if (reason := check(u)) is not None: return reason
  if (reason := signed_int_may_wrap(sink)) is not None: return reason
  if (reason := float_zero_sign_shows(sink)) is not None: return reason
  if full_rewrite: return range_closed_twice(sink) or range_tinygrad_never_makes(sink)
  return None
