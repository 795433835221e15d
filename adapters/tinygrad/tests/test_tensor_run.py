"""Tensor programs through tinygrad's whole pipeline (uopfuzz_adapter/tensor.py) and its
schedule handed back as a Program (program.py), on every file of corpus/examples/tensor/:

- a file with @output lines gives exactly those outputs on PYTHON and on CPU (when it runs
  here), floats by bits, NaN as NaN; where tinygrad is known to differ from SEMANTICS.md by
  the sign of a zero (ZERO_SIGN: a difference the hello declares, `tolerances: zero-sign`),
  +0 matches -0 there and nowhere else;
- a file with a quantized dtype is declined `[quantized] ...`;
- the Program of tinygrad's schedule parses (`uopfuzz parse`), holds as many kernels as the
  schedule, and run kernel by kernel on uopfuzz's oracle gives the same outputs, except
  where PROGRAM_MISSING or PROGRAM_UB says why not.

PYTHON (tinygrad's emulator, in Python) runs only programs whose largest tensor has at most
PYTHON_MAX_ELEMENTS elements: split_prime_sum's 65521-iteration loop takes about a minute
there, under 0.1 s on CPU.
"""
import glob
import math
import os
import struct
import unittest

from uopfuzz_adapter import tensor, values
from uopfuzz_adapter.convert import Unsupported

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TENSOR_EXAMPLES = os.path.join(REPO, "corpus", "examples", "tensor")
PYTHON_MAX_ELEMENTS = 4096

# file -> why tinygrad's outputs match the file's only with +0 == -0
ZERO_SIGN = {
  "sum_of_negative_zero.uop": "tinygrad does not reduce over an axis of size 1 (UOp._rop: `we don't allow reduce on "
                              "1s axis`): the sum of one -0 stays -0, where SEMANTICS.md folds it from +0",
}
# file -> what `program missing=1` must say (tinygrad writes no kernel for these outputs)
PROGRAM_MISSING = {
  "reduce_unit_axis.uop": "output 0 is the buffer of input 0",
  "sum_of_negative_zero.uop": "output 0 is the buffer of input 0",
}
# file -> what the Program's run on uopfuzz's oracle must report instead of outputs
PROGRAM_UB = {
  # tinygrad inlines the division under PAD's gate: WHERE(gate, x / d, 0) divides by the
  # gated-off loads' 0, which SEMANTICS.md makes undefined (WHERE evaluates every operand)
  # and uopfuzz's own lowering avoids by keeping the quotient's buffer (2 kernels)
  "buffer_keep_gate.uop": "division by zero",
}


def uopfuzz_bin():
  path = os.environ.get("UOPFUZZ_BIN") or os.path.join(REPO, "build", "uopfuzz")
  return path if os.access(path, os.X_OK) else None


def examples():
  return sorted(glob.glob(os.path.join(TENSOR_EXAMPLES, "*.uop")))


def expected_outputs(prog):
  """{k: [values]} of the file's @output lines."""
  lists, _ = values.header_values(["@input " + h[len("@output "):] for h in prog.header if h.startswith("@output ")])
  return {k: [values.parse_value(v, prog.nodes[prog.outputs[k]].dtype) for v in vs] for k, vs in lists.items()}


def same(a, b, zero_sign=False):
  """Equal as uopfuzz compares: floats by bits, every NaN one NaN; with zero_sign, +0 == -0."""
  if isinstance(a, float) or isinstance(b, float):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b): return math.isnan(a) and math.isnan(b)
    if zero_sign and a == 0 and b == 0: return True
    return struct.pack("<d", a) == struct.pack("<d", b)
  return a == b


def largest(prog):
  return max((tensor.numel(n.shape) for n in prog.nodes if n.shape is not None), default=0)


class TensorRun(unittest.TestCase):
  @classmethod
  def setUpClass(cls):
    cls.devices = tensor.probe_devices()
    cls.runs = {}  # file -> (Program, {device: DeviceRun}) of the files that convert

  def run_example(self, path):
    name = os.path.basename(path)
    if name not in self.runs:
      with open(path, encoding="utf-8") as f: prog = tensor.Program(f.read())
      devices = [d for d in self.devices if d != "PYTHON" or largest(prog) <= PYTHON_MAX_ELEMENTS]
      self.runs[name] = (prog, tensor.run(prog, devices, program=True))
    return self.runs[name]

  def test_devices(self):
    self.assertIn("PYTHON", self.devices)  # the emulator needs nothing but Python

  def test_examples_exist(self):
    self.assertGreater(len(examples()), 30)

  def test_outputs(self):
    checked = 0
    for path in examples():
      name = os.path.basename(path)
      with self.subTest(example=name):
        try:
          prog, results = self.run_example(path)
        except Unsupported as e:
          self.assertTrue(str(e).startswith("[quantized] "), str(e))
          with open(path, encoding="utf-8") as f: self.assertRegex(f.read(), r"q(u)?int\d+<")
          continue
        expected = expected_outputs(prog)
        for device, r in results.items():
          self.assertIsNone(r.error, f"{device}: {r.error!r}")
          self.assertEqual(sorted(r.outputs), list(range(len(prog.outputs))))
          for k, want in expected.items():
            got = r.outputs[k]
            self.assertEqual(len(got), len(want))
            ok = all(same(g, w, zero_sign=name in ZERO_SIGN) for g, w in zip(got, want))
            dt = prog.nodes[prog.outputs[k]].dtype
            self.assertTrue(ok, f"{device} out[{k}]: {values.format_list(got, dt)}, expected {values.format_list(want, dt)}")
            checked += 1
    self.assertGreater(checked, 30)

  def test_quantized_declined(self):
    declined = []
    for path in examples():
      with open(path, encoding="utf-8") as f: text = f.read()
      if "qint" not in text and "quint" not in text: continue
      with self.assertRaises(Unsupported) as cm: tensor.Program(text)
      self.assertEqual(cm.exception.cls, "quantized")
      self.assertIn("tinygrad has no quantized types", str(cm.exception))
      declined.append(path)
    self.assertGreaterEqual(len(declined), 4)

  def test_program_parses_and_runs(self):
    from uopfuzz_adapter import program
    if uopfuzz_bin() is None: self.skipTest("no uopfuzz binary (build/uopfuzz or UOPFUZZ_BIN)")
    os.environ.setdefault("UOPFUZZ_BIN", uopfuzz_bin())
    from adapter_process import uopfuzz
    from program_run import ProgramUB, run_program
    import tempfile
    ran = 0
    for path in examples():
      name = os.path.basename(path)
      with self.subTest(example=name):
        try:
          prog, results = self.run_example(path)
        except Unsupported:
          continue
        r = next(r for r in results.values() if r.outs is not None)
        if name in PROGRAM_MISSING:
          with self.assertRaises(Unsupported) as cm: program.from_schedule(prog, r.linear, r.outs, r.input_uops)
          self.assertTrue(str(cm.exception).startswith("[no-uop-form] "))
          self.assertIn(PROGRAM_MISSING[name], str(cm.exception))
          continue
        text = program.from_schedule(prog, r.linear, r.outs, r.input_uops)
        with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f: f.write(text)
        try:
          canonical = uopfuzz("parse", f.name)
        finally:
          os.unlink(f.name)
        self.assertIn(f"{program.kernel_count(r.linear)} kernel", canonical.splitlines()[0])
        self.assertEqual(text.count("\n@kernel "), len(r.linear.src))
        if name in PROGRAM_UB:
          with self.assertRaises(ProgramUB) as cm: run_program(text, prog.inputs)
          self.assertIn(PROGRAM_UB[name], str(cm.exception))
          continue
        got = run_program(text, prog.inputs)
        device_out = next(r.outputs for r in results.values() if r.outputs is not None)
        for k, want in device_out.items():
          self.assertTrue(all(same(g, w) for g, w in zip(got[k], want)) and len(got[k]) == len(want),
                          f"out[{k}]: the Program gives {got[k]}, tinygrad {want}")
        ran += 1
    self.assertGreater(ran, 25)


if __name__ == "__main__":
  unittest.main()
