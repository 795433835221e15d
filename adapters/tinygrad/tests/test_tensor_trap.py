"""A tensor program whose CPU kernel traps (an integer division by zero: SIGFPE) is that
device's `error` frame, and the adapter goes on serving: tensor runs happen in an executor
process (tensor.make_executor, pipeline.Executor in --tensor-executor mode), which the trap
ends instead of the adapter."""
import os
import shutil
import unittest

from adapter_process import Adapter, read_frame
from test_emit import Script

DIV_BY_ZERO = """@input 0 [7, 8, 9]
@input 1 [1, 0, 2]
%0 = PARAM slot=0 in : int32[3]
%1 = PARAM slot=1 in : int32[3]
%2 = CDIV %0 %1 : int32[3]
%3 = REALIZE %2 : void
"""

ADD = """@input 0 [7, 8, 9]
@input 1 [1, 0, 2]
%0 = PARAM slot=0 in : int32[3]
%1 = PARAM slot=1 in : int32[3]
%2 = ADD %0 %1 : int32[3]
%3 = REALIZE %2 : void
"""


def run(adapter, text, **options):
  """[(kind, options, body)...] answering one run request, the terminal frame last."""
  opts = "".join(f" {k}={v}" for k, v in options.items())
  data = text.encode()
  adapter.proc.stdin.write(f"run {len(data)}{opts}\n".encode() + data)
  adapter.proc.stdin.flush()
  frames = []
  while True:
    frame = read_frame(adapter.proc.stdout)
    if frame is None: raise AssertionError("adapter closed stdout: " + adapter.proc.stderr.read().decode()[-2000:])
    frames.append(frame)
    if frame[0] in ("ok", "unsupported") or (frame[0] == "error" and "device" not in frame[1]): return frames


def by_device(frames):
  return {opts["device"]: (kind, body) for kind, opts, body in frames if "device" in opts}


class TrappingKernel(unittest.TestCase):
  def test_adapter_answers_and_stays_alive(self):
    a = Adapter()
    try:
      devices = a.hello.get("devices", "").split()
      if "CPU" not in devices: self.skipTest("no CPU device here (clang)")
      got = by_device(run(a, DIV_BY_ZERO, devices="PYTHON,CPU"))
      self.assertEqual(got["PYTHON"], ("outputs", "0 [7, 0, 4]\n"))  # tinygrad's emulator: x / 0 is 0
      kind, body = got["CPU"]
      self.assertEqual(kind, "error")
      self.assertIn("the CPU program killed the executor process: SIGFPE", body)
      self.assertIn("where: SIGFPE", body.splitlines())  # uopfuzz signs it crash/external@SIGFPE/tinygrad-CPU
      # the adapter still answers, and CPU runs again (a new executor process)
      for _ in range(2):
        got = by_device(run(a, ADD, devices="CPU,PYTHON"))
        self.assertEqual(got, {"CPU": ("outputs", "0 [8, 8, 11]\n"), "PYTHON": ("outputs", "0 [8, 8, 11]\n")})
      frames = run(a, ADD, devices="PYTHON", program="1")
      self.assertIn("program", [f[0] for f in frames])
      self.assertTrue(any(f[0] == "hits" and f[2].strip() for f in frames), frames)
    finally:
      self.assertEqual(a.close(), 0, a.stderr[-2000:])

  def test_executor_is_replaced_after_restart_every_jobs(self):
    from uopfuzz_adapter import tensor
    ex = tensor.make_executor()
    ex.restart_every = 2
    try:
      prog, pids = tensor.Program(ADD), []
      for _ in range(3):
        r = tensor.run(prog, ["PYTHON"], executor=ex)["PYTHON"]
        self.assertIsNone(r.error)
        self.assertEqual(r.outputs, {0: [8, 8, 11]})
        pids.append(ex.proc.pid)
      # replaced right after the second job (so that the new one gets ready meanwhile)
      self.assertNotEqual(pids[0], pids[1])
      self.assertEqual(pids[1], pids[2])
    finally:
      ex.close()


  def test_emitted_script_reports_the_trap(self):
    # the tensor-level reproducer runs each device in a forked child: exit 1, not death by SIGFPE
    if not (shutil.which(os.environ.get("CC", "clang")) or shutil.which("clang-14")): self.skipTest("no clang: no CPU device")
    s = Script(DIV_BY_ZERO.replace("%0 =", "@output 0 [7, 0, 4]\n%0 =", 1))
    self.addCleanup(s.close)
    self.assertEqual(s.emitted.returncode, 0, s.emitted.stderr)
    r = s.run(os.path.basename(s.path))
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("out[0] on PYTHON: expected [7, 0, 4] got [7, 0, 4]", r.stdout)
    self.assertIn("FAIL on CPU: the CPU program killed its process: SIGFPE", r.stdout)


if __name__ == "__main__":
  unittest.main()
