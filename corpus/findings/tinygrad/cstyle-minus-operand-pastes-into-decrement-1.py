#!/usr/bin/env python3
"""uopfuzz reproducer cstyle-minus-operand-pastes-into-decrement-1: tinygrad's pipeline computes a kernel wrong.

Signature   crash/external@runtime/support/compiler_cpu.py:21/tinygrad-CPU
Details     seed 0: device CPU raised: CalledProcessError: Command '['clang', '-c', '-x', 'c', '-O2', '-fPIC', '-ffreestanding', '-fno-math-errno', '-nostdlib', '-fno-ident', '--target=x86_64-none-unknown-elf', '-march=native', '-', '-o', '-']' returned non-zero exit status 1.
Root cause  cstyle-minus-operand-pastes-into-decrement
Found on    tinygrad tree-ed32e5aa5014 (not checked against a newer tinygrad)
Stage       pipeline: tinygrad's whole codegen (codegen.do_to_program) and the device
Found by    uopfuzz fuzz --simplifier tinygrad --tinygrad-stage pipeline --level kernel --time 720 --seed 3002 --jobs 1 --corpus /tmp/camp/kernel --emit tinygrad --json /tmp/camp/kernel.json

The kernel below is the case's, as uopfuzz's tinygrad adapter hands it to tinygrad's codegen
(the form tinygrad's scheduler gives a kernel: buffers numbered 0..n-1, output ranges WEAK,
reduce ranges REDUCE). Each device compiles it with the whole of tinygrad's codegen
(codegen.do_to_program: full_rewrite_to_sink with the hand-coded optimizations, the
expander, devectorizing, the decompositions, linearize, render) and runs the program on
Buffers: the inputs hold INPUTS, every other buffer starts zeroed, VARS are the variables'
values. EXPECTED is what uopfuzz's oracle computes for the kernel at these inputs (its
definition: SEMANTICS.md). Every output buffer is compared on every device: floats by bits,
except that +0 matches -0 (the adapter declares tinygrad's zero-sign tolerance) and NaN
matches NaN. Each device runs in a forked child process: a program that traps (SIGFPE,
SIGSEGV) is reported, not the end of the script.

Run:   PYTHONPATH=<tinygrad checkout> python3 cstyle-minus-operand-pastes-into-decrement-1.py [DEVICE ...]   (default: PYTHON CPU)
       exit 0: every output is the expected one (fixed); 1: the bug is there (an output
       differs, tinygrad raises: traceback and tinygrad file:line, or the program kills its
       process); 2: cannot check (no device of the case runs here)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest cstyle-minus-operand-pastes-into-decrement-1
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

from tinygrad.dtype import AddrSpace, ConstFloat, Invalid, dtypes, truncate
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, ParamArg, UOp, exec_alu, graph_rewrite, identity_element, python_alu
from tinygrad.codegen import do_to_program
from tinygrad.device import Buffer, Device

inf, nan = math.inf, math.nan  # how pyrender spells these float constants

DEVICES = ("PYTHON", "CPU")
# the variables' values
VARS = {'x0': 8}
# every buffer: slot -> (dtype, elements)
BUFFERS = {5: (dtypes.float32, 192)}
# the input buffers: slot -> every element (every other buffer starts zeroed)
INPUTS = {}
# the expected output buffers (uopfuzz's oracle): slot -> every element
EXPECTED = {
  5: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
      0.0, 0.0],
}


def kernel_0():
  """Kernel 0 (PARAM 0 = buffer slot 5),
  as uopfuzz's tinygrad adapter hands it to tinygrad:
  tinygrad's own pyrender of it (tinygrad/uop/render.py)."""
  c1 = UOp(Ops.PARAM, dtypes.float, (UOp.const(192, dtypes.weakint),), ParamArg(0, dtypes.float))
  c2 = UOp(Ops.STACK, dtypes.void, ())
  c3 = UOp(Ops.PARAM, dtypes.weakint, (c2,), ParamArg(-1, dtypes.weakint, vmin_vmax=(7, 8), multiple_of=1, name='x0', addrspace=AddrSpace.ALU))
  c7 = UOp(Ops.SUB, dtypes.float, (c3.cast(dtypes.float), UOp.const(-1.0, dtypes.float)))
  c8 = c1.index(c3).store(c7)
  ast = c8.sink(arg=KernelInfo(name='cstyle-minus-operand-pastes-into-decrement-1', axis_types=(), dont_use_locals=False, applied_opts=(), opts_to_apply=None, estimates=None, beam=0))
  return ast

# the kernels in the order they run, each with the buffer slot bound to its PARAM 0, 1, ...
KERNELS = [(kernel_0, (5,))]


def pack(vals, dtype):
  if dtype == dtypes.float16: return b"".join(struct.pack("<e", v) for v in vals)
  return struct.pack(f"<{len(vals)}{dtype.fmt}", *vals)


def run(device):
  """{output slot: values} after compiling and running every kernel on `device`."""
  bufs = {}
  for slot, (dtype, size) in BUFFERS.items():
    data = pack(INPUTS[slot], dtype) if slot in INPUTS else bytes(size * dtype.itemsize)
    # at least one element: tinygrad allocates no empty buffer (no kernel reads one)
    bufs[slot] = Buffer(device, max(size, 1), dtype, initial_value=data or bytes(dtype.itemsize))
  for build, slots in KERNELS:
    program = do_to_program(build(), Device[device].renderer)
    global_size, local_size = program.arg.launch_dims(VARS)
    runtime = Device[device].runtime(program.to_elf())
    runtime(*[bufs[slots[k]]._buf for k in program.arg.globals], global_size=global_size, local_size=local_size,
            vals=program.arg.vals(VARS), wait=True)
  got = {}
  for slot in EXPECTED:
    dtype, size = BUFFERS[slot]
    data = bytes(bufs[slot].as_memoryview())
    got[slot] = list(struct.unpack(f"<{size}{dtype.fmt}", data[:size * dtype.itemsize]))
  return got


def run_isolated(device):
  """run(device) in a forked child: ("ok", outputs), ("error", message, tinygrad file:line)
  when tinygrad raises (its traceback printed), or ("crash", message) when the child dies."""
  sys.stdout.flush()  # nothing buffered to be written twice
  sys.stderr.flush()
  r, w = os.pipe()
  pid = os.fork()
  if pid == 0:  # the child: run, send the answer, leave without cleanup
    os.close(r)
    try:
      answer = ("ok", run(device))
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


def tinygrad_where(exc):
  """file:line, relative to the tinygrad package, of the innermost traceback frame in it."""
  import tinygrad
  package, where = os.path.dirname(os.path.abspath(tinygrad.__file__)), None
  for entry in traceback.extract_tb(exc.__traceback__):
    if os.path.abspath(entry.filename).startswith(package + os.sep):
      where = f"{os.path.relpath(os.path.abspath(entry.filename), package)}:{entry.lineno}"
  return where


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


def check(devices=DEVICES):
  """Runs the kernels on each device, compares; returns the exit status (see the top)."""
  devices = available(devices)
  if not devices:
    print(f"CANNOT CHECK: none of the devices {' '.join(DEVICES)} runs here")
    return 2
  status = 0
  for device in devices:
    answer = run_isolated(device)
    if answer[0] == "error":
      print(f"FAIL on {device}: tinygrad raised at {answer[2]}: {answer[1]}")
      status = 1
      continue
    if answer[0] == "crash":
      print(f"FAIL on {device}: {answer[1]}")
      status = 1
      continue
    got = answer[1]
    for slot, want in EXPECTED.items():
      same = canonical(got[slot]) == canonical(want)
      print(f"out[{slot}] on {device}: expected {show(want)} got {show(got[slot])}{'' if same else '  <- differs'}")
      if not same: status = 1
  print("ok: every output is the expected one" if status == 0 else "FAIL: tinygrad's pipeline computes the kernel wrong")
  return status


class TestUopfuzzCstyleMinusOperandPastesIntoDecrement1(unittest.TestCase):
  def test_cstyle_minus_operand_pastes_into_decrement_1(self):
    devices = available(DEVICES)
    if not devices: self.skipTest(f"none of the devices {' '.join(DEVICES)} runs here")
    for device in devices:
      with self.subTest(device=device):
        answer = run_isolated(device)
        self.assertEqual(answer[0], "ok", answer[1:])
        for slot, want in EXPECTED.items():
          self.assertEqual(canonical(answer[1][slot]), canonical(want), f"out[{slot}] on {device}")


if __name__ == "__main__":
  sys.exit(check(tuple(sys.argv[1:]) or DEVICES))
