"""A standalone reproducer of a tensor-program case: one Python file that needs tinygrad alone.

emit(text) turns a .uop tensor program (root REALIZE) whose header gives every input
(`@input SLOT [...]`) and every output's expected values (`@output K [...]`: uopfuzz's tensor
oracle, which the C++ side writes into a finding's case) into a script a tinygrad maintainer
can read top to bottom: the inputs as Tensors on the device, the program as Tensor ops, one
line a node (`t3 = t1.reshape(3, 4)`), realized on each device, and every output compared
with the expected values. The Tensor methods are the ones the adapter's tensor runner
(tensor.py) uses for each .uop op, so the script runs what the campaign ran; emit() builds
the program with that runner first (no kernel runs) so a program the runner declines is
declined here too.

The script prints `out[K] on DEVICE: expected [...] got [...]` for every output and device,
and exits 0 when every output on every device is the expected one (the bug is gone), 1 when
one differs or tinygrad raises (the bug is there: the traceback and the innermost tinygrad
file:line, or a kernel traps: each device runs in a forked child, so SIGFPE is reported, not
the end of the script), 2 when nothing can be decided (no device of the case runs here, or
tinygrad's Tensor gives an output of another dtype or shape than the program's). It is also a
unittest (class TestUopfuzz<Name>). Floats compare by bits, except +0 == -0 (the adapter
declares tinygrad's zero-sign tolerance) and NaN == NaN.
"""
import math
import string

from uopfuzz_adapter import script_parts, uop_text, values
from uopfuzz_adapter.convert import Unsupported
from uopfuzz_adapter.emit import EmitError, _dict_text, _doc, _names

DEVICES = ("PYTHON", "CPU")
RUN_ISOLATED = script_parts.run_isolated(
  "run(device) in a forked child, so that a kernel that traps (SIGFPE) is reported, not the\n"
  '  end of the script: ("ok", outputs), ("cannot", why), ("error", message, tinygrad\n'
  '  file:line) when tinygrad raises (its traceback printed), or ("crash", message).',
  "    except CannotCheck as e:\n"
  '      answer = ("cannot", str(e))\n')

# .uop op -> the Tensor expression of tensor.py's _apply for it ({0}, {1}, {2}: the sources)
BINARY = {
  "ADD": "{0} + {1}", "SUB": "{0} - {1}", "MUL": "{0} * {1}",
  "CDIV": '{0}.div({1}, rounding_mode="trunc")', "CMOD": "{0}.fmod({1})",
  "FLOORDIV": "{0} // {1}", "FLOORMOD": "{0} % {1}",
  "MAX": "{0}.maximum({1})", "MIN": "{0}.minimum({1})",
  "CMPLT": "{0} < {1}", "CMPNE": "{0}.ne({1})", "CMPEQ": "{0}.eq({1})",
  "AND": "{0} & {1}", "OR": "{0} | {1}", "XOR": "{0} ^ {1}", "SHL": "{0} << {1}", "SHR": "{0} >> {1}",
}
UNARY = {"NEG": "neg", "RECIPROCAL": "reciprocal", "SQRT": "sqrt", "EXP2": "exp2", "LOG2": "log2", "SIN": "sin",
         "TRUNC": "trunc"}
REDUCE = {"ADD": "{0}.sum({1}, keepdim=True, dtype={0}.dtype)", "MUL": "{0}.prod({1}, keepdim=True)",
          "MAX": "{0}.max({1}, keepdim=True)", "MIN": "{0}.min({1}, keepdim=True)"}


def _dt(name):
  return f"dtypes.{name}"


def _tuple(xs):
  xs = tuple(xs)
  return "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"


def _literal(v):
  """A value as Python source (nan, inf spelled as the script's names)."""
  if isinstance(v, bool): return repr(v)
  if isinstance(v, float):
    if math.isnan(v): return "nan"
    if math.isinf(v): return "inf" if v > 0 else "-inf"
  return repr(v)


def _list(vals):
  return "[" + ", ".join(_literal(v) for v in vals) + "]"


def _expression(node, srcs):
  """The Tensor expression of one node (tensor.py's _apply, as text); None: the node is its
  first source (FLIP of no axes, REDUCE_AXIS of no axes)."""
  op, arg = node.op, node.arg
  a = srcs[0] if srcs else None
  if op == "CONST": return f"Tensor.full({_tuple(node.shape)}, {_literal(arg)}, dtype={_dt(node.dtype)}, device=device, buffer=False)"
  if op == "RESHAPE": return f"{a}.reshape({_tuple(node.shape)})"
  if op == "EXPAND": return f"{a}.expand({_tuple(node.shape)})"
  if op == "PERMUTE": return f"{a}.permute({_tuple(arg)})"
  if op == "PAD": return f"{a}.pad({_tuple(_tuple(p) for p in arg)})"
  if op == "SHRINK": return f"{a}.shrink({_tuple(_tuple(p) for p in arg)})"
  if op == "FLIP": return f"{a}.flip({_tuple(arg)})" if arg else None
  if op == "CONTIGUOUS": return f"{a}.contiguous()"
  if op == "REDUCE_AXIS":
    rop, axes = arg
    return REDUCE[rop].format(a, _tuple(axes)) if axes else None
  if op in UNARY: return f"{a}.{UNARY[op]}()"
  if op in ("CAST", "BITCAST"): return f"{a}.{op.lower()}({_dt(node.dtype)})"
  if op in BINARY: return BINARY[op].format(*srcs)
  if op == "WHERE": return f"{srcs[0]}.where({srcs[1]}, {srcs[2]})"
  raise Unsupported("no-tensor-form", f"op {op} in a tensor program")


def _lines_of(text, kernel):
  """Each node's .uop line as written (its comment cut), for the script's comments."""
  lines = text.split("\n")
  return [" ".join(lines[n.line - 1].split("#", 1)[0].split()) if n.line else n.op for n in kernel.nodes]


def _program_code(prog, lines):
  """The body of program(device): one line a node (its .uop line in a comment), and the
  outputs returned."""
  rows, var = [], {}
  for i, node in enumerate(prog.nodes):
    if node.op == "REALIZE": continue
    comment = f"# {lines[i]}"
    if node.op == "PARAM":
      code = f"input_tensor({node.arg}, {_dt(node.dtype)}, {_tuple(node.shape)}, device)"
    else:
      code = _expression(node, [var[s] for s in node.srcs])
      if code is None:  # the node is its source
        var[i] = var[node.srcs[0]]
        rows.append(f"  # {lines[i]}  ({var[i]} itself)")
        continue
    var[i] = f"t{i}"
    line = f"  t{i} = {code}"
    rows.append(f"{line}  {comment}" if len(line) + len(comment) + 2 <= 110 else f"  {comment}\n{line}")
  outs = ", ".join(var[s] for s in prog.outputs)
  return "\n".join(rows) + f"\n  return [{outs}]"


def _expected(prog, kernel):
  """{output K: values} of the @output lines; every output must have one."""
  given = {}
  for h in kernel.header:
    if not h.startswith("@output "): continue
    k, _, vals = h[len("@output "):].strip().partition(" ")
    given[int(k)] = vals.strip()
  out = {}
  for k, s in enumerate(prog.outputs):
    node = prog.nodes[s]
    if k not in given: raise EmitError(f"no @output for output {k} (the expected values: uopfuzz's tensor oracle)")
    try:
      vals = [values.parse_value(v, node.dtype) for v in given[k][1:-1].split(",") if v.strip()]
    except values.ValueError_ as e:
      raise EmitError(f"@output {k}: {e}") from None
    n = 1
    for d in node.shape: n *= d
    if len(vals) != n: raise EmitError(f"@output {k} lists {len(vals)} values; the output has {n}")
    out[k] = vals
  return out


def _verify_tensor_form(prog):
  """Builds the program with the adapter's tensor runner on PYTHON (no kernel runs): raises
  Unsupported where the runner would decline it (a Tensor method that promotes a dtype)."""
  from uopfuzz_adapter import tensor
  with tensor.device_context("PYTHON"):
    tensor.build(prog, "PYTHON")


def _docstring(kernel, prog, version, filename):
  import os
  h = kernel.header_value
  name = h("name") or "program"
  rows = [("Signature", h("signature")), ("Details", h("details")), ("Root cause", h("root-cause")),
          ("Found on", f"tinygrad {h('simplifier-version')} (not checked against a newer tinygrad)" if h("simplifier-version") else ""),
          ("Emitted on", f"tinygrad {version}" if version and version != h("simplifier-version") else ""),
          ("Found by", h("found-by"))]
  table = _doc("".join(f"{k:<12}{v}\n" for k, v in rows if v))
  module = os.path.splitext(os.path.basename(filename))[0] if filename else "<this file, without .py>"
  run = os.path.basename(filename) if filename else "<this file>"
  return f'''"""uopfuzz reproducer {_doc(name)}: tinygrad computes a tensor program wrong.

{table}
The tensor program below is the case's, written as tinygrad Tensor code, one line a node
(the .uop node in the comment), as uopfuzz's tinygrad adapter ran it: the inputs are
Buffers on the device holding the case's values (INPUTS), the outputs are realized together
and read back. EXPECTED is what uopfuzz's tensor oracle computes from the program's
definition (SEMANTICS.md, "Tensor programs"). Every output is compared on every device:
floats by bits, except that +0 matches -0 (the adapter declares tinygrad's zero-sign
tolerance) and NaN matches NaN.

Run:   PYTHONPATH=<tinygrad checkout> python3 {run} [DEVICE ...]   (default: {" ".join(DEVICES)})
       exit 0: every output is the expected one (fixed); 1: the bug is there (an output
       differs, tinygrad raises: traceback and tinygrad file:line, or a kernel traps:
       each device runs in a forked child); 2: cannot check (no
       device runs here, or tinygrad's Tensor gives another dtype or shape)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest {module}
"""
'''


SCRIPT = string.Template('''#!/usr/bin/env python3
$docstring
$std_imports

from tinygrad import Tensor, dtypes
from tinygrad.device import Buffer, Device
from tinygrad.helpers import DEV, Context
from tinygrad.uop.ops import UOp

inf, nan = math.inf, math.nan

DEVICES = $devices
# the inputs: PARAM slot -> every element, row-major
$inputs
# the expected outputs (uopfuzz's tensor oracle): REALIZE source K -> every element, row-major
$expected
# each output's dtype and shape
OUTPUTS = $outputs


def input_tensor(slot, dtype, shape, device):
  """The input PARAM `slot`: a Buffer on the device holding INPUTS[slot], as a Tensor."""
  vals = INPUTS[slot]
  if not vals: return Tensor.empty(*shape, dtype=dtype, device=device)
  buf = Buffer(device, len(vals), dtype, initial_value=struct.pack(f"<{len(vals)}{dtype.fmt}", *vals))
  return Tensor(UOp.from_buffer(buf), device=device).reshape(shape)


def program(device):
  """The tensor program, one Tensor op a line; returns the outputs (REALIZE's sources)."""
$program


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


$run_isolated


$devices_and_values


$tinygrad_where


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


class TestUopfuzz$camel(unittest.TestCase):
  def test_$snake(self):
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
''')


def emit(text, version=None, filename=None):
  """The reproducer script (text) of the tensor-program case `text`. Raises Unsupported (the
  adapter's tensor runner declines the program) or EmitError (an input or an output without
  its values in the header)."""
  from uopfuzz_adapter import tensor
  kernel = uop_text.parse(text)
  try:
    prog = tensor.Program(text)
  except tensor.MissingInput as e:
    raise EmitError(str(e)) from None
  expected = _expected(prog, kernel)
  _verify_tensor_form(prog)
  camel, snake = _names(kernel.header_value("name"))
  inputs = [(slot, _list(prog.inputs[slot])) for slot in sorted(prog.inputs)]
  outputs = "{" + ", ".join(f"{k}: ({_dt(prog.nodes[s].dtype)}, {_tuple(prog.nodes[s].shape)})"
                            for k, s in enumerate(prog.outputs)) + "}"
  return SCRIPT.substitute(
    docstring=_docstring(kernel, prog, version, filename).rstrip("\n"), devices=_tuple(f'"{d}"' for d in DEVICES),
    inputs=_dict_text("INPUTS", inputs), expected=_dict_text("EXPECTED", [(k, _list(v)) for k, v in expected.items()]),
    outputs=outputs, program=_program_code(prog, _lines_of(text, kernel)), camel=camel, snake=snake,
    std_imports=script_parts.IMPORTS, run_isolated=RUN_ISOLATED, tinygrad_where=script_parts.TINYGRAD_WHERE,
    devices_and_values=script_parts.DEVICES_AND_VALUES)
