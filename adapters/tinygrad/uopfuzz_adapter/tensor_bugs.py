"""Planted tensor-level bugs: tinygrad's scheduler patched in this process, so that uopfuzz's
tensor-program runs must find them (bugs.tensor_bug_names(), bugs.apply_tensor_bugs()).

Each bug wraps one of tinygrad's own functions, found by its name and by what it does (the
names its code uses), never by a line number, so any tinygrad that still has the function
takes the bug; a tinygrad without it lists the bug as unavailable. No tinygrad code is
copied: a wrapper changes what goes into the original or what comes out of it.

  realize_skips_multi_consumer  schedule/indexing.py run_rangeify: the realize decision of a
      node read by several consumers at different indices (the consumers' ranges differ, so
      the node must get a buffer of its own, or be computed per consumer). The planted
      all_same() tells run_rangeify that every consumer reads it at the same index: no
      buffer, and every consumer reads the node at the first consumer's index.
      y + y.flip(0) for y = 3x, x = 1..5: [30, 24, 18, 12, 6], not [18, 18, 18, 18, 18].
  shrink_offset_off_by_one      schedule/indexing.py apply_movement_op, the definition of the
      movement ops as index math (used by run_rangeify and by pm_mops on INDEX): a SHRINK
      that starts at b > 0 reads from b - 1. (2x)[2:5] of x = 0..5: [2, 4, 6], not [4, 6, 8].
  split_reduce_drops_last_part  schedule/rangeify.py split_reduceop: a large reduce split in
      two kernels (a first stage reducing each of `divisor` parts into a buffer, a second
      reducing the parts); the planted second stage leaves out the last part. The sum of a
      256x256 outer sum a[i] + b[j]: 195585, not 195840 (row 255 missing).

The programs that show each, right on PYTHON and CPU without the bug and wrong with it, are
tests/tensor_bugs/<name>.uop (tests/test_tensor_bugs.py runs them).

How they are applied (once, at startup, before tinygrad schedules anything; applied later,
a bug reaches only graphs tinygrad has not scheduled yet: its schedule cache keeps the
rest): a module global that tinygrad looks up when it runs (run_rangeify's all_same,
run_rangeify's and pm_mops' apply_movement_op) is replaced in each tinygrad module that
holds it; a rule function of a PatternMatcher (split_reduceop) is replaced in every
PatternMatcher that has it (found through the garbage collector: tinygrad adds matchers
together into new ones), and an entry already compiled is reset so that it compiles again
(tinygrad's pattern compiler copies a rule function's globals when it first compiles it).
The replacement functions are module functions without closures: tinygrad's matcher
compiler rebuilds a rule function from its code and globals.
"""
import functools
import gc
import sys

ENABLED = set()
_ORIGINAL = {}   # name of a patched tinygrad function -> the original


# ---- realize_skips_multi_consumer: run_rangeify's realize decision

def _all_same_planted(items):
  # all_same() is the test "do all consumers read this node at the same index": planted, yes
  if "realize_skips_multi_consumer" in ENABLED: return True
  return _ORIGINAL["all_same"](items)


# ---- shrink_offset_off_by_one: the SHRINK of apply_movement_op

def _apply_movement_op_planted(op, in_shape, arg, rngs):
  from tinygrad.uop.ops import Ops
  if op is Ops.SHRINK and "shrink_offset_off_by_one" in ENABLED:
    # a SHRINK (b, e) maps output index i to input index i + b; planted: i + b - 1 for b > 0
    arg = tuple((b - 1, e - 1) if isinstance(b, int) and b > 0 else (b, e) for b, e in arg)
  return _ORIGINAL["apply_movement_op"](op, in_shape, arg, rngs)


# ---- split_reduce_drops_last_part: split_reduceop's second stage

def _split_reduceop_planted(reduce, x):
  from tinygrad.uop.ops import Ops
  ret = _ORIGINAL["split_reduceop"](reduce, x)
  if ret is None or "split_reduce_drops_last_part" not in ENABLED: return ret
  # ret is the second stage, RESHAPE(REDUCE(PERMUTE(CONTIGUOUS(first stage)))) (UOp._rop): reduce
  # the first stage's parts (its last axis) without the last one
  second = ret
  while second.op is Ops.RESHAPE: second = second.src[0]
  if second.op is not Ops.REDUCE: return ret
  first = second.src[0]
  while first.op in (Ops.PERMUTE, Ops.RESHAPE): first = first.src[0]
  if first.op is not Ops.CONTIGUOUS: return ret
  *rest, parts = first.shape
  if not isinstance(parts, int) or parts < 2: return ret
  cut = first.shrink(tuple((0, s) for s in rest) + ((0, parts - 1),))
  return cut._rop(second.arg[0], (len(first.shape) - 1,)).reshape(reduce.shape)


# ---- the bugs

def _names_used(fxn):
  code, names, stack = getattr(fxn, "__code__", None), set(), []
  if code is None: return names
  stack.append(code)
  while stack:
    c = stack.pop()
    names |= set(c.co_names)
    stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
  return names


def _unwrapped(f, name=None):
  """The function a decorator wraps: through __wrapped__ (functools) and through the closure
  of a wrapper (tinygrad's rewrite_group keeps the function in its wrapper's closure), the
  one called `name` (default: f's own name)."""
  name = name or getattr(f, "__name__", None)
  for _ in range(8):
    if getattr(f, "__name__", None) == name and getattr(f, "__code__", None) is not None and not f.__closure__: break
    if hasattr(f, "__wrapped__"):
      f = f.__wrapped__
      continue
    inner = [c.cell_contents for c in (getattr(f, "__closure__", None) or ()) if getattr(c.cell_contents, "__name__", None) == name]
    if not inner: break
    f = inner[0]
  return f


class TensorBug:
  """name, what it does, the tinygrad function it patches (module:function), and
  find() -> the function object to patch or None when this tinygrad lacks it."""

  def __init__(self, name, what, where, find, apply):
    self.name, self.what, self.where, self.find, self.apply = name, what, where, find, apply


def _find_all_same():
  from tinygrad.schedule import indexing
  # run_rangeify asks all_same() whether a node's consumers read it at one index
  if "all_same" in _names_used(_unwrapped(getattr(indexing, "run_rangeify", None), "run_rangeify")) and hasattr(indexing, "all_same"):
    return indexing.all_same
  return None


def _find_apply_movement_op():
  from tinygrad.schedule import indexing
  f = getattr(indexing, "apply_movement_op", None)
  # the definition of the movement ops on ranges: (op, in_shape, arg, rngs), SHRINK among its cases
  if f is None or "SHRINK" not in _names_used(_unwrapped(f)): return None
  return f


def _find_split_reduceop():
  from tinygrad.schedule import rangeify
  f = getattr(rangeify, "split_reduceop", None)
  # the rule (REDUCE_AXIS of x) -> a reduce in two stages, gated by SPLIT_REDUCEOP
  if f is None or not {"SPLIT_REDUCEOP", "contiguous"} <= _names_used(f): return None
  return f


def _replace_global(name, original, replacement):
  """Points every tinygrad module's global `name` that is `original` at `replacement`, and
  resets the compiled matcher entries whose rule function uses that global."""
  for mod in list(sys.modules.values()):
    if getattr(mod, "__name__", "").startswith("tinygrad") and getattr(mod, name, None) is original:
      setattr(mod, name, replacement)
  for pm, entry, fxn in _matcher_entries():
    if name in _names_used(fxn) and fxn.__globals__.get(name) is replacement: _recompile(pm, entry, fxn)


def _matcher_entries():
  """(matcher, pdict entry, rule function) of every tinygrad PatternMatcher alive."""
  from tinygrad.uop import ops
  base = ops.TrackedPatternMatcher.__mro__[1]
  out = []
  for pm in gc.get_objects():
    if not isinstance(pm, base): continue
    fxns = {id(p): f for p, f in pm.patterns}
    for entries in pm.pdict.values():
      for entry in entries:
        if id(entry[0]) in fxns: out.append((pm, entry, fxns[id(entry[0])]))
  return out


def _recompile(pm, entry, fxn):
  from tinygrad.uop.ops import upat_deferred_compile, upat_interpret
  compiled = not getattr(entry[1], "__name__", "") == "universal_match"
  entry[1] = upat_deferred_compile(entry[0], fxn, entry) if compiled else upat_interpret(entry[0], fxn)


def _replace_rule(original, replacement):
  """Replaces the rule function `original` by `replacement` in every PatternMatcher."""
  for pm in {id(pm): pm for pm, _, _ in _matcher_entries()}.values():
    if not any(f is original for _, f in pm.patterns): continue
    pm.patterns = [(p, replacement if f is original else f) for p, f in pm.patterns]
    for p, f in pm.patterns:
      if f is not replacement: continue
      for op in p.op:
        for entry in pm.pdict.get(op, []):
          if entry[0] is p: _recompile(pm, entry, replacement)


def _apply_all_same(original):
  _ORIGINAL["all_same"] = original
  _replace_global("all_same", original, _all_same_planted)


def _apply_movement(original):
  _ORIGINAL["apply_movement_op"] = original
  _replace_global("apply_movement_op", original, _apply_movement_op_planted_cached)


def _apply_split(original):
  _ORIGINAL["split_reduceop"] = original
  _replace_rule(original, _split_reduceop_planted)


# apply_movement_op is functools.cache'd in tinygrad (called for every range of every
# movement op); the planted one keeps a cache of its own
_apply_movement_op_planted_cached = functools.cache(_apply_movement_op_planted)

BUGS = [
  TensorBug("realize_skips_multi_consumer",
            "a node its consumers read at different indices is not realized: every consumer reads it at the first one's index",
            "schedule/indexing.py:run_rangeify (all_same)", _find_all_same, _apply_all_same),
  TensorBug("shrink_offset_off_by_one", "a SHRINK starting at b > 0 reads from b - 1",
            "schedule/indexing.py:apply_movement_op", _find_apply_movement_op, _apply_movement),
  TensorBug("split_reduce_drops_last_part", "a split reduce's second stage leaves out the last part",
            "schedule/rangeify.py:split_reduceop", _find_split_reduceop, _apply_split),
]


def names():
  """The tensor bugs this tinygrad has the function for, in order."""
  return [bug.name for bug in BUGS if bug.find() is not None]


def apply(enabled):
  """Switches on the named tensor bugs (patching tinygrad in this process). Raises
  ValueError naming an unknown or unavailable one. Applying a bug twice changes nothing."""
  by_name = {bug.name: bug for bug in BUGS}
  for name in enabled:
    bug = by_name.get(name)
    if bug is None: raise ValueError(f"unknown tensor bug {name!r} (known: {', '.join(by_name)})")
    if name in ENABLED: continue
    target = bug.find()
    if target is None: raise ValueError(f"tensor bug {name!r}: this tinygrad has no {bug.where}")
    bug.apply(target)
    ENABLED.add(name)
