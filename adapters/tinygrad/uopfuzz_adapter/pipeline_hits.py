"""Which of tinygrad's pattern rules fire anywhere in its pipeline: scheduling, the kernel
rewrites, code generation, rendering and the device's runtime rewrites.

    with count() as tally:
      ...                       # anything that runs tinygrad
    tally.hits                  # {rule name: applications}, filled when the block ends

Names are rules.py's: the location of a rule's pattern relative to the tinygrad package,
`schedule/rangeify.py:123`, with the root ops appended where one line wrote several patterns
of the matcher (`uop/symbolic.py:267:ADD`). They are the same in every process for one
tinygrad.

How: while a count() is open, PatternMatcher.rewrite (the method every graph_rewrite,
line_rewrite and renderer calls on every tinygrad matcher) is tinygrad's own loop plus one
dict increment when a rule returns something new. An application is a rule returning a
value other than None, its input and a bool: a new UOp (a rewrite), a rendered line (a
renderer's string rules), a (UOp, lines) pair (line_rewrite). Bools are tinygrad's spec
checks (type_verify), not rewrites, and are not counted. Names are worked out once per
matcher, when the block ends, so the cost inside the block is the increment alone.

Not counted: tinygrad's pattern compiler (uop/upat.py: its matchers turn a pattern into code
the first time the pattern is used, once per process; they are the matcher machinery, not the
pipeline), and matchers that override rewrite() themselves (the adapter's own
rules.RuleMatcher, which counts in its own Tally; tinygrad's TrackedPatternMatcher, which
replaces PatternMatcher when tinygrad is imported with TRACK_MATCH_STATS or PROFILE set).
Rewrites that a rule starts itself (simplify(), substitute) are counted: every matcher
counts, wherever it runs.

tinygrad caches its work by graph structure: schedules (SCACHE, per tensor graph), compiled
kernels (per kernel AST and device), and rewrites inside one graph_rewrite per node. A
second run of the same program, or of one that has the same structure with other values,
reuses them and may count few or no rules: hits say what tinygrad did in this block, not
what the program needs.
"""
import contextlib
import os
import weakref
from collections import Counter

import tinygrad
from tinygrad.uop import ops
from uopfuzz_adapter.rules import RuleNames

PACKAGE_DIR = os.path.dirname(os.path.abspath(tinygrad.__file__))

# tinygrad's own class (uop/ops.py rebinds the name PatternMatcher to TrackedPatternMatcher
# when imported with TRACK_MATCH_STATS or PROFILE; that one keeps its own rewrite)
PatternMatcher = ops.TrackedPatternMatcher.__mro__[1]
_original_rewrite = PatternMatcher.rewrite
_open = []                                  # the tallies of the count() blocks now open
# tinygrad's pattern compiler (uop/upat.py) rewrites a pattern into code the first time the
# pattern is used: rules of the matcher machinery, once per process, not of the pipeline
_UNCOUNTED = set()
try:
  from tinygrad.uop import upat as _upat
  _UNCOUNTED = {v for v in vars(_upat).values() if isinstance(v, PatternMatcher)}
except ImportError:
  pass
_names = weakref.WeakKeyDictionary()        # matcher -> {id(upat): name}


class Tally:
  """The applications of one count() block: hits (name -> count) once the block ends."""

  def __init__(self):
    self.raw = Counter()   # (matcher, upat) -> applications
    self.hits = {}

  def resolve(self):
    hits = Counter()
    for (pm, upat), n in self.raw.items(): hits[rule_name(pm, upat)] += n
    self.hits = dict(hits)
    self.raw = Counter()
    return self.hits


def rule_name(pm, upat):
  """The stable name of `upat`, one of `pm`'s patterns (rules.RuleNames over that matcher)."""
  names = _names.get(pm)
  if names is None:
    rn = RuleNames([pm], PACKAGE_DIR)
    names = _names[pm] = {id(p): rn.name(p, f) for p, f in pm.patterns}
  name = names.get(id(upat))
  if name is None:  # a pattern not in pm.patterns (never in tinygrad): its bare location
    from uopfuzz_adapter.rules import _location_name
    name = _location_name(upat, PACKAGE_DIR)
  return name


def _counting_rewrite(self, uop, ctx=None):
  # tinygrad's PatternMatcher.rewrite (uop/ops.py), plus the count
  if len(pats := self.pdict.get(uop.op, [])):
    if (ler := uop.__dict__.get('_src_ops')) is None: uop.__dict__['_src_ops'] = ler = {u.op for u in uop.src}
    for entry in pats:
      if not entry[2].issubset(ler): continue
      if (ret := entry[1](uop, ctx)) is not None and ret is not uop:
        if ret is not True and ret is not False and self not in _UNCOUNTED:
          key = (self, entry[0])
          for tally in _open: tally.raw[key] += 1
        return ret
  return None


@contextlib.contextmanager
def count():
  """Counts every rule application in tinygrad while the block runs; the Tally's hits are
  filled when it ends. Blocks may nest (each counts everything inside it)."""
  tally = Tally()
  if not _open: PatternMatcher.rewrite = _counting_rewrite
  _open.append(tally)
  try:
    yield tally
  finally:
    _open.remove(tally)
    if not _open: PatternMatcher.rewrite = _original_rewrite
    tally.resolve()
