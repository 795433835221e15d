"""A standalone reproducer of one uopfuzz case: one Python file that needs tinygrad alone.

emit(text, stage) turns a .uop kernel (a finding, with its header) into a script that a
tinygrad maintainer can read top to bottom and run without uopfuzz: it builds the kernel
exactly as to_tinygrad() does (written with tinygrad's own pyrender), runs the stage the
campaign ran with tinygrad's own matchers (no RuleMatcher: no names, no planted bugs),
evaluates the original and the rewritten graph at the case's inputs with a small evaluator
on tinygrad's scalar semantics (reproducer.py, copied in), and compares the output buffers.
It also checks tinygrad's vmin/vmax of the original graph against the values computed: for
an `unsound-bounds/...` case that wrong fact is the finding (CHECK = "bounds", no rewrite
runs), for any other it is printed as a diagnosis. The script is also a unittest (class
TestUopfuzz<Name>). Its exit status: 0 the rewrite keeps every output, or every bound holds
(the bug is gone), 1 the bug is there (a wrong output, an undefined rewrite, a crash, or
the wrong fact), 2 nothing can be decided (the original is undefined, or the evaluator
lacks an op).
"""
import os
import re
import string
import textwrap

from tinygrad.uop.render import pyrender

from uopfuzz_adapter import forms, uop_text
from uopfuzz_adapter.convert import Unsupported, to_tinygrad
from uopfuzz_adapter.semantics import semantic_gate

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "# ---- copied into every reproducer from here on ----\n"


class EmitError(ValueError):
  """A case that converts but cannot become a reproducer: a VAR or input buffer without its
  value in the header (uopfuzz writes every one before asking for a reproducer)."""


# What build() may name: pyrender's own names (tinygrad.uop.spec's eval_pyrender globals)
# that a kernel can hold. The check in _build_code runs the text with exactly these.
BUILD_IMPORTS = ("from tinygrad.dtype import AddrSpace, ConstFloat, Invalid, dtypes, truncate\n"
                 "from tinygrad.uop.ops import AxisType, KernelInfo, Ops, ParamArg, UOp, exec_alu, graph_rewrite, "
                 "identity_element, python_alu\n")

# The stage `full`, as stages._full_steps() runs it: (step name, matcher expression,
# bottom_up, fresh ctx). test_emit checks the two agree, matcher by matcher.
FULL_IMPORTS = ("from tinygrad.codegen.simplify import (pm_flatten_range, pm_load_collapse, pm_reduce_simplify,\n"
                "                                       pm_reduce_unparented, pm_simplify_ranges, pm_split_ranges)\n"
                "from tinygrad.schedule.multi import multi_pm\n"
                "from tinygrad.schedule.rangeify import pm_mops\n"
                "from tinygrad.uop.symbolic import pm_move_where_on_load, sym, symbolic\n")
FULL_STEPS = (
  ("symbolic+reduce_collapse", "symbolic + pm_reduce_simplify", False, False),
  ("multi_pm", "multi_pm", False, False),
  ("early movement ops", "pm_mops", True, False),
  ("load collapse", "pm_load_collapse", False, False),
  ("split ranges", "pm_split_ranges + pm_flatten_range", False, True),
  ("initial symbolic", "sym + pm_flatten_range", False, False),
  ("simplify ranges", "pm_flatten_range + pm_simplify_ranges", False, True),
  ("postopt symbolic", "sym + pm_move_where_on_load + pm_flatten_range + pm_reduce_unparented", False, False),
)

STAGES = ("symbolic", "full", "pipeline")  # pipeline: emit_pipeline.py's script

STAGE_TEXT = {
  "symbolic": "symbolic: graph_rewrite(sink, symbolic), tinygrad's symbolic rules alone",
  "full": ("full: the scheduler's kernel-graph cleanup (symbolic + pm_reduce_simplify), then\n"
           "            full_rewrite_to_sink's steps up to \"postopt symbolic\" (apply_opts left out)"),
}


def _rewrite_code(stage):
  """(imports, the body of rewrite(sink)) for a stage."""
  if stage == "symbolic":
    return "from tinygrad.uop.symbolic import symbolic\n", "  return graph_rewrite(sink, symbolic)\n"
  lines = ["  # get_kernel_graph's cleanup (schedule/rangeify.py), then full_rewrite_to_sink (codegen/__init__.py)\n"]
  for name, pm, bottom_up, fresh_ctx in FULL_STEPS:
    if name == "postopt symbolic": lines.append("  # apply_opts (BEAM, hand-coded optimizations) is left out, as in the campaign\n")
    extra = (", bottom_up=True" if bottom_up else "") + (", ctx={}" if fresh_ctx else "")
    lines.append(f"  sink = graph_rewrite(sink, {pm}{extra}, name={name!r})\n")
  return FULL_IMPORTS, "".join(lines) + "  return sink\n"


def _plain_code(sink):
  """Every node as UOp(op, dtype, src, arg): for a graph pyrender's text does not rebuild."""
  names, lines = {}, []
  for i, u in enumerate(sink.toposort()):
    names[u] = f"n{i}"
    src = "".join(names[s] + ", " for s in u.src)
    lines.append(f"n{i} = UOp({u.op}, {u.dtype!r}, ({src}), {u.arg!r})")
  return "\n".join(lines) + f"\nast = n{len(names) - 1}"


def _build_code(sink, plain=False):
  """The text of build(): pyrender's, checked to rebuild the identical UOp here, else ours."""
  code, how = None, "tinygrad's own pyrender of it (tinygrad/uop/render.py)"
  if not plain:
    try:
      code = pyrender(sink)
    except Exception:  # noqa: BLE001  (pyrender refuses some ops: fall back below)
      code = None
  if code is None or _run_build(code) is not sink:
    code, how = _plain_code(sink), "one UOp(...) a node: pyrender's text did not rebuild this graph"
    if _run_build(code) is not sink: raise Unsupported("no-reproducer", "a kernel neither pyrender nor UOp(...) lines rebuild")
  body = "".join(f"  {line}\n" for line in code.splitlines())
  return (f'def build():\n  """The kernel as uopfuzz\'s tinygrad adapter hands it to tinygrad:\n  {how}."""\n'
          f"{body}  return ast\n")


def _run_build(code):
  scope = {}
  try:
    exec("import math\n" + BUILD_IMPORTS + "inf, nan = math.inf, math.nan\n" + code, scope)  # noqa: S102
  except Exception:  # noqa: BLE001
    return None
  return scope.get("ast")


def _names(name):
  """(CamelName, snake_name) for the test class and method from a case's @name."""
  name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name or "kernel")
  parts = [p for p in re.split(r"[^0-9A-Za-z]+", name) if p] or ["kernel"]
  return "".join(p[:1].upper() + p[1:] for p in parts), "_".join(p.lower() for p in parts)


def _literal(token, dtype):
  """A header value as a Python literal of the buffer's dtype."""
  if dtype == "bool":
    if token not in ("true", "false", "1", "0"): raise EmitError(f"{token!r} is not a bool")
    return repr(token in ("true", "1"))
  try:
    return repr(float(token)) if dtype.startswith("float") else repr(int(token))
  except ValueError:
    raise EmitError(f"{token!r} is not a {dtype} value") from None


def _case_data(kernel, conv):
  """The VARS, INPUTS and OUTPUTS lines of the script, from the header and the PARAMs."""
  given = {}
  for h in kernel.header:
    key, _, value = h[1:].partition(" ")
    if key == "var":
      var, eq, v = value.strip().partition("=")
      if eq: given[var] = v
  missing = [v for v in conv.vars if v not in given]
  if missing: raise EmitError(f"no @var for VAR {', '.join(missing)}")
  vars_ = [(repr(v), _literal(given[v], conv.vars[v][1])) for v in sorted(conv.vars)]
  # the float-var form's variables (forms.py), bound to their expressions' values
  ints = {v: int(given[v]) for v in conv.vars}
  vars_ += [(repr(name), repr(value)) for name, value in sorted(forms.bound_values(conv.derived, ints).items())]
  inputs, outputs = {}, {}
  for h in kernel.header:
    m = re.fullmatch(r"@input\s+(\d+)\s*\[(.*)\]\s*", h)
    if m: inputs[int(m.group(1))] = [t.strip() for t in m.group(2).split(",") if t.strip()]
  for slot, (args, dtype) in sorted(conv.params.items()):
    kv, bare = uop_text.Node("PARAM", [], args, dtype).keyed()
    if "out" in bare:
      outputs[slot] = int(kv["size"])
    elif slot not in inputs:
      raise EmitError(f"no @input for input buffer slot {slot}")
    elif len(inputs[slot]) != int(kv["size"]):
      raise EmitError(f"@input {slot} lists {len(inputs[slot])} values; the PARAM has size {kv['size']}")
    else:
      inputs[slot] = "[" + ", ".join(_literal(t, dtype) for t in inputs[slot]) + "]"
  ins = [(slot, inputs[slot]) for slot in sorted(conv.params) if slot not in outputs]
  return "".join(_dict_text(name, items) + "\n" for name, items in
                 (("VARS", vars_), ("INPUTS", ins), ("OUTPUTS", list(outputs.items()))))


def _dict_text(name, items):
  """`NAME = {key: value, ...}` on one line where that fits in 100 characters; else one
  key a line, its value (a long @input list) wrapped at 100 characters."""
  line = f"{name} = {{{', '.join(f'{k}: {v}' for k, v in items)}}}"
  if len(line) <= 100: return line
  rows = [f"{name} = {{"]
  for k, v in items:
    rows += textwrap.wrap(f"{k}: {v},", width=100, initial_indent="  ", subsequent_indent=" " * (len(str(k)) + 5),
                          break_long_words=False, break_on_hyphens=False)
  return "\n".join(rows + ["}"])


def _doc(text):
  return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _check_kind(kernel):
  """"bounds" for an unsound-bounds finding (the wrong fact is the finding, no output is
  wrong), else "outputs"."""
  return "bounds" if (kernel.header_value("signature") or "").startswith("unsound-bounds/") else "outputs"


def _docstring(kernel, stage, version, filename):
  h = kernel.header_value
  name, signature = h("name") or "kernel", h("signature") or ""
  parts = signature.split("/")
  kind = parts[0] if signature else ""
  where = "/".join(parts[1:-1] if len(parts) > 2 else parts[1:])
  where = where.split("@", 1)[-1]
  title = {"crash": f"tinygrad crashes in its {stage} rewrite of a kernel",
           "mismatch": f"tinygrad's {stage} rewrite changes what a kernel computes",
           "ub-introduced": f"tinygrad's {stage} rewrite makes a well-defined kernel undefined",
           "unsound-bounds": f"tinygrad's vmin/vmax of a {parts[-1]} leave out a value it takes"}.get(
             kind, f"a kernel through tinygrad's {stage} rewrite")
  bounds = _check_kind(kernel) == "bounds"
  rows = [("Signature", signature),
          ("Crash at" if kind == "crash" else "Rule", f"tinygrad/{where}" if re.search(r"\.py:\d+", where) else ""),
          ("Details", h("details")), ("Root cause", h("root-cause")),
          ("Found on", f"tinygrad {h('simplifier-version')} (not checked against a newer tinygrad)" if h("simplifier-version") else ""),
          ("Emitted on", f"tinygrad {version}" if version and version != h("simplifier-version") else ""),
          ("Stage", "" if bounds else STAGE_TEXT[stage]), ("Found by", h("found-by"))]
  table = _doc("".join(f"{k:<12}{v}\n" for k, v in rows if v))
  module = os.path.splitext(os.path.basename(filename))[0] if filename else "<this file, without .py>"
  run = os.path.basename(filename) if filename else "<this file>"
  if bounds:
    what = """The kernel below is the one uopfuzz's tinygrad adapter built from the case. tinygrad's
rules trust UOp.vmin/vmax; here one of them is wrong before any rewrite runs. The script
evaluates the kernel at the case's inputs (VARS, INPUTS; output buffers start zeroed) with
tinygrad's scalar semantics (exec_alu) and checks every value of every integer and bool
node against the node's [vmin, vmax], printing the innermost node (the first in toposort
order) that takes a value outside them, with its operands' vmin/vmax. A signed sized-int
node whose [vmin, vmax] leaves its dtype, and what is computed from it, is set aside:
there tinygrad, as C, assumes no signed overflow. (rewrite() is the stage the campaign
ran, for reference; the check does not run it.)

Run:   PYTHONPATH=<tinygrad checkout> python3 {run}
       exit 0: every value lies in its node's [vmin, vmax] (fixed); 1: the wrong fact is
       there; 2: cannot check (the kernel is undefined, or the evaluator lacks an op)"""
  else:
    what = """The kernel below is the one uopfuzz's tinygrad adapter built from the case. The script
rewrites it as the campaign did, evaluates the original and the rewritten graph at the
case's inputs (VARS, INPUTS; output buffers start zeroed) with tinygrad's scalar semantics
(exec_alu), and compares every output buffer: floats by bits, except that +0 matches -0
(the adapter declares tinygrad's zero-sign tolerance) and NaN matches NaN. Where a value of
the original lies outside tinygrad's vmin/vmax of its node (a wrong fact a rule may have
trusted), it prints that as a `diagnosis:` line.

Run:   PYTHONPATH=<tinygrad checkout> python3 {run}
       exit 0: the rewrite keeps every output (fixed); 1: the bug is there (a wrong output,
       an undefined rewrite, or a crash: traceback and tinygrad file:line); 2: cannot
       check (the original kernel is itself undefined, or the evaluator lacks an op)"""
  return f'''"""uopfuzz reproducer {name}: {title}.

{table}
{what.format(run=run)}
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest {module}
"""
'''


SCRIPT = string.Template('''#!/usr/bin/env python3
$docstring
import itertools
import math
import os
import struct
import sys
import traceback
import unittest

$imports
inf, nan = math.inf, math.nan  # how pyrender spells these float constants

# The case's inputs: VAR values, input buffers (slot -> every element); output buffers
# (slot -> size) start zeroed, as uopfuzz's oracle runs a kernel.
$data

# What check() decides: "outputs" (the rewrite keeps every output buffer) or "bounds"
# (tinygrad's vmin/vmax of the original kernel hold at every value it takes).
CHECK = "$check"


$build

def rewrite(sink):
  """The rewrite the campaign ran, stage $stage."""
$rewrite


# ---- a small evaluator: tinygrad's scalar semantics (exec_alu, truncate), UB as in C;
# ---- the check of tinygrad's bounds (vmin/vmax) against the values it computes ----

$evaluator


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


class TestUopfuzz$camel(unittest.TestCase):
  def test_$snake(self):
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
''')


def _evaluator():
  with open(os.path.join(HERE, "reproducer.py"), encoding="utf-8") as f: text = f.read()
  return text[text.index(MARKER) + len(MARKER):].strip("\n") + "\n"


def emit(text, stage="symbolic", version=None, filename=None, plain=False):
  """The reproducer script (text) for the .uop case `text`. The header's @tinygrad-stage
  (else @simplifier-stage), when present, overrides `stage`; `version` is the tinygrad it is emitted on, `filename`
  where it will be written (for the run line). Raises Unsupported (the adapter would refuse
  the kernel) or EmitError (a value missing from the header). A tensor program (root
  REALIZE) gets the tensor-level script instead (emit_tensor.py: its @input and @output
  lines, Tensor code run on tinygrad's devices; `stage` and `plain` do not apply), and so
  does a kernel at stage pipeline (emit_pipeline.py: its @output lines, the kernel through
  tinygrad's whole codegen on its devices)."""
  try:
    root = uop_text.parse(text).root.op
  except uop_text.UopTextError:
    root = None  # to_tinygrad says why
  if root == "REALIZE":
    from uopfuzz_adapter import emit_tensor
    return emit_tensor.emit(text, version, filename)
  kernel = uop_text.parse(text) if root is not None else None
  recorded = kernel.header_value("simplifier-stage") if kernel else None  # what uopfuzz writes ("-": none)
  stage = (kernel and kernel.header_value("tinygrad-stage")) or (recorded if recorded in STAGES else stage)
  if stage not in STAGES: raise EmitError(f"unknown stage {stage!r} (expected symbolic, full or pipeline)")
  if stage == "pipeline":
    from uopfuzz_adapter import emit_pipeline
    return emit_pipeline.emit(text, version, filename)
  sink, conv = to_tinygrad(text)
  reason = semantic_gate(sink, full_rewrite=stage == "full")
  if reason: raise Unsupported.of(reason)
  imports, body = _rewrite_code(stage)
  camel, snake = _names(kernel.header_value("name"))
  return SCRIPT.substitute(
    docstring=_docstring(kernel, stage, version, filename).rstrip("\n"), imports=BUILD_IMPORTS + imports,
    data=_case_data(kernel, conv).rstrip("\n"), build=_build_code(sink, plain), stage=stage,
    rewrite=body.rstrip("\n"), evaluator=_evaluator(), camel=camel, snake=snake, check=_check_kind(kernel))
