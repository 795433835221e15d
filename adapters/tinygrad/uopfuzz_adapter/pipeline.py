"""A kernel through tinygrad's whole codegen pipeline, run on its devices.

run_kernel(text, devices) takes a .uop kernel (root SINK) whose header gives every input
buffer (`@input <slot> [v, ...]`) and every VAR (`@var NAME=V`), converts it as the
simplifier does (convert.to_tinygrad; the semantic gate of the full rewrite refuses what it
refuses there), puts it in the form tinygrad's scheduler hands to codegen (scheduler_form,
split_kernels: one kernel per effect, buffers numbered 0..n-1, WEAK/REDUCE axis types,
alt loads as WHERE), and for each device runs what tinygrad runs on such kernels:

    codegen.do_to_program(kernel, Device[dev].renderer)
      full_rewrite_to_sink (every step: the optimizing part, apply_opts with tinygrad's
      hand-coded optimizations, the expander, reduce removal, devectorizing, index dtype
      lowering, the decompositions, control flow), then linearize, render and compile
    Device[dev].runtime(program.to_elf())(*buffers, global_size, local_size, vals)

(do_to_program, not the cached to_program, so that every rule fires on every call and is
counted). The kernels run in order on one set of buffers on the device: the input PARAMs
hold the header's values, every other PARAM starts zeroed, as uopfuzz's oracle runs a
kernel (SEMANTICS.md, "Kernels": output buffers start zeroed), so an element the kernel
does not store compares too. The answer is every element of every output PARAM.

Compiling happens in this process (the rules fire here, pipeline_hits counts them);
running happens in an Executor, a child process, because a compiled C program can trap (an
integer division by zero tinygrad hoisted out of its guard raises SIGFPE, a read it moved
out of its gate SIGSEGV) and would take this process with it: the device's answer is then
a DeviceCrash naming the signal.

Devices: PYTHON (tinygrad's emulator of the rendered program, runtime/ops_python.py) and
CPU (its C renderer, compiled by $CC, default clang: where no `clang` is on PATH and
`clang-14` is, CC is set to clang-14 for this process). The other devices of the snapshot
do not import here (their generated bindings are pruned).
"""
import os
import shutil
import struct

from uopfuzz_adapter import forms, uop_text, values  # no tinygrad at import: the adapter starts an Executor first

DEVICES = ("PYTHON", "CPU")

if "CC" not in os.environ and shutil.which("clang") is None and shutil.which("clang-14") is not None:
  os.environ["CC"] = "clang-14"  # tinygrad reads $CC (default clang) when it first compiles


class MissingValue(ValueError):
  """A kernel whose header lacks an input buffer's or a VAR's value, or gives one that does
  not fit (a usage error of the request, not a finding)."""


class Buffers:
  """The kernel's buffers and VAR values from its header (values.py reads them as the C++
  parser does): slots {slot: (dtype name, tinygrad dtype, size, input values or None for a
  buffer that starts zeroed, is an output)}, vars {name: value}."""

  def __init__(self, sink, conv, kernel):
    from tinygrad.dtype import AddrSpace
    from tinygrad.uop.ops import Ops
    try:
      given, var_values = values.header_values(kernel.header)
    except values.ValueError_ as e:
      raise MissingValue(str(e)) from None
    self.slots = {}
    for u in sink.toposort():
      if u.op is not Ops.PARAM or u.arg.addrspace is AddrSpace.ALU: continue
      args, dtype = conv.params[u.arg.slot]
      kv, bare = uop_text.Node("PARAM", [], args, dtype).keyed()
      size, out = int(kv["size"]), "out" in bare
      vals = None
      if not out:
        if u.arg.slot not in given: raise MissingValue(f"no @input for input buffer slot {u.arg.slot}")
        try:
          vals = [values.parse_value(t, dtype) for t in given[u.arg.slot]]
        except values.ValueError_ as e:
          raise MissingValue(f"@input {u.arg.slot}: {e}") from None
        if len(vals) != size:
          raise MissingValue(f"@input {u.arg.slot} lists {len(vals)} values; the PARAM has size {size}")
      self.slots[u.arg.slot] = (dtype, u.dtype, size, vals, out)
    missing = [name for name in conv.vars if name not in var_values]
    if missing: raise MissingValue(f"no @var for VAR {', '.join(sorted(missing))}")
    from uopfuzz_adapter.convert import var_values as with_derived
    self.vars = with_derived(conv, var_values)  # with the float-var form's variables

  def outputs(self):
    return [slot for slot, (_, _, _, _, out) in sorted(self.slots.items()) if out]

  def initial(self, slot):
    """The bytes a buffer starts with: its input values, or zeros (at least one element:
    tinygrad allocates no empty buffer, and no kernel reads an element of one)."""
    dtype, dt, size, vals, _ = self.slots[slot]
    data = values.pack(vals, dtype) if vals is not None else bytes(size * dt.itemsize)
    return data or bytes(dt.itemsize)


class Kernel:
  """One kernel as tinygrad's scheduler would make it: `sink` (its buffer PARAMs numbered
  0..n-1, as the scheduler numbers a kernel's buffers) and `slots`, its PARAM numbers ->
  the .uop buffer slots they are bound to."""

  def __init__(self, sink, slots):
    self.sink, self.slots = sink, slots


def split_kernels(sink):
  """The kernels tinygrad's scheduler would make of a .uop kernel: one per effect of the
  SINK (the scheduler gives each kernel one store nest; a SINK of several nests, each
  globalized by apply_opts on its own, would launch with one nest's dims), each with its
  buffer PARAMs numbered densely. Running them in order on the same buffers is running the
  .uop kernel: its effects run in order, an output buffer is never read, and a double
  store is undefined (SEMANTICS.md, "Order of effects")."""
  from dataclasses import replace
  from tinygrad.dtype import AddrSpace, dtypes
  from tinygrad.uop.ops import KernelInfo, Ops, UOp
  name = sink.arg.name if isinstance(sink.arg, KernelInfo) else "kernel"
  out = []
  for i, effect in enumerate(sink.src):
    params = sorted({u for u in effect.toposort() if u.op is Ops.PARAM and u.arg.addrspace is not AddrSpace.ALU},
                    key=lambda u: u.arg.slot)
    one = UOp(Ops.SINK, dtypes.void, src=(effect,), arg=KernelInfo(name=name if len(sink.src) == 1 else f"{name}_{i}"))
    subs = {p: p.replace(arg=replace(p.arg, slot=k)) for k, p in enumerate(params) if p.arg.slot != k}
    out.append(Kernel(replace_nodes(one, subs), {k: p.arg.slot for k, p in enumerate(params)}))
  return out


def replace_nodes(root, subs):
  """`root` with each node in `subs` replaced by its value, all at once (UOp.substitute
  rewrites to a fixed point: renumbering PARAM 1 -> 0 and 2 -> 1 would make both 0)."""
  if not subs: return root
  new = {}
  for u in root.toposort():
    if u in subs: new[u] = subs[u]
    else:
      src = tuple(new[s] for s in u.src)
      new[u] = u if src == u.src else u.replace(src=src)
  return new[root]


def compile_kernel(sink, device):
  """The PROGRAM UOp of `sink` for `device`: the whole of tinygrad's codegen (uncached)."""
  from tinygrad.codegen import do_to_program
  from tinygrad.device import Device
  return do_to_program(sink, Device[device].renderer)


def job(programs, buffers):
  """What running compiled programs in order on one set of buffers needs, as picklable data:
  {"buffers": {slot: (dtype, elements, initial bytes)}, "programs": [(TinyELF, buffer slots
  in the program's argument order, global size, local size, VAR values)]}. programs:
  [(PROGRAM UOp, Kernel)]."""
  bufs = {slot: (dt, max(size, 1), buffers.initial(slot)) for slot, (_, dt, size, _, _) in buffers.slots.items()}
  runs = []
  for program, kernel in programs:
    global_size, local_size = program.arg.launch_dims(buffers.vars)
    runs.append((program.to_elf(), [kernel.slots[k] for k in program.arg.globals], global_size, local_size,
                 program.arg.vals(buffers.vars)))
  return {"buffers": bufs, "programs": runs}


def execute(device, work):
  """Runs a job() on `device` in this process; {slot: bytes} of every buffer after it."""
  from tinygrad.device import Buffer, Device
  bufs = {slot: Buffer(device, size, dt, initial_value=data) for slot, (dt, size, data) in work["buffers"].items()}
  for elf, slots, global_size, local_size, vals in work["programs"]:
    runtime = Device[device].runtime(elf)
    runtime(*[bufs[slot]._buf for slot in slots], global_size=global_size, local_size=local_size, vals=vals, wait=True)
  return {slot: bytes(b.as_memoryview()) for slot, b in bufs.items()}


def read_outputs(buffers, after):
  """{output slot: [values]} from execute()'s bytes."""
  out = {}
  for slot in buffers.outputs():
    dtype, _, size, _, _ = buffers.slots[slot]
    out[slot] = values.unpack(after[slot], dtype)[:size]
  return out


def run_programs(programs, buffers, device, executor=None):
  """Runs compiled programs [(PROGRAM, Kernel)] in order on `device` with fresh buffers (in
  `executor`, a separate process, else in this one); {output slot: [values]}."""
  work = job(programs, buffers)
  after = executor.run(device, work) if executor is not None else execute(device, work)
  return read_outputs(buffers, after)


# Tensor runs per tensor executor process before it is replaced: tinygrad keeps about 0.3 MB
# per program (its caches), let go when the process goes; a new one costs a few seconds.
TENSOR_RESTART_EVERY = 1000


def tensor_executor(bugs=(), pythonpath=None):
  """The executor of tensor runs (tensor.executor_job, "--tensor-executor"; a process started
  on first use or start()), with the planted tensor bugs among `bugs` applied in it. Jobs
  have no time limit (uopfuzz's own limit ends the adapter, and this process with it)."""
  return Executor(timeout=None, mode="--tensor-executor", bugs=bugs, restart_every=TENSOR_RESTART_EVERY,
                  pythonpath=pythonpath)


class DeviceError(Exception):
  """An exception the executor process raised running a program: str is its
  `Type: message`; where: the innermost tinygrad file:line of its traceback (or None);
  remote_traceback: the traceback's text."""

  def __init__(self, message, where=None, remote_traceback=""):
    super().__init__(message)
    self.where, self.remote_traceback = where, remote_traceback


class DeviceCrash(DeviceError):
  """The executor process died running a program (a signal: SIGFPE from an integer
  division by zero, SIGSEGV from an access out of bounds) or ran past the time limit.
  signal: the signal's name (`SIGFPE`), or None."""

  def __init__(self, message, signal=None):
    super().__init__(message)
    self.signal = signal


def _where(tb):
  import tinygrad
  import traceback
  package = os.path.dirname(os.path.abspath(tinygrad.__file__))
  where = None
  for entry in traceback.extract_tb(tb):
    path = os.path.abspath(entry.filename)
    if path.startswith(package + os.sep): where = f"{os.path.relpath(path, package).replace(os.sep, '/')}:{entry.lineno}"
  return where


def error_where(exc, package_dir=None):
  """file:line inside tinygrad where `exc` was raised (an executor's DeviceError: where the
  executor process raised it), or None."""
  if isinstance(exc, DeviceError): return exc.where
  return _where(exc.__traceback__)


class Executor:
  """A separate process that runs compiled programs, so that a program that traps (an
  integer division by zero compiled by clang raises SIGFPE) or hangs ends that process, not
  this one: run() then raises DeviceCrash, and the next run starts a new process. Jobs and
  answers are pickles, length-prefixed, over the process's stdin and stdout.

  `mode` picks what the process does with a job: "--executor" (execute(): compiled programs
  on buffers) or "--tensor-executor" (tensor.executor_job(): a whole tensor program, built,
  scheduled, compiled and run there, with the planted tensor bugs `bugs` applied first).
  `timeout`: seconds a job may take (None: no limit). `restart_every`: after that many jobs
  the process is replaced at the next run (what tinygrad keeps per program in it is let go)."""

  def __init__(self, timeout=30.0, mode="--executor", bugs=(), restart_every=None, pythonpath=None):
    self.timeout, self.proc = timeout, None
    self.mode, self.bugs, self.restart_every, self.jobs = mode, list(bugs), restart_every, 0
    self.pythonpath = pythonpath  # [tinygrad checkout, adapter folder]; None: found by importing tinygrad

  def _start(self):
    import subprocess
    import sys
    paths = self.pythonpath
    if paths is None:
      import tinygrad
      paths = [os.path.dirname(os.path.dirname(os.path.abspath(tinygrad.__file__))), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    argv = [sys.executable, os.path.abspath(__file__), self.mode] + [a for b in self.bugs for a in ("--bug", b)]
    self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    self.jobs = 0

  def start(self):
    """Starts the process now, without waiting for it (it gets ready while this one goes on:
    the tensor executor imports tinygrad and opens the devices before it reads a job)."""
    if self.proc is None or self.proc.poll() is not None: self._start()

  def wait_ready(self):
    """Starts the process if it is not running and waits until it reads jobs (the tensor
    executor has imported tinygrad and opened the devices). Raises DeviceCrash if it dies."""
    self.run(None, None)
    self.jobs -= 1

  def run(self, device, work):
    """{slot: bytes} after running job() `work` on `device` in the executor process.
    Raises DeviceError (the run raised) or DeviceCrash (the process died or timed out)."""
    import pickle
    self.start()
    self.jobs += 1
    data = pickle.dumps((device, work))
    try:
      self.proc.stdin.write(struct.pack("<Q", len(data)) + data)
      self.proc.stdin.flush()
      answer = pickle.loads(self._read())
    except (OSError, EOFError, TimeoutError, pickle.UnpicklingError) as e:
      raise self._crash(device, e) from None
    if self.restart_every is not None and self.jobs >= self.restart_every:
      self.close()  # replaced now, so that the new one gets ready before the next job
      self.start()
    if answer[0] == "ok": return answer[1]
    raise DeviceError(*answer[1:])

  def _read(self):
    import select
    import time
    deadline = None if self.timeout is None else time.monotonic() + self.timeout
    fd, got, need = self.proc.stdout.fileno(), b"", 8
    while len(got) < need:
      left = None if deadline is None else deadline - time.monotonic()
      if left is not None and left <= 0: raise TimeoutError()
      ready, _, _ = select.select([fd], [], [], left)
      if not ready: raise TimeoutError()
      chunk = os.read(fd, need - len(got))
      if not chunk: raise EOFError()
      got += chunk
      if need == 8 and len(got) == 8: got, need = b"", struct.unpack("<Q", got)[0]
    return got

  def _crash(self, device, why):
    crash = self._crash_of(device, why)
    if self.mode != "--executor": self.start()  # the next one gets ready meanwhile
    return crash

  def _crash_of(self, device, why):
    import signal
    proc, self.proc = self.proc, None
    if isinstance(why, TimeoutError):
      proc.kill()
      proc.wait()
      return DeviceCrash(f"the {device} program ran past {self.timeout:g} s (the executor process was killed)")
    status = proc.wait()
    if status < 0:
      try:
        name = signal.Signals(-status).name
      except ValueError:
        name = f"signal {-status}"
      return DeviceCrash(f"the {device} program killed the executor process: {name}", name)
    return DeviceCrash(f"the executor process ended (status {status}) while running the {device} program")

  def close(self):
    if self.proc is not None:
      self.proc.stdin.close()
      self.proc.wait()
      self.proc = None


def _die_with_parent():
  """Linux: this process gets SIGKILL when the adapter that started it ends (killed by
  uopfuzz on a time-out, say), so that a program hung here does not outlive it."""
  try:
    import ctypes
    import signal
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
  except (OSError, AttributeError):
    pass


def _executor_main(handler=None):
  """The executor process: (device, job) pickles in on stdin, ("ok", handler(device, job))
  (default: execute's {slot: bytes}) or ("error", message, where, traceback) pickles out;
  stdout is kept for them alone."""
  import pickle
  import sys
  import traceback
  handler = handler or execute
  _die_with_parent()
  out = os.fdopen(os.dup(1), "wb")
  os.dup2(2, 1)
  sys.stdout = sys.stderr
  stdin = sys.stdin.buffer
  while True:
    head = stdin.read(8)
    if len(head) < 8: return 0
    device, work = pickle.loads(stdin.read(struct.unpack("<Q", head)[0]))
    try:
      answer = ("ok", None if device is None else handler(device, work))  # device None: are you there?
    except Exception as e:  # noqa: BLE001  (the device's answer, sent back)
      first = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
      answer = ("error", first, _where(e.__traceback__), "".join(traceback.format_exception(type(e), e, e.__traceback__)))
    data = pickle.dumps(answer)
    out.write(struct.pack("<Q", len(data)) + data)
    out.flush()


def _counter():
  """pipeline_hits.count, the counter of tinygrad rule applications; a counter of nothing
  while that module is missing."""
  try:
    from uopfuzz_adapter.pipeline_hits import count
    return count
  except ImportError:
    import contextlib

    class _NoTally:
      hits = {}

    return lambda: contextlib.nullcontext(_NoTally())


def prepare(text):
  """([Kernel], Buffers) of a .uop kernel: converted, past the semantic gate, in the
  scheduler's form and split as its scheduler would (scheduler_form, split_kernels), with
  every value the header must give. Raises Unsupported or MissingValue.

  The gate is the full rewrite's (semantics.semantic_gate), except that a RANGE closed by
  ENDs in two effects of the SINK is run: split, each kernel closes it once (a RANGE closed
  twice inside one effect is still refused, as tinygrad's linearizer takes one END a RANGE)."""
  from uopfuzz_adapter.convert import Unsupported, to_tinygrad
  from uopfuzz_adapter.semantics import range_closed_twice, range_tinygrad_never_makes, semantic_gate
  try:
    kernel = uop_text.parse(text)
  except uop_text.UopTextError:
    raise Unsupported("no-tinygrad-form", "not a .uop kernel (it does not parse)") from None
  sink, conv = to_tinygrad(text)
  if conv.derived: raise Unsupported("no-tinygrad-form", forms.NOT_RUNNABLE["float-var"])
  reason = semantic_gate(sink, full_rewrite=False) or range_tinygrad_never_makes(sink)
  if reason: raise Unsupported.of(reason)
  buffers = Buffers(sink, conv, kernel)
  kernels = split_kernels(scheduler_form(sink))
  for k in kernels:
    if (reason := range_closed_twice(k.sink)) is not None: raise Unsupported.of(reason)
  return kernels, buffers


def _alt_load(l):
  from tinygrad.dtype import Invalid
  from tinygrad.uop.ops import Ops
  idx, alt = l.src
  gate = idx.src[1] if len(idx.src) == 2 else None
  if gate is not None and gate.op is Ops.WHERE and gate.src[2].op is Ops.CONST and gate.src[2].arg is Invalid:
    return gate.src[0].where(idx, alt)
  return idx  # an ungated read never takes its alt


def scheduler_form(sink):
  """The kernel in the form tinygrad's scheduler hands to codegen, where the converter's
  form (the one the symbolic rules take) differs; no tinygrad rule runs here, so nothing is
  counted in the hits:
    - a read with a value for its gated-off lanes, LOAD(INDEX, alt), becomes
      WHERE(gate, INDEX, alt): tinygrad's kernels have no explicit LOAD, codegen's
      pm_move_gates_from_index makes that WHERE the load's alt late, and its spec refuses a
      LOAD with an alt and no gate;
    - axis types: the scheduler makes WEAK output ranges and REDUCE ranges only
      (schedule/indexing.py, rangeify.py); apply_opts decides GLOBAL, LOCAL, UPCAST, ...
      from there, per renderer. A .uop axis type is identity only (SEMANTICS.md, RANGE), so
      every RANGE a REDUCE closes becomes REDUCE and every other one WEAK (the generator's
      GLOBAL/LOCAL/... ranges would otherwise reach codegen as if already optimized, past
      the CPU renderer's launch dims)."""
  from tinygrad.uop.ops import AxisType, Ops, PatternMatcher, UPat, graph_rewrite
  pm = PatternMatcher([(UPat(Ops.LOAD, src=(UPat(Ops.INDEX), UPat()), name="l"), _alt_load)])
  sink = graph_rewrite(sink, pm, name="uopfuzz: alt loads in the scheduler's form")
  topo = sink.toposort()
  reduced = {r for u in topo if u.op is Ops.REDUCE for r in u.src[1:] if r.op is Ops.RANGE}
  subs = {}
  for u in topo:
    if u.op is not Ops.RANGE: continue
    kind = AxisType.REDUCE if u in reduced else AxisType.WEAK
    if u.arg[-1] is not kind: subs[u] = u.replace(arg=u.arg[:-1] + (kind,))
  return replace_nodes(sink, subs)


_EXECUTOR = None


def default_executor():
  """The process-wide Executor run_kernel uses unless told otherwise (started on first use)."""
  global _EXECUTOR
  if _EXECUTOR is None: _EXECUTOR = Executor()
  return _EXECUTOR


def run_kernel(text, devices=DEVICES, executor="default"):
  """(hits, {device: ("ok", {slot: [values]}) | ("error", exception)}) for the kernel `text`
  run through tinygrad's whole pipeline on each device, in order. hits: {rule name: count}
  of the rules applied while the first device's programs were made (pipeline_hits).
  Compiling happens here; running in `executor` (default: default_executor(), a separate
  process, so that a trapping program is a DeviceCrash, not the end of this process; None:
  in this process). Raises Unsupported (convert or the semantic gate refuse the kernel) and
  MissingValue (the header lacks a value) before any device's work."""
  if executor == "default": executor = default_executor()
  kernels, buffers = prepare(text)
  hits, results = {}, {}
  count = _counter()
  for i, device in enumerate(devices):
    if i == 0:
      with count() as tally:
        programs = _compile_all(kernels, device)
      hits = dict(tally.hits)
    else:
      programs = _compile_all(kernels, device)
    if isinstance(programs, Exception):
      results[device] = ("error", programs)
      continue
    try:
      results[device] = ("ok", run_programs(programs, buffers, device, executor))
    except Exception as e:  # noqa: BLE001  (whatever tinygrad raises on a device is that device's answer)
      results[device] = ("error", e)
  return hits, results


def _compile_all(kernels, device):
  """[(PROGRAM, Kernel)], or the exception tinygrad's codegen raised (that device's answer)."""
  try:
    return [(compile_kernel(k.sink, device), k) for k in kernels]
  except Exception as e:  # noqa: BLE001
    return e


def error_text(exc, package_dir=None):
  """An `error` frame's body for a device's exception: `Type: message`, `where: file:line`
  (the innermost tinygrad frame; for a DeviceError, the executor process's), the traceback."""
  import traceback
  if isinstance(exc, DeviceError):
    first, trace = str(exc), exc.remote_traceback
  else:
    first = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
  where = error_where(exc)
  return first + "\n" + (f"where: {where}\n" if where else "") + trace


def _tensor_executor_main(argv):
  """pipeline.py --tensor-executor [--bug NAME]...: the tensor runs' executor process, with
  the planted tensor bugs applied as in the adapter that started it."""
  from uopfuzz_adapter import bugs, tensor
  names = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--bug"]
  names = [n for n in names if n in bugs.tensor_bug_names()]  # the kernel rule bugs are not tinygrad's patches
  if names: bugs.apply_tensor_bugs(names)
  from tinygrad.device import Device
  for device in tensor.probe_devices():  # opened before the first job (CPU: ~0.3 s)
    try:
      Device[device]
    except Exception:  # noqa: BLE001  (the job will say what fails)
      pass
  return _executor_main(tensor.executor_job)


if __name__ == "__main__":
  import sys
  if sys.argv[1:] == ["--executor"]: sys.exit(_executor_main())
  if sys.argv[1:2] == ["--tensor-executor"]: sys.exit(_tensor_executor_main(sys.argv[2:]))
  print("usage: pipeline.py --executor | --tensor-executor [--bug NAME]...  (started by pipeline.Executor)", file=sys.stderr)
  sys.exit(2)
