"""Every corpus kernel converts to tinygrad and back to the same canonical .uop.

Canonical: what `uopfuzz parse` prints for a file (names, order, literal spelling and
shared nodes are its). A kernel the converter refuses must be one listed in
EXPECTED_UNSUPPORTED with (a part of) the reason; a listed kernel that converts fails too,
so the list stays exact.
"""
import glob
import os
import subprocess
import tempfile
import unittest

from uopfuzz_adapter import convert

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CORPUS = [os.path.join(REPO, "corpus", d) for d in ("examples", "findings")]

# file name -> a part of the reason it is refused with, and why that is right.
# Empty: every corpus kernel's ops and dtypes are shared (MIN goes as flipped MAX).
# Kernels the converter refuses, with what the refusal must say (quantized types are ours).
EXPECTED_UNSUPPORTED = {"requantize_bitcast.uop": "tinygrad has no quantized types"}


def uopfuzz_bin():
  path = os.environ.get("UOPFUZZ_BIN") or os.path.join(REPO, "build", "uopfuzz")
  return path if os.access(path, os.X_OK) else None


def canonical(path):
  r = subprocess.run([uopfuzz_bin(), "parse", path], capture_output=True, text=True, timeout=60)
  return r.returncode, r.stdout, r.stderr


def corpus_kernels():
  """(name, path) of every kernel file (a tensor program's root is REALIZE: skipped)."""
  out = []
  for root in CORPUS:
    for path in sorted(glob.glob(os.path.join(root, "**", "*.uop"), recursive=True)):
      lines = [ln.split("#")[0].strip() for ln in open(path).read().splitlines()]
      nodes = [ln for ln in lines if ln.startswith("%")]
      if nodes and " REALIZE " in nodes[-1] + " ": continue
      # tinygrad's own open bugs: building some of them with tinygrad's API already folds (its
      # CAST of a CONST keeps the value unwrapped, const-fold-keeps-out-of-range-int), so they
      # cannot round-trip; corpus/findings/tinygrad/root-causes.md says why for each
      if os.sep + os.path.join("findings", "tinygrad") + os.sep in path: continue
      out.append((os.path.relpath(path, REPO), path))
  return out


class RoundTrip(unittest.TestCase):
  def setUp(self):
    if uopfuzz_bin() is None: self.fail("no uopfuzz binary: pass --uopfuzz or set UOPFUZZ_BIN")

  def test_corpus_has_kernels(self):
    # the loop below must have something to check: the corpus holds dozens of kernels
    self.assertGreater(len(corpus_kernels()), 20)

  def test_every_kernel_round_trips(self):
    converted = 0
    for name, path in corpus_kernels():
      with self.subTest(kernel=name):
        base = os.path.basename(path)
        try:
          sink, conv = convert.to_tinygrad(open(path).read())
          back = convert.from_tinygrad(sink, conv)
        except convert.Unsupported as e:
          self.assertIn(base, EXPECTED_UNSUPPORTED, f"refused: {e}")
          self.assertIn(EXPECTED_UNSUPPORTED[base], str(e))
          continue
        self.assertNotIn(base, EXPECTED_UNSUPPORTED, "converts now: drop it from EXPECTED_UNSUPPORTED")
        want = canonical(path)
        self.assertEqual(want[0], 0, want[2])
        with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f:
          f.write(back)
        try:
          got = canonical(f.name)
        finally:
          os.unlink(f.name)
        self.assertEqual(got[0], 0, f"{got[2]}\n{back}")
        self.assertEqual(got[1], want[1])
        converted += 1
    self.assertGreater(converted, 20)

  def test_symbolic_rewrites_read_back_as_valid_kernels(self):
    # tinygrad's own rewrite of each kernel comes back as a .uop the verifier accepts: weak
    # constants typed, loads explicit, its folded forms expressed
    from tinygrad.uop.ops import graph_rewrite
    from tinygrad.uop.symbolic import sym
    read_back = 0
    for name, path in corpus_kernels():
      # tinygrad's own open bugs (corpus/findings/tinygrad) include rewrites that raise
      if os.path.join("findings", "tinygrad", "") in path: continue
      if os.path.basename(path) in EXPECTED_UNSUPPORTED: continue  # refused: checked above
      with self.subTest(kernel=name):
        sink, conv = convert.to_tinygrad(open(path).read())
        text = convert.from_tinygrad(graph_rewrite(sink, sym), conv)
        with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f:
          f.write(text)
        try:
          rc, _, err = canonical(f.name)
        finally:
          os.unlink(f.name)
        self.assertEqual(rc, 0, f"{err}\n{text}")
        read_back += 1
    self.assertGreater(read_back, 20)


if __name__ == "__main__":
  unittest.main()
