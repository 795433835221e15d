"""--emit at stage pipeline: a kernel's standalone reproducer (emit_pipeline.py). The script
builds the kernel as the adapter hands it to tinygrad's codegen, compiles and runs it on
PYTHON and CPU (each in a forked child) and compares every output buffer with the case's
@output lines (uopfuzz's oracle). Exit 0 when every output is the expected one, 1 when one
differs, tinygrad raises or the program traps (a wrong @output here stands for a tinygrad
bug); it runs with tinygrad alone on the path and is a unittest too."""
import os
import unittest

from adapter_process import EXAMPLES
from test_emit import Script, read

DOUBLE = """@name double_it
@expect ok
@input 0 [1, -2, 3, 40]
@output 1 [{out}]
%0 = PARAM slot=1 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = PARAM slot=0 size=4 in : int32
%5 = INDEX %4 %2 : int32
%6 = LOAD %5 : int32
%7 = CONST 2 : int32
%8 = MUL %6 %7 : int32
%9 = STORE %3 %8 : void
%10 = END %9 %2 : void
%11 = SINK %10 : void
"""


class PipelineReproducer(unittest.TestCase):
  def emitted(self, text, *flags):
    s = Script(text, "--stage", "pipeline", *flags)
    self.addCleanup(s.close)
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    return s

  def test_right_output_passes(self):
    s = self.emitted(DOUBLE.format(out="2, -4, 6, 80"))
    script = s.text()
    self.assertIn("EXPECTED = {1: [2, -4, 6, 80]}", script)
    self.assertIn("INPUTS = {0: [1, -2, 3, 40]}", script)
    self.assertNotIn("uopfuzz_adapter", script.split('"""', 2)[2])  # tinygrad alone
    r = s.run(os.path.basename(s.path))
    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    for device in ("PYTHON", "CPU"):
      self.assertIn(f"out[1] on {device}: expected [2, -4, 6, 80] got [2, -4, 6, 80]", r.stdout)
    self.assertIn("ok: every output is the expected one", r.stdout)
    r = s.run("-m", "unittest", "repro")
    self.assertEqual(r.returncode, 0, r.stderr)

  def test_wrong_expected_value_fails(self):
    s = self.emitted(DOUBLE.format(out="2, -4, 7, 80"))
    r = s.run(os.path.basename(s.path))
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("out[1] on CPU: expected [2, -4, 7, 80] got [2, -4, 6, 80]  <- differs", r.stdout)
    r = s.run("-m", "unittest", "repro")
    self.assertNotEqual(r.returncode, 0, r.stderr)

  def test_the_header_names_the_stage(self):
    # @simplifier-stage pipeline (what a campaign's case records) picks the script without --stage
    text = DOUBLE.format(out="2, -4, 6, 80").replace("@expect ok\n", "@expect ok\n@simplifier-stage pipeline\n")
    s = Script(text)
    self.addCleanup(s.close)
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    self.assertIn("do_to_program", s.text())

  def test_a_trap_is_the_bug_not_the_end_of_the_script(self):
    # CPU hoists 12 / d out of a loop that runs zero times: SIGFPE in the forked child
    s = self.emitted(read(os.path.join(EXAMPLES, "collapse_zero_trip.uop")))
    r = s.run(os.path.basename(s.path))
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("out[0] on PYTHON: expected [0] got [0]", r.stdout)
    self.assertIn("FAIL on CPU: the CPU program killed its process: SIGFPE", r.stdout)

  def test_missing_output_is_refused(self):
    text = "\n".join(l for l in DOUBLE.format(out="0").split("\n") if not l.startswith("@output"))
    s = Script(text, "--stage", "pipeline")
    self.addCleanup(s.close)
    self.assertEqual(s.emitted.returncode, 2, s.emitted.stderr)
    self.assertIn("no @output for output buffer slot 1", s.emitted.stderr)


if __name__ == "__main__":
  unittest.main()
