"""tinygrad's rewrites of a kernel, as the adapter runs them.

"symbolic": graph_rewrite(sink, symbolic), tinygrad's symbolic rules alone
(tinygrad.uop.symbolic.symbolic).

"full": the kernel-graph cleanup tinygrad's scheduler runs before codegen
(get_kernel_graph in tinygrad/schedule/rangeify.py: symbolic + pm_reduce_simplify, where
reduce_collapse runs; its buffer folds have nothing to fold in a kernel), then the
optimizing part of tinygrad's kernel rewrite, full_rewrite_to_sink
(tinygrad/codegen/__init__.py), run step by step with tinygrad's own matchers in its order,
up to and including its "postopt symbolic" step:

    [scheduler:] symbolic + reduce_simplify;
    multi_pm; pm_mops (bottom up); load collapse; split ranges (+ flatten);
    initial symbolic (sym + flatten); simplify ranges (flatten + merge/shrink);
    [apply_opts: skipped]; postopt symbolic (sym + where-on-load + flatten + reduce_unparented)

Why not the whole of full_rewrite_to_sink: everything after "postopt symbolic" lowers the
kernel below what .uop can express (the expander, REDUCEs turned into register
accumulators, devectorizing, index dtype lowering, decompositions, control flow), so
nothing it returns could be converted back and checked. The part run here is the part that
corresponds to the simplifier uopfuzz tests (codegen/simplify.py and the symbolic rules).
apply_opts is skipped: it is where BEAM or hand-coded optimizations would run, and with
neither it only renames LOOP axes to GLOBAL. That is also the only step of this part that
consults a renderer, so none is built (the PYTHON device's renderer, PythonRenderer, would be
the one; renderer() returns it for callers that want the rest of the pipeline).

Each step's matcher goes through rules.RuleSet, so every rule application is counted under
its stable name and can be switched off or stopped (disable=, stop-after=).
"""
from tinygrad.uop.ops import graph_rewrite

from uopfuzz_adapter import bugs as planted
from uopfuzz_adapter.rules import RuleNames, RuleSet

STAGES = ("symbolic", "full")


class Step:
  """One graph_rewrite of a stage; fresh_ctx: its rules keep state in a dict, new per kernel."""

  def __init__(self, name, pm, bottom_up=False, fresh_ctx=False):
    self.name, self.pm, self.bottom_up, self.fresh_ctx = name, pm, bottom_up, fresh_ctx


def _symbolic_steps():
  from tinygrad.uop.symbolic import symbolic
  return [Step("symbolic", symbolic)]


def _full_steps():
  from tinygrad.codegen import full_rewrite_to_sink  # noqa: F401  (the pipeline mirrored here)
  from tinygrad.schedule.multi import multi_pm
  from tinygrad.schedule.rangeify import pm_mops
  from tinygrad.uop.symbolic import sym, symbolic, pm_move_where_on_load
  from tinygrad.codegen.simplify import pm_load_collapse, pm_split_ranges, pm_flatten_range, pm_simplify_ranges, pm_reduce_unparented
  from tinygrad.codegen.simplify import pm_reduce_simplify
  return [
    Step("symbolic+reduce_collapse", symbolic + pm_reduce_simplify),
    Step("multi_pm", multi_pm),
    Step("early movement ops", pm_mops, bottom_up=True),
    Step("load collapse", pm_load_collapse),
    Step("split ranges", pm_split_ranges + pm_flatten_range, fresh_ctx=True),
    Step("initial symbolic", sym + pm_flatten_range),
    Step("simplify ranges", pm_flatten_range + pm_simplify_ranges, fresh_ctx=True),
    Step("postopt symbolic", sym + pm_move_where_on_load + pm_flatten_range + pm_reduce_unparented),
  ]


def steps(stage):
  """The Steps of a stage, in tinygrad's order."""
  if stage == "symbolic": return _symbolic_steps()
  if stage == "full": return _full_steps()
  raise ValueError(f"unknown stage {stage!r} (expected one of {', '.join(STAGES)})")


def renderer():
  """The PYTHON device's renderer, made without opening the device."""
  from tinygrad.helpers import DEV
  from tinygrad.runtime.ops_python import PythonRenderer
  return PythonRenderer(DEV.target("PYTHON"))


class Stage:
  """One stage's steps with their named rules (and planted bugs switched on):
  run(sink, disabled) -> rewritten sink; self.rules.start_request() first."""

  def __init__(self, stage, package_dir, bugs=()):
    self.name = stage
    self.steps = steps(stage)
    matchers = [step.pm for step in self.steps]
    names = RuleNames(matchers, package_dir)
    self.available_bugs = [bug.name for bug in planted.available(matchers, names)]
    self.rules = RuleSet(names, planted.replacements(bugs, matchers, names))

  def run(self, sink, disabled=frozenset()):
    for step in self.steps:
      sink = graph_rewrite(sink, self.rules.matcher(step.pm, disabled), ctx={} if step.fresh_ctx else None,
                           bottom_up=step.bottom_up, name=step.name)
    return sink


class TinygradSimplifier:
  """A .uop kernel in, tinygrad's rewrite of it out: convert, check the semantic differences,
  run the stage, convert back. Raises convert.Unsupported for what cannot be shared."""

  def __init__(self, stage, package_dir, version, bugs=()):
    self.stage = Stage(stage, package_dir, bugs)
    self.stage_name, self.package_dir, self.version = stage, package_dir, version
    self.available_bugs = self.stage.available_bugs

  def simplify(self, text, disabled=frozenset(), stop_after=None, on_bounds=None):
    """(hits per rule name, rewritten .uop text). on_bounds: called with
    convert.value_bounds() of the kernel once it is converted and passed the semantic gate,
    before the rewrite (never for a kernel refused before it)."""
    from uopfuzz_adapter.convert import Unsupported, to_tinygrad, from_tinygrad, value_bounds
    from uopfuzz_adapter.semantics import semantic_gate
    sink, conversion = to_tinygrad(text)
    reason = semantic_gate(sink, full_rewrite=self.stage_name == "full")
    if reason: raise Unsupported.of(reason)
    if on_bounds is not None: on_bounds(value_bounds(conversion))
    tally = self.stage.rules.start_request(stop_after)
    rewritten = self.stage.run(sink, disabled)
    return dict(tally.hits), from_tinygrad(rewritten, conversion)
