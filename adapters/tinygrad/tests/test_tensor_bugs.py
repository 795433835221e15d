"""Each planted tensor-level bug (tensor_bugs.py, bugs.apply_tensor_bugs) turns tinygrad's right
answer to the tensor program made for it (tests/tensor_bugs/<bug>.uop, whose @output is the
right answer, worked out by hand and checked by uopfuzz's tensor oracle) into a wrong one on
PYTHON and on CPU; without it the program is right on both.

The bugs patch tinygrad in the process that applies them, so every run is a child process:
one without bugs, one per bug."""
import glob
import json
import os
import subprocess
import sys
import unittest

from adapter_process import ADAPTER, tinygrad_checkout
from uopfuzz_adapter import uop_text, values

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "tensor_bugs")
DEVICES = ("PYTHON", "CPU")

# A child: applies the bugs named in argv[1] (comma-separated), runs each program in argv[2:]
# on each device with the adapter's tensor runner, prints {file: {device: outputs or error}}.
CHILD = r"""
import json, sys
from uopfuzz_adapter import bugs, tensor
names = [b for b in sys.argv[1].split(",") if b]
bugs.apply_tensor_bugs(names)
out = {}
for path in sys.argv[2:]:
  prog = tensor.Program(open(path).read())
  out[path] = {}
  for device in %r:
    run = tensor.run_on(prog, device)
    out[path][device] = {str(k): v for k, v in run.outputs.items()} if run.error is None else "error: %%r" %% run.error
print(json.dumps(out))
""" % (DEVICES,)


def child(bug_names, paths):
  env = dict(os.environ, PYTHONPATH=os.pathsep.join([tinygrad_checkout(), os.path.dirname(ADAPTER)]))
  done = subprocess.run([sys.executable, "-c", CHILD, ",".join(bug_names), *paths], capture_output=True, text=True,
                        env=env, timeout=300)
  if done.returncode != 0: raise AssertionError(f"child failed ({done.returncode}):\n{done.stderr[-3000:]}")
  return json.loads(done.stdout.strip().splitlines()[-1])


def expected(path):
  """{REALIZE index: values} of the program's @output lines."""
  with open(path, encoding="utf-8") as f: prog = uop_text.parse(f.read())
  dtypes = [uop_text.split_type(prog.nodes[s].dtype)[0] for s in prog.root.srcs]
  out = {}
  for h in prog.header:
    if h.startswith("@output "):
      k, _, vals = h[len("@output "):].partition(" ")
      out[k] = [values.parse_value(v, dtypes[int(k)]) for v in vals.strip()[1:-1].split(",")]
  return out


def programs():
  return {os.path.splitext(os.path.basename(p))[0]: p for p in sorted(glob.glob(os.path.join(PROGRAMS, "*.uop")))}


class TensorBugs(unittest.TestCase):
  def test_every_bug_has_a_program(self):
    from uopfuzz_adapter import bugs
    self.assertEqual(set(bugs.tensor_bug_names()), set(programs()))
    self.assertGreaterEqual(len(programs()), 3)

  def test_programs_are_right_without_bugs(self):
    got = child([], list(programs().values()))
    for name, path in programs().items():
      for device in DEVICES:
        with self.subTest(program=name, device=device):
          self.assertEqual(got[path][device], expected(path))

  def test_each_bug_makes_its_program_wrong(self):
    for name, path in programs().items():
      got = child([name], [path])[path]
      for device in DEVICES:
        with self.subTest(bug=name, device=device):
          self.assertIsInstance(got[device], dict, f"{name} on {device}: an error, not a wrong answer: {got[device]}")
          self.assertNotEqual(got[device], expected(path), f"{name} on {device}")

  def test_unknown_bug_is_refused(self):
    from uopfuzz_adapter import bugs
    with self.assertRaises(ValueError) as e:
      bugs.apply_tensor_bugs(["no_such_tensor_bug"])
    self.assertIn("no_such_tensor_bug", str(e.exception))

  def test_each_bug_is_described(self):
    from uopfuzz_adapter import bugs, tensor_bugs
    for name in bugs.tensor_bug_names():
      self.assertTrue(bugs.tensor_bug_what(name))
      where = next(b.where for b in tensor_bugs.BUGS if b.name == name)
      self.assertRegex(where, r"^schedule/\w+\.py:\w+")


if __name__ == "__main__":
  unittest.main()
