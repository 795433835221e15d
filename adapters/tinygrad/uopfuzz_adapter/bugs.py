"""Planted bugs: one tinygrad rule patched, in this process only, so that uopfuzz must find it.

Each bug names the rule it patches by what the rule does (its pattern and function), not by
its line, so it finds the rule in any tinygrad that still has it; --list-bugs and hello's
`bugs:` list only the bugs whose rule this tinygrad has. A bug replaces that rule's function
in the adapter's own matchers (rules.RuleSet); tinygrad's modules are left as they are.

The replacement functions are plain module functions reading ENABLED: tinygrad's matcher
compiler rebuilds a rule function from its code and globals and refuses closures.
"""
from tinygrad.uop.ops import Ops
from tinygrad.uop.divandmod import fold_divmod_general

ENABLED = set()


def _divmod_fold_with_bugs(d):
  x, y = d.src
  if y.op is Ops.CONST and y.val > 0:
    c = y.val
    # x % c -> x - q*c needs x // c == q over all of x's range; the planted test reads the top
    # of the range one too low (x.vmax - 1), so x == the next multiple of c folds wrong
    if d.op is Ops.FLOORMOD and "mod_fold_off_by_one" in ENABLED and x.vmin // c != x.vmax // c and x.vmin // c == (x.vmax - 1) // c:
      return x - (x.vmin // c) * c
    # x // c -> q needs x // c constant; the planted fold drops that guard and takes the smallest quotient
    if d.op is Ops.FLOORDIV and "div_fold_no_guard" in ENABLED: return d.const_like((x // y).vmin)
  return fold_divmod_general(d)


def _double_cast_with_bug(x, a, b):
  # x.cast(a).cast(b) -> x.cast(b) is right only when the cast to a loses nothing; the planted
  # rule treats the cast to a as a no-op always (float -> int -> float keeps the fraction,
  # int32 -> int8 -> int32 keeps the high bits)
  return x.cast(b.dtype)


def _names_used(fxn):
  code, names = fxn.__code__, set()
  stack = [code]
  while stack:
    c = stack.pop()
    names |= set(c.co_names)
    stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
  return names


def _is_divmod_fold(upat, fxn):
  return upat.op is not None and set(upat.op) == {Ops.FLOORDIV, Ops.FLOORMOD} and "fold_divmod_general" in _names_used(fxn)


def _is_double_cast_fold(upat, fxn):
  # (UPat.var('x').cast(name="a").cast(name="b"), x.cast(b.dtype) if can_lossless_cast(x.dtype, a.dtype))
  return upat.op == (Ops.CAST,) and upat.name == "b" and {"can_lossless_cast", "cast"} <= _names_used(fxn)


class Bug:
  def __init__(self, name, what, is_target, replacement):
    self.name, self.what, self.is_target, self.replacement = name, what, is_target, replacement


BUGS = [
  Bug("mod_fold_off_by_one", "x % c -> x - q*c when x // c looks constant, with the top of x's range read one too low",
      _is_divmod_fold, _divmod_fold_with_bugs),
  Bug("div_fold_no_guard", "x // c -> the smallest quotient, without the guard that x // c is constant",
      _is_divmod_fold, _divmod_fold_with_bugs),
  Bug("cast_noop", "x.cast(a).cast(b) -> x.cast(b) even when the cast to a loses values",
      _is_double_cast_fold, _double_cast_with_bug),
]


def _targets(bug, matchers, names):
  return [names.name(upat, fxn) for pm in matchers for upat, fxn in pm.patterns if bug.is_target(upat, fxn)]


def available(matchers, names):
  """The bugs whose rule these matchers hold."""
  return [bug for bug in BUGS if _targets(bug, matchers, names)]


def replacements(enabled, matchers, names):
  """rule name -> replacement function for the bugs named in `enabled` (all must be available);
  switches them on. Raises ValueError naming an unknown or unavailable bug."""
  by_name = {bug.name: bug for bug in BUGS}
  out = {}
  for name in enabled:
    bug = by_name.get(name)
    if bug is None: raise ValueError(f"unknown bug {name!r} (known: {', '.join(by_name)})")
    rules = _targets(bug, matchers, names)
    if not rules: raise ValueError(f"bug {name!r}: this tinygrad has no rule it could patch")
    for rule in rules: out[rule] = bug.replacement
    ENABLED.add(name)
  return out


# ---- tensor-level bugs: tinygrad's scheduler patched in this process (tensor_bugs.py) ----

def tensor_bug_names():
  """The planted tensor-level bugs this tinygrad can take (tensor_bugs.BUGS: the scheduler's
  realize decision, a movement op's index math, split reduce), in order."""
  from uopfuzz_adapter import tensor_bugs
  return tensor_bugs.names()


def tensor_bug_descriptions():
  """{name: what it does} of the tensor-level bugs this tinygrad can take."""
  from uopfuzz_adapter import tensor_bugs
  available = set(tensor_bugs.names())
  return {bug.name: bug.what for bug in tensor_bugs.BUGS if bug.name in available}


def apply_tensor_bugs(names):
  """Switches the named tensor-level bugs on, patching tinygrad in this process (once, at
  startup, before anything is scheduled). Raises ValueError naming an unknown or
  unavailable bug."""
  from uopfuzz_adapter import tensor_bugs
  tensor_bugs.apply(names)


def tensor_bug_what(name):
  """What the tensor-level bug `name` does (one line, for --list-bugs)."""
  from uopfuzz_adapter import tensor_bugs
  return next(bug.what for bug in tensor_bugs.BUGS if bug.name == name)
