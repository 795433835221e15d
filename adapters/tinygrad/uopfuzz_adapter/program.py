"""The kernels tinygrad scheduled for a tensor program, as a uopfuzz Program text (docs/cli.md,
"Programs"): `@buffer` lines, then one `@kernel K` block a kernel, in the order tinygrad runs
them.

The schedule is tinygrad's LINEAR (Tensor.linear_with_vars: after its memory planner, before
code generation): CALLs whose first source is the kernel's SINK, in the form tinygrad hands
to full_rewrite_to_sink, and whose other sources are the buffers bound to the kernel's
PARAM slots, in slot order. Buffers:

- an input: the BUFFER of an input PARAM's Tensor (tensor.build made it) -> `input SLOT`;
- an output: the BUFFER a REALIZE source's Tensor stands for after scheduling -> `output K`;
- anything else is an intermediate, one per distinct tinygrad buffer or memory-planner view
  (`BITCAST(SHRINK(BUFFER arena))`: two intermediates the planner put at one place in its
  arena with one dtype and size are one UOp, hence one buffer here, as they are one memory
  there), numbered in the order the kernels first use them, shape `[size]`.

A kernel's SINK is printed by convert._Printer (the same reading of tinygrad's kernel form
as a rewrite's) with its PARAMs from the schedule: `slot=S size=N out` for a PARAM the
kernel stores into, `in` otherwise. tinygrad's scheduler leaves its ranges' axis type WEAK
(not yet decided: codegen picks GLOBAL/LOOP); they print as LOOP, their REDUCE ones stay
REDUCE (an axis type is identity only, SEMANTICS.md, RANGE).

Where .uop cannot say what tinygrad scheduled, from_schedule raises Unsupported
(`[no-uop-form] ...`; the server answers `program missing=1`): a COPY or other non-SINK
kernel, a kernel that reads a buffer it writes, an op or dtype .uop lacks, an output whose
buffer is an input's or another output's (tinygrad wrote no kernel for it).
"""
from tinygrad.uop.ops import AxisType, Ops

from uopfuzz_adapter import uop_text
from uopfuzz_adapter.convert import DTYPE_FROM_TG, Conversion, Unsupported, _Printer
from uopfuzz_adapter.tensor import base_buffer_uop, buffer_uop, numel


class _KernelPrinter(_Printer):
  """_Printer for a scheduled kernel: RANGEs of tinygrad's not-yet-decided WEAK axis type
  print as LOOP."""

  def emit(self, u):
    if u.op is Ops.RANGE and u not in self.memo and u.arg[-1] is AxisType.WEAK:
      u2 = u.replace(arg=u.arg[:-1] + (AxisType.LOOP,))
      node = super().emit(u2)
      self.memo[u] = node
      return node
    return super().emit(u)


def _params(ast):
  """{slot: PARAM UOp} of a kernel's buffers (ALU-space PARAMs are variables)."""
  from tinygrad.dtype import AddrSpace
  return {u.arg.slot: u for u in ast.toposort() if u.op is Ops.PARAM and u.arg.addrspace is not AddrSpace.ALU}


def _stored(ast):
  """The slots of the PARAMs the kernel STOREs into."""
  out = set()
  for u in ast.toposort():
    if u.op is Ops.STORE:
      idx = u.src[0]
      while idx.op is Ops.CAST: idx = idx.src[0]
      if idx.op is Ops.INDEX and idx.src[0].op is Ops.PARAM: out.add(idx.src[0].arg.slot)
  return out


def _loaded(ast):
  """The slots of the PARAMs the kernel reads (an INDEX of it that is no STORE's target)."""
  store_targets = {u.src[0] for u in ast.toposort() if u.op is Ops.STORE}
  return {u.src[0].arg.slot for u in ast.toposort()
          if u.op is Ops.INDEX and u.src[0].op is Ops.PARAM and u not in store_targets}


def _size(p):
  """A PARAM's element count."""
  return p.max_numel()


def kernel_text(ast, slot_buffers):
  """.uop text of one scheduled kernel SINK (no header). slot_buffers: {slot: (dtype name,
  size)} of the buffers bound to its PARAMs."""
  if ast.op is not Ops.SINK: raise Unsupported("no-uop-form", f"a {ast.op.name} kernel (not a SINK)")
  conv = Conversion([])
  stored, loaded = _stored(ast), _loaded(ast)
  for slot, p in _params(ast).items():
    if slot in stored and slot in loaded: raise Unsupported("no-uop-form", "a kernel that reads the buffer it writes")
    if p.dtype not in DTYPE_FROM_TG: raise Unsupported("no-uop-form", f"a buffer of dtype {p.dtype}")
    dt, size = DTYPE_FROM_TG[p.dtype], _size(p)
    if slot_buffers.get(slot) != (dt, size):
      raise Unsupported("no-uop-form", "a PARAM whose buffer has another dtype or size")
    conv.params[slot] = ([f"slot={slot}", f"size={size}", "out" if slot in stored else "in"], dt)
  printer = _KernelPrinter(conv)
  printer.emit(ast)
  return uop_text.print_kernel(uop_text.Kernel([], printer.nodes))


def _arg_buffer(u):
  """(key, dtype name, size) of one CALL source: a BUFFER, or a planner view of one."""
  if u.op is Ops.BUFFER: return u, u.dtype, u.max_numel()
  if u.op is Ops.BITCAST and u.src[0].op is Ops.SHRINK and u.src[0].src[0].op is Ops.BUFFER:
    nbytes = u.src[0].max_numel() * u.src[0].dtype.itemsize
    return u, u.dtype, nbytes // u.dtype.itemsize
  raise Unsupported("no-uop-form", f"a kernel argument {u.op.name} (not a buffer)")


def from_schedule(prog, linear, outs, input_uops):
  """The Program text of the LINEAR tinygrad scheduled for `prog` (tensor.Program), with
  outs (tensor.build's output Tensors, after scheduling) and input_uops ({slot: BUFFER}).
  Raises Unsupported for what .uop cannot express."""
  import sys
  buffers = []   # (role, index, dtype name, shape)
  by_key = {}
  for slot in sorted(prog.params):
    node = prog.nodes[prog.params[slot]]
    buffers.append(("input", slot, node.dtype, node.shape))
    if slot in input_uops: by_key[input_uops[slot]] = len(buffers) - 1
  for k, (t, s) in enumerate(zip(outs, prog.outputs)):
    node = prog.nodes[s]
    buffers.append(("output", k, node.dtype, node.shape))
    if t is None: continue  # no elements: no buffer, no kernel
    u = buffer_uop(t)
    if u is None:
      base = base_buffer_uop(t)
      if base in by_key:
        role, index = buffers[by_key[base]][:2]
        raise Unsupported("no-uop-form", f"output {k} is a view of the buffer of {role} {index} (tinygrad writes no kernel for it)")
      raise Unsupported("no-uop-form", f"output {k} is a {t.uop.op.name} view after scheduling, not a buffer of its own")
    if u in by_key:
      role, index = buffers[by_key[u]][:2]
      raise Unsupported("no-uop-form", f"output {k} is the buffer of {role} {index} (tinygrad writes no kernel for it)")
    if u.max_numel() != numel(node.shape):
      raise Unsupported("no-uop-form", f"output {k} is a buffer of {u.max_numel()} elements, its tensor {numel(node.shape)}")
    by_key[u] = len(buffers) - 1
  kernels = []
  calls = [] if linear is None else list(linear.src)
  limit = sys.getrecursionlimit()
  sys.setrecursionlimit(max(limit, 20000))
  try:
    for call in calls:
      if call.op is not Ops.CALL or not call.src: raise Unsupported("no-uop-form", f"a schedule item {call.op.name}")
      ast, args = call.src[0], call.src[1:]
      if ast.op is not Ops.SINK: raise Unsupported("no-uop-form", f"a {ast.op.name} kernel (not a SINK)")
      slots, slot_buffers = {}, {}
      for slot, a in enumerate(args):
        key, dt, size = _arg_buffer(a)
        if dt not in DTYPE_FROM_TG: raise Unsupported("no-uop-form", f"a buffer of dtype {dt}")
        if key not in by_key:
          buffers.append(("intermediate", None, DTYPE_FROM_TG[dt], (size,)))
          by_key[key] = len(buffers) - 1
        slots[slot] = by_key[key]
        slot_buffers[slot] = (DTYPE_FROM_TG[dt], size)
      params = _params(ast)
      text = kernel_text(ast, slot_buffers)
      kernels.append(({s: slots[s] for s in sorted(params)}, text))
  finally:
    sys.setrecursionlimit(limit)
  return render(buffers, kernels)


def _role_text(role, index):
  return role if index is None else f"{role} {index}"


def render(buffers, kernels):
  """The Program text: buffers [(role, index, dtype, shape)], kernels [({slot: buffer}, text)]."""
  lines = [f"# Program: {len(buffers)} buffer{'s' * (len(buffers) != 1)}, {len(kernels)} kernel{'s' * (len(kernels) != 1)} (tinygrad's schedule)"]
  for i, (role, index, dt, shape) in enumerate(buffers):
    lines.append(f"@buffer {i} {_role_text(role, index)} : {dt}[{','.join(map(str, shape))}]")
  out = "\n".join(lines) + "\n"
  for k, (slots, text) in enumerate(kernels):
    out += f"\n@kernel {k}\n"
    out += "".join(f"@slot {s} buffer={b}  # {_role_text(*buffers[b][:2])}\n" for s, b in slots.items())
    out += text
  return out


def kernel_count(linear):
  """How many items tinygrad's schedule holds."""
  return 0 if linear is None else len(linear.src)

