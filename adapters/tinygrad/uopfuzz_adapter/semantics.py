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


# ---- run requests: tensor programs (and kernels at the pipeline stage), before tinygrad runs them
#
# run_gate(text) is asked first for every run request (server.answer_run). It declines where
# tinygrad's devices differ from SEMANTICS.md by a definition, on the inputs of this very run:
# a tensor program is evaluated here, in Python, after SEMANTICS.md (values only as far as
# the gates need them: which reduce inputs hold a NaN, which 8/16-bit signed results leave
# their dtype), so a program is declined only on the seeds where the difference can show.

TRANSCENDENTAL = ("EXP2", "LOG2", "SIN")
# tinygrad's EXP2/LOG2/SIN of these are its polynomial approximations (codegen/decomp/
# transcendental.py) evaluated in the narrow type: a few ULPs off (device-transcendental-ulps)
NARROW_FLOATS = ("float16", "bfloat16")
SUBINT_SIGNED = ("int8", "int16")
# ops whose result modulo 2^bits depends only on their operands modulo 2^bits: an 8/16-bit
# value tinygrad's C leaves unnarrowed (computed in int) through these is narrowed right
# where it is stored
MODULAR = ("ADD", "SUB", "MUL", "NEG", "AND", "OR", "XOR", "SHL", "RESHAPE", "PERMUTE", "EXPAND", "PAD",
           "SHRINK", "FLIP", "CONTIGUOUS", "REALIZE")
DIVISIONS = ("CDIV", "CMOD", "FLOORDIV", "FLOORMOD")
EVAL_LIMIT = 1 << 18  # elements evaluated at most; past it the gates judge by the ops alone


class _CannotEval(Exception):
  """The program holds what this evaluator does not compute (a dtype, an op, too many elements)."""


def _wrap(v, dtype):
  if dtype == "bool": return bool(v)
  lo, hi = _int_range(dtype)
  return ((v - lo) % (hi - lo + 1)) + lo


def _int_range(dtype):
  from uopfuzz_adapter.values import INT_RANGE
  if dtype not in INT_RANGE: raise _CannotEval(f"dtype {dtype}")
  return INT_RANGE[dtype]


def _is_float(dtype): return dtype.startswith("float") or dtype == "bfloat16"


def _rnd(v, dtype):
  from uopfuzz_adapter.values import _round_double
  if dtype not in ("float16", "float32", "float64"): raise _CannotEval(f"dtype {dtype}")
  return _round_double(v, dtype)


def _strides(shape):
  out, acc = [], 1
  for d in reversed(shape):
    out.append(acc)
    acc *= d
  return out[::-1]


def _gather(shape, src_shape, src_vals, where, fill):
  """Values of a view: out[i] = src[where(i)] (a multi-index), or `fill` where it gives None."""
  import itertools
  st = _strides(src_shape)
  out = []
  for idx in itertools.product(*(range(d) for d in shape)):
    s = where(idx)
    out.append(fill if s is None else src_vals[sum(a * b for a, b in zip(s, st))])
  return out


def _float_op(op, a, b=None):
  try:
    if op == "ADD": return a + b
    if op == "SUB": return a - b
    if op == "MUL": return a * b
    if op == "NEG": return -a
    if op in ("MAX", "MIN"): return math.nan if math.isnan(a) or math.isnan(b) else (max if op == "MAX" else min)(a, b)
    if op == "RECIPROCAL": return 1.0 / a if a != 0 else math.copysign(math.inf, a)
    if op == "SQRT": return math.nan if math.isnan(a) or a < 0 else math.sqrt(a)
    if op == "EXP2": return 2.0 ** a if not math.isnan(a) else a
    if op == "LOG2": return math.nan if math.isnan(a) or a < 0 else -math.inf if a == 0 else math.log2(a)
    if op == "SIN": return math.nan if math.isinf(a) or math.isnan(a) else math.sin(a)
    if op == "TRUNC": return float(math.trunc(a)) if math.isfinite(a) else a
  except OverflowError:
    return math.inf
  raise _CannotEval(f"float {op}")


def _int_op(op, a, b=None):
  if op == "ADD": return a + b
  if op == "SUB": return a - b
  if op == "MUL": return a * b
  if op == "NEG": return -a
  if op == "MAX": return max(a, b)
  if op == "MIN": return min(a, b)
  if op == "AND": return a & b
  if op == "OR": return a | b
  if op == "XOR": return a ^ b
  if op == "SHL": return a << (b & 63)
  if op == "SHR": return a >> (b & 63)
  if b == 0 and op in DIVISIONS: return 0  # UB here: the tensor oracle skips the seed
  if op == "CDIV": return (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
  if op == "CMOD": return a - b * ((abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1))
  if op == "FLOORDIV": return a // b
  if op == "FLOORMOD": return a % b
  raise _CannotEval(f"int {op}")


class TensorValues:
  """A tensor program (tensor.Program) evaluated on its inputs after SEMANTICS.md, with what
  the gates ask: `nan_reduce` (a float MAX/MIN REDUCE_AXIS whose input holds a NaN),
  `overflow` (8/16-bit signed ADD/SUB/MUL/NEG nodes whose exact result left the dtype) and
  `min_by_minus_one` (signed divisions of the dtype's MIN by -1), as node positions."""

  def __init__(self, prog):
    self.prog, self.vals = prog, []
    self.nan_reduce, self.overflow, self.min_by_minus_one = [], [], []
    total = 0
    for i, node in enumerate(prog.nodes):
      if node.op == "REALIZE":
        self.vals.append(None)
        continue
      total += max(1, _numel(node.shape))
      if total > EVAL_LIMIT: raise _CannotEval(f"more than {EVAL_LIMIT} elements")
      self.vals.append(self._node(i, node))

  def _node(self, i, node):
    op, dt, shape = node.op, node.dtype, tuple(node.shape)
    src = [self.vals[s] for s in node.srcs]
    sdt = [self.prog.nodes[s].dtype for s in node.srcs]
    ssh = [tuple(self.prog.nodes[s].shape) for s in node.srcs]
    n = _numel(shape)
    if op == "PARAM": return list(self.prog.inputs[node.arg])
    if op == "CONST": return [node.arg] * n
    if op in ("RESHAPE", "CONTIGUOUS"): return list(src[0])
    if op == "PERMUTE":
      order = node.arg
      inv = [order.index(k) for k in range(len(order))]
      return _gather(shape, ssh[0], src[0], lambda idx: [idx[inv[k]] for k in range(len(order))], None)
    if op == "EXPAND": return _gather(shape, ssh[0], src[0], lambda idx: [0 if d == 1 else x for x, d in zip(idx, ssh[0])], None)
    if op == "PAD":
      zero = 0.0 if _is_float(dt) else False if dt == "bool" else 0
      def at(idx):
        s = [x - b for x, (b, _) in zip(idx, node.arg)]
        return s if all(0 <= x < d for x, d in zip(s, ssh[0])) else None
      return _gather(shape, ssh[0], src[0], at, zero)
    if op == "SHRINK": return _gather(shape, ssh[0], src[0], lambda idx: [x + b for x, (b, _) in zip(idx, node.arg)], None)
    if op == "FLIP":
      axes = set(node.arg)
      return _gather(shape, ssh[0], src[0], lambda idx: [d - 1 - x if k in axes else x for k, (x, d) in enumerate(zip(idx, ssh[0]))], None)
    if op == "REDUCE_AXIS": return self._reduce(i, node, src[0], ssh[0])
    if op == "WHERE": return [b if c else f for c, b, f in zip(*src)]
    if op == "CAST": return [self._cast(v, sdt[0], dt) for v in src[0]]
    if op == "BITCAST":
      from uopfuzz_adapter import values
      if sdt[0] not in values.FORMATS or dt not in values.FORMATS: raise _CannotEval("bitcast dtype")
      return values.unpack(values.pack(src[0], sdt[0]), dt)
    if op in ("CMPLT", "CMPNE", "CMPEQ"):
      f = {"CMPLT": lambda a, b: a < b, "CMPNE": lambda a, b: a != b, "CMPEQ": lambda a, b: a == b}[op]
      return [f(a, b) for a, b in zip(*src)]
    if _is_float(dt): return [_rnd(_float_op(op, *args), dt) for args in zip(*src)]
    if dt == "bool":
      if op in ("AND", "OR", "XOR", "MAX", "MIN", "ADD", "MUL"): return [bool(_int_op(op, int(a), int(b))) for a, b in zip(*src)]
      raise _CannotEval(f"bool {op}")
    out, lo_hi = [], _int_range(dt)
    for args in zip(*src):
      exact = _int_op(op, *args)
      if op in DIVISIONS and dt.startswith("int") and args[0] == lo_hi[0] and args[1] == -1 and i not in self.min_by_minus_one:
        self.min_by_minus_one.append(i)
      if dt in SUBINT_SIGNED and op in ("ADD", "SUB", "MUL", "NEG") and not lo_hi[0] <= exact <= lo_hi[1] and i not in self.overflow:
        self.overflow.append(i)
      out.append(_wrap(exact, dt))
    return out

  @staticmethod
  def _cast(v, fr, to):
    if to == "bool": return v != 0
    if _is_float(to): return _rnd(float(v), to)
    if _is_float(fr):
      if not math.isfinite(v): return 0  # UB here: the tensor oracle skips the seed
      v = math.trunc(v)
    return _wrap(int(v), to)

  def _reduce(self, i, node, vals, src_shape):
    import itertools
    rop, axes = node.arg
    dt = node.dtype
    if _is_float(dt) and rop in ("MAX", "MIN") and any(math.isnan(v) for v in vals) and i not in self.nan_reduce:
      self.nan_reduce.append(i)
    st = _strides(node.shape)
    acc = [None] * _numel(node.shape)
    for v, idx in zip(vals, itertools.product(*(range(d) for d in src_shape))):
      k = sum((0 if a in axes else x) * s for a, (x, s) in enumerate(zip(idx, st)))
      if acc[k] is None: acc[k] = v
      elif _is_float(dt): acc[k] = _rnd(_float_op(rop, acc[k], v), dt)
      else: acc[k] = _wrap(_int_op(rop, int(acc[k]), int(v)), dt)
    ident = {"ADD": 0, "MUL": 1}.get(rop, 0)
    return [ident if a is None else a for a in acc]


def _numel(shape):
  n = 1
  for d in shape: n *= d
  return n


def _users(prog):
  users = [[] for _ in prog.nodes]
  for i, node in enumerate(prog.nodes):
    for s in node.srcs: users[s].append(i)
  return users


def _unnarrowed_reader(prog, start):
  """The first node past `start` (an 8/16-bit signed result) that reads its value as more
  than its residue modulo 2^bits (a widening CAST, a compare, a division, MAX/MIN, SHR, a
  MAX/MIN reduce, ...), following only MODULAR ops and WHERE's value operands; None when
  every path ends in a store (REALIZE), which narrows it as SEMANTICS.md does."""
  from uopfuzz_adapter.values import ITEMSIZE
  users, seen, todo = _users(prog), set(), [start]
  while todo:
    i = todo.pop()
    for u in users[i]:
      if u in seen: continue
      seen.add(u)
      node = prog.nodes[u]
      carries = node.op in MODULAR or (node.op == "WHERE" and node.srcs[0] != i) or \
        (node.op == "REDUCE_AXIS" and node.arg[0] in ("ADD", "MUL"))
      if node.op in ("CAST", "BITCAST") and node.dtype in ITEMSIZE and prog.nodes[i].dtype in ITEMSIZE and \
         "int" in node.dtype and ITEMSIZE[node.dtype] <= ITEMSIZE[prog.nodes[i].dtype]: carries = True  # a narrowing
      if not carries: return u
      todo.append(u)
  return None


def tensor_gate(prog):
  """The reason tinygrad's devices may not be checked against the tensor oracle on this run
  of `prog` (a tensor.Program with its inputs), or None. Each is a declared difference
  (corpus/findings/tinygrad/root-causes.md names the entry):

  - transcendental-ulps (device-transcendental-ulps): EXP2/LOG2/SIN of float16/bfloat16 are
    tinygrad's polynomial approximations in the narrow type on its devices, a few ULPs off;
  - nan-max (max-reduce-skips-nan): a float MAX/MIN reduce whose input holds a NaN on this
    run: tinygrad's MAX is a select (`(a<b)?b:a`, Python's max) that keeps or drops a NaN by
    operand order, where SEMANTICS.md's MAX is NaN;
  - signed-overflow (subint-signed-overflow-not-gated-end-to-end, signed-cdiv-overflow-not-
    gated): an int8/int16 ADD/SUB/MUL/NEG whose exact result leaves its dtype on this run and
    whose unwrapped value an op reads (tinygrad's C computes it in int and does not narrow it
    before a widening cast; signed overflow is not defined there), or a signed division of
    the dtype's MIN by -1 (C's `%` and `/` trap on it on CPU, killing the adapter).
  """
  for i, node in enumerate(prog.nodes):
    if node.op in TRANSCENDENTAL and node.dtype in NARROW_FLOATS:
      return tag("transcendental-ulps", f"{node.op} of {node.dtype} at %{i} (tinygrad's polynomial approximation in "
                 f"{node.dtype}, a few ULPs from the correctly rounded value)")
  try:
    ev = TensorValues(prog)
  except _CannotEval as e:
    return _static_gate(prog, str(e))
  if ev.nan_reduce:
    i = ev.nan_reduce[0]
    return tag("nan-max", f"REDUCE_AXIS {prog.nodes[i].arg[0]} of {prog.nodes[i].dtype} at %{i} over a NaN on this run "
               "(tinygrad's MAX is a select that keeps or drops a NaN by operand order)")
  for i in ev.overflow:
    if (reader := _unnarrowed_reader(prog, i)) is not None:
      return tag("signed-overflow", f"{prog.nodes[i].op} of {prog.nodes[i].dtype} at %{i} overflows on this run and "
                 f"%{reader} {prog.nodes[reader].op} reads it unwrapped (tinygrad's C computes it in int)")
  if ev.min_by_minus_one:
    i = ev.min_by_minus_one[0]
    return tag("signed-overflow", f"{prog.nodes[i].op} of {prog.nodes[i].dtype} at %{i} divides the dtype's MIN by -1 on "
               "this run (C's / and % overflow there; CPU traps)")
  return sum_order_gate(prog, ev)


def _static_gate(prog, why):
  """tensor_gate's judgement by the ops alone, where the values are not evaluated (`why`)."""
  for i, node in enumerate(prog.nodes):
    if node.op == "REDUCE_AXIS" and _is_float(node.dtype) and node.arg[0] in ("MAX", "MIN"):
      return tag("nan-max", f"REDUCE_AXIS {node.arg[0]} of {node.dtype} at %{i}, its input not evaluated ({why}): "
                 "it may hold a NaN")
    if node.op in ("ADD", "SUB", "MUL", "NEG") and node.dtype in SUBINT_SIGNED and _unnarrowed_reader(prog, i) is not None:
      return tag("signed-overflow", f"{node.op} of {node.dtype} at %{i}, not evaluated ({why}): it may overflow")
    if node.op in DIVISIONS and node.dtype.startswith("int"):
      return tag("signed-overflow", f"{node.op} of {node.dtype} at %{i}, not evaluated ({why}): it may divide MIN by -1")
  return None


def run_gate(text):
  """The reason a run request's graph (.uop text) is declined before tinygrad runs it, or
  None (then the request goes on as usual, its own errors included). A kernel at the pipeline
  stage: EXP2/LOG2/SIN of float16/bfloat16 (transcendental-ulps); a tensor program:
  tensor_gate on the inputs it carries."""
  from uopfuzz_adapter import tensor, uop_text
  try:
    kernel = uop_text.parse(text)
  except Exception:  # noqa: BLE001  (the request's own path says what is wrong with it)
    return None
  if kernel.root.op == "SINK":
    for i, node in enumerate(kernel.nodes):
      if node.op in TRANSCENDENTAL and node.dtype.startswith(NARROW_FLOATS):
        return tag("transcendental-ulps", f"{node.op} of {node.dtype} at %{i} (tinygrad's polynomial approximation in "
                   f"{node.dtype}, a few ULPs from the correctly rounded value)")
    return None
  try:
    prog = tensor.Program(text)
  except Exception:  # noqa: BLE001  (declined or refused on the request's own path)
    return None
  return tensor_gate(prog)


# ---- reassociated float sums followed by other ops (device-opts-reassociate-float-sum)

UNIT_ROUNDOFF = {"float16": 2.0 ** -11, "float32": 2.0 ** -24, "float64": 2.0 ** -53}
MOVEMENT = ("RESHAPE", "PERMUTE", "EXPAND", "SHRINK", "FLIP", "CONTIGUOUS")


def _ulp(v, dtype):
  """The spacing of `dtype`'s floats at |v| (the larger one at a power of two), +inf past the largest."""
  if not math.isfinite(v): return math.inf
  if dtype == "float64": return math.ulp(abs(v)) * 2
  u = UNIT_ROUNDOFF[dtype] * 2
  m, e = math.frexp(abs(v))
  return max(u * 2.0 ** e, {"float16": 2.0 ** -24, "float32": 2.0 ** -149}[dtype])


def sum_order_errors(prog, ev):
  """Per node, per element, a bound on how far a device that adds the terms of a float ADD
  reduce (3 terms or more) in another order may be from the oracle's value (0: not at all,
  +inf: no bound, e.g. a compare the difference may flip). A reduce's own is twice
  gamma_{n-1} times the sum of its terms' magnitudes (SEMANTICS.md, "Reassociated float
  sums"), on top of its terms' own; every other op carries its operands' bounds by
  first-order error propagation plus one rounding of its result."""
  errs = []
  for i, node in enumerate(prog.nodes):
    if node.op == "REALIZE":
      errs.append(None)
      continue
    errs.append(_node_errors(prog, ev, errs, i, node))
  return errs


def _node_errors(prog, ev, errs, i, node):
  op, dt, n = node.op, node.dtype, _numel(node.shape)
  if op in ("PARAM", "CONST"): return [0.0] * n
  src_e = [errs[s] for s in node.srcs]
  src_v = [ev.vals[s] for s in node.srcs]
  if not any(e for se in src_e for e in se) and not (op == "REDUCE_AXIS" and node.arg[0] == "ADD" and _is_float(dt)):
    return [0.0] * n
  if op in MOVEMENT or op == "PAD":
    # the values' own gathering, on the errors: a view moves them, a pad adds exact zeros
    saved = ev.vals[node.srcs[0]]
    ev.vals[node.srcs[0]] = src_e[0]
    try:
      out = ev._node(i, node) if op != "PAD" else ev._node(i, _Retyped(node, "float64"))
    finally:
      ev.vals[node.srcs[0]] = saved
    return [float(e) for e in out]
  out_v = ev.vals[i]
  if op == "REDUCE_AXIS": return _reduce_errors(prog, node, src_v[0], src_e[0], out_v)
  res = []
  for k in range(n):
    v = out_v[k]
    a = [sv[k] for sv in src_v]
    e = [se[k] for se in src_e]
    res.append(_elementwise_error(op, dt, [prog.nodes[s].dtype for s in node.srcs], v, a, e))
  return res


class _Retyped:
  """A node seen with another dtype (a PAD of errors pads with float zeros)."""

  def __init__(self, node, dtype):
    self.op, self.srcs, self.shape, self.arg, self.dtype = node.op, node.srcs, node.shape, node.arg, dtype


def _elementwise_error(op, dt, sdt, v, a, e):
  if not any(e): return 0.0
  if any(math.isinf(x) for x in e): return math.inf
  if not all(math.isfinite(x) for x in a) or (_is_float(dt) and not math.isfinite(v)):
    return _corner_error(op, dt, sdt, v, a, e)
  if op in ("CMPLT", "CMPNE", "CMPEQ"):
    return math.inf if abs(a[0] - a[1]) <= e[0] + e[1] else 0.0
  if op == "WHERE":
    if e[0]: return math.inf
    return e[1] if a[0] else e[2]
  if op == "CAST":
    if _is_float(dt) and _is_float(sdt[0]): return e[0] + _ulp(v, dt)
    if not _is_float(sdt[0]): return math.inf  # an int (or bool) that may differ
    lo, hi = a[0] - e[0], a[0] + e[0]
    return 0.0 if math.isfinite(a[0]) and math.trunc(lo) == math.trunc(hi) else math.inf
  if not _is_float(dt) or not math.isfinite(v) or not all(math.isfinite(x) for x in a): return math.inf
  if op in ("ADD", "SUB"): d = e[0] + e[1]
  elif op == "MUL": d = abs(a[0]) * e[1] + abs(a[1]) * e[0] + e[0] * e[1]
  elif op in ("NEG", "CONTIGUOUS"): return e[0]
  elif op in ("MAX", "MIN"):
    if abs(a[0] - a[1]) > e[0] + e[1]: return e[0] if v == a[0] else e[1]
    return max(e[0], e[1]) + abs(a[0] - a[1])
  elif op == "TRUNC": return 0.0 if math.trunc(a[0] - e[0]) == math.trunc(a[0] + e[0]) else math.inf
  elif op == "RECIPROCAL":
    if abs(a[0]) <= e[0]: return math.inf
    d = e[0] / (abs(a[0]) * (abs(a[0]) - e[0]))
  elif op == "SQRT":
    if a[0] - e[0] < 0: return math.inf
    d = math.sqrt(a[0] + e[0]) - math.sqrt(a[0] - e[0])
  elif op == "EXP2":
    try:
      d = 2.0 ** (a[0] + e[0]) - 2.0 ** a[0]
    except OverflowError:
      return math.inf
  elif op == "LOG2":
    if a[0] - e[0] <= 0: return math.inf
    d = math.log2(a[0]) - math.log2(a[0] - e[0])
  elif op == "SIN": d = e[0]
  else: return math.inf  # BITCAST and the rest: no bound
  return d + _ulp(v, dt)


def _same(x, y):
  return (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)) or x == y


def _corner_error(op, dt, sdt, v, a, e):
  """An operand or the result is not finite: 0 when every operand moved to either end of its
  bound gives the same result (NaN in, NaN out; inf + a number), else no bound."""
  import itertools
  if op in ("WHERE", "CAST", "BITCAST") or not all(_is_float(t) for t in sdt): return math.inf
  ends = [(x,) if not ex or not math.isfinite(x) else (x - ex, x, x + ex) for x, ex in zip(a, e)]
  cmp = {"CMPLT": lambda p, q: p < q, "CMPNE": lambda p, q: p != q, "CMPEQ": lambda p, q: p == q}
  for args in itertools.product(*ends):
    try:
      got = cmp[op](*args) if op in cmp else _float_op(op, *args)
    except _CannotEval:
      return math.inf
    if not _same(got, v): return math.inf
  return 0.0


def _reduce_errors(prog, node, vals, errs, out_v):
  import itertools
  rop, axes = node.arg
  dt, shape = node.dtype, node.shape
  st = _strides(shape)
  n_out = _numel(shape)
  mags, errsum, terms, worst = [0.0] * n_out, [0.0] * n_out, [0] * n_out, [0.0] * n_out
  grain = [math.inf] * n_out  # the largest power of two every term is a multiple of
  nonfinite, finite_mags = [False] * n_out, [0.0] * n_out
  src = prog.nodes[node.srcs[0]].shape
  for v, e, idx in zip(vals, errs, itertools.product(*(range(d) for d in src))):
    k = sum((0 if a in axes else x) * s for a, (x, s) in enumerate(zip(idx, st)))
    terms[k] += 1
    errsum[k] += e
    worst[k] = max(worst[k], e)
    mags[k] += abs(v) if math.isfinite(v) else math.inf
    if math.isfinite(v): finite_mags[k] += abs(v)
    else: nonfinite[k] = True
    if v and math.isfinite(v): grain[k] = min(grain[k], _grain(v))
  out = []
  for k in range(n_out):
    if math.isinf(errsum[k]) or math.isnan(errsum[k]): out.append(math.inf)
    elif not _is_float(dt): out.append(math.inf if errsum[k] else 0.0)
    elif rop == "ADD":
      m = terms[k] - 1
      mu = m * UNIT_ROUNDOFF[dt]
      gamma = 0.0 if m < 2 else math.inf if mu >= 1 else mu / (1 - mu)  # gamma_m bounds nothing from m*u = 1
      # terms that are all multiples of one power of two g, with sum |x| <= 2^p g: every
      # partial sum, in any order, is such a multiple and fits the significand, so is exact
      exact = math.isfinite(mags[k]) and (mags[k] == 0 or mags[k] <= grain[k] / UNIT_ROUNDOFF[dt])
      bound = errsum[k] + (0.0 if exact or not mags[k] else 2 * gamma * mags[k])
      if math.isnan(out_v[k]) and not errsum[k] and nonfinite[k]: bound = 0.0  # NaN or inf terms: NaN in any order
      elif math.isinf(out_v[k]) and not errsum[k] and nonfinite[k] and math.isfinite(finite_mags[k]) and \
          finite_mags[k] < _float_max(dt) / 2: bound = 0.0  # inf terms of one sign, the rest too small to overflow
      out.append(bound if math.isfinite(bound) and math.isfinite(out_v[k]) else (math.inf if bound else 0.0))
    elif rop in ("MAX", "MIN"): out.append(worst[k])
    else: out.append(math.inf)  # a product of values that may differ: not bounded here
  return out


def _float_max(dtype):
  return {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}[dtype]


def _grain(v):
  """The largest power of two the finite nonzero `v` is a multiple of."""
  num, den = abs(v).as_integer_ratio()
  return float((num & -num)) / den


def _direct_sum(prog, i):
  """Whether node i is a float ADD REDUCE_AXIS seen through movement ops (uopfuzz's check
  bounds such an output itself: check::output_sum_bounds)."""
  while prog.nodes[i].op in MOVEMENT: i = prog.nodes[i].srcs[0]
  node = prog.nodes[i]
  return node.op == "REDUCE_AXIS" and node.arg[0] == "ADD" and _is_float(node.dtype), i


def sum_order_gate(prog, ev):
  """[float-sum-order] where a float ADD reduce of 3 terms or more reaches an output through
  other ops and the order of its additions can change that output on this run (the bound
  above reaches the output's neighbouring float); an output that is itself such a sum, of
  terms that cannot differ, is left to uopfuzz's reassociated-sum bound."""
  errs = sum_order_errors(prog, ev)
  for k, s in enumerate(prog.outputs):
    direct, r = _direct_sum(prog, s)
    # a sum stored as it is: uopfuzz's own bound judges it where tinygrad's kernel keeps the
    # REDUCE, but where no bound holds (n*u >= 1: any order of float16 ones past 2048) a
    # kernel that folds the sum of a constant to c*n leaves uopfuzz nothing to judge it by
    if direct and not any(errs[prog.nodes[r].srcs[0]]) and not any(math.isinf(e) for e in errs[s]): continue
    for j, e in enumerate(errs[s]):
      if not e: continue
      v = ev.vals[s][j]
      if math.isinf(e) or not _is_float(prog.nodes[s].dtype) or e >= _ulp(v, prog.nodes[s].dtype) / 2:
        at = next((f" (unbounded from %{n} {prog.nodes[n].op})" for n, ne in enumerate(errs)
                   if ne and any(math.isinf(x) for x in ne)), "") if math.isinf(e) else ""
        return tag("float-sum-order", f"output {k}[{j}] ({v!r}) may move by {e:.3g}{at} with the order of a float sum's "
                   "additions on this run (tinygrad's devices add a reduce's terms in the order their opts choose)")
  return None
