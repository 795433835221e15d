"""A .uop tensor program (root REALIZE) as tinygrad Tensor code, run on tinygrad's devices.

Each node becomes the Tensor method that means what SEMANTICS.md ("Tensor programs") says
it means, on the program's own dtypes (no implicit upcast: a sum is `sum(axes,
keepdim=True, dtype=<its dtype>)`, not Tensor.sum's wider accumulator):

| .uop | tinygrad |
|---|---|
| `PARAM slot=s in : dt[shape]` | a Buffer on the device holding the @input values, `Tensor(UOp.from_buffer(buf)).reshape(shape)` |
| `CONST v : dt[shape]` | `Tensor.full(shape, v, dtype=dt, buffer=False)`: a constant, no buffer (tinygrad's own constants are these) |
| `RESHAPE` `EXPAND` `PERMUTE` `SHRINK` `FLIP` | `reshape` `expand` `permute` `shrink` `flip` |
| `PAD pad=[b:a,...]` | `pad(((b, a), ...))` (zeros) |
| `REDUCE_AXIS op=ADD/MUL/MAX/MIN axes=A` | `sum(A, keepdim=True, dtype=dt)`, `prod(A, keepdim=True)`, `max(A, keepdim=True)`, `min(A, keepdim=True)`; `axes=[]` is the operand itself |
| `CONTIGUOUS` | `contiguous()` |
| `NEG` `RECIPROCAL` `SQRT` `EXP2` `LOG2` `SIN` `TRUNC` | `neg()` `reciprocal()` `sqrt()` `exp2()` `log2()` `sin()` `trunc()` |
| `CAST` `BITCAST` | `cast(dt)` `bitcast(dt)` |
| `ADD` `SUB` `MUL` | `a + b`, `a - b`, `a * b` |
| `CDIV` `CMOD` | `a.div(b, rounding_mode="trunc")`, `a.fmod(b)` (tinygrad's CDIV, CMOD) |
| `FLOORDIV` `FLOORMOD` | `a // b`, `a % b` (tinygrad's FLOORDIV, FLOORMOD) |
| `MAX` `MIN` | `a.maximum(b)`, `a.minimum(b)` |
| `CMPLT` `CMPNE` `CMPEQ` | `a < b`, `a.ne(b)`, `a.eq(b)` |
| `AND` `OR` `XOR` `SHL` `SHR` | `a & b`, `a \\| b`, `a ^ b`, `a << b`, `a >> b` |
| `WHERE` | `c.where(a, b)` |

Every node's result is checked against the node's dtype and shape; a method that gives
another (a frontend that promotes) declines the program, `[no-tensor-form]`, rather than
run something else. Quantized dtypes and QUANTIZE/DEQUANTIZE/REQUANTIZE have no tinygrad
form (`[quantized]`), nor have kernel ops, BUFFERIZE or the index dtype (`[no-tensor-form]`).

Devices: everything is made on the device asked for (the inputs' buffers directly, never a
copy from another device), and tinygrad's default device is that device while it runs
(Context DEV=), so a tensor without a device (a constant, a computation on constants only)
cannot land anywhere else; an output without a device is cloned onto it. Outputs are
realized together, as tinygrad reads a Tensor's values (Tensor.data, tolist): through
`contiguous()`, so an output that is a view of a buffer (a FLIP of an input) gets a kernel
of its own, and one that is a buffer (an input, a reshape of one) is read as it is. Outputs
of zero elements are not realized (there is nothing to read). Each device runs on its own: its
exception is its error, the other devices still run.
"""
import contextlib

from uopfuzz_adapter import uop_text, values
from uopfuzz_adapter.convert import Unsupported

TENSOR_OPS = frozenset(("PARAM", "CONST", "RESHAPE", "PERMUTE", "EXPAND", "PAD", "SHRINK", "FLIP", "REDUCE_AXIS",
                        "CONTIGUOUS", "REALIZE"))
UNARY = {"NEG": "neg", "RECIPROCAL": "reciprocal", "SQRT": "sqrt", "EXP2": "exp2", "LOG2": "log2", "SIN": "sin",
         "TRUNC": "trunc"}
BINARY = {
  "ADD": lambda a, b: a + b, "SUB": lambda a, b: a - b, "MUL": lambda a, b: a * b,
  "CDIV": lambda a, b: a.div(b, rounding_mode="trunc"), "CMOD": lambda a, b: a.fmod(b),
  "FLOORDIV": lambda a, b: a // b, "FLOORMOD": lambda a, b: a % b,
  "MAX": lambda a, b: a.maximum(b), "MIN": lambda a, b: a.minimum(b),
  "CMPLT": lambda a, b: a < b, "CMPNE": lambda a, b: a.ne(b), "CMPEQ": lambda a, b: a.eq(b),
  "AND": lambda a, b: a & b, "OR": lambda a, b: a | b, "XOR": lambda a, b: a ^ b,
  "SHL": lambda a, b: a << b, "SHR": lambda a, b: a >> b,
}
ELEMENTWISE = frozenset(UNARY) | frozenset(BINARY) | {"CAST", "BITCAST", "WHERE"}
QUANTIZED_OPS = ("QUANTIZE", "DEQUANTIZE", "REQUANTIZE")


CANDIDATES = ("PYTHON", "CPU")  # the devices the snapshot can run here, in order of preference


def probe_devices(candidates=CANDIDATES):
  """The devices among `candidates` whose tinygrad runtime imports here and, for CPU, whose C
  compiler ($CC, default clang) is on PATH; where no `clang` is and `clang-14` is, CC is set
  to clang-14 for this process. The devices open (CPU: compiles its worker programs, ~0.3 s)
  on first use."""
  import os
  import shutil
  from tinygrad.device import Device
  if "CC" not in os.environ and shutil.which("clang") is None and shutil.which("clang-14") is not None:
    os.environ["CC"] = "clang-14"
  found = []
  for d in candidates:
    try:
      Device.get_class(d)
    except Exception:  # noqa: BLE001  (a runtime that does not import here: not offered)
      continue
    if d == "CPU" and shutil.which(os.environ.get("CC", "clang")) is None: continue
    found.append(d)
  return found


class MissingInput(ValueError):
  """An input PARAM without its @input line (or with the wrong number of values)."""


class Node:
  """One node of a tensor program: op, source positions, dtype name, shape, parsed arguments."""
  __slots__ = ("op", "srcs", "dtype", "shape", "arg")

  def __init__(self, op, srcs, dtype, shape, arg):
    self.op, self.srcs, self.dtype, self.shape, self.arg = op, srcs, dtype, shape, arg


def numel(shape):
  n = 1
  for d in shape: n *= d
  return n


class Program:
  """A parsed tensor program: nodes, the REALIZE's sources (outputs), the inputs' values."""

  def __init__(self, text, require_inputs=True):
    self.text = text
    try:
      kernel = uop_text.parse(text)
    except uop_text.UopTextError:
      raise Unsupported("no-tinygrad-form", "not a .uop graph (it does not parse)") from None
    if kernel.root.op != "REALIZE":
      raise Unsupported("no-tensor-form", f"root {kernel.root.op}: not a tensor program")
    self.header = kernel.header
    self.name = kernel.header_value("name") or ""
    self.nodes = [self._node(n, kernel) for n in kernel.nodes]
    self.outputs = list(self.nodes[-1].srcs)
    self.params = {n.arg: i for i, n in enumerate(self.nodes) if n.op == "PARAM"}  # slot -> node
    try:
      given, _ = values.header_values(kernel.header)
    except values.ValueError_ as e:
      raise MissingInput(str(e)) from None
    self.inputs = {}
    missing = []
    for slot, i in sorted(self.params.items()):
      node = self.nodes[i]
      if slot not in given and numel(node.shape) == 0:
        self.inputs[slot] = []  # nothing to give
        continue
      if slot not in given:
        missing.append(f"input PARAM slot {slot} ({node.dtype}[{','.join(map(str, node.shape))}]) has no @input line")
        continue
      if len(given[slot]) != numel(node.shape):
        missing.append(f"@input {slot} has {len(given[slot])} values, the PARAM {numel(node.shape)}")
        continue
      try:
        self.inputs[slot] = [values.parse_value(v, node.dtype) for v in given[slot]]
      except values.ValueError_ as e:
        missing.append(f"@input {slot}: {e}")
    if missing and require_inputs: raise MissingInput("; ".join(missing))
    self.missing = missing

  @staticmethod
  def _node(n, kernel):
    try:
      dtype, shape = uop_text.split_type(n.dtype)
    except ValueError:
      raise Unsupported("no-tinygrad-form", "a type that does not parse") from None
    if uop_text.quantized_storage(dtype):
      raise Unsupported("quantized", f"quantized dtype q{uop_text.quantized_storage(dtype)} (tinygrad has no quantized types)")
    if n.op in QUANTIZED_OPS: raise Unsupported("quantized", f"op {n.op} (tinygrad has no quantized types)")
    if n.op not in TENSOR_OPS and n.op not in ELEMENTWISE:
      raise Unsupported("no-tensor-form", f"op {n.op} in a tensor program (not a tensor op)")
    if n.op == "REALIZE": return Node(n.op, list(n.srcs), dtype, None, None)
    if dtype in ("index", "void") or shape is None:
      raise Unsupported("no-tensor-form", f"a {n.op} of {dtype}{'' if shape is None else ''} (a tensor is a sized dtype with a shape)")
    kv, bare = n.keyed()
    try:
      if n.op == "PARAM": arg = int(kv["slot"])
      elif n.op == "CONST": arg = values.parse_value(n.args[0], dtype)
      elif n.op == "PERMUTE": arg = uop_text.int_list(kv["order"])
      elif n.op in ("PAD", "SHRINK"): arg = uop_text.pair_list(kv["pad" if n.op == "PAD" else "shrink"])
      elif n.op == "FLIP": arg = uop_text.int_list(kv["axes"])
      elif n.op == "REDUCE_AXIS":
        src_shape = uop_text.split_type(kernel.nodes[n.srcs[0]].dtype)[1] or ()
        axes = tuple(range(len(src_shape))) if kv["axes"] == "all" else uop_text.int_list(kv["axes"])
        if kv["op"] not in ("ADD", "MUL", "MAX", "MIN"): raise ValueError(kv["op"])
        arg = (kv["op"], axes)
      else: arg = None
    except (KeyError, IndexError, ValueError):
      raise Unsupported("no-tinygrad-form", f"{n.op} with arguments that do not parse") from None
    return Node(n.op, list(n.srcs), dtype, shape, arg)


def _tg_dtype(name):
  from uopfuzz_adapter.convert import DTYPE_TO_TG
  return DTYPE_TO_TG[name]


def _input_tensor(device, node, vals):
  from tinygrad import Tensor
  from tinygrad.device import Buffer
  from tinygrad.uop.ops import UOp
  dt = _tg_dtype(node.dtype)
  n = numel(node.shape)
  if n == 0: return Tensor.empty(*node.shape, device=device, dtype=dt), None
  buf = Buffer(device, n, dt, initial_value=values.pack(vals, node.dtype))
  u = UOp.from_buffer(buf)
  return Tensor(u, device=device).reshape(node.shape), u


def _apply(node, src, device):
  """The Tensor for one node, given its sources' Tensors."""
  from tinygrad import Tensor
  op, arg = node.op, node.arg
  if op == "CONST": return Tensor.full(node.shape, arg, dtype=_tg_dtype(node.dtype), device=device, buffer=False)
  if op == "RESHAPE": return src[0].reshape(node.shape)
  if op == "EXPAND": return src[0].expand(node.shape)
  if op == "PERMUTE": return src[0].permute(arg)
  if op == "PAD": return src[0].pad(arg)
  if op == "SHRINK": return src[0].shrink(arg)
  if op == "FLIP": return src[0].flip(arg) if arg else src[0]
  if op == "CONTIGUOUS": return src[0].contiguous()
  if op == "REDUCE_AXIS":
    rop, axes = arg
    x = src[0]
    if not axes: return x
    if rop == "ADD": return x.sum(axes, keepdim=True, dtype=x.dtype)
    if rop == "MUL": return x.prod(axes, keepdim=True, dtype=x.dtype)
    if rop == "MAX": return x.max(axes, keepdim=True)
    return x.min(axes, keepdim=True)
  if op in UNARY: return getattr(src[0], UNARY[op])()
  if op == "CAST": return src[0].cast(_tg_dtype(node.dtype))
  if op == "BITCAST": return src[0].bitcast(_tg_dtype(node.dtype))
  if op in BINARY: return BINARY[op](src[0], src[1])
  if op == "WHERE": return src[0].where(src[1], src[2])
  raise Unsupported("no-tensor-form", f"op {op} in a tensor program")


def build(prog, device):
  """(output Tensors by REALIZE index (None for one of zero elements), {slot: the input's
  BUFFER UOp}) of the program on `device`. Call inside device_context(device)."""
  from tinygrad.dtype import dtypes
  built, input_uops = [], {}
  for i, node in enumerate(prog.nodes):
    if node.op == "REALIZE":
      built.append(None)
      continue
    if node.op == "PARAM":
      t, u = _input_tensor(device, node, prog.inputs[node.arg])
      if u is not None: input_uops[node.arg] = u
    else:
      t = _apply(node, [built[s] for s in node.srcs], device)
    want = _tg_dtype(node.dtype)
    if t.dtype != want or tuple(t.shape) != tuple(node.shape):
      raise Unsupported("no-tensor-form", f"{node.op} of {node.dtype}: tinygrad's Tensor gives "
                        f"{t.dtype.name if t.dtype in dtypes.weaks else t.dtype}{list(t.shape)}, not {node.dtype}{list(node.shape)}")
    built.append(t)
  outs = []
  for s in prog.outputs:
    t = built[s]
    if numel(prog.nodes[s].shape) == 0: outs.append(None)
    # tinygrad reads a Tensor's values through contiguous() (Tensor.data, tolist): a view of
    # a buffer (a FLIP of an input) gets its own kernel, a buffer stays itself
    elif t.uop.device is None: outs.append(t.clone(device=device))
    else: outs.append(t.contiguous())
  return outs, input_uops


def device_context(device):
  """tinygrad's default device set to `device` (unless DEV already names it first), and
  kernels compiled in this process (PARALLEL=0: tinygrad would otherwise start a pool of
  compiler processes for a schedule of two kernels or more, seconds to start, and its rules
  would fire there, uncounted)."""
  from tinygrad.helpers import DEV, Context
  if DEV.device == device: return Context(PARALLEL=0)
  return Context(DEV=device, PARALLEL=0)


def schedule(outs):
  """(LINEAR of the kernels, var values) tinygrad schedules to realize the outputs (the
  becomes-map is applied: the output Tensors now stand for their buffers); None when nothing
  needs a kernel."""
  from tinygrad import Tensor
  pending = [t for t in outs if t is not None and not t.uop.is_virtual and not t.uop.has_buffer_identity()]
  if not pending: return None, {}
  return Tensor.linear_with_vars(*pending)


def buffer_uop(t):
  """The BUFFER UOp a realized Tensor reads (through RESHAPEs and AFTERs), or None."""
  from tinygrad.uop.ops import Ops
  u = t.uop
  while u.op in (Ops.RESHAPE, Ops.AFTER, Ops.CONTIGUOUS): u = u.src[0]
  return u if u.op is Ops.BUFFER else None


def base_buffer_uop(t):
  """The BUFFER under a realized Tensor's view (through any op's first source), or None."""
  from tinygrad.uop.ops import Ops
  u = t.uop
  while u.op is not Ops.BUFFER and u.src: u = u.src[0]
  return u if u.op is Ops.BUFFER else None


def read(t, node):
  """The values of a realized output Tensor, row-major: its Buffer, as tinygrad maps a
  realized UOp to one (UOp.buffer: a BUFFER, or a contiguous view of one, a BITCAST of an
  input)."""
  n = numel(node.shape)
  if t is None: return []
  data = t.uop.buffer.ensure_allocated().as_memoryview()  # a view is allocated on first use (Tensor._buffer)
  vals = values.unpack(data, node.dtype)
  if len(vals) < n: raise RuntimeError(f"output buffer holds {len(vals)} elements, the tensor {n}")
  return vals[:n]


class DeviceRun:
  """What one device did: outputs ({REALIZE index: values}) or error (the exception), and
  hits, linear, outs, input_uops (for program.from_schedule) when asked to keep them."""

  def __init__(self):
    self.outputs, self.error, self.tally = None, None, None
    self.linear, self.outs, self.input_uops = None, None, None
    self.remote_hits, self.program_frame = None, None  # a run in an executor process

  @property
  def hits(self):
    """{rule name: applications} in this device's schedule, codegen and run, if counted."""
    if self.remote_hits is not None: return self.remote_hits
    return self.tally.hits if self.tally is not None else None


def run_on(prog, device, count_hits=False, keep=False):
  """Build, schedule and run the program on one device. An Unsupported (the program has no
  Tensor form) propagates; any other exception is the device's error."""
  from tinygrad.engine.realize import run_linear
  from uopfuzz_adapter.pipeline_hits import count
  result = DeviceRun()
  try:
    with device_context(device):
      outs, input_uops = build(prog, device)
      with (count() if count_hits else contextlib.nullcontext()) as tally:
        try:
          linear, var_vals = schedule(outs)
          if keep: result.linear, result.outs, result.input_uops = linear, outs, input_uops
          if linear is not None: run_linear(linear, var_vals)
        finally:
          if count_hits: result.tally = tally
      result.outputs = {k: read(t, prog.nodes[s]) for k, (t, s) in enumerate(zip(outs, prog.outputs))}
  except Unsupported:
    raise
  except Exception as e:  # noqa: BLE001  (tinygrad's exception on this device: the device's error)
    result.error = e
    result.outputs = None
  return result


def run(prog, devices, program=False, executor=None):
  """{device: DeviceRun} for each device in order; hits counted on the first; the schedule
  of the first that scheduled kept when `program`. With `executor` (a pipeline.Executor in
  "--tensor-executor" mode: default_executor()) each device's whole run happens in that
  process (executor_job), so that a compiled kernel that traps ends it, not this one: that
  device's error is then a pipeline.DeviceCrash whose `where` is the signal (`SIGFPE`), and
  the next device starts a new process. Its DeviceRun has no linear/outs: `program_frame`
  holds the program frame the executor wrote (server._program_frame's), or None."""
  if executor is not None: return _run_in(executor, prog, devices, program)
  out = {}
  for i, device in enumerate(devices):
    out[device] = run_on(prog, device, count_hits=i == 0, keep=program and not any(r.linear is not None for r in out.values()))
  return out


def _run_in(executor, prog, devices, program):
  import os
  from uopfuzz_adapter.pipeline import DeviceCrash, DeviceError
  out, framed = {}, False
  for i, device in enumerate(devices):
    work = {"text": prog.text, "count_hits": i == 0, "keep": program and not framed,
            "threshold": os.environ.get("REDUCEOP_SPLIT_THRESHOLD")}
    r = out[device] = DeviceRun()
    try:
      got = executor.run(device, work)
    except DeviceCrash as e:
      if e.signal: e.where = e.signal
      r.error = e
      continue
    except DeviceError as e:  # the executor's own code raised (not tinygrad on the device)
      r.error = e
      continue
    if "unsupported" in got: raise Unsupported.of(got["unsupported"])
    r.outputs, r.remote_hits, r.program_frame = got["outputs"], got["hits"], got["program"]
    if got["error"] is not None: r.error = DeviceError(*got["error"])
    framed = framed or bool(got["program"])
  return out


def executor_job(device, work):
  """In the executor process: one device's run of the program work["text"] (run_on), as
  picklable data: {"outputs", "error": (message, where, traceback) or None, "hits" (when
  work["count_hits"]), "program": the program frame's bytes (when work["keep"] and it
  scheduled) or None}; {"unsupported": reason} when the program has no Tensor form.
  work["threshold"]: the REDUCEOP_SPLIT_THRESHOLD of the request (None: tinygrad's)."""
  import traceback
  from uopfuzz_adapter import pipeline, server
  server.split_reduce_threshold(work["threshold"])
  prog = Program(work["text"])
  try:
    r = run_on(prog, device, count_hits=work["count_hits"], keep=work["keep"])
  except Unsupported as e:
    return {"unsupported": str(e)}
  error = None
  if r.error is not None:
    e = r.error
    first = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
    error = (first, pipeline._where(e.__traceback__), "".join(traceback.format_exception(type(e), e, e.__traceback__)))
  frame = server._program_frame(prog, {device: r}) if work["keep"] and r.outs is not None else None
  return {"outputs": r.outputs, "error": error, "hits": dict(r.hits) if r.hits is not None else None, "program": frame}


def make_executor(bugs=(), pythonpath=None):
  """The executor of tensor runs (pipeline.tensor_executor: a process started on first use,
  replaced every pipeline.TENSOR_RESTART_EVERY jobs), with the planted tensor bugs among
  `bugs` applied in it."""
  from uopfuzz_adapter.pipeline import tensor_executor
  return tensor_executor(bugs, pythonpath)


def outputs_body(prog, outputs):
  """An outputs frame's body: `<k> [v, v, ...]` a line, in REALIZE order."""
  return "".join(f"{k} {values.format_list(outputs[k], prog.nodes[s].dtype)}\n" for k, s in enumerate(prog.outputs))

