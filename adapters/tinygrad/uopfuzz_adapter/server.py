"""The adapter's side of docs/external-simplifier.md: frames in on stdin, frames out on stdout.

Nothing but frames may reach stdout, and tinygrad prints (DEBUG, TRACK_MATCH_STATS, warnings):
claim_stdout() keeps the real stdout's file descriptor for the frames and points descriptor 1
(and sys.stdout) at stderr, where uopfuzz keeps the tail as a crash log.
"""
import os
import sys
import traceback

PROTOCOL = 1


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
  from uopfuzz_adapter.declines import declined_shapes
  lines = [f"protocol: {PROTOCOL}", "name: tinygrad", f"version: {simplifier.version}",
           "capabilities: hits disable stop-after bounds", "tolerances: zero-sign", f"bugs: {' '.join(simplifier.available_bugs)}",
           f"stage: {simplifier.stage_name}", f"declines: {' '.join(declined_shapes(simplifier.stage_name))}"]
  return "".join(line + "\n" for line in lines)


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
      if kind != "simplify": raise ProtocolError(f"unexpected frame {kind!r}")
      disabled, stop_after, bounds = parse_request(options)
      text = body.decode("utf-8")
    except (ProtocolError, UnicodeDecodeError) as e:
      print(f"uopfuzz_tinygrad: protocol error: {e}", file=sys.stderr)
      return 2
    out.write(answer(simplifier, text, disabled, stop_after, bounds, send=out.write))
