#!/usr/bin/env python3
"""uopfuzz reproducer cstyle-hoists-division-out-of-gate-1: tinygrad computes a tensor program wrong.

Signature   crash/external@SIGFPE/tinygrad-CPU
Details     seed 0: device CPU raised: the CPU program killed the executor process: SIGFPE
Root cause  cstyle-hoists-division-out-of-gate
Found on    tinygrad tree-ed32e5aa5014 (not checked against a newer tinygrad)
Found by    uopfuzz fuzz --level tensor --simplifier tinygrad --time 120 --seed 13 --jobs 1 --json /tmp/tri/s13.json --corpus /tmp/tri/s13 --emit tinygrad

The tensor program below is the case's, written as tinygrad Tensor code, one line a node
(the .uop node in the comment), as uopfuzz's tinygrad adapter ran it: the inputs are
Buffers on the device holding the case's values (INPUTS), the outputs are realized together
and read back. EXPECTED is what uopfuzz's tensor oracle computes from the program's
definition (SEMANTICS.md, "Tensor programs"). Every output is compared on every device:
floats by bits, except that +0 matches -0 (the adapter declares tinygrad's zero-sign
tolerance) and NaN matches NaN.

Run:   PYTHONPATH=<tinygrad checkout> python3 cstyle-hoists-division-out-of-gate-1.py [DEVICE ...]   (default: PYTHON CPU)
       exit 0: every output is the expected one (fixed); 1: the bug is there (an output
       differs, tinygrad raises: traceback and tinygrad file:line, or a kernel traps:
       each device runs in a forked child); 2: cannot check (no
       device runs here, or tinygrad's Tensor gives another dtype or shape)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest cstyle-hoists-division-out-of-gate-1
"""
import math
import os
import pickle
import shutil
import signal
import struct
import sys
import traceback
import unittest

from tinygrad import Tensor, dtypes
from tinygrad.device import Buffer, Device
from tinygrad.helpers import DEV, Context
from tinygrad.uop.ops import UOp

inf, nan = math.inf, math.nan

DEVICES = ("PYTHON", "CPU")
# the inputs: PARAM slot -> every element, row-major
INPUTS = {
  0: [2, 8, 7, 4, 2, 1, 6, 6, 1, 7, 2, 7, 1, 3, 1, 4, 4, 2, 7, 1, 7, 5, 6, 5, 8, 8, 6, 4, 8, 3, 5,
      3, 6, 5, 8],
  1: [-8, -8, 4, -5, -8, 0, -2, -6, -7, -2, -2, -4, 3, -3, -8, -1, -7, -4, -8, 2, -3, -8, 5, 0, -2,
      6, 7, 4, -5, 3, -6, -5, 2, 5, 3],
}
# the expected outputs (uopfuzz's tensor oracle): REALIZE source K -> every element, row-major
EXPECTED = {0: [12, 0, 0, 0]}
# each output's dtype and shape
OUTPUTS = {0: (dtypes.int32, (1, 4))}


def input_tensor(slot, dtype, shape, device):
  """The input PARAM `slot`: a Buffer on the device holding INPUTS[slot], as a Tensor."""
  vals = INPUTS[slot]
  if not vals: return Tensor.empty(*shape, dtype=dtype, device=device)
  buf = Buffer(device, len(vals), dtype, initial_value=struct.pack(f"<{len(vals)}{dtype.fmt}", *vals))
  return Tensor(UOp.from_buffer(buf), device=device).reshape(shape)


def program(device):
  """The tensor program, one Tensor op a line; returns the outputs (REALIZE's sources)."""
  t0 = input_tensor(1, dtypes.int32, (1, 5, 7), device)  # %0 = PARAM slot=1 in : int32[1,5,7]
  t1 = t0.sum((0,), keepdim=True, dtype=t0.dtype)  # %1 = REDUCE_AXIS %0 op=ADD axes=[0] : int32[1,5,7]
  t2 = t0.minimum(t1)  # %2 = MIN %0 %1 : int32[1,5,7]
  t3 = input_tensor(0, dtypes.int32, (1, 5, 7), device)  # %3 = PARAM slot=0 in vmin=1 vmax=8 : int32[1,5,7]
  t4 = t2 // t3  # %4 = FLOORDIV %2 %3 : int32[1,5,7]
  t5 = t4.pad(((0, 0), (0, 1), (0, 0)))  # %5 = PAD %4 pad=[0:0,0:1,0:0] : int32[1,6,7]
  t6 = t5.shrink(((0, 1), (1, 6), (0, 7)))  # %6 = SHRINK %5 shrink=[0:1,1:6,0:7] : int32[1,5,7]
  t7 = t4 - t6  # %7 = SUB %4 %6 : int32[1,5,7]
  t8 = t7.pad(((0, 0), (0, 0), (0, 2)))  # %8 = PAD %7 pad=[0:0,0:0,0:2] : int32[1,5,9]
  t9 = t8.shrink(((0, 1), (0, 5), (2, 9)))  # %9 = SHRINK %8 shrink=[0:1,0:5,2:9] : int32[1,5,7]
  t10 = t7 - t9  # %10 = SUB %7 %9 : int32[1,5,7]
  # %11 = CONST -5 : int32[1,5,7]
  t11 = Tensor.full((1, 5, 7), -5, dtype=dtypes.int32, device=device, buffer=False)
  t12 = t10.div(t11, rounding_mode="trunc")  # %12 = CDIV %10 %11 : int32[1,5,7]
  t13 = t12.pad(((0, 0), (0, 0), (1, 0)))  # %13 = PAD %12 pad=[0:0,0:0,1:0] : int32[1,5,8]
  t14 = t13.reshape((4, 2, 5))  # %14 = RESHAPE %13 : int32[4,2,5]
  t15 = t14.permute((1, 2, 0))  # %15 = PERMUTE %14 order=[1,2,0] : int32[2,5,4]
  t16 = t15.neg()  # %16 = NEG %15 : int32[2,5,4]
  t17 = t16.sum((1,), keepdim=True, dtype=t16.dtype)  # %17 = REDUCE_AXIS %16 op=ADD axes=[1] : int32[2,1,4]
  t18 = t17.expand((2, 5, 4))  # %18 = EXPAND %17 : int32[2,5,4]
  t19 = t16 + t18  # %19 = ADD %16 %18 : int32[2,5,4]
  t20 = t19.pad(((0, 0), (0, 0), (0, 2)))  # %20 = PAD %19 pad=[0:0,0:0,0:2] : int32[2,5,6]
  t21 = t20.shrink(((0, 2), (0, 5), (2, 6)))  # %21 = SHRINK %20 shrink=[0:2,0:5,2:6] : int32[2,5,4]
  t22 = t19.maximum(t21)  # %22 = MAX %19 %21 : int32[2,5,4]
  # %23 = REDUCE_AXIS %22 op=ADD axes=[0,1] : int32[1,1,4]
  t23 = t22.sum((0, 1), keepdim=True, dtype=t22.dtype)
  t24 = t23.reshape((1, 4))  # %24 = RESHAPE %23 : int32[1,4]
  return [t24]


def run(device):
  """{K: values} of every output, the program realized on `device`."""
  with Context(PARALLEL=0) if DEV.device == device else Context(DEV=device, PARALLEL=0):
    outs = program(device)
    for k, t in enumerate(outs):
      dtype, shape = OUTPUTS[k]
      if t.dtype != dtype or tuple(t.shape) != shape:
        raise CannotCheck(f"output {k} is {t.dtype}{list(t.shape)} in tinygrad, {dtype}{list(shape)} in the program")
    # read as tinygrad reads a Tensor's values: through contiguous() (a view of an input gets
    # a kernel), on the device (a constant without one is cloned onto it)
    outs = [None if 0 in OUTPUTS[k][1] else t.clone(device=device) if t.uop.device is None else t.contiguous()
            for k, t in enumerate(outs)]
    pending = [t for t in outs if t is not None and not t.uop.is_virtual and not t.uop.has_buffer_identity()]
    if pending: Tensor.realize(*pending)
    got = {}
    for k, t in enumerate(outs):
      n = math.prod(OUTPUTS[k][1])
      if t is None:
        got[k] = []
        continue
      data = bytes(t.uop.buffer.ensure_allocated().as_memoryview())
      got[k] = list(struct.unpack(f"<{n}{t.dtype.fmt}", data[:n * t.dtype.itemsize]))
    return got


class CannotCheck(Exception):
  """tinygrad's Tensor gives an output of another dtype or shape than the program's."""


def run_isolated(device):
  """run(device) in a forked child, so that a kernel that traps (SIGFPE) is reported, not the
  end of the script: ("ok", outputs), ("cannot", why), ("error", message, tinygrad
  file:line) when tinygrad raises (its traceback printed), or ("crash", message)."""
  sys.stdout.flush()  # nothing buffered to be written twice
  sys.stderr.flush()
  r, w = os.pipe()
  pid = os.fork()
  if pid == 0:  # the child: run, send the answer, leave without cleanup
    os.close(r)
    try:
      answer = ("ok", run(device))
    except CannotCheck as e:
      answer = ("cannot", str(e))
    except Exception as e:  # noqa: BLE001  (the device's answer)
      traceback.print_exc()
      answer = ("error", f"{type(e).__name__}: {e}".splitlines()[0], tinygrad_where(e))
    with os.fdopen(w, "wb") as f: f.write(pickle.dumps(answer))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
  os.close(w)
  with os.fdopen(r, "rb") as f: data = f.read()
  _, status = os.waitpid(pid, 0)
  if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    try:
      name = signal.Signals(sig).name
    except ValueError:
      name = f"signal {sig}"
    return ("crash", f"the {device} program killed its process: {name}")
  if not data: return ("crash", f"the process running the {device} program ended (status {os.WEXITSTATUS(status)})")
  return pickle.loads(data)


def available(devices):
  """The devices that run here: their runtime imports, and CPU has its C compiler ($CC)."""
  out = []
  for d in devices:
    try:
      Device.get_class(d)
    except Exception:  # noqa: BLE001
      continue
    if d == "CPU" and shutil.which(os.environ.get("CC", "clang")) is None:
      if shutil.which("clang-14") is None: continue
      os.environ["CC"] = "clang-14"
    out.append(d)
  return out


def canonical(vals):
  """Values as compared: +0 and -0 alike, every NaN alike, other floats by value (= bits)."""
  return ["nan" if isinstance(v, float) and math.isnan(v) else v + 0.0 if isinstance(v, float) else v for v in vals]


def show(vals):
  return "[" + ", ".join("nan" if isinstance(v, float) and math.isnan(v) else repr(v) for v in vals) + "]"


def tinygrad_where(exc):
  """file:line, relative to the tinygrad package, of the innermost traceback frame in it."""
  import tinygrad
  package, where = os.path.dirname(os.path.abspath(tinygrad.__file__)), None
  for entry in traceback.extract_tb(exc.__traceback__):
    if os.path.abspath(entry.filename).startswith(package + os.sep):
      where = f"{os.path.relpath(os.path.abspath(entry.filename), package)}:{entry.lineno}"
  return where


def check(devices=DEVICES):
  """Runs the program on each device, compares; returns the exit status (see the top)."""
  devices = available(devices)
  if not devices:
    print(f"CANNOT CHECK: none of the devices {' '.join(DEVICES)} runs here")
    return 2
  status = 0
  for device in devices:
    answer = run_isolated(device)
    if answer[0] == "cannot":
      print(f"CANNOT CHECK on {device}: {answer[1]}")
      status = max(status, 2) if status != 1 else 1
      continue
    if answer[0] == "error":  # a crash is the bug
      print(f"FAIL on {device}: tinygrad raised at {answer[2]}: {answer[1]}")
      status = 1
      continue
    if answer[0] == "crash":
      print(f"FAIL on {device}: {answer[1]}")
      status = 1
      continue
    got = answer[1]
    for k, want in EXPECTED.items():
      same = canonical(got[k]) == canonical(want)
      print(f"out[{k}] on {device}: expected {show(want)} got {show(got[k])}{'' if same else '  <- differs'}")
      if not same: status = 1
  print("ok: every output is the expected one" if status == 0 else
        "FAIL: tinygrad computes the program wrong" if status == 1 else "CANNOT CHECK")
  return status


class TestUopfuzzCstyleHoistsDivisionOutOfGate1(unittest.TestCase):
  def test_cstyle_hoists_division_out_of_gate_1(self):
    devices = available(DEVICES)
    if not devices: self.skipTest(f"none of the devices {' '.join(DEVICES)} runs here")
    for device in devices:
      with self.subTest(device=device):
        answer = run_isolated(device)
        if answer[0] == "cannot": self.skipTest(answer[1])
        self.assertEqual(answer[0], "ok", answer[1:])
        for k, want in EXPECTED.items():
          self.assertEqual(canonical(answer[1][k]), canonical(want), f"out[{k}] on {device}")


if __name__ == "__main__":
  sys.exit(check(tuple(sys.argv[1:]) or DEVICES))
