"""The adapter's side of docs/external-simplifier.md: frames in on stdin, frames out on stdout.

Two requests: `simplify` (one kernel through the stage's rewrites: answer()) and `run` (a
tensor program, or a kernel, through tinygrad's whole pipeline on its devices: answer_run();
tensor.py, program.py, pipeline.py).

Nothing but frames may reach stdout, and tinygrad prints (DEBUG, TRACK_MATCH_STATS, warnings):
claim_stdout() keeps the real stdout's file descriptor for the frames and points descriptor 1
(and sys.stdout) at stderr, where uopfuzz keeps the tail as a crash log.
"""
import os
import sys
import traceback

PROTOCOL = 1

# The work a device is asked to take at most (docs/external-simplifier.md, "Runs"): PYTHON
# emulates every element of every op in Python, about a millisecond per element of a reduce,
# so a sum of 65,536 elements takes over a minute there. A tensor program's elements over all
# its nodes, a kernel's loop iterations.
DEVICE_LIMITS = {"PYTHON": 16384}

# The lowest REDUCEOP_SPLIT_THRESHOLD a run request sets (split_reduce_threshold()).
SPLIT_FLOOR = 257


class ProtocolError(Exception):
  """A request uopfuzz should never send: the conversation cannot go on."""


def read_frame(stream):
  """(type, {options}, body bytes) of the next frame, or None at end of input."""
  header = stream.readline()
  if not header: return None
  if not header.endswith(b"\n"): raise ProtocolError(f"truncated frame header {header!r}")
  fields = header[:-1].decode("utf-8", "replace").split(" ")
  if len(fields) < 2 or not fields[0] or not fields[1].isdigit():
    raise ProtocolError(f"malformed frame header {header!r}")
  options = {}
  for field in fields[2:]:
    key, eq, value = field.partition("=")
    if not eq or not key: raise ProtocolError(f"malformed frame option {field!r}")
    options[key] = value
  length = int(fields[1])
  body = stream.read(length)
  if len(body) != length: raise ProtocolError(f"frame body cut short: {len(body)} of {length} bytes")
  return fields[0], options, body


def frame(kind, body="", **options):
  """The bytes of one frame (options with None values are left out)."""
  data = body.encode("utf-8")
  opts = "".join(f" {k}={v}" for k, v in options.items() if v is not None)
  return f"{kind} {len(data)}{opts}\n".encode("utf-8") + data


def error_where(tb, package_dir):
  """`file:line` (relative to the tinygrad package) of the innermost traceback frame inside
  tinygrad, or None: two crashes in different tinygrad code get different signatures."""
  where = None
  for entry in traceback.extract_tb(tb):
    filename = os.path.abspath(entry.filename)
    if filename.startswith(package_dir + os.sep):
      where = f"{os.path.relpath(filename, package_dir).replace(os.sep, '/')}:{entry.lineno}"
  return where


def error_body(exc, package_dir):
  first = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
  where = error_where(exc.__traceback__, package_dir)
  trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
  return first + "\n" + (f"where: {where}\n" if where else "") + trace


class RunOnly:
  """The simplifier of stage `pipeline`: run requests only; a simplify request is declined."""
  stage_name = "pipeline"

  def __init__(self, package_dir, version, available_bugs=()):
    self.package_dir, self.version, self.available_bugs = package_dir, version, list(available_bugs)

  def simplify(self, text, disabled=frozenset(), stop_after=None, on_bounds=None):
    from uopfuzz_adapter.convert import Unsupported
    raise Unsupported("pipeline-stage", "a simplify request: stage pipeline answers run requests only")


def parse_request(options):
  """(disabled rule names, stop-after or None, bounds wanted) from a simplify frame's options."""
  disabled = frozenset(x for x in options.get("disable", "").split(",") if x)
  stop_after = options.get("stop-after")
  if stop_after is not None:
    if not stop_after.isdigit(): raise ProtocolError(f"stop-after={stop_after} is not a count")
    stop_after = int(stop_after)
  bounds = options.get("bounds", "0")
  if bounds not in ("0", "1"): raise ProtocolError(f"bounds={bounds} is neither 0 nor 1")
  unknown = set(options) - {"disable", "stop-after", "bounds"}
  if unknown: raise ProtocolError(f"unknown request option(s) {', '.join(sorted(unknown))}")
  return disabled, stop_after, bounds == "1"


def bounds_body(bounds):
  """A bounds frame's body: `<k> <vmin> <vmax>` a line (convert.value_bounds())."""
  return "".join(f"{k} {lo} {hi}\n" for k, lo, hi in bounds)


def answer(simplifier, text, disabled, stop_after, bounds=False, send=None):
  """The frames answering one simplify request: [bounds,] [hits,] ok | unsupported | error.
  With `bounds`, the bounds frame of a kernel that passed the conversion and the semantic
  gate goes to send() (serve: the output, before the rewrite runs) or, without send, first
  in the returned bytes."""
  from uopfuzz_adapter.convert import Unsupported
  early = []

  def on_bounds(found):
    data = frame("bounds", bounds_body(found))
    if send is None: early.append(data)
    else: send(data)

  extra = {"on_bounds": on_bounds} if bounds else {}
  try:
    hits, result = simplifier.simplify(text, disabled, stop_after, **extra)
  except Unsupported as e:
    return b"".join(early) + frame("unsupported", (str(e) or "unsupported").splitlines()[0])
  except Exception as e:  # noqa: BLE001  (any other exception is tinygrad's crash: a finding)
    return b"".join(early) + frame("error", error_body(e, simplifier.package_dir))
  out = b"".join(early)
  if hits: out += frame("hits", "".join(f"{count} {name}\n" for name, count in sorted(hits.items())))
  return out + frame("ok", result)


def hello_body(simplifier):
  """The hello: `run` among the capabilities and a `devices:` line when the simplifier has
  devices (main sets simplifier.devices to the probed ones); at stage pipeline only run
  requests are served, so only `hits run`."""
  from uopfuzz_adapter.declines import declined_shapes
  from uopfuzz_adapter.forms import offered
  devices = list(getattr(simplifier, "devices", ()) or ())
  pipeline = simplifier.stage_name == "pipeline"
  caps = (["hits"] if pipeline else ["hits", "disable", "stop-after", "bounds"]) + (["run", "split-reduce-threshold"] if devices else [])
  lines = [f"protocol: {PROTOCOL}", "name: tinygrad", f"version: {simplifier.version}",
           f"capabilities: {' '.join(caps)}", "tolerances: zero-sign", f"bugs: {' '.join(simplifier.available_bugs)}",
           f"stage: {simplifier.stage_name}", f"declines: {' '.join(declined_shapes(simplifier.stage_name))}",
           f"forms: {' '.join(offered(simplifier.stage_name))}"]
  if devices: lines.insert(4, f"devices: {' '.join(devices)}")
  limits = [f"{d}={DEVICE_LIMITS[d]}" for d in devices if d in DEVICE_LIMITS]
  if limits: lines.insert(5, f"device-limits: {' '.join(limits)}")
  return "".join(line + "\n" for line in lines)


# ---- run requests: a graph through tinygrad's whole pipeline (docs/external-simplifier.md, "Runs")

def parse_run_request(options, offered):
  """(devices, program wanted) from a run frame's options; devices= must name the hello's."""
  unknown = set(options) - {"devices", "program", "split-reduce-threshold"}
  if unknown: raise ProtocolError(f"unknown run option(s) {', '.join(sorted(unknown))}")
  threshold = options.get("split-reduce-threshold")
  if threshold is not None and not threshold.isdigit():
    raise ProtocolError(f"split-reduce-threshold={threshold} is not a count")
  if not offered: raise ProtocolError("a run request, and no device runs here (the hello offers no run)")
  devices = list(offered)
  if "devices" in options:
    devices = options["devices"].split(",")
    bad = [d for d in devices if d not in offered]
    if bad or not devices or len(set(devices)) != len(devices):
      raise ProtocolError(f"devices={options['devices']}: not distinct devices of the hello's {' '.join(offered) or '(none)'}")
  program = options.get("program", "0")
  if program not in ("0", "1"): raise ProtocolError(f"program={program} is neither 0 nor 1")
  return devices, program == "1"


def split_reduce_threshold(value):
  """tinygrad splits a reduce in two kernels when its input has REDUCEOP_SPLIT_THRESHOLD
  (default 32768) times its output's elements: uopfuzz draws the threshold per program
  (its own lowering's knob), so that small programs reach tinygrad's split reduce too.
  None restores tinygrad's default. getenv is cached: the cache is cleared.
  At least SPLIT_FLOOR: split_reduceop cuts a reduce into at most 256 parts, and at a
  threshold of 256 or less the second stage (up to 256 elements into one) is split again,
  forever (tinygrad hangs: split_small_mul's 48 elements at 48)."""
  from tinygrad.helpers import getenv
  if value is None: os.environ.pop("REDUCEOP_SPLIT_THRESHOLD", None)
  else: os.environ["REDUCEOP_SPLIT_THRESHOLD"] = str(max(int(value), SPLIT_FLOOR))
  getenv.cache_clear()


def _hits_frame(hits):
  return frame("hits", "".join(f"{count} {name}\n" for name, count in sorted(hits.items()))) if hits else b""


def _root_op(text):
  """The root op of a .uop text (its last node line's op), or None."""
  for line in reversed(text.splitlines()):
    line = line.split("#", 1)[0].strip()
    if line.startswith("%"):
      toks = line.split()
      return toks[2] if len(toks) > 2 and toks[1] == "=" else None
  return None


def answer_run(simplifier, text, devices, want_program=False):
  """The frames answering one run request: [hits,] [program | program missing=1,] one
  outputs or error device=D frame per device, ok; or unsupported / error alone. A request
  missing an input's values raises ProtocolError (uopfuzz must send them all)."""
  if (declined := __import__("uopfuzz_adapter.semantics").semantics.run_gate(text)) is not None: return frame("unsupported", declined)
  if _root_op(text) == "SINK": return _answer_kernel_run(simplifier, text, devices)
  from uopfuzz_adapter import tensor
  from uopfuzz_adapter.convert import Unsupported
  try:
    prog = tensor.Program(text)
    # with an executor (main makes one), each device runs in that process: a kernel that traps
    # there is that device's error frame, not the end of this process
    results = tensor.run(prog, devices, program=want_program, executor=getattr(simplifier, "tensor_executor", None))
  except Unsupported as e:
    return frame("unsupported", (str(e) or "unsupported").splitlines()[0])
  except tensor.MissingInput as e:
    raise ProtocolError(f"run request: {e}") from None
  except Exception as e:  # noqa: BLE001  (before any device's work: tinygrad's crash)
    return frame("error", error_body(e, simplifier.package_dir))
  out = _hits_frame(results[devices[0]].hits or {})
  if want_program:
    made = [r.program_frame for r in results.values() if r.program_frame]
    out += made[0] if made else _program_frame(prog, results)
  from uopfuzz_adapter.pipeline import DeviceError, error_text
  for device in devices:
    r = results[device]
    if isinstance(r.error, DeviceError): out += frame("error", error_text(r.error), device=device)
    elif r.error is not None: out += frame("error", error_body(r.error, simplifier.package_dir), device=device)
    else: out += frame("outputs", tensor.outputs_body(prog, r.outputs), device=device)
  return out + frame("ok")


def _program_frame(prog, results):
  """The program frame of the first device that scheduled (none when no device did)."""
  from uopfuzz_adapter import program
  from uopfuzz_adapter.convert import Unsupported
  r = next((r for r in results.values() if r.outs is not None), None)
  if r is None: return b""
  try:
    return frame("program", program.from_schedule(prog, r.linear, r.outs, r.input_uops))
  except Unsupported as e:
    return frame("program", str(e).splitlines()[0], missing=1)
  except Exception as e:  # noqa: BLE001  (the adapter's reading of the schedule failed: say so, keep the run)
    trace = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return frame("log", f"reading tinygrad's schedule failed:\n{trace}") + \
      frame("program", f"[no-uop-form] the schedule could not be read ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})", missing=1)


def _answer_kernel_run(simplifier, text, devices):
  """A kernel (root SINK) through pipeline.run_kernel, the kernel-level whole pipeline."""
  from uopfuzz_adapter import uop_text, values
  from uopfuzz_adapter.convert import Unsupported
  try:
    from uopfuzz_adapter import pipeline
  except ImportError:
    # the hook: uopfuzz_adapter/pipeline.py's run_kernel(text, devices) -> (hits, {device:
    # ("ok", {slot: [values]}) | ("error", exception)})
    return frame("unsupported", "[kernel-run] a kernel in a run request: this adapter has no kernel pipeline (uopfuzz_adapter/pipeline.py)")
  try:
    hits, results = pipeline.run_kernel(text, devices)
  except Unsupported as e:
    return frame("unsupported", (str(e) or "unsupported").splitlines()[0])
  except getattr(pipeline, "MissingValue", ()) as e:
    raise ProtocolError(f"run request: {e}") from None
  except Exception as e:  # noqa: BLE001  (before any device's work: tinygrad's crash)
    return frame("error", error_body(e, simplifier.package_dir))
  dtypes = {}
  for node in uop_text.parse(text).nodes:
    if node.op == "PARAM": dtypes[int(node.keyed()[0]["slot"])] = node.dtype
  error_text = getattr(pipeline, "error_text", None)
  out = _hits_frame(hits)
  for device in devices:
    status, got = results[device]
    if status == "ok":
      body = "".join(f"{slot} {values.format_list(got[slot], dtypes[slot])}\n" for slot in sorted(got))
      out += frame("outputs", body, device=device)
    else:
      body = error_text(got, simplifier.package_dir) if error_text else error_body(got, simplifier.package_dir)
      out += frame("error", body, device=device)
  return out + frame("ok")


def claim_stdout():
  """The real stdout, for frames only; file descriptor 1 and sys.stdout become stderr. Call
  it before importing tinygrad: anything printed from then on reaches stderr."""
  frames_fd = os.dup(1)
  os.dup2(2, 1)
  sys.stdout = sys.stderr
  return os.fdopen(frames_fd, "wb", buffering=0)


def serve(simplifier, out, stdin=None):
  """The conversation until stdin ends, frames written to `out` (claim_stdout()). Returns the
  exit status."""
  stdin = stdin or sys.stdin.buffer

  out.write(frame("hello", hello_body(simplifier)))
  while True:
    try:
      request = read_frame(stdin)
      if request is None: return 0
      kind, options, body = request
      text = body.decode("utf-8")
      if kind == "run":
        devices, want_program = parse_run_request(options, list(getattr(simplifier, "devices", ()) or ()))
        split_reduce_threshold(options.get("split-reduce-threshold"))
        out.write(answer_run(simplifier, text, devices, want_program))
        continue
      if kind != "simplify": raise ProtocolError(f"unexpected frame {kind!r}")
      disabled, stop_after, bounds = parse_request(options)
    except (ProtocolError, UnicodeDecodeError) as e:
      print(f"uopfuzz_tinygrad: protocol error: {e}", file=sys.stderr)
      return 2
    out.write(answer(simplifier, text, disabled, stop_after, bounds, send=out.write))
