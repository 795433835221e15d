"""--emit: the standalone reproducer of a case. Each kept tinygrad finding gives a script
that fails (exit 1, the differing element or the crash's file:line), a kernel tinygrad
rewrites right one that passes (exit 0), and every script runs with tinygrad alone on its
path. An unsound-bounds case's script fails while tinygrad's vmin/vmax of the original
leave out a value it takes (the wrong fact), and other scripts print that fact as a
diagnosis. The evaluator the scripts carry is checked on hand-built graphs against values
worked out by hand from SEMANTICS.md."""
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
    # The three first-kept findings, whose outputs are pinned here; every other kept case's
    # committed script is run by ctest (reproducer.tinygrad.*), and checked to be there below.
    for name in EXPECTED: self.assertTrue(os.path.isfile(os.path.join(FINDINGS, name)), name)
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

  def test_every_real_kept_finding_has_its_script(self):
    # A case with @verdict real is shown by a standalone script beside it (ctest runs each).
    real = [n for n in os.listdir(FINDINGS) if n.endswith(".uop") and "@verdict real" in read(os.path.join(FINDINGS, n))]
    self.assertGreater(len(real), 10)
    for name in real:
      with self.subTest(finding=name):
        self.assertTrue(os.path.isfile(os.path.join(FINDINGS, name[:-4] + ".py")), f"no {name[:-4]}.py: `uopfuzz replay FILE --emit tinygrad`")

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

  def test_long_input_lines(self):
    # an @input of 600 values: written wrapped at 100 characters, read back whole
    n, text = 600, read(os.path.join(EXAMPLES, "gather_given_data.uop")).replace("@output 0 [15, 10, 0]\n", "")
    values = [(i * 7) % 10 for i in range(n)]
    text = (text.replace("@input 1 [5, 0, 9]", f"@input 1 {values}").replace("size=3", f"size={n}")
            .replace("CONST 3 : index", f"CONST {n} : index"))
    s = Script(text)
    try:
      self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
      data = s.text().split("INPUTS = ", 1)[1].split("\n}\n", 1)[0]
      self.assertGreater(data.count("\n"), 20)
      self.assertLessEqual(max(map(len, data.splitlines())), 100)
      r = s.run("-c", "import repro, sys; assert repro.INPUTS[1] == %r; sys.exit(repro.check())" % values)
      self.assertEqual((r.returncode, r.stdout), (0, "ok: the rewrite keeps every output\n"), r.stderr)
    finally:
      s.close()

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


# finding-615070f9 (a campaign's, cut to its header): tinygrad clamps the bounds of a CAST
# that wraps. ((x0 - 1) * 1844674407370955161) as int32 at x0 = 4 is -858993461, but the
# CAST's [vmin, vmax] is its operand's [0, 9223372036854775805] clamped to [0, 2^31 - 1].
CAST_CLAMP = """@name finding-615070f9
@var x0=4
@signature unsound-bounds/tinygrad/CAST
@details tinygrad believes a wrong fact: unsound-bounds: CAST of [0, 9223372036854775805] claimed [0, 2147483647], value -858993461
@simplifier-stage symbolic
%0 = PARAM slot=0 size=7 out : int32
%1 = VAR name=x0 min=1 max=6 : index
%2 = INDEX %0 %1 : int32
%3 = CONST -1 : index
%4 = ADD %1 %3 : index
%5 = CONST 1844674407370955161 : index
%6 = MUL %4 %5 : index
%7 = CAST %6 : int32
%8 = STORE %2 %7 : void
%9 = SINK %8 : void
"""
CAST_CLAMP_FACT = ("wrong fact: CAST(weakint -> int32) vmin/vmax [0, 2147483647], but it takes -858993461; "
                   "operands: MUL(weakint) [0, 9223372036854775805]")


def overflow_case(dt):
  """x + 100 past the top of dt (x a VAR near it), stored and summed three times: tinygrad's
  [vmin, vmax] of the ADD leave dt, the value wraps."""
  top = {"int32": 2**31 - 1, "uint32": 2**32 - 1}[dt]
  return f"""@name overflow_{dt}
@signature unsound-bounds/tinygrad/ADD
@var x={top - 27}
%0 = PARAM slot=0 size=2 out : {dt}
%1 = CONST 0 : index
%2 = INDEX %0 %1 : {dt}
%3 = VAR name=x min={top - 47} max={top} : {dt}
%4 = CONST 100 : {dt}
%5 = ADD %3 %4 : {dt}
%6 = STORE %2 %5 : void
%7 = CONST 1 : index
%8 = INDEX %0 %7 : {dt}
%9 = CONST 3 : index
%10 = RANGE %9 axis=0 REDUCE : index
%11 = REDUCE %5 %10 op=ADD : {dt}
%12 = STORE %8 %11 : void
%13 = SINK %6 %12 : void
"""


class Bounds(unittest.TestCase):
  """tinygrad's vmin/vmax of the original kernel against the values the script computes."""

  def emitted(self, text):
    s = Script(text)
    self.addCleanup(s.close)
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    return s

  def test_an_unsound_bounds_case_fails_on_its_wrong_fact(self):
    s = self.emitted(CAST_CLAMP)
    r = s.run("repro.py")
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertEqual(r.stdout.splitlines(), [CAST_CLAMP_FACT, "FAIL: tinygrad's vmin/vmax of the original kernel leave "
                                             "out a value it takes"])
    self.assertIn('CHECK = "bounds"', s.text())
    self.assertIn("tinygrad's vmin/vmax of a CAST leave out a value it takes", s.text().split('"""')[1])
    r = s.run("-m", "unittest", "repro")  # the unittest fails on the same fact
    self.assertNotEqual(r.returncode, 0)
    self.assertIn(CAST_CLAMP_FACT, r.stderr)

  def test_it_passes_where_the_bounds_hold(self):
    # x0 = 1: every value is 0, inside every [vmin, vmax] (as on a tinygrad with the fix)
    s = self.emitted(CAST_CLAMP.replace("@var x0=4", "@var x0=1"))
    r = s.run("repro.py")
    self.assertEqual((r.returncode, r.stdout), (0, "ok: tinygrad's vmin/vmax hold at every value of the original kernel\n"))
    self.assertEqual(s.run("-m", "unittest", "repro").returncode, 0)
    s = self.emitted("@signature unsound-bounds/tinygrad/REDUCE\n" + read(os.path.join(EXAMPLES, "gather_given_data.uop")))
    self.assertEqual(s.run("repro.py").returncode, 0)

  def test_another_finding_prints_the_fact_as_a_diagnosis(self):
    # the same kernel as the campaign found it: its verdict is still the outputs'
    text = CAST_CLAMP.replace("@signature unsound-bounds/tinygrad/CAST", "@signature ub-introduced/uop/symbolic.py:242/oracle")
    s = self.emitted(text)
    self.assertIn('CHECK = "outputs"', s.text())
    r = s.run("repro.py")
    self.assertEqual(r.stdout.splitlines()[0], "diagnosis: " + CAST_CLAMP_FACT)
    self.assertEqual(r.returncode, 0 if r.stdout.endswith("ok: the rewrite keeps every output\n") else 1, r.stdout)

  def test_signed_overflow_is_set_aside_unsigned_wrapping_is_not(self):
    s = self.emitted(overflow_case("int32"))
    r = s.run("repro.py")
    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    self.assertNotIn("wrong fact", r.stdout)
    s = self.emitted(overflow_case("uint32"))
    r = s.run("repro.py")
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("wrong fact: ADD(uint32) vmin/vmax [4294967348, 4294967395], but it takes 72; operands: "
                  "PARAM(uint32) [4294967248, 4294967295], CONST(uint32) [100, 100]", r.stdout)

  def test_what_is_computed_from_a_signed_overflow_is_set_aside_too(self):
    # by hand (the adapter's gate refuses it: a CAST reads the bounds of a wrapping ADD):
    # the CAST's [2147483747, 2147483747] fits int64, its value -2147483549 does not
    x = UOp.variable("x", 2**31 - 1, 2**31 - 1, dtype=dtypes.int32, param=True)
    add = x + UOp.const(100, dtypes.int32)
    sink = store_sink(out(dt=dtypes.int64).index(idx(0)).store(add.cast(dtypes.int64)))
    seen = {}
    self.assertEqual(reproducer.evaluate(sink, {"x": 2**31 - 1}, {}, seen)[0], [-2147483549])
    self.assertEqual(seen[add], (-2147483549, -2147483549))
    self.assertIsNone(reproducer.wrong_fact(sink, seen))
    # in uint32 the same CAST is a wrong fact (unsigned wrapping is defined in C)
    x = UOp.variable("x", 2**32 - 1, 2**32 - 1, dtype=dtypes.uint32, param=True)
    wrap = (x + UOp.const(100, dtypes.uint32)).cast(dtypes.int64)
    sink = store_sink(out(dt=dtypes.int64).index(idx(0)).store(wrap))
    seen = {}
    reproducer.evaluate(sink, {"x": 2**32 - 1}, {}, seen)
    self.assertEqual(reproducer.wrong_fact(sink, seen), "wrong fact: ADD(uint32) vmin/vmax [4294967395, 4294967395], "
                     "but it takes 99; operands: PARAM(uint32) [4294967295, 4294967295], CONST(uint32) [100, 100]")

  def test_values_seen_are_whole_reduces_and_bools_as_ints(self):
    # sum over r < 4 of (uint8(r) + x), x = 254: the ADD takes 254, 255, 0, 1 (it wraps),
    # the REDUCE only its result (254 + 255 + 0 + 1) mod 256 = 254
    r = UOp.range(4, 0, AxisType.REDUCE)
    x = UOp.variable("x", 250, 255, dtype=dtypes.uint8, param=True)
    add = r.cast(dtypes.uint8) + x
    total = UOp(Ops.REDUCE, dtypes.uint8, (add, r), (Ops.ADD, 0))
    less = r < UOp.const(2, dtypes.weakint)  # True, True, False, False
    count = UOp(Ops.REDUCE, dtypes.uint8, (less.cast(dtypes.uint8), r), (Ops.ADD, 0))
    sink = store_sink(out(dt=dtypes.uint8).index(idx(0)).store(total), out(dt=dtypes.uint8, slot=1).index(idx(0)).store(count))
    seen = {}
    reproducer.evaluate(sink, {"x": 254}, {}, seen)
    self.assertEqual((seen[add], seen[total], seen[less], seen[count]), ((0, 255), (254, 254), (0, 1), (2, 2)))
    self.assertEqual(reproducer.wrong_fact(sink, seen),
                     "wrong fact: ADD(uint8) vmin/vmax [250, 258], but it takes 0; operands: CAST(weakint -> uint8) [0, 3], "
                     "PARAM(uint8) [250, 255]")


class Refusals(unittest.TestCase):
  def test_unsupported_kernel(self):
    s = Script(read(os.path.join(EXAMPLES, "requantize_bitcast.uop")))
    try:
      self.assertEqual(s.emitted.returncode, 1)
      self.assertTrue(s.emitted.stderr.startswith("unsupported: [quantized] quantized dtype"), s.emitted.stderr)
      self.assertFalse(os.path.exists(s.path))
    finally:
      s.close()

  def test_a_tensor_program_gets_the_tensor_level_script(self):
    # a tensor program (root REALIZE) is not refused: it gets emit_tensor's script (test_emit_tensor)
    s = Script(read(os.path.join(EXAMPLES, "tensor", "arange_sum.uop")))
    try:
      self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
      self.assertIn("def program(device):", s.text())
      r = s.run(os.path.basename(s.path), "PYTHON")
      self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
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
