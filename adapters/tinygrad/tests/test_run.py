"""The `run` request (docs/external-simplifier.md, "Runs: the whole pipeline") through
server.serve on in-memory streams, the pipeline stage, `--run` on the command line, and
pipeline_hits.count()."""
import io
import os
import re
import subprocess
import sys
import unittest

from adapter_process import ADAPTER, read_frame, tinygrad_checkout
from uopfuzz_adapter import server, tensor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# out0 = x - max(x, axis 1) broadcast back, out1 = row sums of exp2 of that (softmax_like)
SOFTMAX = open(os.path.join(REPO, "corpus", "examples", "tensor", "softmax_like.uop"), encoding="utf-8").read()

# values as .uop writes them: -0, nan, inf through a NEG, and a constant output (no device of
# its own: cloned onto the device that runs it)
SPECIALS = """\
@input 0 [0, -0, nan, inf, -1.5, 3]
%x = PARAM slot=0 in : float32[2,3]
%n = NEG %x : float32[2,3]
%c = CONST 7 : int16[2]
%r = REALIZE %n %c : void
"""

# a program of its own (the constant 4321 is in no other graph of this process), so that
# tinygrad's schedule and kernel caches are cold and its rules fire
FRESH = """\
@input 0 [1, 2, 3, 4]
%x = PARAM slot=0 in : int32[4]
%c = CONST 4321 : int32[4]
%m = MUL %x %c : int32[4]
%s = REDUCE_AXIS %m op=ADD axes=[0] : int32[1]
%r = REALIZE %s : void
"""

QUANTIZED = """\
@input 0 [1, 2]
%x = PARAM slot=0 in : qint8<0.5,0>[2]
%r = REALIZE %x : void
"""

KERNEL = """\
@input 1 [3, 4, 5]
%0 = PARAM slot=0 size=3 out : int32
%1 = PARAM slot=1 size=3 in : int32
%2 = CONST 3 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %1 %3 : int32
%5 = LOAD %4 : int32
%6 = CONST 2 : int32
%7 = MUL %5 %6 : int32
%8 = INDEX %0 %3 : int32
%9 = STORE %8 %7 : void
%10 = END %9 %3 : void
%11 = SINK %10 : void
"""


def make_simplifier(stage="symbolic"):
  import tinygrad
  from uopfuzz_adapter import stages
  package_dir = os.path.dirname(os.path.abspath(tinygrad.__file__))
  s = server.RunOnly(package_dir, "test") if stage == "pipeline" else stages.TinygradSimplifier(stage, package_dir, "test")
  s.devices = tensor.probe_devices()
  return s


def request(kind, text, **options):
  data = text.encode()
  opts = "".join(f" {k}={v}" for k, v in options.items())
  return f"{kind} {len(data)}{opts}\n".encode() + data


def converse(simplifier, *requests):
  """(exit status, hello body, [[(type, options, body)...] per request]) of serve()."""
  out = io.BytesIO()
  status = server.serve(simplifier, out, io.BytesIO(b"".join(requests)))
  stream = io.BytesIO(out.getvalue())
  kind, _, hello = read_frame(stream)
  assert kind == "hello"
  answers, current = [], []
  while (f := read_frame(stream)) is not None:
    current.append(f)
    if f[0] in ("ok", "unsupported") or (f[0] == "error" and "device" not in f[1]):
      answers.append(current)
      current = []
  if current: answers.append(current)
  return status, hello, answers


def outputs_of(body):
  return {int(line.split(" ", 1)[0]): line.split(" ", 1)[1] for line in body.splitlines()}


class Run(unittest.TestCase):
  @classmethod
  def setUpClass(cls):
    cls.simplifier = make_simplifier()
    cls.devices = cls.simplifier.devices

  def test_hello(self):
    _, hello, _ = converse(self.simplifier)
    lines = dict(line.split(": ", 1) for line in hello.splitlines())
    self.assertEqual(lines["capabilities"].split(), ["hits", "disable", "stop-after", "bounds", "run", "split-reduce-threshold"])
    self.assertEqual(lines["devices"].split(), self.devices)
    self.assertEqual(self.devices[0], "PYTHON")

  def test_tensor_program_with_program(self):
    status, _, answers = converse(self.simplifier, request("run", SOFTMAX, program=1))
    self.assertEqual(status, 0)
    frames = answers[0]
    kinds = [f[0] for f in frames]
    self.assertEqual(kinds, (["hits"] if kinds[0] == "hits" else []) + ["program"] + ["outputs"] * len(self.devices) + ["ok"])
    program = next(f for f in frames if f[0] == "program")
    self.assertNotIn("missing", program[1])
    self.assertTrue(program[2].startswith("# Program: 4 buffers, 3 kernels"), program[2][:80])
    self.assertIn("@buffer 3 intermediate : float32[2]", program[2])
    for (kind, options, body), device in zip([f for f in frames if f[0] == "outputs"], self.devices):
      self.assertEqual(options, {"device": device})
      self.assertEqual(outputs_of(body), {0: "[-4, 0, -3, -1, -4, 0]", 1: "[1.1875, 1.5625]"})
    self.assertEqual(frames[-1], ("ok", {}, ""))

  def test_values_and_devices_option(self):
    device = self.devices[-1]
    _, _, answers = converse(self.simplifier, request("run", SPECIALS, devices=device))
    frames = answers[0]
    self.assertEqual([f[0] for f in frames if f[0] != "hits"], ["outputs", "ok"])
    kind, options, body = next(f for f in frames if f[0] == "outputs")
    self.assertEqual(options, {"device": device})
    self.assertEqual(outputs_of(body), {0: "[-0, 0, nan, -inf, 1.5, -3]", 1: "[7, 7]"})

  def test_hits(self):
    _, _, answers = converse(self.simplifier, request("run", FRESH, devices=self.devices[0]))
    hits = [f for f in answers[0] if f[0] == "hits"]
    self.assertEqual(len(hits), 1)
    names = {}
    for line in hits[0][2].splitlines():
      count, name = line.split(" ", 1)
      self.assertGreater(int(count), 0)
      self.assertRegex(name, r"^[a-z_/]+\.py:\d+(:\S+)?$")
      names[name] = int(count)
    self.assertTrue(any(n.startswith("schedule/") for n in names), names)  # the scheduler's rules
    self.assertTrue(any(n.startswith("codegen/") for n in names), names)   # and codegen's
    self.assertTrue(any(n.startswith("uop/symbolic.py:") for n in names), names)
    self.assertEqual(outputs_of(next(f for f in answers[0] if f[0] == "outputs")[2]), {0: "[43210]"})

  def test_unsupported(self):
    _, _, answers = converse(self.simplifier, request("run", QUANTIZED),
                             request("run", SOFTMAX.replace("%d = SUB %x %mx", "%d = BUFFERIZE %x")),
                             request("run", "%0 = garbage\n"))
    self.assertEqual([a[-1][0] for a in answers], ["unsupported"] * 3)
    self.assertEqual(answers[0][-1][2], "[quantized] quantized dtype qint8 (tinygrad has no quantized types)")
    self.assertTrue(answers[1][-1][2].startswith("[no-tensor-form] op BUFFERIZE"), answers[1][-1][2])
    self.assertTrue(answers[2][-1][2].startswith("[no-tinygrad-form] "), answers[2][-1][2])

  def test_program_missing(self):
    text = open(os.path.join(REPO, "corpus", "examples", "tensor", "reduce_unit_axis.uop"), encoding="utf-8").read()
    _, _, answers = converse(self.simplifier, request("run", text, program=1, devices=self.devices[0]))
    program = next(f for f in answers[0] if f[0] == "program")
    self.assertEqual(program[1], {"missing": "1"})
    self.assertEqual(program[2], "[no-uop-form] output 0 is the buffer of input 0 (tinygrad writes no kernel for it)")
    self.assertEqual(answers[0][-1][0], "ok")

  def test_device_error(self):
    if len(self.devices) < 2: self.skipTest("one device runs here")
    from tinygrad.device import Device
    from tinygrad.engine import realize
    from tinygrad.helpers import DEV
    original, failing = realize.run_linear, self.devices[-1]

    def run_linear(*args, **kwargs):
      if DEV.device == failing: Device["NOSUCHDEVICE"]  # raises inside tinygrad (device.py)
      return original(*args, **kwargs)

    realize.run_linear = run_linear
    try:
      _, _, answers = converse(self.simplifier, request("run", SOFTMAX))
    finally:
      realize.run_linear = original
    frames = answers[0]
    by_device = {f[1].get("device"): f for f in frames if f[0] in ("outputs", "error")}
    self.assertEqual(by_device[self.devices[0]][0], "outputs")
    kind, options, body = by_device[failing]
    self.assertEqual(kind, "error")
    first, where = body.splitlines()[:2]
    self.assertTrue(first.startswith("ModuleNotFoundError: "), first)
    self.assertRegex(where, r"^where: device\.py:\d+$")
    self.assertEqual(frames[-1][0], "ok")

  def test_kernel(self):
    _, _, answers = converse(self.simplifier, request("run", KERNEL))
    frames = answers[0]
    try:
      from uopfuzz_adapter import pipeline  # noqa: F401
    except ImportError:
      self.assertTrue(frames[-1][2].startswith("[kernel-run] "), frames)
      return
    outs = [f for f in frames if f[0] == "outputs"]
    self.assertEqual([f[1]["device"] for f in outs], self.devices)
    for f in outs: self.assertEqual(outputs_of(f[2]), {0: "[6, 8, 10]"})

  def test_protocol_errors(self):
    for req in (request("run", SOFTMAX, devices="NOSUCHDEVICE"), request("run", SOFTMAX, program=2),
                request("run", SOFTMAX, colour="red"), request("run", SOFTMAX.replace("@input 0", "@notinput 0"))):
      with self.subTest(request=req[:40]):
        status, _, answers = converse(self.simplifier, req, request("run", FRESH))
        self.assertEqual(status, 2)
        self.assertEqual(answers, [])  # the conversation ends at the bad request

  def test_simplify_still_served(self):
    kernel = "%0 = PARAM slot=0 size=1 out : int32\n%1 = CONST 0 : index\n%2 = INDEX %0 %1 : int32\n" \
             "%3 = CONST 5 : int32\n%4 = STORE %2 %3 : void\n%5 = SINK %4 : void\n"
    _, _, answers = converse(self.simplifier, request("simplify", kernel), request("run", SPECIALS), request("simplify", kernel))
    self.assertEqual([a[-1][0] for a in answers], ["ok", "ok", "ok"])

  def test_pipeline_stage(self):
    simplifier = make_simplifier("pipeline")
    _, hello, answers = converse(simplifier, request("simplify", KERNEL), request("run", SPECIALS, devices="PYTHON"))
    lines = dict(line.split(": ", 1) for line in hello.splitlines())
    self.assertEqual(lines["stage"], "pipeline")
    self.assertEqual(lines["capabilities"].split(), ["hits", "run", "split-reduce-threshold"])
    self.assertEqual(answers[0][-1][:1] + (answers[0][-1][2],),
                     ("unsupported", "[pipeline-stage] a simplify request: stage pipeline answers run requests only"))
    self.assertEqual(answers[1][-1][0], "ok")


class CommandLine(unittest.TestCase):
  def adapter(self, *args):
    return subprocess.run([sys.executable, ADAPTER, "--tinygrad", tinygrad_checkout(), *args], capture_output=True,
                          text=True, timeout=300)

  def test_run_file(self):
    path = os.path.join(REPO, "corpus", "examples", "tensor", "matmul.uop")
    done = self.adapter("--run", path, "--devices", "PYTHON", "--program")
    self.assertEqual(done.returncode, 0, done.stderr)
    self.assertIn("PYTHON out[0] [58, 64, 139, 154]\n", done.stdout)
    self.assertIn("@kernel 0\n", done.stdout)
    self.assertTrue(done.stdout.startswith("# Program: 3 buffers, 1 kernel"), done.stdout[:80])
    self.assertRegex(done.stderr, r"hit \d+ schedule/")

  def test_run_file_without_inputs(self):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f:
      f.write(re.sub(r"@input 0 .*\n", "", SOFTMAX))
    try:
      done = self.adapter("--run", f.name)
    finally:
      os.unlink(f.name)
    self.assertEqual(done.returncode, 2)
    self.assertIn("input PARAM slot 0 (float32[2,3]) has no @input line", done.stderr)

  def test_pipeline_stage_bugs(self):
    done = self.adapter("--stage", "pipeline", "--bug", "cast_noop", "--list-bugs")
    self.assertEqual(done.returncode, 0, done.stderr)  # --list-bugs ignores --bug
    done = self.adapter("--stage", "pipeline", "--bug", "no_such_bug")
    self.assertEqual(done.returncode, 2)
    self.assertIn("unknown bug 'no_such_bug'", done.stderr)


class Hits(unittest.TestCase):
  def test_count(self):
    from tinygrad.uop.ops import PatternMatcher, UPat, Ops, UOp, graph_rewrite
    from tinygrad.dtype import dtypes
    from uopfuzz_adapter import pipeline_hits
    before = pipeline_hits.PatternMatcher.rewrite
    pm = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0))), lambda x: x)])
    x = UOp.variable("hits_test_x", 0, 10, dtypes.int)
    with pipeline_hits.count() as outer:
      with pipeline_hits.count() as inner:
        graph_rewrite((x + 0) * 3, pm)
      graph_rewrite((x + 0) * 5, pm)
    self.assertIs(pipeline_hits.PatternMatcher.rewrite, before)
    (name, n), = inner.hits.items()
    self.assertEqual(n, 1)
    self.assertEqual(outer.hits, {name: 2})
    self.assertRegex(name, r"^test_run\.py:\d+$")  # outside tinygrad: the file's name and line


if __name__ == "__main__":
  unittest.main()
