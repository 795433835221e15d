"""Each planted bug (--bug NAME) turns tinygrad's right rewrite of a kernel made for it into a
wrong one; without it the same kernel is rewritten right. The expected outputs are worked
out by hand from the kernels' definitions."""
import subprocess
import sys
import unittest

from adapter_process import ADAPTER, Adapter, canonical, run_kernel, tinygrad_checkout

KERNELS = {
  # out[r] = r % 10 for r < 11: r reaches 10, the multiple of 10 the off-by-one bound misses.
  "mod_fold_off_by_one": ("""\
@output 0 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
""", """\
%0 = PARAM slot=0 size=11 out : int32
%1 = CONST 11 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CONST 10 : index
%5 = FLOORMOD %2 %4 : index
%6 = CAST %5 : int32
%7 = STORE %3 %6 : void
%8 = END %7 %2 : void
%9 = SINK %8 : void
"""),
  # out[r] = r // 4 for r < 8: the quotient is 0 or 1, not constant.
  "div_fold_no_guard": ("""\
@output 0 [0, 0, 0, 0, 1, 1, 1, 1]
""", """\
%0 = PARAM slot=0 size=8 out : int32
%1 = CONST 8 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CONST 4 : index
%5 = FLOORDIV %2 %4 : index
%6 = CAST %5 : int32
%7 = STORE %3 %6 : void
%8 = END %7 %2 : void
%9 = SINK %8 : void
"""),
  # out[r] = int32(int8(100 * r)) for r < 4: 200 and 300 wrap to -56 and 44 in int8.
  "cast_noop": ("""\
@output 0 [0, 100, -56, 44]
""", """\
%0 = PARAM slot=0 size=4 out : int32
%1 = CONST 4 : index
%2 = RANGE %1 axis=0 LOOP : index
%3 = INDEX %0 %2 : int32
%4 = CAST %2 : int32
%5 = CONST 100 : int32
%6 = MUL %4 %5 : int32
%7 = CAST %6 : int8
%8 = CAST %7 : int32
%9 = STORE %3 %8 : void
%10 = END %9 %2 : void
%11 = SINK %10 : void
"""),
}

HEADER = "@name planted\n@expect ok\n"


class PlantedBugTest(unittest.TestCase):
  def rewrite(self, body, *args, stage):
    adapter = Adapter(*args, stage=stage)
    try:
      frames = adapter.simplify(body)
    finally:
      self.assertEqual(adapter.close(), 0)
    self.assertEqual(frames[-1][0], "ok", frames)
    return frames[-1][1]

  def test_every_listed_bug_has_a_kernel(self):
    listed = subprocess.run([sys.executable, ADAPTER, "--tinygrad", tinygrad_checkout(), "--list-bugs"],
                            capture_output=True, text=True, check=True).stdout
    # the kernel rule bugs have a kernel here; the tensor-level ones a program in tests/tensor_bugs/ (test_tensor_bugs)
    from uopfuzz_adapter import bugs
    self.assertEqual({line.split(":")[0] for line in listed.splitlines()}, set(KERNELS) | set(bugs.tensor_bug_names()))

  def test_each_bug_makes_its_kernel_wrong(self):
    for stage in ("symbolic", "full"):
      for bug, (expected, body) in KERNELS.items():
        with self.subTest(bug=bug, stage=stage):
          right = self.rewrite(body, stage=stage)
          wrong = self.rewrite(body, "--bug", bug, stage=stage)
          self.assertTrue(run_kernel(HEADER + expected, right)["expected"]["pass"], right)
          self.assertNotEqual(canonical(wrong), canonical(right))
          self.assertFalse(run_kernel(HEADER + expected, wrong)["expected"]["pass"], wrong)

  def test_unknown_bug_is_refused(self):
    done = subprocess.run([sys.executable, ADAPTER, "--tinygrad", tinygrad_checkout(), "--bug", "no_such_bug"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    self.assertEqual(done.returncode, 2)
    self.assertIn("no_such_bug", done.stderr)
    self.assertEqual(done.stdout, "")


if __name__ == "__main__":
  unittest.main()
