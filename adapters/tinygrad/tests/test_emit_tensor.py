"""--emit on a tensor program (root REALIZE): the tensor-level standalone reproducer
(emit_tensor.py). Its inputs are Buffers, the program tinygrad Tensor code one line a node,
its expected outputs the case's @output lines. The script exits 0 when tinygrad computes
every output as expected, 1 when it does not (a wrong @output here stands for a tinygrad bug,
and so does a planted tensor-level bug applied in a wrapper process before the script runs:
the script itself stands alone), 2 when it cannot decide; it runs with tinygrad alone on the
path and is a unittest too."""
import os
import re
import subprocess
import sys
import unittest

from adapter_process import ADAPTER, EXAMPLES, tinygrad_checkout
from test_emit import Script, read

HERE = os.path.dirname(os.path.abspath(__file__))
TENSOR = os.path.join(EXAMPLES, "tensor")
BUG_PROGRAMS = os.path.join(HERE, "tensor_bugs")

# run the script at argv[1] as __main__ after switching on the planted tensor bugs named in
# argv[2] (comma-separated): the bugs patch tinygrad in this process, the script stands alone
WRAPPER = r"""
import runpy, sys
from uopfuzz_adapter import bugs
bugs.apply_tensor_bugs([b for b in sys.argv[2].split(",") if b])
script = sys.argv[1]
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
"""


def with_output(text, k, vals):
  """`text` with output k's @output line replaced."""
  return re.sub(rf"(?m)^@output {k} \[.*\]$", f"@output {k} [{', '.join(vals)}]", text)


class TensorReproducer(unittest.TestCase):
  def emitted(self, text, *flags):
    s = Script(text, *flags)
    self.addCleanup(s.close)
    return s

  def test_right_output_passes(self):
    s = self.emitted(read(os.path.join(TENSOR, "flip.uop")))
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    script = s.text()
    # the program as Tensor code, one line a node, the .uop line beside it
    self.assertIn("t1 = t0.flip((1,))  # %f1 = FLIP %x axes=[1] : int32[2,3]", script)
    self.assertIn("EXPECTED = {0: [3, 2, 1, 6, 5, 4], 1: [6, 5, 4, 3, 2, 1]}", script)
    r = s.run(os.path.basename(s.path))
    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    for device in ("PYTHON", "CPU"):
      self.assertIn(f"out[0] on {device}: expected [3, 2, 1, 6, 5, 4] got [3, 2, 1, 6, 5, 4]", r.stdout)
      self.assertIn(f"out[1] on {device}: expected [6, 5, 4, 3, 2, 1] got [6, 5, 4, 3, 2, 1]", r.stdout)
    self.assertIn("ok: every output is the expected one", r.stdout)
    r = s.run("-m", "unittest", "repro")
    self.assertEqual(r.returncode, 0, r.stderr)
    # one device asked on the command line
    r = s.run(os.path.basename(s.path), "PYTHON")
    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    self.assertNotIn("on CPU", r.stdout)

  def test_wrong_output_fails(self):
    text = with_output(read(os.path.join(TENSOR, "flip.uop")), 1, ["6", "5", "4", "3", "2", "0"])
    s = self.emitted(text)
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    r = s.run(os.path.basename(s.path))
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("out[1] on PYTHON: expected [6, 5, 4, 3, 2, 0] got [6, 5, 4, 3, 2, 1]  <- differs", r.stdout)
    self.assertIn("out[0] on PYTHON: expected [3, 2, 1, 6, 5, 4] got [3, 2, 1, 6, 5, 4]\n", r.stdout)
    self.assertIn("FAIL: tinygrad computes the program wrong", r.stdout)
    r = s.run("-m", "unittest", "repro")
    self.assertNotEqual(r.returncode, 0)
    self.assertIn("TestUopfuzzFlip", r.stderr)

  def test_floats_zero_sign_and_nan(self):
    # sum_of_negative_zero's expected output is +0 (a fold from the identity): a -0 there
    # would match (the declared tolerance); a NaN expected matches only a NaN
    text = read(os.path.join(TENSOR, "sum_of_negative_zero.uop"))
    s = self.emitted(text)
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    r = s.run(os.path.basename(s.path), "PYTHON")
    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    k = re.search(r"(?m)^@output (\d+) ", text).group(1)
    n = len(re.search(rf"(?m)^@output {k} \[(.*)\]$", text).group(1).split(","))
    s = self.emitted(with_output(text, k, ["nan"] * n))
    r = s.run(os.path.basename(s.path), "PYTHON")
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("expected [nan", r.stdout)

  def test_planted_tensor_bug_fails_the_script(self):
    for name in ("shrink_offset_off_by_one", "realize_skips_multi_consumer", "split_reduce_drops_last_part"):
      with self.subTest(bug=name):
        s = self.emitted(read(os.path.join(BUG_PROGRAMS, f"{name}.uop")))
        self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
        right = s.run(os.path.basename(s.path), "PYTHON")
        self.assertEqual(right.returncode, 0, right.stdout + right.stderr)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tinygrad_checkout(), os.path.dirname(ADAPTER)]))
        wrong = subprocess.run([sys.executable, "-c", WRAPPER, s.path, name, "PYTHON"], capture_output=True, text=True,
                               env=env, timeout=300)
        self.assertEqual(wrong.returncode, 1, wrong.stdout + wrong.stderr)
        self.assertIn("<- differs", wrong.stdout)

  def test_values_must_be_in_the_case(self):
    # no @output: nothing to compare with (exit 2, as for a case missing a value)
    text = re.sub(r"(?m)^@output .*\n", "", read(os.path.join(TENSOR, "flip.uop")))
    s = self.emitted(text)
    self.assertEqual(s.emitted.returncode, 2)
    self.assertIn("no @output for output 0", s.emitted.stderr)
    # no @input for an input
    text = re.sub(r"(?m)^@input .*\n", "", read(os.path.join(TENSOR, "flip.uop")))
    s = self.emitted(text)
    self.assertEqual(s.emitted.returncode, 2)
    self.assertIn("no @input", s.emitted.stderr)

  def test_declined_program(self):
    s = self.emitted(read(os.path.join(TENSOR, "requantize_unit_axis.uop")))
    self.assertEqual(s.emitted.returncode, 1)
    self.assertTrue(s.emitted.stderr.startswith("unsupported: [quantized]"), s.emitted.stderr)
    self.assertFalse(os.path.exists(s.path))

  def test_programs_of_every_kind(self):
    # a constant output, a padded gated inline, a PERMUTE/EXPAND matmul, an argmax: right
    # (every corpus tensor program tinygrad runs gives a script that passes: measured, README)
    for name, devices in (("fold_const_output.uop", ()), ("buffer_gated_inline.uop", ("PYTHON",)),
                          ("matmul.uop", ("PYTHON",)), ("max_argmax.uop", ("PYTHON",))):
      with self.subTest(example=name):
        s = self.emitted(read(os.path.join(TENSOR, name)))
        self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
        r = s.run(os.path.basename(s.path), *devices)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
  unittest.main()
