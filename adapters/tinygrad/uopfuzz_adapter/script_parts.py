"""Helper code shared by the standalone reproducer scripts of emit_pipeline and emit_tensor,
as text (Python source) that each script template inserts.

They are text, not functions imported from here, because an emitted script must run with
tinygrad alone (no uopfuzz_adapter on its path): the helpers are written into each script.
Each constant is whole top-level code, from its first line to its last (no trailing newline),
for a template's `$name` at the start of a line; the values go in as they are (what
string.Template.substitute inserts is not read for `$` again), so `$CC` below is written as
the script has it.
"""
import string

# the standard-library imports every script starts with (tinygrad's come after, per script)
IMPORTS = '''import math
import os
import pickle
import shutil
import signal
import struct
import sys
import traceback
import unittest'''

TINYGRAD_WHERE = '''def tinygrad_where(exc):
  """file:line, relative to the tinygrad package, of the innermost traceback frame in it."""
  import tinygrad
  package, where = os.path.dirname(os.path.abspath(tinygrad.__file__)), None
  for entry in traceback.extract_tb(exc.__traceback__):
    if os.path.abspath(entry.filename).startswith(package + os.sep):
      where = f"{os.path.relpath(os.path.abspath(entry.filename), package)}:{entry.lineno}"
  return where'''

# available(devices), canonical(vals), show(vals): which devices run here, and values as compared and printed
DEVICES_AND_VALUES = '''def available(devices):
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
  return "[" + ", ".join("nan" if isinstance(v, float) and math.isnan(v) else repr(v) for v in vals) + "]"'''

# run_isolated(device): the script's run(device) in a forked child, its answer pickled back;
# $doc is the docstring's text, $handlers the script's own `except` clauses ahead of the
# catch-all one (each line indented 4 spaces, ending with a newline)
_RUN_ISOLATED = string.Template('''def run_isolated(device):
  """$doc"""
  sys.stdout.flush()  # nothing buffered to be written twice
  sys.stderr.flush()
  r, w = os.pipe()
  pid = os.fork()
  if pid == 0:  # the child: run, send the answer, leave without cleanup
    os.close(r)
    try:
      answer = ("ok", run(device))
$handlers    except Exception as e:  # noqa: BLE001  (the device's answer)
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
  return pickle.loads(data)''')


def run_isolated(doc, handlers=""):
  """The text of the script's run_isolated(device): `doc` its docstring (continued lines
  indented 2 spaces), `handlers` `except` clauses tried before the one that reports tinygrad's
  exception (each line indented 4 spaces, every line ending with a newline). It needs
  tinygrad_where (TINYGRAD_WHERE) and the script's run(device)."""
  return _RUN_ISOLATED.substitute(doc=doc, handlers=handlers)
