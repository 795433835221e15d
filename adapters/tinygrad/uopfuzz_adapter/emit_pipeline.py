"""A standalone reproducer of a kernel case at stage `pipeline`: one Python file that needs
tinygrad alone.

emit(text) turns a .uop kernel (root SINK) whose header gives every input buffer (`@input`),
every VAR (`@var`) and every output buffer's expected values (`@output SLOT [...]`: uopfuzz's
oracle at those inputs, which the C++ side writes before it asks for a reproducer) into a
script that does what pipeline.run_kernel does: the kernels exactly as the adapter hands
them to tinygrad's codegen (pipeline.prepare: converted, in the scheduler's form, one kernel
per effect, buffers numbered 0..n-1; written with tinygrad's pyrender), each compiled by
codegen.do_to_program for the device's renderer and run in order on one set of buffers (the
inputs holding the case's values, every other buffer zeroed), every output buffer compared
with the expected values.

Each device runs in a forked child of the script, so that a compiled program that traps
(SIGFPE, SIGSEGV) is reported as the bug, not the end of the script. Exit status: 0 every
output on every device is the expected one (the bug is gone), 1 one differs, or tinygrad
raises, or the program kills its process (the bug is there), 2 nothing can be decided (no
device of the case runs here). It is also a unittest (class TestUopfuzz<Name>). Floats
compare by bits, except +0 == -0 (the adapter declares tinygrad's zero-sign tolerance) and
NaN == NaN.
"""
import os
import string

from uopfuzz_adapter import script_parts, uop_text, values
from uopfuzz_adapter.emit import BUILD_IMPORTS, EmitError, _build_code, _dict_text, _doc, _names
from uopfuzz_adapter.emit_tensor import _list

DEVICES = ("PYTHON", "CPU")
RUN_ISOLATED = script_parts.run_isolated(
  'run(device) in a forked child: ("ok", outputs), ("error", message, tinygrad file:line)\n'
  '  when tinygrad raises (its traceback printed), or ("crash", message) when the child dies.')


def _expected(kernel, buffers):
  """{output slot: values} of the @output lines; every output buffer must have one."""
  given = {}
  for h in kernel.header:
    if not h.startswith("@output "): continue
    slot, _, vals = h[len("@output "):].strip().partition(" ")
    given[int(slot)] = vals.strip()
  out = {}
  for slot in buffers.outputs():
    dtype, _, size, _, _ = buffers.slots[slot]
    if slot not in given: raise EmitError(f"no @output for output buffer slot {slot} (the expected values: uopfuzz's oracle)")
    try:
      vals = [values.parse_value(v, dtype) for v in values._split_list(given[slot])]
    except values.ValueError_ as e:
      raise EmitError(f"@output {slot}: {e}") from None
    if len(vals) != size: raise EmitError(f"@output {slot} lists {len(vals)} values; the PARAM has size {size}")
    out[slot] = vals
  return out


def _kernel_code(i, k):
  """def kernel_<i>(): the kernel's SINK as the adapter hands it to codegen."""
  code = _build_code(k.sink).replace("def build():", f"def kernel_{i}():", 1)
  binds = ", ".join(f"PARAM {p} = buffer slot {s}" for p, s in sorted(k.slots.items()))
  return code.replace('  """The kernel as', f'  """Kernel {i} ({binds}),\n  as', 1)


def _docstring(kernel, n_kernels, version, filename):
  h = kernel.header_value
  name = h("name") or "kernel"
  rows = [("Signature", h("signature")), ("Details", h("details")), ("Root cause", h("root-cause")),
          ("Found on", f"tinygrad {h('simplifier-version')} (not checked against a newer tinygrad)" if h("simplifier-version") else ""),
          ("Emitted on", f"tinygrad {version}" if version and version != h("simplifier-version") else ""),
          ("Stage", "pipeline: tinygrad's whole codegen (codegen.do_to_program) and the device"),
          ("Found by", h("found-by"))]
  table = _doc("".join(f"{k:<12}{v}\n" for k, v in rows if v))
  module = os.path.splitext(os.path.basename(filename))[0] if filename else "<this file, without .py>"
  run = os.path.basename(filename) if filename else "<this file>"
  split = ("" if n_kernels == 1 else
           f"\nThe case's SINK has {n_kernels} effects: tinygrad's scheduler would make one kernel of each,\n"
           "so the script compiles each and runs them in order on the same buffers.\n")
  return f'''"""uopfuzz reproducer {_doc(name)}: tinygrad's pipeline computes a kernel wrong.

{table}
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
{split}
Run:   PYTHONPATH=<tinygrad checkout> python3 {run} [DEVICE ...]   (default: {" ".join(DEVICES)})
       exit 0: every output is the expected one (fixed); 1: the bug is there (an output
       differs, tinygrad raises: traceback and tinygrad file:line, or the program kills its
       process); 2: cannot check (no device of the case runs here)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest {module}
"""
'''


SCRIPT = string.Template('''#!/usr/bin/env python3
$docstring
$std_imports

$imports
from tinygrad.codegen import do_to_program
from tinygrad.device import Buffer, Device

inf, nan = math.inf, math.nan  # how pyrender spells these float constants

DEVICES = $devices
# the variables' values
$vars
# every buffer: slot -> (dtype, elements)
BUFFERS = $buffers
# the input buffers: slot -> every element (every other buffer starts zeroed)
$inputs
# the expected output buffers (uopfuzz's oracle): slot -> every element
$expected


$kernels

# the kernels in the order they run, each with the buffer slot bound to its PARAM 0, 1, ...
KERNELS = $kernel_list


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


$run_isolated


$tinygrad_where


$devices_and_values


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


class TestUopfuzz$camel(unittest.TestCase):
  def test_$snake(self):
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
''')


def emit(text, version=None, filename=None):
  """The reproducer script (text) of the kernel case `text` at stage pipeline. Raises
  Unsupported (the adapter's pipeline refuses the kernel) or EmitError (an input, a VAR or
  an output without its values in the header)."""
  from uopfuzz_adapter import pipeline
  kernel = uop_text.parse(text)
  try:
    kernels, buffers = pipeline.prepare(text)
  except pipeline.MissingValue as e:
    raise EmitError(str(e)) from None
  expected = _expected(kernel, buffers)
  camel, snake = _names(kernel.header_value("name"))
  vars_ = [(repr(name), repr(v)) for name, v in sorted(buffers.vars.items())]
  buffer_rows = "{" + ", ".join(f"{slot}: (dtypes.{dtype}, {size})"
                                for slot, (dtype, _, size, _, _) in sorted(buffers.slots.items())) + "}"
  inputs = [(slot, _list(vals)) for slot, (_, _, _, vals, _) in sorted(buffers.slots.items()) if vals is not None]
  kernel_list = "[" + ", ".join(f"(kernel_{i}, {tuple(k.slots[p] for p in sorted(k.slots))})"
                                for i, k in enumerate(kernels)) + "]"
  return SCRIPT.substitute(
    docstring=_docstring(kernel, len(kernels), version, filename).rstrip("\n"), imports=BUILD_IMPORTS.rstrip("\n"),
    devices="(" + ", ".join(f'"{d}"' for d in DEVICES) + ")", vars=_dict_text("VARS", vars_), buffers=buffer_rows,
    inputs=_dict_text("INPUTS", inputs), expected=_dict_text("EXPECTED", [(k, _list(v)) for k, v in expected.items()]),
    kernels="\n\n".join(_kernel_code(i, k) for i, k in enumerate(kernels)).rstrip("\n"), kernel_list=kernel_list,
    camel=camel, snake=snake, std_imports=script_parts.IMPORTS, run_isolated=RUN_ISOLATED,
    tinygrad_where=script_parts.TINYGRAD_WHERE, devices_and_values=script_parts.DEVICES_AND_VALUES)
