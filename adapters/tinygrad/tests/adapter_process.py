"""The adapter as uopfuzz sees it, for the suites: a child process spoken to in frames, and
helpers to run a rewritten kernel with the uopfuzz binary ($UOPFUZZ_BIN)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.join(os.path.dirname(HERE), "uopfuzz_tinygrad.py")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXAMPLES = os.path.join(REPO, "corpus", "examples")


def tinygrad_checkout():
  """The folder holding the tinygrad package this test process imports."""
  import tinygrad
  return os.path.dirname(os.path.dirname(os.path.abspath(tinygrad.__file__)))


def read_frame(stream):
  header = stream.readline()
  if not header: return None
  fields = header.decode().rstrip("\n").split(" ")
  options = dict(f.split("=", 1) for f in fields[2:])
  return fields[0], options, stream.read(int(fields[1])).decode()


class Adapter:
  """One adapter child; hello is read on start."""

  def __init__(self, *args, stage="symbolic", env=None):
    cmd = [sys.executable, ADAPTER, "--tinygrad", tinygrad_checkout(), "--stage", stage, *args]
    self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=dict(os.environ, **(env or {})))
    kind, _, body = read_frame(self.proc.stdout)
    assert kind == "hello", kind
    self.hello = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "") for line in body.splitlines())

  def simplify(self, text, **options):
    """[(type, body)...] answering one request, the terminal frame last."""
    opts = "".join(f" {k.replace('_', '-')}={v}" for k, v in options.items())
    data = text.encode()
    self.proc.stdin.write(f"simplify {len(data)}{opts}\n".encode() + data)
    self.proc.stdin.flush()
    frames = []
    while True:
      frame = read_frame(self.proc.stdout)
      if frame is None: raise AssertionError("adapter closed stdout: " + self.proc.stderr.read().decode()[-2000:])
      frames.append((frame[0], frame[2]))
      if frame[0] in ("ok", "unsupported", "error"): return frames

  def close(self):
    self.proc.stdin.close()
    self.proc.stdout.close()
    status = self.proc.wait(timeout=30)
    self.stderr = self.proc.stderr.read().decode(errors="replace")
    self.proc.stderr.close()
    return status


def hits_of(frames):
  """{rule name: count} from the hits frames of an answer."""
  hits = {}
  for kind, body in frames:
    if kind != "hits": continue
    for line in body.splitlines():
      count, name = line.split(" ", 1)
      hits[name] = hits.get(name, 0) + int(count)
  return hits


def kernel_body(text):
  """A .uop file without its header lines (what a request carries)."""
  return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("@"))


def header_of(text):
  return "".join(line for line in text.splitlines(keepends=True) if line.startswith("@"))


def example(name):
  with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f: return f.read()


def uopfuzz(*args, ok_status=(0,)):
  """stdout of $UOPFUZZ_BIN ARGS (its exit status must be one of ok_status)."""
  binary = os.environ.get("UOPFUZZ_BIN")
  if not binary: raise unittest.SkipTest("UOPFUZZ_BIN is not set (run through tests/run.py --uopfuzz)")
  done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120)
  if done.returncode not in ok_status: raise AssertionError(f"uopfuzz {' '.join(args)}: {done.returncode}\n{done.stdout}{done.stderr}")
  return done.stdout


def run_kernel(header, body):
  """`uopfuzz run --json` of the kernel `body` under `header` (its @ lines); unmet
  expectations are in the result (exit status 1), not an error."""
  with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f:
    f.write(header + body)
  try:
    return json.loads(uopfuzz("run", "--json", f.name, ok_status=(0, 1)))
  finally:
    os.unlink(f.name)


def canonical(body):
  """`uopfuzz parse` of a kernel: equal for equal graphs."""
  with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f:
    f.write(body)
  try:
    return uopfuzz("parse", f.name)
  finally:
    os.unlink(f.name)
