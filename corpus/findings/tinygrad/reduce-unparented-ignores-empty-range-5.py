#!/usr/bin/env python3
"""uopfuzz reproducer reduce-unparented-ignores-empty-range-5: tinygrad's full rewrite changes what a kernel computes.

Signature   mismatch/uop/symbolic.py:450/oracle
Rule        tinygrad/uop/symbolic.py:450
Details     seed 0: out[3] is -1 on the original (a REDUCE MUL of 0 - 1, the ADD reduce over RANGE -1 being empty) but -8 on the rewrite (reduce_unparented counts -1 iterations: the base becomes -2, and POW expands (-2)**3)
Root cause  reduce-unparented-ignores-empty-range
Found on    tinygrad tree-ed32e5aa5014 (not checked against a newer tinygrad)
Stage       full: the scheduler's kernel-graph cleanup (symbolic + pm_reduce_simplify), then
            full_rewrite_to_sink's steps up to "postopt symbolic" (apply_opts left out)
Found by    uopfuzz fuzz --simplifier tinygrad --tinygrad-stage full --level kernel --time 150 --seed 47 --jobs 1 --corpus /tmp/formsfv --json /tmp/formsfv.json

The kernel below is the one uopfuzz's tinygrad adapter built from the case. The script
rewrites it as the campaign did, evaluates the original and the rewritten graph at the
case's inputs (VARS, INPUTS; output buffers start zeroed) with tinygrad's scalar semantics
(exec_alu), and compares every output buffer: floats by bits, except that +0 matches -0
(the adapter declares tinygrad's zero-sign tolerance) and NaN matches NaN. Where a value of
the original lies outside tinygrad's vmin/vmax of its node (a wrong fact a rule may have
trusted), it prints that as a `diagnosis:` line.

Run:   PYTHONPATH=<tinygrad checkout> python3 reduce-unparented-ignores-empty-range-5.py
       exit 0: the rewrite keeps every output (fixed); 1: the bug is there (a wrong output,
       an undefined rewrite, or a crash: traceback and tinygrad file:line); 2: cannot
       check (the original kernel is itself undefined, or the evaluator lacks an op)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest reduce-unparented-ignores-empty-range-5
"""
import itertools
import math
import os
import struct
import sys
import traceback
import unittest

from tinygrad.dtype import AddrSpace, ConstFloat, Invalid, dtypes, truncate
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, ParamArg, UOp, exec_alu, graph_rewrite, identity_element, python_alu
from tinygrad.codegen.simplify import (pm_flatten_range, pm_load_collapse, pm_reduce_simplify,
                                       pm_reduce_unparented, pm_simplify_ranges, pm_split_ranges)
from tinygrad.schedule.multi import multi_pm
from tinygrad.schedule.rangeify import pm_mops
from tinygrad.uop.symbolic import pm_move_where_on_load, sym, symbolic

inf, nan = math.inf, math.nan  # how pyrender spells these float constants

# The case's inputs: VAR values, input buffers (slot -> every element); output buffers
# (slot -> size) start zeroed, as uopfuzz's oracle runs a kernel.
VARS = {'x0': 3}
INPUTS = {}
OUTPUTS = {0: 4}

# What check() decides: "outputs" (the rewrite keeps every output buffer) or "bounds"
# (tinygrad's vmin/vmax of the original kernel hold at every value it takes).
CHECK = "outputs"


def build():
  """The kernel as uopfuzz's tinygrad adapter hands it to tinygrad:
  tinygrad's own pyrender of it (tinygrad/uop/render.py)."""
  c1 = UOp(Ops.PARAM, dtypes.float, (UOp.const(4, dtypes.weakint),), ParamArg(0, dtypes.float))
  c2 = UOp(Ops.STACK, dtypes.void, ())
  c3 = UOp(Ops.PARAM, dtypes.weakint, (c2,), ParamArg(-1, dtypes.weakint, vmin_vmax=(2, 3), multiple_of=1, name='x0', addrspace=AddrSpace.ALU))
  c5 = UOp.const(1.0, dtypes.float)
  c7 = UOp.range(-1, 2, AxisType.REDUCE)
  c9 = UOp(Ops.SUB, dtypes.float, (c5.reduce(c7, arg=(Ops.ADD, 0)), c5))
  c10 = UOp(Ops.RANGE, dtypes.weakint, (c3,), (1, AxisType.REDUCE))
  c11 = c9.reduce(c10, arg=(Ops.MUL, 0))
  c12 = c1.index(c3).store(c11)
  ast = c12.sink(arg=KernelInfo(name='reduce-unparented-ignores-empty-range-5', axis_types=(), dont_use_locals=False, applied_opts=(), opts_to_apply=None, estimates=None, beam=0))
  return ast


def rewrite(sink):
  """The rewrite the campaign ran, stage full."""
  # get_kernel_graph's cleanup (schedule/rangeify.py), then full_rewrite_to_sink (codegen/__init__.py)
  sink = graph_rewrite(sink, symbolic + pm_reduce_simplify, name='symbolic+reduce_collapse')
  sink = graph_rewrite(sink, multi_pm, name='multi_pm')
  sink = graph_rewrite(sink, pm_mops, bottom_up=True, name='early movement ops')
  sink = graph_rewrite(sink, pm_load_collapse, name='load collapse')
  sink = graph_rewrite(sink, pm_split_ranges + pm_flatten_range, ctx={}, name='split ranges')
  sink = graph_rewrite(sink, sym + pm_flatten_range, name='initial symbolic')
  sink = graph_rewrite(sink, pm_flatten_range + pm_simplify_ranges, ctx={}, name='simplify ranges')
  # apply_opts (BEAM, hand-coded optimizations) is left out, as in the campaign
  sink = graph_rewrite(sink, sym + pm_move_where_on_load + pm_flatten_range + pm_reduce_unparented, name='postopt symbolic')
  return sink


# ---- a small evaluator: tinygrad's scalar semantics (exec_alu, truncate), UB as in C;
# ---- the check of tinygrad's bounds (vmin/vmax) against the values it computes ----

class Undefined(Exception):
  """An evaluation C code leaves undefined (uopfuzz's SEMANTICS.md: UB), where tinygrad's
  exec_alu would return some value (x // 0 is 0 there)."""


def scalar(dt, v):
  """v as a value of dt, the way tinygrad's PYTHON device converts (dt.const, then truncate).
  Floats become plain floats: a CONST's ConstFloat has nan == nan, which is for hashing."""
  if v is Invalid: return v
  v = truncate.get(dt, lambda x: x)(dt.const(v))
  return float(v) if isinstance(v, float) else v


def int_range(dt):
  """(lowest, highest) of an integer dtype; tinygrad's index (weakint) is int64 in C."""
  dt = dtypes.int64 if dt is dtypes.weakint else dt
  return dt.min, dt.max


def alu(op, dt, xs):
  """exec_alu (tinygrad's scalar semantics: sized ints wrap, a float MAX is Python's max),
  refusing what is UB in C."""
  if op in (Ops.CDIV, Ops.CMOD, Ops.FLOORDIV, Ops.FLOORMOD) and dtypes.is_int(dt) and xs[1] == 0:
    raise Undefined(f"{op.name} of {xs[0]} by zero")
  bits = 64 if dt is dtypes.weakint else dt.bitsize
  if op in (Ops.SHL, Ops.SHR) and not 0 <= xs[1] < bits: raise Undefined(f"{op.name} by {xs[1]} of a {bits}-bit value")
  r = exec_alu(op, dt, xs)
  if dt is dtypes.weakint and r is not Invalid and not int_range(dt)[0] <= r <= int_range(dt)[1]:
    raise Undefined(f"index {op.name} overflows int64: {r}")
  return r


def convert(op, dt, x, sdt):
  """CAST (dt.const + truncate, as tinygrad's PYTHON device) or BITCAST (struct)."""
  if op is Ops.CAST:
    if dtypes.is_float(sdt) and dtypes.is_int(dt):
      lo, hi = int_range(dt)
      if not (math.isfinite(x) and lo <= math.trunc(x) <= hi): raise Undefined(f"CAST of {x} to {dt}")
    return scalar(dt, x)
  if dtypes.is_float(sdt) and not dtypes.is_float(dt) and math.isnan(x): raise Undefined(f"BITCAST of NaN to {dt}")
  return scalar(dt, struct.unpack(dt.fmt, struct.pack(sdt.fmt, x))[0])


def evaluate(sink, var_values, inputs, seen=None):
  """{slot: element values} of every buffer after running the kernel `sink` once: input
  buffers from `inputs`, every other buffer zeroed, VARs from `var_values`. Raises
  Undefined for UB and NotImplementedError for an op it does not know. A dict `seen` gets,
  once the kernel has run, node -> (lowest, highest) of the integer and bool values the
  node took (a REDUCE's whole result, never a partial sum; Invalid set aside)."""
  bufs, env, memo, stored, deps = {}, {}, {}, set(), {}
  for u in sink.toposort():
    if u.op is Ops.PARAM and u.arg.addrspace is not AddrSpace.ALU:
      zero = scalar(u.dtype, 0)
      bufs[u.arg.slot] = [scalar(u.dtype, v) for v in inputs[u.arg.slot]] if u.arg.slot in inputs else [zero] * u.max_numel()
    # the RANGEs a node's value depends on: those of its sources, less the ones a REDUCE closes
    deps[u] = frozenset().union(*(deps[s] for s in u.src), {u} if u.op is Ops.RANGE else ())
    if u.op is Ops.REDUCE: deps[u] -= set(u.src[1:])

  def loops(ranges):
    """Runs once per value of the RANGEs (the first outermost), bound in env. A RANGE that
    tinygrad folded to CONST 0 in the list is one iteration (its lowering skips it)."""
    ranges = [r for r in ranges if r.op is Ops.RANGE]
    for values in itertools.product(*(range(value(r.src[0])) for r in ranges)):
      env.update(zip(ranges, values))
      yield
    for r in ranges: env.pop(r, None)

  def address(idx):
    """(slot, element) an INDEX reads or writes, or None where its gate is off."""
    buf = idx.src[0]
    if buf.op is not Ops.PARAM or len(idx.src) < 2: raise NotImplementedError(f"the evaluator cannot access {buf.op.name} "
                                                                              f"through an INDEX of {len(idx.src) - 1} operand(s)")
    i, size = value(idx.src[1]), len(bufs[buf.arg.slot])
    if i is Invalid or (len(idx.src) > 2 and not value(idx.src[2])): return None
    if not 0 <= i < size: raise Undefined(f"access to element {i} of buffer {buf.arg.slot} (size {size})")
    return buf.arg.slot, i

  def load(idx, alt=None):
    """An INDEX read as a value (tinygrad adds its LOADs late); gated off: alt, else 0.
    tinygrad's form of a buffer pinned to one value c (vmin = vmax), EXPAND(CONST c), reads c."""
    buf = idx.src[0]
    if buf.op is Ops.EXPAND and buf.src[0].op is Ops.CONST and len(idx.src) == 2:
      if value(idx.src[1]) is not Invalid: return value(buf.src[0])
    elif (where := address(idx)) is not None:
      return bufs[where[0]][where[1]]
    return scalar(idx.dtype, 0) if alt is None else value(alt)  # gated off

  def value(u):
    key = (u, tuple(env[r] for r in deps[u] if r in env))
    if key not in memo: memo[key] = compute(u)
    return memo[key]

  def compute(u):
    op, dt, src = u.op, u.dtype, u.src
    if op is Ops.CONST: return scalar(dt, u.arg)
    if op is Ops.RANGE:
      if u not in env: raise NotImplementedError("a RANGE read outside the END or REDUCE that closes it")
      return env[u]
    if op is Ops.PARAM and u.arg.addrspace is AddrSpace.ALU: return scalar(dt, var_values[u.arg.name])
    if op is Ops.INDEX: return load(u)
    if op is Ops.LOAD: return load(src[0], src[1] if len(src) > 1 else None)
    if op is Ops.REDUCE:
      acc = scalar(dt, identity_element(u.arg[0], dt))
      for _ in loops(src[1:]): acc = alu(u.arg[0], dt, [acc, value(src[0])])
      return acc
    if op in (Ops.CAST, Ops.BITCAST): return convert(op, dt, value(src[0]), src[0].dtype)
    if op in python_alu: return alu(op, dt, [value(s) for s in src])  # WHERE too: a select of evaluated operands (SEMANTICS.md)
    raise NotImplementedError(f"the evaluator cannot evaluate {op.name} (dtype {dt})")

  def run(u):
    """Runs an effect: SINK, END, STORE (tinygrad's NOOP is a store it proved never runs)."""
    if u.op is Ops.SINK:
      for s in u.src: run(s)
    elif u.op is Ops.END:
      for _ in loops(u.src[1:]): run(u.src[0])
    elif u.op is Ops.STORE and u.src[0].op is Ops.INDEX:
      where, v = address(u.src[0]), value(u.src[1])
      if where is None: return
      if where in stored: raise Undefined(f"a second STORE to element {where[1]} of buffer {where[0]}")
      stored.add(where)
      bufs[where[0]][where[1]] = scalar(u.src[0].dtype, v)
    elif u.op is not Ops.NOOP:
      raise NotImplementedError(f"the evaluator cannot run {u.op.name} as an effect")

  run(sink)
  if seen is not None:  # every value computed is in memo, once per iteration of its RANGEs
    for (u, _), v in memo.items():
      if v is Invalid or not has_bounds(u.dtype): continue
      lo, hi = seen.get(u, (v := int(v), v))
      seen[u] = (min(lo, v), max(hi, v))
  return bufs


def has_bounds(dt):
  """An integer, index (weakint) or bool dtype: the nodes whose vmin/vmax are checked."""
  return dt is dtypes.bool or dtypes.is_int(dt)


def bounds(u):
  """tinygrad's (vmin, vmax) of node u as integers (a bool as 0/1), or None where they raise
  or are not integers."""
  try:
    claim = (u.vmin, u.vmax)
  except Exception:  # noqa: BLE001  (a bound tinygrad cannot compute claims nothing)
    return None
  if not all(isinstance(b, (bool, int)) or (isinstance(b, float) and b.is_integer()) for b in claim): return None
  return int(claim[0]), int(claim[1])


def dtype_name(dt):
  """int32, uint8, float32, bool, weakint (tinygrad's index)."""
  if dtypes.is_int(dt) and dt is not dtypes.weakint: return f"{'u' if dtypes.is_unsigned(dt) else ''}int{dt.bitsize}"
  return f"float{dt.bitsize}" if dtypes.is_float(dt) and dt.bitsize in (16, 32, 64) else dt.name


def node_name(u):
  """ADD(int32); a conversion with both dtypes: CAST(weakint -> int32)."""
  if u.op in (Ops.CAST, Ops.BITCAST): return f"{u.op.name}({dtype_name(u.src[0].dtype)} -> {dtype_name(u.dtype)})"
  return f"{u.op.name}({dtype_name(u.dtype)})"


def wrong_fact(sink, seen):
  """The first node in toposort order (the innermost) whose tinygrad [vmin, vmax] leaves out
  a value it took (`seen`, from evaluate), as a line naming the node, the value and its
  operands' vmin/vmax; None where every bound holds. Set aside, as uopfuzz's own check
  (check/bounds_check.cpp) does: a signed sized-int node whose [vmin, vmax] itself leaves
  its dtype, and every node computed from one. There tinygrad assumes no signed overflow,
  as C does, while the value wraps. Unsigned wrapping is defined in C: not set aside."""
  apart = set()
  for u in sink.toposort():
    claim = bounds(u) if has_bounds(u.dtype) else None
    if any(s in apart for s in u.src) or (claim and u.dtype in dtypes.sints and
                                          (claim[0] < u.dtype.min or claim[1] > u.dtype.max)):
      apart.add(u)
      continue
    if claim is None or u not in seen: continue
    (lo, hi), (vmin, vmax) = seen[u], claim
    if vmin <= lo and hi <= vmax: continue
    def show(s): return f"{node_name(s)} [{b[0]}, {b[1]}]" if (b := bounds(s)) else f"{node_name(s)} ?"
    operands = ", ".join(show(s) for s in u.src if has_bounds(s.dtype)) or "none with bounds"
    return (f"wrong fact: {node_name(u)} vmin/vmax [{vmin}, {vmax}], but it takes {lo if lo < vmin else hi}; "
            f"operands: {operands}")
  return None


def canonical(bufs, outputs):
  """The output buffers (`outputs`: slot -> size) as compared: +0 and -0 alike (the adapter
  declares tinygrad's zero-sign tolerance), every NaN alike, other floats by value (= bits).
  A buffer the graph no longer holds stays zeroed."""
  def key(v): return "nan" if isinstance(v, float) and math.isnan(v) else v + 0.0 if isinstance(v, float) else v
  return {slot: [key(v) for v in bufs.get(slot, [0] * size)] for slot, size in outputs.items()}


def differences(expected, got, outputs):
  """`out[slot][i]: expected A got B` for every output element that differs."""
  a, b = canonical(expected, outputs), canonical(got, outputs)
  show = lambda bufs, slot, i: repr(bufs[slot][i]) if slot in bufs else "0"  # noqa: E731
  return [f"out[{slot}][{i}]: expected {show(expected, slot, i)} got {show(got, slot, i)}"
          for slot in outputs for i in range(outputs[slot]) if a[slot][i] != b[slot][i]]


def tinygrad_where(exc):
  """file:line, relative to the tinygrad package, of the innermost traceback frame in it."""
  import tinygrad
  package, where = os.path.dirname(os.path.abspath(tinygrad.__file__)), None
  for entry in traceback.extract_tb(exc.__traceback__):
    if os.path.abspath(entry.filename).startswith(package + os.sep):
      where = f"{os.path.relpath(os.path.abspath(entry.filename), package)}:{entry.lineno}"
  return where



def run_original(sink):
  """The original kernel's buffers, and the wrong fact its values show (a line) or None."""
  seen = {}
  bufs = evaluate(sink, VARS, INPUTS, seen)
  return bufs, wrong_fact(sink, seen)


def check_bounds(sink):
  """The finding is a wrong fact: tinygrad's vmin/vmax of a node of the original kernel
  leave out a value the node takes. No rewrite runs; returns the exit status."""
  try:
    _, fact = run_original(sink)
  except (Undefined, NotImplementedError) as e:
    print(f"CANNOT CHECK: the original kernel cannot be evaluated: {type(e).__name__}: {e}")
    return 2
  if fact:
    print(fact)
    print("FAIL: tinygrad's vmin/vmax of the original kernel leave out a value it takes")
    return 1
  print("ok: tinygrad's vmin/vmax hold at every value of the original kernel")
  return 0


def diagnose(sink):
  """Prints the wrong fact behind a wrong rewrite, where the original kernel shows one."""
  try:
    fact = run_original(sink)[1]
  except (Undefined, NotImplementedError):
    return
  if fact: print(f"diagnosis: {fact}")


def check():
  """Rewrite, evaluate both graphs, compare; returns the exit status (see the top)."""
  sink = build()
  if CHECK == "bounds": return check_bounds(sink)
  try:
    rewritten = rewrite(sink)
  except Exception as e:  # noqa: BLE001  (a crash is the bug)
    traceback.print_exc()
    diagnose(sink)
    print(f"FAIL: tinygrad crashed in the rewrite at {tinygrad_where(e)}: {type(e).__name__}: {e}")
    return 1
  try:
    expected, fact = run_original(sink)
  except (Undefined, NotImplementedError) as e:
    print(f"CANNOT CHECK: the original kernel cannot be evaluated: {type(e).__name__}: {e}")
    return 2
  if fact: print(f"diagnosis: {fact}")
  try:
    got = evaluate(rewritten, VARS, INPUTS)
  except Undefined as e:
    print(f"FAIL: the rewrite is undefined where the original is not: {e}")
    return 1
  except NotImplementedError as e:
    print(f"CANNOT CHECK: the rewritten kernel cannot be evaluated: {e}")
    return 2
  lines = differences(expected, got, OUTPUTS)
  for line in lines: print(line)
  if lines:
    print(f"FAIL: the rewrite changes {len(lines)} output element(s)")
    return 1
  print("ok: the rewrite keeps every output")
  return 0


class TestUopfuzzReduceUnparentedIgnoresEmptyRange5(unittest.TestCase):
  def test_reduce_unparented_ignores_empty_range_5(self):
    sink = build()
    rewritten = None if CHECK == "bounds" else rewrite(sink)  # must not raise
    try:
      expected, fact = run_original(sink)
    except Undefined as e:
      self.skipTest(f"the original kernel is undefined: {e}")
    if CHECK == "bounds":
      self.assertIsNone(fact)
    else:
      got = evaluate(rewritten, VARS, INPUTS)  # Undefined here: the rewrite is the bug
      self.assertEqual(canonical(got, OUTPUTS), canonical(expected, OUTPUTS), fact or "")


if __name__ == "__main__":
  sys.exit(check())
