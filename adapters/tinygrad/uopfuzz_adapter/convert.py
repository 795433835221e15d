""".uop kernel text <-> tinygrad UOp graph.

The contract the rest of the adapter uses: to_tinygrad() turns a kernel's .uop text into a
tinygrad SINK plus what from_tinygrad() needs to turn a rewritten SINK back into .uop text.
Anything the two IRs do not share raises Unsupported with a reason a person can read,
after its class ("[no-tinygrad-form] dtype bfloat16", "[no-uop-form] op AFTER (tinygrad-only)
in the rewrite"; declines.CLASSES); the server answers `unsupported` with it. A reason names
the cause, never a line or a value, so a campaign's counts per reason count causes.

The kernel form is the one tinygrad's scheduler hands to full_rewrite_to_sink: PARAMs with
their element dtype and a size, INDEX(PARAM, idx) used directly as the loaded value (tinygrad
adds its LOADs late), STORE(INDEX, value), END(body, ranges...), REDUCE(value, ranges...)
and a SINK carrying a KernelInfo. `index` is tinygrad's weakint, INVALID its Invalid CONST.
"""
import math
import sys

from tinygrad.dtype import AddrSpace, Invalid, dtypes
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp

from uopfuzz_adapter import declines, forms, uop_text


class Unsupported(Exception):
  """A kernel (or a rewrite) the adapter cannot check: str(e) is the reason, `[cls] text`
  with cls one of declines.CLASSES (a campaign counts its declines per class)."""

  def __init__(self, cls, text):
    super().__init__(declines.tag(cls, text))
    self.cls, self.text = cls, text

  @classmethod
  def of(cls, reason):
    """The Unsupported of a reason already tagged `[cls] text` (semantics.semantic_gate's)."""
    c = declines.class_of(reason)
    if c not in declines.CLASSES: raise ValueError(f"an untagged decline reason {reason!r}")
    return cls(c, reason[len(c) + 3:])


DTYPE_TO_TG = {
  "void": dtypes.void, "bool": dtypes.bool, "index": dtypes.weakint,
  "int8": dtypes.int8, "int16": dtypes.int16, "int32": dtypes.int32, "int64": dtypes.int64,
  "uint8": dtypes.uint8, "uint16": dtypes.uint16, "uint32": dtypes.uint32, "uint64": dtypes.uint64,
  "float16": dtypes.float16, "float32": dtypes.float32, "float64": dtypes.float64,
}
DTYPE_FROM_TG = {v: k for k, v in DTYPE_TO_TG.items()}

# Ops whose .uop and tinygrad forms are the same node with the same operands.
ALU = {name: getattr(Ops, name) for name in (
  "NEG", "RECIPROCAL", "SQRT", "EXP2", "LOG2", "SIN", "TRUNC",
  "ADD", "SUB", "MUL", "CDIV", "CMOD", "FLOORDIV", "FLOORMOD", "MAX",
  "CMPLT", "CMPNE", "CMPEQ", "AND", "OR", "XOR", "SHL", "SHR", "WHERE")}
ALU_FROM_TG = {v: k for k, v in ALU.items()}
COMPARISONS = ("CMPLT", "CMPNE", "CMPEQ")
REDUCE_OPS = {"ADD": Ops.ADD, "MUL": Ops.MUL, "MAX": Ops.MAX}
AXIS_TYPES = ("GLOBAL", "LOCAL", "WARP", "LOOP", "GROUP_REDUCE", "REDUCE", "UPCAST", "UNROLL",
              "THREAD", "DEVICE")


# tinygrad has no MIN, neither as an ALU op nor as a REDUCE op. MIN(a, b) is sent as
# flip(MAX(flip(a), flip(b))) and REDUCE MIN as flip(REDUCE MAX(flip(x))), with flip an
# order-reversing bijection of the dtype that cannot overflow: NEG for floats (exact, and
# MAX's NaN and -0/+0 rules mirror MIN's), XOR with all ones for integers and bool (~x).
# from_tinygrad reads the shape back as MIN.
def _flip(x, name):
  dt = DTYPE_TO_TG[name]
  if dtypes.is_float(dt): return UOp(Ops.NEG, dt, src=(x,))
  ones = True if dt is dtypes.bool else dt.max if dtypes.is_unsigned(dt) else -1
  return UOp(Ops.XOR, dt, src=(x, UOp(Ops.CONST, dt, arg=ones)))


def _unflip(u):
  """x if u is _flip(x) for u's dtype, else None."""
  if u.op is Ops.NEG and dtypes.is_float(u.dtype): return u.src[0]
  if u.op is not Ops.XOR: return None
  dt = u.dtype
  ones = True if dt is dtypes.bool else dt.max if dtypes.is_unsigned(dt) else -1
  for c, x in (u.src, u.src[::-1]):
    if c.op is Ops.CONST and c.arg is not Invalid and type(c.arg) is type(ones) and c.arg == ones: return x
  return None


class Conversion:
  """What from_tinygrad needs from to_tinygrad: the header, each buffer's and VAR's
  arguments as written (in/out, size and value bounds have no tinygrad field of their own)."""

  def __init__(self, header):
    self.header = list(header)
    self.params = {}  # slot -> (argument tokens, dtype name)
    self.vars = {}    # name -> (argument tokens, dtype name)
    # position of a node among the kernel's node lines -> (its .uop op, its dtype name, the
    # tinygrad UOp whose value is that node's value, or None for a node without one)
    self.values = []
    self.plain = None  # the kernel's SINK before its @forms were applied
    self.derived = {}  # float variable of the float-var form -> the plain expression it stands for


def _int(text, what):
  try:
    return int(text)
  except ValueError:
    raise Unsupported("no-tinygrad-form", f"{what} is not an integer") from None


def _literal(text, dtype):
  """A .uop literal as the Python value tinygrad keeps in a CONST of `dtype`."""
  if dtype == "bool":
    if text in ("true", "1"): return True
    if text in ("false", "0"): return False
    raise Unsupported("no-tinygrad-form", "a bool literal other than true, false, 1, 0")
  if dtype.startswith("float"): return float(text)
  return _int(text, f"{dtype} literal")


def to_tinygrad(text):
  """(sink UOp, Conversion) for the kernel in `text` (.uop). Raises Unsupported."""
  try:
    kernel = uop_text.parse(text)
  except uop_text.UopTextError as e:
    raise Unsupported("no-tinygrad-form", "not a .uop kernel (it does not parse)") from None
  if kernel.root.op != "SINK":
    raise Unsupported("tensor-program", f"root {kernel.root.op}: a tensor program, not a kernel (lower it first)")
  conv = Conversion(kernel.header)
  built = []
  for node in kernel.nodes:
    try:
      built.append(_to_uop(node, [built[s] for s in node.srcs], conv, kernel))
    except (KeyError, IndexError, ValueError, TypeError, OverflowError, RuntimeError, AssertionError) as e:
      # text the C++ verifier would reject, or a node tinygrad's constructors refuse
      raise Unsupported("no-tinygrad-form", f"{node.op} not convertible ({type(e).__name__})") from None
    # _to_uop returns the UOp holding the node's value: a LOAD's is its INDEX (tinygrad's
    # kernel form reads through it), a MIN's the outer flip of flip(MAX(flip a, flip b)), a
    # REDUCE MIN's the outer flip of flip(REDUCE MAX(flip x)), a VAR's its ALU PARAM;
    # a gated index WHERE(valid, idx, INVALID) is an INDEX's operand, never a value
    gated = node.op == "WHERE" and kernel.nodes[node.srcs[2]].op == "INVALID"
    conv.values.append((node.op, node.dtype, None if node.op in NO_VALUE or gated else built[-1]))
  # The `@forms` line: tinygrad's other spellings of the gated accesses (forms.py). The values
  # map above keeps the plain graph's nodes (bounds are of the kernel as written).
  try:
    spellings = forms.parse(kernel.header_value("forms"))
  except ValueError as e:
    raise Unsupported("no-tinygrad-form", f"@forms: {e}") from None
  conv.plain = built[-1]
  sink, conv.derived = forms.apply(built[-1], spellings)
  return sink, conv


def var_values(conv, values):
  """The values to bind a converted kernel's variables to, from its VAR values {name: int}:
  those and its float-var form's variables (forms.bound_values)."""
  return {**{name: values[name] for name in conv.vars}, **forms.bound_values(conv.derived, values)}


# .uop ops whose node is no number: buffers (a VAR is a PARAM in tinygrad, not here), the
# pointer an INDEX makes, effects, and INVALID (the absence of an index).
NO_VALUE = frozenset(("PARAM", "INDEX", "STORE", "END", "SINK", "INVALID"))


def _bound(v):
  """A vmin/vmax as a Python int (bool as 0/1), or None when it is not an integer."""
  if isinstance(v, (bool, int)): return int(v)
  if isinstance(v, float) and v.is_integer(): return int(v)
  return None


def value_bounds(conv):
  """[(k, vmin, vmax)]: tinygrad's bounds (UOp.vmin, UOp.vmax) of the value of each
  integer, index or bool node of the converted kernel, k its position among the node lines.
  Nodes without a value, float nodes and nodes whose bounds raise or are no integers are
  left out. Cheap: vmin/vmax are cached per UOp, and walking in topological order computes
  each from its sources' cached bounds."""
  out = []
  for k, (op, dtype, u) in enumerate(conv.values):
    if u is None or not (dtype in ("bool", "index") or _is_int(dtype)): continue
    try:
      lo, hi = _bound(u.vmin), _bound(u.vmax)
    except Exception:  # noqa: BLE001  (a bound tinygrad cannot compute is left out, never an error)
      continue
    if lo is not None and hi is not None: out.append((k, lo, hi))
  return out


def _dtype(name):
  # Quantized types are uopfuzz's own: tinygrad has no dtype with a scale and a zero point,
  # so nothing it could rewrite them into would mean the same. The reason names the storage
  # kind alone (no scale), so a campaign counts one cause per storage type.
  storage = uop_text.quantized_storage(name)
  if storage: raise Unsupported("quantized", f"quantized dtype q{storage} (tinygrad has no quantized types)")
  if name not in DTYPE_TO_TG: raise Unsupported("no-tinygrad-form", f"dtype {name}")
  return DTYPE_TO_TG[name]


def op_is_quantized(op):
  """The quantized conversions: a DEQUANTIZE has a float dtype, but its operand is quantized."""
  return op in ("QUANTIZE", "DEQUANTIZE", "REQUANTIZE")


def _to_uop(node, src, conv, kernel):
  if op_is_quantized(node.op): raise Unsupported("quantized", f"op {node.op} (tinygrad has no quantized types)")
  op, dt = node.op, _dtype(node.dtype)
  kv, bare = node.keyed()
  if op == "CONST":
    return UOp(Ops.CONST, dt, arg=dt.const(_literal(node.args[0], node.dtype)))
  if op == "INVALID": return UOp.invalid()
  if op == "PARAM":
    slot, size = _int(kv["slot"], "PARAM slot"), _int(kv["size"], "PARAM size")
    bounds = None
    if "vmin" in kv or "vmax" in kv:
      bounds = (_int(kv.get("vmin", dt.min), "vmin"), _int(kv.get("vmax", dt.max), "vmax"))
    conv.params[slot] = (node.args, node.dtype)
    mult = _int(kv["multiple_of"], "multiple_of") if "multiple_of" in kv else None
    return UOp.param(slot, dt, shape=(size,), vmin_vmax=bounds, multiple_of=mult)
  if op == "VAR":
    conv.vars[kv["name"]] = (node.args, node.dtype)
    return UOp.variable(kv["name"], _int(kv["min"], "VAR min"), _int(kv["max"], "VAR max"), dtype=dt,
                        multiple_of=_int(kv.get("multiple_of", "1"), "multiple_of"), param=True)
  if op == "RANGE":
    if not bare or bare[0] not in AXIS_TYPES: raise Unsupported("no-tinygrad-form", f"RANGE axis type {bare}")
    ids = tuple(_int(i, "axis id") for i in kv["axis"].split("."))
    return UOp(Ops.RANGE, dt, src=tuple(src), arg=ids + (AxisType[bare[0]],))
  if op == "INDEX": return UOp(Ops.INDEX, dt, src=tuple(src))
  # tinygrad's kernels read through INDEX itself; an explicit LOAD is only kept for its alt.
  if op == "LOAD": return src[0] if len(src) == 1 else UOp(Ops.LOAD, dt, src=tuple(src))
  if op in ("STORE", "END"): return UOp(getattr(Ops, op), dtypes.void, src=tuple(src))
  if op == "REDUCE":
    if kv.get("op") == "MIN":
      inner = UOp(Ops.REDUCE, dt, src=(_flip(src[0], node.dtype),) + tuple(src[1:]), arg=(Ops.MAX, 0))
      return _flip(inner, node.dtype)
    if kv.get("op") not in REDUCE_OPS: raise Unsupported("no-tinygrad-form", f"REDUCE op={kv.get('op')}")
    return UOp(Ops.REDUCE, dt, src=tuple(src), arg=(REDUCE_OPS[kv["op"]], 0))
  if op == "SINK":
    name = kernel.header_value("name") or "kernel"
    return UOp(Ops.SINK, dtypes.void, src=tuple(src), arg=KernelInfo(name=name))
  if op in ("CAST", "BITCAST"): return UOp(getattr(Ops, op), dt, src=tuple(src), arg=dt)
  if op == "MIN":
    return _flip(UOp(Ops.MAX, dt, src=tuple(_flip(x, node.dtype) for x in src)), node.dtype)
  if op in ALU: return UOp(ALU[op], dt, src=tuple(src))
  raise Unsupported("no-tinygrad-form", f"op {op}: not a kernel op tinygrad's codegen takes")


def _wrap(value, dtype):
  """A tinygrad integer constant as a `dtype` value: tinygrad may leave a sized-int CONST
  outside its dtype's range (its folds reason on unbounded ints); rendered, it wraps, as
  every sized-int value does here. An index is 64-bit here and unbounded there."""
  dt = DTYPE_TO_TG[dtype]
  if dtype == "index":
    if not dtypes.int64.min <= value <= dtypes.int64.max:
      raise Unsupported("index-past-int64", "an index constant outside int64 in the rewrite (tinygrad's index is unbounded)")
    return value
  span = 1 << dt.bitsize
  value %= span
  return value - span if value > dt.max else value


def _is_int(dtype):
  return dtype == "index" or dtype.startswith(("int", "uint"))


def _format(value, dtype):
  if value is Invalid: raise Unsupported("no-uop-form", "an Invalid CONST outside a gated index")
  if dtype == "bool": return "true" if value else "false"
  if dtype.startswith("float"):
    v = float(value)
    if math.isnan(v): return "nan"
    if math.isinf(v): return "inf" if v > 0 else "-inf"
    return repr(v)
  if isinstance(value, float):
    if not value.is_integer(): raise Unsupported("no-uop-form", f"a non-integral float constant where {dtype} is needed")
    value = int(value)
  return str(_wrap(int(value), dtype))


def _identity(op, dtype):
  """The value a REDUCE op=`op` of `dtype` starts from (SEMANTICS.md, REDUCE)."""
  if op in ("ADD", "MUL"): return 0 if op == "ADD" else 1
  highest = op == "MIN"
  if dtype == "bool": return highest
  if dtype.startswith("float"): return math.inf if highest else -math.inf
  dt = dtypes.int64 if dtype == "index" else DTYPE_TO_TG[dtype]
  return dt.max if highest else dt.min


class _Printer:
  """Builds .uop nodes from a tinygrad graph, adding the LOADs tinygrad leaves implicit and
  giving weak constants the dtype of the op that uses them."""

  def __init__(self, conv):
    self.conv = conv
    self.nodes = []
    self.memo = {}

  def add(self, key, op, srcs, args, dtype):
    if key not in self.memo:
      self.memo[key] = len(self.nodes)
      self.nodes.append(uop_text.Node(op, srcs, args, dtype))
    return self.memo[key]

  def dtype(self, u):
    if u.dtype not in DTYPE_FROM_TG: raise Unsupported("no-uop-form", f"dtype {u.dtype} ({u.op.name}) in the rewrite")
    return DTYPE_FROM_TG[u.dtype]

  def value(self, u, want=None):
    """The node for `u` used as a value of dtype `want` (None: its own)."""
    if u.op is Ops.CONST and u.arg is Invalid:
      return self.add(("invalid",), "INVALID", [], [], "index")
    if u.op is Ops.WHERE and u.src[2].op is Ops.CONST and u.src[2].arg is Invalid: return self.emit(u)
    if u.op is Ops.INDEX:
      if u.src[0].op is Ops.EXPAND and u.src[0].src[0].op is Ops.CONST: return self.const_buffer_load(u)
      idx = self.emit(u)
      return self.add(("load", u), "LOAD", [idx], [], self.dtype(u))
    if u.op is Ops.CONST and u.dtype in dtypes.weaks:
      # a weak float alone (a CAST's operand) is the Python double tinygrad holds
      return self.const(u.arg, want or ("index" if u.dtype is dtypes.weakint else "float64"))
    if u.op is Ops.RANGE and u.dtype is not dtypes.weakint:
      # a RANGE the full rewrite narrowed: the loop is an index RANGE, its value a CAST of it
      rng = self.emit(u)
      if want == "index": return rng
      want = want or self.dtype(u)
      return self.add(("cast", u, want), "CAST", [rng], [], want)
    have = self.dtype(u)
    if want is None or want == have: return self.emit(u)
    if u.op is Ops.CONST:
      return self.const(u.arg, want)
    # Integers of another width are the index narrowed by the full rewrite (int32 indexing) or
    # a weak int taking the width of its use: the CAST states what tinygrad's code does, and
    # the check judges it (a narrowing that wraps is a mismatch, not hidden).
    # A bool where tinygrad's promotion wants an integer is 0 or 1, as a CAST makes it.
    if not ((_is_int(have) or have == "bool") and _is_int(want)):
      raise Unsupported("no-uop-form", f"{u.op.name} of {have} where {want} is needed")
    return self.add(("cast", u, want), "CAST", [self.value(u)], [], want)

  def index(self, s):
    """An INDEX's index. tinygrad folds a gated index whose gate is always false,
    WHERE(false, i, Invalid), to the bare Invalid; .uop keeps Invalid as a WHERE's last
    source only, so it reads back as the gated-off index it stands for."""
    if s.op is Ops.CONST and s.arg is Invalid:
      off = [self.const(False, "bool"), self.const(0, "index"), self.value(s)]
      return self.add(("gated off",), "WHERE", off, [], "index")
    return self.value(s, "index")

  def const(self, value, dtype):
    text = _format(value, dtype)
    return self.add(("const", text, dtype), "CONST", [], [text], dtype)

  def const_buffer_load(self, u):
    """A read of INDEX(EXPAND(CONST c), idx): tinygrad's form of a buffer whose bounds pin
    every element to c (vmin = vmax). It reads c, or 0 through an index gated off."""
    dt = self.dtype(u)
    gate = u.src[1] if len(u.src) == 2 else None
    if gate is not None and gate.op is Ops.CONST and gate.arg is Invalid: return self.const(0, dt)  # gated off
    c = self.const(u.src[0].src[0].arg, dt)
    if gate is None or not (gate.op is Ops.WHERE and gate.src[2].op is Ops.CONST and gate.src[2].arg is Invalid): return c
    valid = self.value(gate.src[0], "bool")
    return self.add(("where", valid, c, dt), "WHERE", [valid, c, self.const(0, dt)], [], dt)

  def effect(self, u):
    """An effect's node, or None for tinygrad's NOOP (a STORE it proved never runs)."""
    if u.op is Ops.NOOP: return None
    if u.op not in (Ops.STORE, Ops.END): raise Unsupported("no-uop-form", f"op {u.op.name} as an effect in the rewrite")
    return self.emit(u)

  def emit(self, u):
    if u in self.memo: return self.memo[u]
    op = u.op
    if op is Ops.CONST:
      dt = self.dtype(u)
      return self.add(u, "CONST", [], [_format(u.arg, dt)], dt)
    if op is Ops.PARAM:
      if u.arg.addrspace is AddrSpace.ALU:
        if u.arg.name in self.conv.derived: return self.value(self.conv.derived[u.arg.name])
        if u.arg.name not in self.conv.vars: raise Unsupported("no-uop-form", "a variable the rewrite introduced")
        args, dt = self.conv.vars[u.arg.name]
        var = self.add(("var", u.arg.name), "VAR", [], args, dt)
        # the full rewrite narrows a variable to the width it is used at
        return var if self.dtype(u) == dt else self.add(u, "CAST", [var], [], self.dtype(u))
      if u.arg.slot not in self.conv.params: raise Unsupported("no-uop-form", "a PARAM slot the rewrite introduced")
      args, dt = self.conv.params[u.arg.slot]
      if self.dtype(u) != dt: raise Unsupported("no-uop-form", f"a PARAM of {dt} retyped to {u.dtype} in the rewrite")
      return self.add(u, "PARAM", [], args, dt)
    if op is Ops.RANGE:
      ids, kind = u.arg[:-1], u.arg[-1]
      if kind.name not in AXIS_TYPES: raise Unsupported("no-uop-form", f"RANGE axis type {kind.name}")
      if not ids or any(not isinstance(i, int) or i < 0 for i in ids): raise Unsupported("no-uop-form", "a RANGE axis id that is not a tuple of naturals")
      end = self.value(u.src[0], "index")
      return self.add(u, "RANGE", [end], ["axis=" + ".".join(map(str, ids)), kind.name], "index")
    if op is Ops.INDEX:
      if u.src[0].op is not Ops.PARAM or u.src[0].dtype != u.dtype:
        raise Unsupported("no-uop-form", f"INDEX of {u.dtype} into {u.src[0].op.name} of {u.src[0].dtype} in the rewrite")
      buf = self.emit(u.src[0])
      return self.add(u, "INDEX", [buf] + [self.index(s) for s in u.src[1:]], [], self.dtype(u))
    if op is Ops.LOAD:
      if u.src[0].op is not Ops.INDEX or len(u.src) > 2: raise Unsupported("no-uop-form", f"LOAD of {u.src[0].op.name} or with more than a gate in the rewrite")
      dt = self.dtype(u)
      return self.add(u, "LOAD", [self.emit(u.src[0])] + [self.value(s, dt) for s in u.src[1:]], [], dt)
    if op is Ops.STORE:
      if len(u.src) != 2 or u.src[0].op is not Ops.INDEX: raise Unsupported("no-uop-form", "STORE with a gate or not into an INDEX")
      index, value = u.src
      if value.op is Ops.WHERE and value.src[2].op is Ops.CONST and value.src[2].arg is Invalid and len(index.src) == 2:
        if index.src[1].op is Ops.WHERE: raise Unsupported("no-uop-form", "a store gated on both its index and its value in the rewrite")
        # a gated store spelled on its value (forms.py gate-value; tinygrad's own gated-store
        # fold, uop/symbolic.py, reads it so): .uop gates the index
        gated = self.add(("gated store", u), "WHERE", [self.value(value.src[0], "bool"), self.index(index.src[1]), self.value(value.src[2])], [], "index")
        idx = self.add(("gated index", u), "INDEX", [self.emit(index.src[0]), gated], [], self.dtype(index))
        return self.add(u, "STORE", [idx, self.value(value.src[1], self.dtype(index))], [], "void")
      idx = self.emit(index)
      return self.add(u, "STORE", [idx, self.value(value, self.dtype(index))], [], "void")
    if op is Ops.END:
      body = self.effect(u.src[0])
      ranges = self.ranges(u)
      if body is None or not ranges: return body  # an END of no range is its body
      return self.add(u, "END", [body] + ranges, [], "void")
    if op is Ops.REDUCE:
      rop = u.arg[0] if isinstance(u.arg, tuple) else u.arg
      if rop not in REDUCE_OPS.values(): raise Unsupported("no-uop-form", f"REDUCE op {rop}")
      return self.reduce(u, rop.name, self.value(u.src[0], self.dtype(u)))
    if op is Ops.SINK:
      effects = [e for e in (self.effect(s) for s in u.src) if e is not None]
      return self.add(u, "SINK", effects, [], "void")
    if op is Ops.CAST and u.src[0].op is Ops.CONST and u.src[0].dtype in dtypes.weaks:
      # tinygrad's sized constant: a weak CONST with its width on a CAST
      dt = self.dtype(u)
      if _is_int(dt) == (u.src[0].dtype is dtypes.weakint) and dt != "bool": return self.const(u.src[0].arg, dt)
    if op in (Ops.CAST, Ops.BITCAST):
      return self.add(u, op.name, [self.value(u.src[0])], [], self.dtype(u))
    if (inner := _unflip(u)) is not None and (found := self.min_of(u, inner)) is not None: return found
    if op is Ops.MULACC:
      dt = self.dtype(u)
      if not _is_int(dt): raise Unsupported("no-uop-form", f"MULACC of {dt}: fused or not is the backend's choice")
      a, b, c = (self.value(s, dt) for s in u.src)
      return self.add(u, "ADD", [self.add(("mul", u), "MUL", [a, b], [], dt), c], [], dt)
    if op in ALU_FROM_TG:
      # a gated index stays index-typed here when tinygrad lowers the index to int32
      dt = "index" if op is Ops.WHERE and u.src[2].op is Ops.CONST and u.src[2].arg is Invalid else self.dtype(u)
      return self.add(u, ALU_FROM_TG[op], self._alu_srcs(u), [], dt)
    raise Unsupported("no-uop-form", f"op {op.name} (tinygrad-only) in the rewrite")

  def ranges(self, closer):
    """The RANGE nodes an END or REDUCE closes. tinygrad folds a RANGE of end 1 to its only
    value, CONST 0, and leaves that in the closer's list, where its lowering skips every
    entry that is not a RANGE: a loop of one iteration, so dropping it keeps the meaning."""
    return [self.emit(r) for r in closer.src[1:] if r.op is Ops.RANGE]

  def reduce(self, u, op, value, closer=None):
    """REDUCE op=`op` of `value` over what `closer` (default u) still closes. With no RANGE
    left, tinygrad's lowering runs one step, acc = identity, acc = acc op value, which is
    written as that binary op (REDUCE needs a range here): exact, -0.0 included (0.0 + -0.0
    is +0.0 in both)."""
    dt = self.dtype(u)
    ranges = self.ranges(u if closer is None else closer)
    if ranges: return self.add(u, "REDUCE", [value] + ranges, [f"op={op}"], dt)
    alu = {"MAX": "OR", "MIN": "AND"}[op] if dt == "bool" else op  # bool MAX/MIN are any/all
    return self.add(u, alu, [self.const(_identity(op, dt), dt), value], [], dt)

  def min_of(self, u, inner):
    """The MIN node for u = flip(inner) when inner is MAX of flips or REDUCE MAX of a flip."""
    dt = self.dtype(u)
    if inner.op is Ops.MAX and inner.dtype == u.dtype:
      a, b = (_unflip(x) for x in inner.src)
      if a is None or b is None: return None
      return self.add(u, "MIN", [self.value(a, dt), self.value(b, dt)], [], dt)
    if inner.op is Ops.REDUCE and inner.dtype == u.dtype and inner.arg[0] is Ops.MAX and (x := _unflip(inner.src[0])) is not None:
      return self.reduce(u, "MIN", self.value(x, dt), closer=inner)
    return None

  def _alu_srcs(self, u):
    name, dt = ALU_FROM_TG[u.op], self.dtype(u)
    if name == "WHERE":
      if u.src[2].op is Ops.CONST and u.src[2].arg is Invalid:
        return [self.value(u.src[0], "bool"), self.value(u.src[1], "index"), self.value(u.src[2])]
      return [self.value(u.src[0], "bool")] + [self.value(s, dt) for s in u.src[1:]]
    if name in COMPARISONS:
      # operands share one dtype: a weak one takes the other's
      a, b = u.src
      strong = next((x.dtype for x in (a, b) if x.dtype not in dtypes.weaks), a.dtype)
      want = DTYPE_FROM_TG.get(strong)
      return [self.value(a, want), self.value(b, want)]
    return [self.value(s, dt) for s in u.src]


def from_tinygrad(sink, conversion):
  """.uop text of a tinygrad SINK that came from to_tinygrad(...) and was rewritten.
  Raises Unsupported for ops the rewrite introduced that .uop cannot express."""
  if sink.op is not Ops.SINK: raise Unsupported("no-uop-form", f"the rewrite's root is {sink.op.name}, not SINK")
  limit = sys.getrecursionlimit()
  sys.setrecursionlimit(max(limit, 20000))
  try:
    printer = _Printer(conversion)
    printer.emit(sink)
  finally:
    sys.setrecursionlimit(limit)
  # @input/@output name buffers by slot, and .uop requires the slot's PARAM: a buffer the
  # rewrite no longer reads (a pinned input folded to its constant) loses its line.
  slots = {n.keyed()[0].get("slot") for n in printer.nodes if n.op == "PARAM"}
  header = [h for h in conversion.header if not (h.startswith(("@input ", "@output ")) and h.split()[1] not in slots)]
  return uop_text.print_kernel(uop_text.Kernel(header, printer.nodes))



