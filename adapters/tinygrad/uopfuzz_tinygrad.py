#!/usr/bin/env python3
"""uopfuzz's external simplifier for tinygrad: tinygrad's own rewrites behind the protocol of
docs/external-simplifier.md (started by `uopfuzz --simplifier tinygrad`).

  uopfuzz_tinygrad.py [--tinygrad PATH] [--stage symbolic|full|pipeline] [--bug NAME]...
  uopfuzz_tinygrad.py --list-bugs | --version | --one FILE.uop [--bounds]
  uopfuzz_tinygrad.py [--stage S] --emit CASE.uop [-o OUT.py]   # a standalone reproducer
  uopfuzz_tinygrad.py --run FILE.uop [--devices PYTHON,CPU] [--program]   # tinygrad's whole pipeline

tinygrad comes from --tinygrad PATH (the folder holding the tinygrad/ package, e.g. a
checkout), else $TINYGRAD_PATH, else an importable tinygrad. Exit status: 0 at the end of
input, 2 for bad flags or a protocol error (or an --emit case missing a value), 3 when no
tinygrad is found, 1 when --one, --emit or --run gets `unsupported` (--run: or a device raised).
"""
import argparse
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NO_TINYGRAD = 3


def find_tinygrad(flag):
  """The folder to put first on sys.path ("" when tinygrad is importable as is) and how it was
  found; (None, why) when there is none."""
  for origin, path in (("--tinygrad", flag), ("TINYGRAD_PATH", os.environ.get("TINYGRAD_PATH", ""))):
    if not path: continue
    if os.path.isfile(os.path.join(path, "tinygrad", "__init__.py")): return os.path.abspath(path), origin
    return None, f"{origin}={path} holds no tinygrad/ package"
  try:
    import tinygrad  # noqa: F401
    return "", "importable"
  except ImportError:
    return None, "no --tinygrad, TINYGRAD_PATH is not set and tinygrad is not importable"


def tinygrad_version(package_dir):
  """The checkout's git commit (+dirty when the package has local changes), else the installed
  package version, else tree-<sha256 of the package's .py files, 12 hex digits>."""
  checkout = os.path.dirname(package_dir)
  try:
    run = lambda *args: subprocess.run(["git", "-C", checkout, *args], capture_output=True, text=True, timeout=10)
    head = run("rev-parse", "--short", "HEAD")
    inside = run("rev-parse", "--show-toplevel")
    if head.returncode == 0 and inside.returncode == 0 and os.path.abspath(inside.stdout.strip()) == checkout:
      dirty = run("status", "--porcelain", "--", "tinygrad").stdout.strip()
      return head.stdout.strip() + ("+dirty" if dirty else "")
  except (OSError, subprocess.SubprocessError):
    pass
  try:
    from importlib import metadata
    dist = metadata.distribution("tinygrad")
    if os.path.abspath(str(dist.locate_file("tinygrad"))) == package_dir: return dist.version
  except Exception:  # noqa: BLE001  (no metadata, or another tinygrad's)
    pass
  digest = hashlib.sha256()
  for root, dirs, files in os.walk(package_dir):
    dirs.sort()
    for name in sorted(files):
      if not name.endswith(".py"): continue
      path = os.path.join(root, name)
      digest.update(os.path.relpath(path, package_dir).replace(os.sep, "/").encode() + b"\0")
      with open(path, "rb") as f: digest.update(f.read())
      digest.update(b"\0")
  return "tree-" + digest.hexdigest()[:12]


def parse_args(argv):
  p = argparse.ArgumentParser(prog="uopfuzz_tinygrad.py", description=__doc__.splitlines()[0])
  p.add_argument("--tinygrad", default="", metavar="PATH", help="the folder holding the tinygrad/ package")
  p.add_argument("--stage", default="symbolic", choices=["symbolic", "full", "pipeline"],
                 help="symbolic: graph_rewrite(sink, symbolic); full: full_rewrite_to_sink's optimizing part; "
                      "pipeline: run requests only, kernels through the whole pipeline (README)")
  p.add_argument("--bug", action="append", default=[], metavar="NAME", help="switch a planted bug on (repeatable)")
  p.add_argument("--list-bugs", action="store_true", help="print the planted bugs, one per line, and exit")
  p.add_argument("--version", action="store_true", help="print the tinygrad version and exit")
  p.add_argument("--one", metavar="FILE", help="rewrite one .uop file, print the result (and hits on stderr), exit")
  p.add_argument("--bounds", action="store_true",
                 help="with --one: also print tinygrad's bounds of the kernel's integer nodes on stderr, `bounds %%k vmin vmax` a line (k: the node's position in FILE)")
  p.add_argument("--emit", metavar="CASE", help="write a standalone reproducer of a .uop case (needs only tinygrad), exit")
  p.add_argument("-o", dest="out", metavar="OUT.py", help="with --emit: the file to write (default: stdout)")
  p.add_argument("--run", metavar="FILE", help="run a tensor program (or a kernel) through tinygrad's whole pipeline "
                 "on its devices, print each device's outputs, exit; every input PARAM needs its @input line")
  p.add_argument("--devices", metavar="D,D", help="with --run: the devices (default: every device that runs here)")
  p.add_argument("--program", action="store_true", help="with --run: also print the kernels tinygrad scheduled, as a Program")
  args = p.parse_args(argv)
  if (args.devices or args.program) and not args.run: p.error("--devices and --program go with --run")
  if args.out and not args.emit: p.error("-o goes with --emit")
  if args.bounds and not args.one: p.error("--bounds goes with --one")
  if args.emit and args.bug: p.error("--emit reproduces tinygrad's own rules: --bug does not go with it")
  return args


def main(argv):
  args = parse_args(argv)
  path, origin = find_tinygrad(args.tinygrad)
  if path is None:
    print(f"uopfuzz_tinygrad: no tinygrad found ({origin}); point at a tinygrad checkout with "
          "--tinygrad PATH or TINYGRAD_PATH=PATH (the folder holding tinygrad/, e.g. ../shared/vendor/tinygrad)",
          file=sys.stderr)
    return NO_TINYGRAD
  if path: sys.path.insert(0, path)
  sys.path.insert(0, HERE)
  serving = not (args.version or args.list_bugs or args.one or args.emit or args.run)
  executor = None
  if serving or args.run:
    # the tensor runs' executor process starts first, importing tinygrad beside this process
    # (it applies the planted tensor bugs among args.bug itself; main checks the names below)
    from uopfuzz_adapter.pipeline import tensor_executor  # imports no tinygrad
    executor = tensor_executor(args.bug, pythonpath=[p for p in (path, HERE) if p])
    executor.start()
  from uopfuzz_adapter import server
  frames = server.claim_stdout() if serving else None
  import tinygrad
  package_dir = os.path.dirname(os.path.abspath(tinygrad.__file__))
  if args.version:
    print(tinygrad_version(package_dir))
    return 0

  if args.emit: return emit(args, tinygrad_version(package_dir))

  from uopfuzz_adapter import bugs, stages, tensor
  # planted bugs: the kernel rule bugs (bugs.BUGS, in the adapter's own matchers, stages
  # symbolic and full) and the tensor-level ones (monkeypatches of tinygrad, every stage)
  tensor_bugs = list(bugs.tensor_bug_names()) if hasattr(bugs, "tensor_bug_names") else []
  wanted = [] if args.list_bugs else args.bug
  try:
    if args.stage == "pipeline":
      unknown = [b for b in wanted if b not in tensor_bugs]
      if unknown: raise ValueError(f"unknown bug {unknown[0]!r} at stage pipeline (known: {', '.join(tensor_bugs) or 'none'})")
      simplifier = server.RunOnly(package_dir, tinygrad_version(package_dir))
    else:
      simplifier = stages.TinygradSimplifier(args.stage, package_dir, tinygrad_version(package_dir),
                                             [b for b in wanted if b not in tensor_bugs])
    simplifier.available_bugs = list(simplifier.available_bugs) + [b for b in tensor_bugs if b not in simplifier.available_bugs]
    if hasattr(bugs, "apply_tensor_bugs") and any(b in tensor_bugs for b in wanted):
      bugs.apply_tensor_bugs([b for b in wanted if b in tensor_bugs])
  except ValueError as e:
    print(f"uopfuzz_tinygrad: {e}", file=sys.stderr)
    return 2
  if args.list_bugs:
    for bug in bugs.BUGS:
      if bug.name in simplifier.available_bugs: print(f"{bug.name}: {bug.what}")
    describe = getattr(bugs, "tensor_bug_what", None)
    # `[tensor]`: a bug tensor programs show, run through tinygrad's whole pipeline (uopfuzz's
    # selftest looks for it in tensor programs).
    for name in tensor_bugs: print(f"{name}: [tensor] {describe(name) if describe else 'a bug of the whole pipeline'}")
    return 0
  simplifier.devices = tensor.probe_devices()
  # tensor runs happen in the executor (README, "Runs"), ready before the hello: its start
  # (importing tinygrad, opening the devices) stays out of the first request's time
  simplifier.tensor_executor = executor
  if executor is not None and simplifier.devices:
    try:
      executor.wait_ready()
    except Exception as e:  # noqa: BLE001  (the first run request will start it again and say why)
      print(f"uopfuzz_tinygrad: the tensor executor did not start: {e}", file=sys.stderr)
  elif executor is not None:
    executor.close()  # no device runs here: no run requests
  if args.run: return run_file(args, simplifier)
  if args.one:
    with open(args.one, encoding="utf-8") as f: text = f.read()
    from uopfuzz_adapter.convert import Unsupported
    def show_bounds(found):
      for k, lo, hi in found: print(f"bounds %{k} {lo} {hi}", file=sys.stderr)
    try:
      hits, result = simplifier.simplify(text, on_bounds=show_bounds if args.bounds else None)
    except Unsupported as e:
      print(f"unsupported: {e}", file=sys.stderr)
      return 1
    for name, count in sorted(hits.items()): print(f"{count} {name}", file=sys.stderr)
    sys.stdout.write(result if result.endswith("\n") else result + "\n")
    return 0
  return server.serve(simplifier, frames)


def run_file(args, simplifier):
  """--run: the file through tinygrad's whole pipeline on each device; its outputs (and the
  Program with --program) on stdout, hits on stderr. 0, or 1 for `unsupported` or a device's
  error, 2 for a file that lacks an input's values or names a device that does not run here."""
  from uopfuzz_adapter import server
  try:
    with open(args.run, encoding="utf-8") as f: text = f.read()
  except OSError as e:
    print(f"uopfuzz_tinygrad: --run {args.run}: {e}", file=sys.stderr)
    return 2
  devices = args.devices.split(",") if args.devices else list(simplifier.devices)
  bad = [d for d in devices if d not in simplifier.devices]
  if bad:
    print(f"uopfuzz_tinygrad: --devices: {', '.join(bad)} does not run here (devices that do: "
          f"{' '.join(simplifier.devices) or 'none'})", file=sys.stderr)
    return 2
  import io
  try:
    answer = server.answer_run(simplifier, text, devices, args.program)
  except server.ProtocolError as e:
    print(f"uopfuzz_tinygrad: --run {args.run}: {str(e).replace('run request: ', '')}", file=sys.stderr)
    return 2
  stream, status = io.BytesIO(answer), 0
  while (got := server.read_frame(stream)) is not None:
    kind, options, body = got
    body = body.decode("utf-8")
    device = options.get("device")
    if kind == "hits":
      for line in body.splitlines(): print(f"hit {line}", file=sys.stderr)
    elif kind == "program" and options.get("missing") == "1":
      print(f"# program missing: {body}")
    elif kind == "program":
      print(body, end="" if body.endswith("\n") else "\n")
    elif kind == "outputs":
      for line in body.splitlines():
        k, _, vals = line.partition(" ")
        print(f"{device} out[{k}] {vals}")
    elif kind == "error":
      print(f"{device + ' ' if device else ''}error: {body}", file=sys.stderr)
      status = 1
    elif kind == "unsupported":
      print(f"unsupported: {body}", file=sys.stderr)
      status = 1
    elif kind == "log":
      print(body, file=sys.stderr)
  return status


def emit(args, version):
  """--emit: the reproducer of one case on stdout or in -o; 1 for `unsupported`, 2 for a
  case that cannot be read or lacks a value."""
  from uopfuzz_adapter.convert import Unsupported
  from uopfuzz_adapter.emit import EmitError, emit as emit_script
  try:
    with open(args.emit, encoding="utf-8") as f: text = f.read()
    script = emit_script(text, args.stage, version, args.out)
    if args.out:
      with open(args.out, "w", encoding="utf-8") as f: f.write(script)
      os.chmod(args.out, 0o755)
  except Unsupported as e:
    print(f"unsupported: {e}", file=sys.stderr)
    return 1
  except (OSError, EmitError) as e:
    print(f"uopfuzz_tinygrad: --emit {args.emit}: {e}", file=sys.stderr)
    return 2
  if not args.out: sys.stdout.write(script)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
