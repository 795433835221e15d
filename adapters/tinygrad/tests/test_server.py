"""The adapter process as uopfuzz uses it: hello, rewrites, rule names and hits, disable=,
stop-after=, unsupported and error answers (docs/external-simplifier.md)."""
import os
import re
import tempfile
import unittest

from adapter_process import (EXAMPLES, Adapter, canonical, example, header_of, hits_of, kernel_body, run_kernel,
                             tinygrad_checkout, uopfuzz)

# out[r] = int32((r + 0) * 1) for r < 4: tinygrad's x+0 -> x, then its x*1 -> x.
PLUS_ZERO_TIMES_ONE = """\
%0 = PARAM slot=0 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CONST 0 : index
%5 = ADD %2 %4 : index
%6 = CONST 1 : index
%7 = MUL %5 %6 : index
%8 = CAST %7 : int32
%9 = STORE %3 %8 : void
%10 = END %9 %2 : void
%11 = SINK %10 : void
"""

# The same with an index product past int64 by tinygrad's bounds: the semantics gate refuses
# it (tinygrad's index is unbounded, ours is int64).
PAST_INT64 = PLUS_ZERO_TIMES_ONE.replace("%6 = CONST 1 : index", "%6 = CONST 9223372036854775807 : index")


# out[0] = sum over r < END of r: a RANGE of a constant end (0 and 1: the full stage refuses).
RANGE_END = """\
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST {end} : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = CAST %4 : int32
%6 = REDUCE %5 %4 op=ADD : int32
%7 = STORE %2 %6 : void
%8 = SINK %7 : void
"""

# One RANGE closed by two ENDs (two outputs stored over it): the full stage refuses it.
CLOSED_TWICE = """\
%0 = PARAM slot=0 size=2 out : int32
%1 = CONST 2 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CAST %2 : int32
%5 = STORE %3 %4 : void
%6 = END %5 %2 : void
%7 = PARAM slot=1 size=2 out : int32
%8 = INDEX %7 %2 : int32
%9 = STORE %8 %4 : void
%10 = END %9 %2 : void
%11 = SINK %6 %10 : void
"""


# out[r] = in[r] + 0.0 over in = [-0, +0, -1.5]: tinygrad's x+0 -> x keeps -0 where -0+0 is
# +0 here, which the hello's zero-sign tolerance covers; through a RECIPROCAL (1/-0 = -inf) it
# would not, and the adapter refuses that shape.
PLUS_ZERO_OF_NEGATIVE_ZERO = """\
@input 1 [-0.0, 0.0, -1.5]
%0 = PARAM slot=0 size=3 out : float32
%1 = PARAM slot=1 size=3 in : float32
%2 = CONST 3 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %1 %3 : float32
%5 = LOAD %4 : float32
%6 = CONST 0.0 : float32
%7 = ADD %5 %6 : float32
%8 = INDEX %0 %3 : float32
%9 = STORE %8 %7 : void
%10 = END %9 %3 : void
%11 = SINK %10 : void
"""


def tinygrad_file(rel):
  import tinygrad
  return os.path.join(os.path.dirname(os.path.abspath(tinygrad.__file__)), rel)


def rule_at(rel, marker):
  """The rule name `rel:line` of the one line of tinygrad's `rel` holding `marker`."""
  with open(tinygrad_file(rel), encoding="utf-8") as f: lines = f.read().splitlines()
  found = [i + 1 for i, line in enumerate(lines) if marker in line]
  assert len(found) == 1, f"{marker!r} in {rel}: lines {found}"
  return f"{rel}:{found[0]}"


X_PLUS_ZERO = ("uop/symbolic.py", "# x+0 / x^0 / x|0 -> x")
X_TIMES_ONE = ("uop/symbolic.py", "# x*1 -> x")
REDUCE_UNPARENTED = ("codegen/simplify.py", '(UPat(Ops.REDUCE, name="red"), reduce_unparented)')
REDUCE_COLLAPSE = ("codegen/simplify.py", "), reduce_collapse),")

# arange(10).sum() as tinygrad's rangeify leaves it (reference facts):
# sum_r0 (sum_r1 where(!((r0+r1)<9), 1, 0) - 1) = sum_r0 r0 = 45.
ARANGE_AFTER_RANGEIFY = """\
%0 = PARAM slot=0 size=1 out : int32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : int32
%3 = CONST 10 : index
%4 = RANGE %3 axis=0 REDUCE : index
%5 = RANGE %3 axis=1 REDUCE : index
%6 = ADD %4 %5 : index
%7 = CONST 9 : index
%8 = CMPLT %6 %7 : bool
%9 = CONST true : bool
%10 = CMPNE %8 %9 : bool
%11 = CONST 1 : int32
%12 = CONST 0 : int32
%13 = WHERE %10 %11 %12 : int32
%14 = REDUCE %13 %5 op=ADD : int32
%15 = SUB %14 %11 : int32
%16 = REDUCE %15 %4 op=ADD : int32
%17 = STORE %2 %16 : void
%18 = SINK %17 : void
"""


def count_ops(body, op):
  return sum(1 for line in body.splitlines() if re.match(rf"%\d+ = {op} ", line))


class ServerTest(unittest.TestCase):
  def setUp(self):
    self.adapters = []

  def tearDown(self):
    for a in self.adapters: self.assertEqual(a.close(), 0)

  def start(self, *args, stage="symbolic", env=None):
    a = Adapter(*args, stage=stage, env=env)
    self.adapters.append(a)
    return a

  def test_hello(self):
    a = self.start(stage="full")
    self.assertEqual(a.hello["protocol"], "1")
    self.assertEqual(a.hello["name"], "tinygrad")
    self.assertEqual(a.hello["stage"], "full")
    # run: the whole pipeline on the devices that run here (tests/test_run.py)
    self.assertEqual(set(a.hello["capabilities"].split()), {"hits", "disable", "stop-after", "bounds", "run", "split-reduce-threshold"})
    self.assertEqual(a.hello["devices"].split()[0], "PYTHON")
    self.assertEqual(a.hello["tolerances"], "zero-sign")
    # the kernel rule bugs, and any tensor-level ones (bugs.tensor_bug_names())
    from uopfuzz_adapter import bugs
    tensor_bugs = set(bugs.tensor_bug_names()) if hasattr(bugs, "tensor_bug_names") else set()
    self.assertEqual(set(a.hello["bugs"].split()), {"mod_fold_off_by_one", "div_fold_no_guard", "cast_noop"} | tensor_bugs)
    version = a.hello["version"]
    import tinygrad
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(tinygrad.__file__)))
    if not os.path.exists(os.path.join(checkout, ".git")):
      # a snapshot without git history and not installed: the content hash of its sources
      self.assertRegex(version, r"^tree-[0-9a-f]{12}$")
    else:
      self.assertRegex(version, r"^[0-9a-f]{7,40}(\+dirty)?$")

  def test_hello_declines_name_the_shapes_refused_at_the_stage(self):
    from uopfuzz_adapter import declines
    self.assertEqual(self.start().hello["declines"].split(), ["quantized"])
    full = self.start(stage="full")
    self.assertEqual(full.hello["declines"].split(), ["quantized", "range-end-0", "range-end-1", "range-closed-twice"])
    self.assertTrue(set(full.hello["declines"].split()) <= set(declines.SHAPES))
    # each declined shape is refused at the full stage, under its class
    for shape, text, cls in (("quantized", kernel_body(example("requantize_bitcast.uop")), "quantized"),
                             ("range-end-0", RANGE_END.format(end=0), "range-end-0-1"),
                             ("range-end-1", RANGE_END.format(end=1), "range-end-0-1"),
                             ("range-closed-twice", CLOSED_TWICE, "range-closed-twice")):
      with self.subTest(shape=shape):
        frames = full.simplify(text)
        self.assertEqual(frames[-1][0], "unsupported", frames)
        self.assertTrue(frames[-1][1].startswith(f"[{cls}] "), frames[-1][1])

  def test_every_unsupported_reason_starts_with_a_known_class(self):
    from uopfuzz_adapter import declines
    seen = set()
    for stage in ("symbolic", "full"):
      a = self.start(stage=stage)
      for text in [kernel_body(example(name)) for name in sorted(os.listdir(EXAMPLES)) if name.endswith(".uop")] + \
                  [PAST_INT64, RANGE_END.format(end=1), CLOSED_TWICE, "%0 = SINK %9 : void\n"]:
        kind, body = a.simplify(text)[-1]
        if kind != "unsupported": continue
        cls = declines.class_of(body)
        self.assertIn(cls, declines.CLASSES, body)
        seen.add(cls)
    self.assertTrue({"quantized", "index-past-int64", "range-end-0-1", "range-closed-twice", "no-tinygrad-form"} <= seen, seen)

  def test_plus_zero_of_negative_zero_is_within_the_zero_sign_tolerance(self):
    recip = PLUS_ZERO_OF_NEGATIVE_ZERO.replace("%9 = STORE %8 %7", "%12 = RECIPROCAL %7 : float32\n%9 = STORE %8 %12")
    with tempfile.TemporaryDirectory() as d:
      plain, through = os.path.join(d, "plus_zero.uop"), os.path.join(d, "plus_zero_recip.uop")
      for path, text in ((plain, PLUS_ZERO_OF_NEGATIVE_ZERO), (through, recip)):
        with open(path, "w", encoding="utf-8") as f: f.write(text)
      for stage in ("symbolic", "full"):
        flags = ("--simplifier", "tinygrad", "--tinygrad", tinygrad_checkout(), "--tinygrad-stage", stage)
        out = uopfuzz("check", plain, *flags)
        self.assertIn("ok: rewrite agrees", out)
        self.assertIn(rule_at(*X_PLUS_ZERO), out)  # the fold ran: -0 stored where the original stores +0
        self.assertIn("unsupported: [float-fast-math] float x+0 reaching RECIPROCAL", uopfuzz("check", through, *flags, ok_status=(2,)))

  def test_arange_sum_rewrite_still_sums_to_45(self):
    text = example("arange_sum.uop")
    for stage in ("symbolic", "full"):
      frames = self.start(stage=stage).simplify(kernel_body(text))
      self.assertEqual(frames[-1][0], "ok", frames)
      result = run_kernel(header_of(text), frames[-1][1])
      self.assertEqual(result["outputs"][0]["values"], [45], stage)

  def test_full_stage_removes_an_unparented_range(self):
    text = example("unparented_add.uop")
    frames = self.start(stage="full").simplify(kernel_body(text))
    self.assertEqual(frames[-1][0], "ok", frames)
    self.assertIn(rule_at(*REDUCE_UNPARENTED), hits_of(frames))
    self.assertEqual(count_ops(frames[-1][1], "REDUCE"), 0)
    self.assertEqual(run_kernel(header_of(text), frames[-1][1])["outputs"][0]["values"], [5, 10, 15])

  def test_full_stage_collapses_a_reduce_as_the_scheduler_does(self):
    frames = self.start(stage="full").simplify(ARANGE_AFTER_RANGEIFY)
    self.assertEqual(frames[-1][0], "ok", frames)
    self.assertEqual(hits_of(frames).get(rule_at(*REDUCE_COLLAPSE)), 1)
    self.assertEqual(count_ops(frames[-1][1], "REDUCE"), 1)
    self.assertEqual(run_kernel("", frames[-1][1])["outputs"][0]["values"], [45])
    # the symbolic rules alone keep both loops
    self.assertEqual(count_ops(self.start().simplify(ARANGE_AFTER_RANGEIFY)[-1][1], "REDUCE"), 2)

  def test_hits_name_the_rule_the_same_in_two_processes(self):
    first = self.start().simplify(PLUS_ZERO_TIMES_ONE)
    second = self.start().simplify(PLUS_ZERO_TIMES_ONE)
    self.assertEqual(hits_of(first), {rule_at(*X_PLUS_ZERO): 1, rule_at(*X_TIMES_ONE): 1})
    self.assertEqual(hits_of(first), hits_of(second))
    self.assertEqual(count_ops(first[-1][1], "ADD") + count_ops(first[-1][1], "MUL"), 0)

  def test_disable_removes_the_rule(self):
    frames = self.start().simplify(PLUS_ZERO_TIMES_ONE, disable=rule_at(*X_PLUS_ZERO) + ",no/such.py:1")
    self.assertEqual(frames[-1][0], "ok", frames)
    self.assertNotIn(rule_at(*X_PLUS_ZERO), hits_of(frames))
    self.assertEqual(hits_of(frames)[rule_at(*X_TIMES_ONE)], 1)
    self.assertEqual(count_ops(frames[-1][1], "ADD"), 1)

  def test_stop_after_zero_returns_the_input(self):
    frames = self.start().simplify(PLUS_ZERO_TIMES_ONE, stop_after=0)
    self.assertEqual(frames, [("ok", frames[-1][1])])
    self.assertEqual(canonical(frames[-1][1]), canonical(PLUS_ZERO_TIMES_ONE))

  def test_stop_after_one_applies_one_rule(self):
    frames = self.start().simplify(PLUS_ZERO_TIMES_ONE, stop_after=1)
    self.assertEqual(sum(hits_of(frames).values()), 1)
    self.assertEqual(count_ops(frames[-1][1], "ADD") + count_ops(frames[-1][1], "MUL"), 1)

  def test_unsupported_kernel(self):
    a = self.start()
    frames = a.simplify(PAST_INT64)
    self.assertEqual(frames[-1][0], "unsupported")
    self.assertRegex(frames[-1][1], r"^\[index-past-int64\] .*may leave int64")
    # the process goes on
    self.assertEqual(a.simplify(PLUS_ZERO_TIMES_ONE)[-1][0], "ok")

  def test_quantized_kernel_is_unsupported(self):
    # tinygrad has no quantized types: the answer names the cause and the process goes on
    a = self.start()
    frames = a.simplify(example("requantize_bitcast.uop"))
    self.assertEqual(frames, [("unsupported", "[quantized] quantized dtype qint8 (tinygrad has no quantized types)")])
    self.assertEqual(a.simplify(PLUS_ZERO_TIMES_ONE)[-1][0], "ok")

  def test_nothing_but_frames_on_stdout_when_tinygrad_prints(self):
    # TRACK_MATCH_STATS=3 makes tinygrad print a line per rule it applies, and its match
    # statistics at exit: all of it must reach stderr, the frames stay readable (the
    # adapter's own matchers print nothing; reduce_collapse runs tinygrad's inside it)
    a = Adapter(stage="full", env={"TRACK_MATCH_STATS": "3"})
    self.assertEqual(a.simplify(ARANGE_AFTER_RANGEIFY)[-1][0], "ok")
    self.assertEqual(a.close(), 0)
    self.assertIn(" us -- ", a.stderr)


class ErrorFrameTest(unittest.TestCase):
  """An exception raised inside tinygrad becomes an `error` frame whose `where:` is the
  innermost tinygrad frame, so two different crashes get two signatures."""

  class Raising:
    package_dir = os.path.dirname(tinygrad_file("__init__.py"))

    def __init__(self, crash):
      self.crash = crash

    def simplify(self, text, disabled, stop_after):
      self.crash()

  def answer_of(self, crash):
    from uopfuzz_adapter import server
    data = server.answer(self.Raising(crash), "", frozenset(), None)
    header, _, body = data.partition(b"\n")
    kind, length = header.decode().split(" ")[:2]
    self.assertEqual(int(length), len(body))
    return kind, body.decode()

  def test_where_is_the_innermost_tinygrad_line(self):
    from tinygrad.uop.ops import UOp, Ops
    from tinygrad.dtype import dtypes

    def divide_by_zero():  # tinygrad's divmod fold refuses x // 0
      r = UOp.range(4, 0)
      (r // UOp.const(0, dtypes.weakint)).simplify()

    def bad_range():  # a UPat with an op that is not an Ops
      from tinygrad.uop.ops import UPat
      UPat("ADD")

    kinds, wheres = set(), []
    for crash in (divide_by_zero, bad_range):
      kind, body = self.answer_of(crash)
      kinds.add(kind)
      lines = body.splitlines()
      self.assertTrue(lines[1].startswith("where: "), body)
      rel, line = lines[1][len("where: "):].rsplit(":", 1)
      with open(tinygrad_file(rel), encoding="utf-8") as f: source = f.read().splitlines()
      wheres.append((rel, int(line), source[int(line) - 1]))
      self.assertIn("Traceback", body)
    self.assertEqual(kinds, {"error"})
    self.assertIn("raise ZeroDivisionError", wheres[0][2])
    self.assertIn("assert", wheres[1][2])
    self.assertNotEqual(wheres[0][:2], wheres[1][:2])

  def test_no_where_outside_tinygrad(self):
    def plain():
      raise RuntimeError("not tinygrad's")
    kind, body = self.answer_of(plain)
    self.assertEqual(kind, "error")
    self.assertEqual(body.splitlines()[0], "RuntimeError: not tinygrad's")
    self.assertFalse(body.splitlines()[1].startswith("where:"))


if __name__ == "__main__":
  unittest.main()
