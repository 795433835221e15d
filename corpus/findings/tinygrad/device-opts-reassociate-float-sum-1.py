#!/usr/bin/env python3
"""uopfuzz reproducer device-opts-reassociate-float-sum-1: tinygrad computes a tensor program wrong.

Signature   mismatch/tinygrad-device/tinygrad-PYTHON
Details     seed 1: output 0[0] is 474490.62 on the tensor oracle but 474490.72 on device PYTHON; its 3 scheduled kernels agree on uopfuzz's oracle; rules that fired: 101 rules, most applied 88x uop/ops.py:1754, 75x uop/weak.py:75, 59x uop/weak.py:52, 51x uop/weak.py:59, 37x uop/weak.py:34, 33x codegen/decomp/op.py:116, ...
Root cause  device-opts-reassociate-float-sum (a declared difference, not a tinygrad bug)
Found on    tinygrad tree-ed32e5aa5014 (not checked against a newer tinygrad)
Found by    uopfuzz fuzz --level tensor --simplifier tinygrad --time 1800 --seed 3001 --jobs 1 --corpus /tmp/camp/tensor --emit tinygrad --json /tmp/camp/tensor.json

The tensor program below is the case's, written as tinygrad Tensor code, one line a node
(the .uop node in the comment), as uopfuzz's tinygrad adapter ran it: the inputs are
Buffers on the device holding the case's values (INPUTS), the outputs are realized together
and read back. EXPECTED is what uopfuzz's tensor oracle computes from the program's
definition (SEMANTICS.md, "Tensor programs"). Every output is compared on every device:
floats by bits, except that +0 matches -0 (the adapter declares tinygrad's zero-sign
tolerance) and NaN matches NaN.

Run:   PYTHONPATH=<tinygrad checkout> python3 device-opts-reassociate-float-sum-1.py [DEVICE ...]   (default: PYTHON CPU)
       exit 0: every output is the expected one (fixed); 1: the bug is there (an output
       differs, or tinygrad raises: traceback and tinygrad file:line); 2: cannot check (no
       device runs here, or tinygrad's Tensor gives another dtype or shape)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest device-opts-reassociate-float-sum-1
"""
import math
import os
import shutil
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
  0: [-1.25, 5.625, -5.875, -5.25, -3.125, -2.5, -7.5, 4.0, 2.625, 2.375, -3.5, 0.75, 5.25, 0.125,
      -3.625, -3.625, -5.5, 1.875, 3.0, -1.5, 3.0, -3.625, 3.0, 0.375, -4.25, -3.5, -1.0, -4.625],
  1: [5.625],
  2: [-5.875, -5.25, -3.125, -2.5, -7.5, 4.0, 2.625, 2.375, -3.5, 0.75, 5.25, 0.125, -3.625, -3.625,
      -5.5, 1.875, 3.0, -1.5, 3.0, -3.625, 3.0, 0.375, -4.25, -3.5, -1.0, -4.625, 5.75, -7.125,
      1.25, -5.375, 3.5, 1.5, 2.5, 1.5, -1.75, -7.5, 5.125, 7.0, 2.0, -6.75, 7.75, -2.125, -5.0,
      2.0, 2.75, -2.875, 3.625, -2.25, -6.5, 4.25, -7.375, -4.75, 7.625, -0.875, 5.0, 1.625, 2.375,
      7.0, 1.5, -2.125, -3.125, 6.0, 1.375, -0.375, 6.375, -5.25, 1.375, 5.375, -6.25, 2.375, -6.0,
      -6.625, -6.75, -1.125, -5.0, 6.125, 6.25, -2.0, 7.875, -2.625, 5.5, 7.375, 3.75, 3.875,
      -0.625, -4.0, 0.375, 5.125, 2.375, 5.5, 0.625, 4.0, -2.0, -7.25, -2.375, -2.0, 6.875, -3.625,
      5.0, 6.0, 2.75, -4.375, 4.0, 4.375, -4.375, -0.625, -4.5, -2.875, 4.0, -1.625, -2.25, 1.875,
      8.0, -4.875, -6.875, 3.125, 4.125, -6.875, 3.0, -6.875, -1.75, 2.375, -7.0, -1.875, -7.625,
      -3.25, -7.625, 5.375, -6.375, -0.25, -0.625, 1.375, -6.125, -3.875, -1.625, -6.875, -1.0,
      -5.5, -2.75, -7.0, 1.125, 7.625, 0.625, 7.875, 7.875, -5.5, -5.75, -4.5, -5.375, -6.875, -7.0,
      3.125, -4.375, 5.25, -0.875, 1.875, -2.125, -5.5, -1.375, 3.125, 5.75, -2.875, -3.125, -0.875,
      -6.25, -7.375, -5.25, 6.0, 3.75, -0.75, -1.5, 1.5, -7.0, 3.875, -4.0, 5.375, 3.75, -5.875,
      -5.625, -7.625, 0.75, -4.75, 4.875, 2.25, 4.875, -3.5, -6.875, -3.0, 4.0, -3.75, -7.125, 3.0,
      -3.875, 0.0, -3.625, -0.875, 0.5, 0.625, 2.5, -5.25, -0.125, 2.0, 0.0, -5.875, -5.75, -3.125,
      6.125, 5.75, -6.375, 3.25, -1.125, -3.0, -2.0, -1.25, 5.75, 2.125, 7.0, 2.5, -7.125, -3.125,
      2.75, -2.125, -6.5, -3.875, 7.0, 2.0, 2.125, 7.5, 1.875, -3.75, 4.375, 5.0, -1.625, -5.25,
      4.75, 0.0, -1.75, 1.625, 8.0, 2.125],
  3: [-5.25],
}
# the expected outputs (uopfuzz's tensor oracle): REALIZE source K -> every element, row-major
EXPECTED = {0: [474490.625]}
# each output's dtype and shape
OUTPUTS = {0: (dtypes.float32, ())}


def input_tensor(slot, dtype, shape, device):
  """The input PARAM `slot`: a Buffer on the device holding INPUTS[slot], as a Tensor."""
  vals = INPUTS[slot]
  if not vals: return Tensor.empty(*shape, dtype=dtype, device=device)
  buf = Buffer(device, len(vals), dtype, initial_value=struct.pack(f"<{len(vals)}{dtype.fmt}", *vals))
  return Tensor(UOp.from_buffer(buf), device=device).reshape(shape)


def program(device):
  """The tensor program, one Tensor op a line; returns the outputs (REALIZE's sources)."""
  t0 = input_tensor(0, dtypes.float32, (7, 4), device)  # %0 = PARAM slot=0 in : float32[7,4]
  t1 = t0.min((0, 1), keepdim=True)  # %1 = REDUCE_AXIS %0 op=MIN axes=[0,1] : float32[1,1]
  t2 = t1.reshape((1, 1, 1, 1))  # %2 = RESHAPE %1 : float32[1,1,1,1]
  t3 = t2.expand((48, 5, 1, 1))  # %3 = EXPAND %2 : float32[48,5,1,1]
  t4 = t3.pad(((0, 0), (0, 0), (0, 1), (0, 0)))  # %4 = PAD %3 pad=[0:0,0:0,0:1,0:0] : float32[48,5,2,1]
  # %5 = SHRINK %4 shrink=[0:48,0:5,1:2,0:1] : float32[48,5,1,1]
  t5 = t4.shrink(((0, 48), (0, 5), (1, 2), (0, 1)))
  t6 = t3 - t5  # %6 = SUB %3 %5 : float32[48,5,1,1]
  # %7 = CONST 3 : int32[48,5,1,1]
  t7 = Tensor.full((48, 5, 1, 1), 3, dtype=dtypes.int32, device=device, buffer=False)
  t8 = t7.cast(dtypes.float32)  # %8 = CAST %7 : float32[48,5,1,1]
  t9 = input_tensor(1, dtypes.float32, (1, 1, 1, 1), device)  # %9 = PARAM slot=1 in : float32[1,1,1,1]
  t10 = t9.expand((48, 5, 1, 1))  # %10 = EXPAND %9 : float32[48,5,1,1]
  t11 = t8 * t10  # %11 = MUL %8 %10 : float32[48,5,1,1]
  t12 = t6 - t11  # %12 = SUB %6 %11 : float32[48,5,1,1]
  t13 = t12.pad(((0, 0), (0, 1), (0, 0), (0, 0)))  # %13 = PAD %12 pad=[0:0,0:1,0:0,0:0] : float32[48,6,1,1]
  # %14 = SHRINK %13 shrink=[0:48,1:6,0:1,0:1] : float32[48,5,1,1]
  t14 = t13.shrink(((0, 48), (1, 6), (0, 1), (0, 1)))
  t15 = t12 + t14  # %15 = ADD %12 %14 : float32[48,5,1,1]
  t16 = t15.permute((2, 3, 0, 1))  # %16 = PERMUTE %15 order=[2,3,0,1] : float32[1,1,48,5]
  t17 = input_tensor(2, dtypes.float32, (1, 1, 48, 5), device)  # %17 = PARAM slot=2 in : float32[1,1,48,5]
  t18 = t17 + t16  # %18 = ADD %17 %16 : float32[1,1,48,5]
  t19 = t16 * t18  # %19 = MUL %16 %18 : float32[1,1,48,5]
  # %20 = REDUCE_AXIS %19 op=ADD axes=[3] : float32[1,1,48,1]
  t20 = t19.sum((3,), keepdim=True, dtype=t19.dtype)
  t21 = t20.reshape((1, 1, 48))  # %21 = RESHAPE %20 : float32[1,1,48]
  t22 = t21.flip((1, 2))  # %22 = FLIP %21 axes=[1,2] : float32[1,1,48]
  t23 = t21.minimum(t22)  # %23 = MIN %21 %22 : float32[1,1,48]
  t24 = t23.sum((2,), keepdim=True, dtype=t23.dtype)  # %24 = REDUCE_AXIS %23 op=ADD axes=[2] : float32[1,1,1]
  t25 = t24.reshape((1, 1))  # %25 = RESHAPE %24 : float32[1,1]
  t26 = input_tensor(3, dtypes.float32, (1, 1), device)  # %26 = PARAM slot=3 in : float32[1,1]
  t27 = t25 + t26  # %27 = ADD %25 %26 : float32[1,1]
  t28 = t27.reshape(())  # %28 = RESHAPE %27 : float32[]
  return [t28]


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
    try:
      got = run(device)
    except CannotCheck as e:
      print(f"CANNOT CHECK on {device}: {e}")
      status = max(status, 2) if status != 1 else 1
      continue
    except Exception as e:  # noqa: BLE001  (a crash is the bug)
      traceback.print_exc()
      print(f"FAIL on {device}: tinygrad raised at {tinygrad_where(e)}: {type(e).__name__}: {e}")
      status = 1
      continue
    for k, want in EXPECTED.items():
      same = canonical(got[k]) == canonical(want)
      print(f"out[{k}] on {device}: expected {show(want)} got {show(got[k])}{'' if same else '  <- differs'}")
      if not same: status = 1
  print("ok: every output is the expected one" if status == 0 else
        "FAIL: tinygrad computes the program wrong" if status == 1 else "CANNOT CHECK")
  return status


class TestUopfuzzFindingF9206068(unittest.TestCase):
  def test_finding_f9206068(self):
    devices = available(DEVICES)
    if not devices: self.skipTest(f"none of the devices {' '.join(DEVICES)} runs here")
    for device in devices:
      with self.subTest(device=device):
        got = run(device)
        for k, want in EXPECTED.items():
          self.assertEqual(canonical(got[k]), canonical(want), f"out[{k}] on {device}")


if __name__ == "__main__":
  sys.exit(check(tuple(sys.argv[1:]) or DEVICES))
