"""Stable names for tinygrad's rewrite rules, and matchers that count, switch off and stop them.

A rule is one (UPat, function) entry of a tinygrad PatternMatcher. Its name is where its
pattern was written, relative to the tinygrad package ("uop/symbolic.py:123"): tinygrad
records that location on every UPat, so the name is the same in every process and in every
run of the same tinygrad, and a person can open it. Patterns built in one line by a loop (several rules, one location) get the root op(s)
appended ("uop/symbolic.py:267:ADD"), and an index after that in the rare case that this
still collides, so every rule has exactly one name.

RuleMatcher is a PatternMatcher over the same entries that
  - counts each application (a rule's function returned a new UOp) under the rule's name,
  - leaves out the rules named in `disable`,
  - applies nothing after `stop_after` applications (every rule answers None), so the graph
    returned is the one after exactly that many steps.
Rewrites that tinygrad's own rule functions start internally (x.simplify(), substitute, the
reduce collapse's inner graph_rewrite) use tinygrad's matchers, not these: they are part of
the one application that started them.
"""
import os
from collections import Counter

from tinygrad.uop.ops import PatternMatcher


class Tally:
  """Per request: applications so far, per rule name, and the stop-after budget."""

  def __init__(self, stop_after=None):
    self.hits = Counter()
    self.applied = 0
    self.stop_after = stop_after

  def exhausted(self):
    return self.stop_after is not None and self.applied >= self.stop_after


def _location_name(upat, package_dir):
  filename, line = upat.location
  filename = os.path.abspath(filename)
  rel = os.path.relpath(filename, package_dir) if filename.startswith(package_dir + os.sep) else os.path.basename(filename)
  return f"{rel.replace(os.sep, '/')}:{line}"


def _root_ops(upat):
  return "|".join(sorted(op.name for op in upat.op)) if upat.op else "ANY"


class RuleNames:
  """Names for every (UPat, function) of a set of matchers; the same names in every process."""

  def __init__(self, matchers, package_dir):
    self.package_dir = os.path.abspath(package_dir)
    self._names = {}  # (id(upat), id(fxn)) -> name
    by_location = {}
    for pm in matchers:
      for upat, fxn in pm.patterns:
        key = (id(upat), id(fxn))
        if key in self._names: continue
        self._names[key] = None
        by_location.setdefault(_location_name(upat, self.package_dir), []).append((key, upat))
    for location, entries in by_location.items():
      if len(entries) == 1:
        self._names[entries[0][0]] = location
        continue
      seen = Counter()
      for key, upat in entries:
        name = f"{location}:{_root_ops(upat)}"
        seen[name] += 1
        self._names[key] = name if seen[name] == 1 else f"{name}#{seen[name]}"

  def name(self, upat, fxn):
    return self._names[(id(upat), id(fxn))]

  def all(self):
    return sorted(self._names.values())


class RuleMatcher(PatternMatcher):
  """tinygrad's PatternMatcher over named entries: counts applications, honours a Tally's budget."""

  def __init__(self, patterns, names):
    super().__init__(patterns)
    self.tally = Tally()
    # tinygrad keeps one entry [upat, match, early_reject] per pattern, appended to the list of
    # every op the pattern's root may have, in pattern order: name each entry the same way.
    for op, entries in self.pdict.items():
      named = [name for (upat, _), name in zip(patterns, names) if op in upat.op]
      for entry, name in zip(entries, named):
        if len(entry) == 3: entry.append(name)

  def rewrite(self, uop, ctx=None):
    entries = self.pdict.get(uop.op)
    if not entries: return None
    tally = self.tally
    if tally.exhausted(): return None
    src_ops = {u.op for u in uop.src}
    for entry in entries:
      if not entry[2].issubset(src_ops): continue
      ret = entry[1](uop, ctx)
      if ret is not None and ret is not uop:
        tally.hits[entry[3]] += 1
        tally.applied += 1
        return ret
    return None


class RuleSet:
  """RuleMatchers for a stage's matchers, cached per (matcher, disabled rules); planted bugs
  (rule name -> function) replace a rule's function in every matcher built here."""

  def __init__(self, names, replacements=None):
    self.names = names
    self._replacements = replacements or {}
    self._cache = {}
    self.tally = Tally()

  def matcher(self, pm, disabled=frozenset()):
    key = (id(pm), disabled)
    built = self._cache.get(key)
    if built is None:
      patterns, names = [], []
      for upat, fxn in pm.patterns:
        name = self.names.name(upat, fxn)
        if name in disabled: continue
        patterns.append((upat, self._replacements.get(name, fxn)))
        names.append(name)
      built = self._cache[key] = (pm, RuleMatcher(patterns, names))
    matcher = built[1]
    matcher.tally = self.tally
    return matcher

  def start_request(self, stop_after=None):
    self.tally = Tally(stop_after)
    for _, matcher in self._cache.values(): matcher.tally = self.tally
    return self.tally
