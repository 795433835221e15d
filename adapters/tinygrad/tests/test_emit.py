"""--emit: the standalone reproducer of a case. Each kept tinygrad finding gives a script
that fails (exit 1, the differing element or the crash's file:line), a kernel tinygrad
rewrites right one that passes (exit 0), and every script runs with tinygrad alone on its
path. The evaluator the scripts carry is checked on hand-built graphs against values worked
out by hand from SEMANTICS.md."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

from tinygrad.dtype import Invalid, dtypes
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp

from adapter_process import ADAPTER, EXAMPLES, REPO, tinygrad_checkout
from uopfuzz_adapter import convert, emit, reproducer, stages

FINDINGS = os.path.join(REPO, "corpus", "findings", "tinygrad")
# finding file -> what its script must print (stdout and stderr together)
EXPECTED = {
  "cast_const_fold_unwrapped_int64_max.uop": "out[0][0]: expected 9 got -1",
  "cast_const_fold_unwrapped_uint64.uop": "out[0][0]: expected 18446744073709551615 got 0",
  "cast_nan_const_fold_crashes.uop": "tinygrad crashed in the rewrite at dtype.py:82",
}


class Script:
  """A case emitted by the adapter's CLI into a fresh folder, and runs of the script there."""

  def __init__(self, case_text, *flags, name="repro"):
    self.dir = tempfile.TemporaryDirectory()
    self.case = os.path.join(self.dir.name, "case.uop")
    self.path = os.path.join(self.dir.name, f"{name}.py")
    with open(self.case, "w") as f: f.write(case_text)
    self.emitted = subprocess.run([sys.executable, ADAPTER, "--tinygrad", tinygrad_checkout(), *flags,
                                   "--emit", self.case, "-o", self.path], capture_output=True, text=True, timeout=120)

  def text(self):
    with open(self.path) as f: return f.read()

  def run(self, *args):
    """The script run from its folder with nothing but tinygrad on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TINYGRAD_PATH")}
    env["PYTHONPATH"] = tinygrad_checkout()
    return subprocess.run([sys.executable, "-s", *args], capture_output=True, text=True, timeout=300,
                          cwd=self.dir.name, env=env)

  def close(self):
    self.dir.cleanup()


def read(path):
  with open(path) as f: return f.read()


class Findings(unittest.TestCase):
  def test_each_kept_finding_reproduces(self):
    self.assertEqual(sorted(EXPECTED), sorted(os.listdir(FINDINGS)))  # a new finding gets its line here
    for name, expected in EXPECTED.items():
      with self.subTest(finding=name):
        s = Script(read(os.path.join(FINDINGS, name)))
        try:
          self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
          r = s.run(os.path.basename(s.path))
          self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
          self.assertIn(expected, r.stdout)
          if "crash" in name: self.assertIn("Traceback", r.stderr)
          # and as a unittest: it fails while the bug is there
          r = s.run("-m", "unittest", "repro")
          self.assertNotEqual(r.returncode, 0)
          self.assertIn("TestUopfuzzFinding", r.stderr)
        finally:
          s.close()

  def test_docstring_says_what_was_found(self):
    s = Script(read(os.path.join(FINDINGS, "cast_const_fold_unwrapped_int64_max.uop")))
    try:
      doc = s.text().split('"""')[1]
      for part in ("mismatch/uop/symbolic.py:263/oracle", "tinygrad/uop/symbolic.py:263", "tree-ed82812d774a",
                   "Stage       symbolic", "uopfuzz fuzz --simplifier tinygrad", "out[0][0] is 0 on the original",
                   "PYTHONPATH=<tinygrad checkout> python3 repro.py"):
        self.assertIn(part, doc)
    finally:
      s.close()

  def test_emitting_is_fast(self):
    for name in EXPECTED:
      text = read(os.path.join(FINDINGS, name))
      start = time.perf_counter()
      emit.emit(text, "symbolic")
      self.assertLess(time.perf_counter() - start, 0.5, name)


class Standalone(unittest.TestCase):
  def test_a_right_rewrite_passes(self):
    for stage in ("symbolic", "full"):
      with self.subTest(stage=stage):
        s = Script(read(os.path.join(EXAMPLES, "arange_sum.uop")), "--stage", stage)
        try:
          self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
          r = s.run("repro.py")
          self.assertEqual((r.returncode, r.stdout.strip()), (0, "ok: the rewrite keeps every output"), r.stderr)
          self.assertEqual(s.run("-m", "unittest", "repro").returncode, 0)
        finally:
          s.close()

  def test_script_imports_nothing_of_uopfuzz(self):
    s = Script(read(os.path.join(EXAMPLES, "gather_given_data.uop")))
    try:
      text = s.text()
      self.assertIsNone(re.search(r"^\s*(from|import)\s+(?!tinygrad\b|itertools|math|os|struct|sys|traceback|unittest)",
                                  text, re.M))
      self.assertNotIn("uopfuzz_adapter", text)
      r = s.run("-c", "import repro, sys; print(sorted(m for m in sys.modules if 'uopfuzz' in m)); sys.exit(repro.check())")
      self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
      self.assertTrue(r.stdout.startswith("[]"), r.stdout)
    finally:
      s.close()

  def test_loops_reduce_and_input_loads(self):
    # gather_given_data: an END over 3 rows, a REDUCE over 8, LOADs of two @input buffers
    text = read(os.path.join(EXAMPLES, "gather_given_data.uop"))
    for stage in ("symbolic", "full"):
      with self.subTest(stage=stage):
        s = Script(text, "--stage", stage)
        try:
          self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
          self.assertIn("INPUTS = {1: [5, 0, 9], 2: [10, 11, 12, 13, 14, 15, 16, 17]}", s.text())
          r = s.run("repro.py")
          self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        finally:
          s.close()
    # the evaluator computed the loops, not a copy of @output: other data, other outputs
    scope = script_scope(text.replace("@input 1 [5, 0, 9]", "@input 1 [7, 8, 1]"))
    self.assertEqual(scope["evaluate"](scope["build"](), scope["VARS"], scope["INPUTS"])[0], [17, 0, 11])

  def test_the_stage_in_the_header_wins(self):
    text = "@tinygrad-stage full\n" + read(os.path.join(EXAMPLES, "arange_sum.uop"))
    self.assertIn("pm_reduce_simplify", emit.emit(text, "symbolic"))
    self.assertNotIn("pm_reduce_simplify", emit.emit(read(os.path.join(EXAMPLES, "arange_sum.uop")), "symbolic"))
    # uopfuzz's own record of the stage ("-": none recorded)
    self.assertIn("pm_reduce_simplify", emit.emit("@simplifier-stage full\n" + text.split("\n", 1)[1], "symbolic"))
    self.assertNotIn("pm_reduce_simplify", emit.emit("@simplifier-stage -\n" + text.split("\n", 1)[1], "symbolic"))

  def test_an_undefined_original_exits_2(self):
    s = Script(read(os.path.join(EXAMPLES, "div_by_range_zero.uop")))
    try:
      r = s.run("repro.py")
      self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
      self.assertIn("CANNOT CHECK: the original kernel", r.stdout)
      self.assertIn("by zero", r.stdout)
    finally:
      s.close()

  def test_plain_uop_lines_rebuild_every_example(self):
    # the fallback for graphs pyrender cannot write: one UOp(...) a node
    built = 0
    for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.uop"))):
      try:
        sink, _ = convert.to_tinygrad(read(path))
      except convert.Unsupported:
        continue
      with self.subTest(kernel=os.path.basename(path)):
        code = emit._build_code(sink, plain=True)
        self.assertIn("one UOp(...) a node", code)
        scope = {}
        exec("import math\n" + emit.BUILD_IMPORTS + "inf, nan = math.inf, math.nan\n" + code, scope)
        self.assertIs(scope["build"](), sink)
        built += 1
    self.assertGreater(built, 20)

  def test_pyrender_text_that_does_not_rebuild_falls_back(self):
    real = emit.pyrender
    emit.pyrender = lambda sink: real(sink).replace("ast = ", "ast = UOp.const(0, dtypes.int) or ")  # a wrong text
    try:
      scope = script_scope(read(os.path.join(EXAMPLES, "gather_given_data.uop")))
    finally:
      emit.pyrender = real
    self.assertIn("one UOp(...) a node", scope["build"].__doc__)
    self.assertEqual(scope["check"](), 0)


class Refusals(unittest.TestCase):
  def test_unsupported_kernel(self):
    s = Script(read(os.path.join(EXAMPLES, "requantize_bitcast.uop")))
    try:
      self.assertEqual(s.emitted.returncode, 1)
      self.assertTrue(s.emitted.stderr.startswith("unsupported: quantized dtype"), s.emitted.stderr)
      self.assertFalse(os.path.exists(s.path))
    finally:
      s.close()

  def test_an_input_buffer_needs_its_values(self):
    s = Script(read(os.path.join(EXAMPLES, "gather_sum.uop")))
    try:
      self.assertEqual(s.emitted.returncode, 2)
      self.assertIn("no @input for input buffer slot 1", s.emitted.stderr)
    finally:
      s.close()
    with self.assertRaisesRegex(emit.EmitError, "no @var for VAR cut"):
      emit.emit(read(os.path.join(EXAMPLES, "window_sum.uop")).replace("@var cut=7\n", ""))


class FullStage(unittest.TestCase):
  def test_steps_are_the_adapters(self):
    scope = {}
    exec(emit.FULL_IMPORTS, scope)
    ours = emit.FULL_STEPS
    theirs = stages.steps("full")
    self.assertEqual([s[0] for s in ours], [s.name for s in theirs])
    for (name, pm, bottom_up, fresh_ctx), step in zip(ours, theirs):
      with self.subTest(step=name):
        self.assertEqual((bottom_up, fresh_ctx), (step.bottom_up, step.fresh_ctx))
        patterns = lambda m: [(id(p), id(f)) for p, f in m.patterns]  # noqa: E731
        self.assertEqual(patterns(eval(pm, scope)), patterns(step.pm))


def script_scope(case_text, stage="symbolic"):
  """The emitted script's definitions, executed here (its __main__ part does not run)."""
  scope = {"__name__": "reproducer_under_test"}
  exec(emit.emit(case_text, stage), scope)
  return scope


def store_sink(*effects):
  return UOp(Ops.SINK, dtypes.void, src=effects, arg=KernelInfo())


def out(size=1, dt=dtypes.int32, slot=0):
  return UOp.param(slot, dt, shape=(size,))


def idx(i):
  return UOp.const(i, dtypes.weakint)


class Evaluator(unittest.TestCase):
  """reproducer.evaluate on graphs built by hand; values from SEMANTICS.md."""

  def run_kernel(self, sink, inputs=None, var_values=None):
    return reproducer.evaluate(sink, var_values or {}, inputs or {})

  def test_wrapping_and_casts(self):
    # int8(100) * 3 wraps to 44; float32(0.1) is rounded; -1 bitcast to float32 is NaN
    v = UOp.const(100, dtypes.int8) * UOp.const(3, dtypes.int8)
    self.assertEqual(self.run_kernel(store_sink(out(dt=dtypes.int8).index(idx(0)).store(v)))[0], [44])
    f = UOp.const(0.1, dtypes.float64).cast(dtypes.float32)
    self.assertEqual(self.run_kernel(store_sink(out(dt=dtypes.float32).index(idx(0)).store(f)))[0], [0.10000000149011612])
    nan = UOp.const(-1, dtypes.int32).bitcast(dtypes.float32)
    got = self.run_kernel(store_sink(out(dt=dtypes.float32).index(idx(0)).store(nan)))[0][0]
    self.assertNotEqual(got, got)

  def test_reduce_over_a_range_and_end(self):
    # out[i] = sum over r < 4 of in[r] * i, for i < 3; in = [1, 2, 3, 4]
    i, r = UOp.range(3, 0, AxisType.LOOP), UOp.range(4, 1, AxisType.REDUCE)
    x = UOp.param(1, dtypes.int32, shape=(4,)).index(r) * i.cast(dtypes.int32)
    total = UOp(Ops.REDUCE, dtypes.int32, (x, r), (Ops.ADD, 0))
    sink = store_sink(out(3).index(i).store(total).end(i))
    self.assertEqual(self.run_kernel(sink, {1: [1, 2, 3, 4]})[0], [0, 10, 20])

  def test_gated_index(self):
    # out[i] = in[i] where i < 2, else the LOAD's 0; the store's own gate skips i == 2
    i = UOp.range(3, 0, AxisType.LOOP)
    gated = (i < 2).alu(Ops.WHERE, i, UOp.const(Invalid, dtypes.weakint))
    load = UOp.param(1, dtypes.int32, shape=(2,)).index(gated)
    sink = store_sink(out(3).index(i).store(load + UOp.const(1, dtypes.int32)).end(i))
    self.assertEqual(self.run_kernel(sink, {1: [7, 8]})[0], [8, 9, 1])
    sink = store_sink(out(3).index(gated).store(i.cast(dtypes.int32) + UOp.const(5, dtypes.int32)).end(i))
    self.assertEqual(self.run_kernel(sink)[0], [5, 6, 0])

  def test_undefined_behaviour(self):
    x = UOp.variable("x", 0, 3, dtype=dtypes.int32, param=True)
    cases = {
      "by zero": UOp.const(12, dtypes.int32).alu(Ops.CDIV, x),
      "SHL by 40": UOp.const(1, dtypes.int32).alu(Ops.SHL, x + UOp.const(40, dtypes.int32)),
      "CAST of nan": UOp.const(float("nan"), dtypes.float32).cast(dtypes.int32),
      "element 4 of buffer 1": UOp.param(1, dtypes.int32, shape=(4,)).index(x.cast(dtypes.weakint) + UOp.const(4, dtypes.weakint)),
    }
    for what, value in cases.items():
      with self.subTest(what=what):
        with self.assertRaisesRegex(reproducer.Undefined, what):
          self.run_kernel(store_sink(out().index(idx(0)).store(value)), {1: [0, 0, 0, 0]}, {"x": 0})
    twice = store_sink(out().index(idx(0)).store(UOp.const(1, dtypes.int32)), out().index(idx(0)).store(UOp.const(2, dtypes.int32)))
    with self.assertRaisesRegex(reproducer.Undefined, "second STORE"):
      self.run_kernel(twice)

  def test_an_unknown_op_is_named(self):
    odd = UOp(Ops.SPECIAL, dtypes.int32, (UOp.const(4, dtypes.int32),), "gidx0")
    with self.assertRaisesRegex(NotImplementedError, "SPECIAL"):
      self.run_kernel(store_sink(out().index(idx(0)).store(odd)))

  def test_comparison_tolerates_zero_sign_and_nan_only(self):
    outputs = {0: 3}
    same = reproducer.differences({0: [0.0, float("nan"), 1.5]}, {0: [-0.0, float("nan"), 1.5]}, outputs)
    self.assertEqual(same, [])
    self.assertEqual(reproducer.differences({0: [0.0, 1.0, 2]}, {0: [0.0, float("nan"), 3]}, outputs),
                     ["out[0][1]: expected 1.0 got nan", "out[0][2]: expected 2 got 3"])
    # a buffer the rewrite no longer writes is still zeroed
    self.assertEqual(reproducer.differences({0: [0, 0, 1]}, {}, outputs), ["out[0][2]: expected 1 got 0"])


if __name__ == "__main__":
  unittest.main()
