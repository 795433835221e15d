#!/usr/bin/env python3
"""Runs one of the adapter's test suites (tests/test_<suite>.py) for ctest.

Exit status 77 (ctest's SKIP_RETURN_CODE) with the reason on stdout when no tinygrad is
found: a suite that needs tinygrad is reported as skipped, never as passed.
Usage: run.py SUITE [--uopfuzz PATH-TO-uopfuzz]
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.dirname(HERE)
SKIP = 77


def main(argv):
  if len(argv) < 2:
    print(__doc__)
    return 2
  suite = argv[1]
  if "--uopfuzz" in argv:
    os.environ["UOPFUZZ_BIN"] = os.path.abspath(argv[argv.index("--uopfuzz") + 1])
  sys.path.insert(0, ADAPTER)
  from uopfuzz_tinygrad import find_tinygrad  # the adapter's own search, so the two agree
  tinygrad, why = find_tinygrad("")
  if tinygrad is None:
    print(f"SKIP: no tinygrad ({why}); point TINYGRAD_PATH at a tinygrad checkout "
          "(make test uses ../shared/vendor/tinygrad)")
    return SKIP
  if tinygrad: sys.path.insert(0, tinygrad)
  sys.path.insert(0, HERE)
  tests = unittest.defaultTestLoader.loadTestsFromName(f"test_{suite}")
  result = unittest.TextTestRunner(verbosity=2).run(tests)
  if result.testsRun == 0:
    print(f"suite {suite} ran no test")
    return 1
  return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
  sys.exit(main(sys.argv))
