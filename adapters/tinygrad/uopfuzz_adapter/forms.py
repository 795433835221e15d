"""Forms: tinygrad's other spellings of a gated access, which .uop cannot write.

.uop has one spelling of a gated access: the gate is the index, `INDEX(buf, WHERE(valid,
idx, INVALID))`, and INVALID appears nowhere else (SEMANTICS.md, INVALID). tinygrad's spec
is wider: Invalid poisons any ALU op it reaches (`exec_alu`: a binary op of Invalid is
Invalid), so the gate may sit deep inside the index expression, on the stored value, nested,
or with its branches swapped, and its symbolic rules (uop/symbolic.py, pm_data_invalid and
the gated-store fold) exist to move it back. A kernel's `@forms` header line names which of
these spellings the adapter builds from the kernel's gated accesses after converting it;
each means the same by tinygrad's own definition of Invalid, so the oracle's result on the
.uop kernel is the expected one. A campaign draws them (gen/forms.h) where the hello offers
them (`forms:`).

  gate-value  STORE(INDEX(b, WHERE(g, i, Inv)), v) -> STORE(INDEX(b, i), WHERE(g, v, Inv))
  gate-nest   a gate AND(p, q)                    -> WHERE(p, WHERE(q, x, Inv), Inv)
  gate-sink   WHERE(g, f(x, c), Inv)              -> f(WHERE(g, x, Inv), c), down to a leaf
  gate-flip   WHERE(g, x, Inv)                    -> WHERE(g != true, Inv, x)
  float-var   CAST(v) to a float, times or plus a float CONST c where one is
              -> a float variable of that value, its bounds the expression's at
                 v's bounds (fractional with a fractional c)

The gate forms apply in that order, each to every gated access of the kernel; float-var to
every float CAST of a variable. A float variable's bounds are the expression's endpoints
rounded to its dtype: rounding is monotonic, so every value the expression takes lies
between them. The run binds it to the expression's value (bound_values), and a rewrite
that keeps it reads back as the expression (convert.Conversion.derived). A form that has nothing
to apply to (gate-value on a gated load, gate-nest on a gate that is no AND) leaves it as it
is. No tinygrad import at module level: the hello's list is needed without it.
"""
import math

FORMS = ("gate-value", "gate-nest", "gate-sink", "gate-flip", "float-var")

# Forms a kernel cannot be run with on tinygrad's devices (the pipeline stage), and why.
NOT_RUNNABLE = {"float-var": "float-var at the pipeline stage: tinygrad's runtimes take int variable values only (the vals of a program launch)"}


def offered(stage):
  """The forms the hello offers at `stage`: all of them, but those a device cannot run at
  the pipeline stage."""
  return tuple(f for f in FORMS if stage != "pipeline" or f not in NOT_RUNNABLE)


def parse(header_value):
  """The forms a `@forms` header value names (words, any order), in FORMS order. Raises
  ValueError naming an unknown word."""
  words = (header_value or "").split()
  unknown = [w for w in words if w not in FORMS]
  if unknown: raise ValueError(f"unknown form {unknown[0]!r} (known: {' '.join(FORMS)})")
  return tuple(f for f in FORMS if f in words)


def apply(sink, forms):
  """(`sink` spelled as `forms` say (a tuple from parse()), {float variable name: the
  plain expression it stands for})."""
  if not forms: return sink, {}
  from tinygrad.uop.ops import Ops
  derived = _float_vars(sink) if "float-var" in forms else {}
  if derived: sink = sink.substitute({expr: var for var, expr in derived.values()})
  derived = {var.arg.name: expr for var, expr in derived.values()}
  replaced = {}
  for u in sink.toposort():
    if u.op is Ops.INDEX and len(u.src) == 2 and _is_gate(u.src[1]):
      replaced[u] = u.replace(src=(u.src[0], _spell(u.src[1], forms)))
  for u in sink.toposort():
    if u.op is Ops.STORE and "gate-value" in forms and u.src[0].op is Ops.INDEX and len(u.src[0].src) == 2 and _is_gate(u.src[0].src[1]):
      index, value = u.src[0], u.src[1]
      gate = index.src[1]
      plain = index.replace(src=(index.src[0], gate.src[1]))
      moved = _spell(gate.replace(src=(gate.src[0], value, gate.src[2]), dtype=value.dtype), forms)
      replaced[u] = u.replace(src=(plain, moved) + u.src[2:])
  return (sink.substitute(replaced) if replaced else sink), derived


def bound_values(derived, var_values):
  """The values of the float variables `derived` names, from the kernel's VAR values
  {name: int}: each expression evaluated as tinygrad's own evaluator does (rounded to its
  dtype at every step)."""
  return {name: _evaluate(expr, var_values) for name, expr in derived.items()}


def _float_vars(sink):
  """{expression: (float variable, expression)} for each float CAST of a variable, widened
  to CAST(v) * c or CAST(v) + c where its only use is such an op with a float CONST."""
  from tinygrad.dtype import dtypes
  from tinygrad.uop.ops import Ops, UOp
  users = {}
  for u in sink.toposort():
    for s in u.src: users.setdefault(s, []).append(u)
  out = {}
  for u in sink.toposort():
    if not (u.op is Ops.CAST and dtypes.is_float(u.dtype) and u.src[0].op is Ops.PARAM and u.src[0].arg.vmin_vmax is not None): continue
    expr = u
    use = users.get(u, [])
    if len(use) == 1 and use[0].op in (Ops.MUL, Ops.ADD) and use[0].dtype == u.dtype:
      other = use[0].src[1] if use[0].src[0] is u else use[0].src[0]
      if other.op is Ops.CONST and isinstance(other.arg, float) and math.isfinite(other.arg): expr = use[0]
    lo, hi = u.src[0].arg.vmin_vmax
    ends = sorted(_evaluate(expr, {u.src[0].arg.name: v}) for v in (lo, hi))
    if not all(math.isfinite(e) for e in ends): continue
    name = f"{u.src[0].arg.name}_{len(out)}_f"
    out[expr] = (UOp.variable(name, ends[0], ends[1], dtype=u.dtype, param=True), expr)
  return out


def _evaluate(expr, var_values):
  """The float value of CAST(v) [* or + c] with v's value from var_values, rounded to the
  expression's dtype after each op (tinygrad's exec_alu then truncate)."""
  from tinygrad.dtype import truncate
  from tinygrad.uop.ops import Ops

  def value(u):
    if u.op is Ops.CONST: return float(u.arg)
    if u.op is Ops.PARAM: return var_values[u.arg.name]
    if u.op is Ops.CAST: return truncate[u.dtype](float(value(u.src[0])))
    a, b = (value(s) for s in u.src)
    return truncate[u.dtype](a * b if u.op is Ops.MUL else a + b)
  return value(expr)


def _is_gate(u):
  from tinygrad.uop.ops import Ops
  return u.op is Ops.WHERE and u.src[2].is_invalid


def _spell(gate, forms):
  """WHERE(g, x, Inv) spelled as `forms` say (gate-value is the caller's)."""
  from tinygrad.dtype import dtypes
  from tinygrad.uop.ops import Ops, UOp
  valid, x, invalid = gate.src

  def gated(leaf):
    if "gate-nest" in forms and valid.op is Ops.AND and valid.dtype == dtypes.bool:
      p, q = valid.src
      return _where(p, _where(q, leaf, invalid, forms), invalid, forms)
    return _where(valid, leaf, invalid, forms)

  if "gate-sink" not in forms: return gated(x)
  return _sink(x, gated)


def _where(valid, x, invalid, forms):
  from tinygrad.dtype import dtypes
  from tinygrad.uop.ops import Ops, UOp
  if "gate-flip" in forms:
    negated = UOp(Ops.CMPNE, dtypes.bool, src=(valid, UOp.const(True, dtypes.bool)))
    return UOp(Ops.WHERE, x.dtype, src=(negated, invalid, x))
  return UOp(Ops.WHERE, x.dtype, src=(valid, x, invalid))


def _sink(x, gated):
  """f(..., gated(leaf), ...): the gate moved down the first operand that is not a constant
  through unary and binary ALU ops (and casts) of x's expression to the leaf it reaches (a
  RANGE, a variable, a load, a REDUCE, a constant, a WHERE)."""
  from tinygrad.uop.ops import GroupOp, Ops
  if x.op in (GroupOp.Unary | GroupOp.Binary | {Ops.CAST, Ops.BITCAST}):
    pick = next((k for k, s in enumerate(x.src) if s.op is not Ops.CONST), None)
    if pick is not None:
      src = list(x.src)
      src[pick] = _sink(src[pick], gated)
      return x.replace(src=tuple(src))
  return gated(x)
