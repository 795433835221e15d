#!/usr/bin/env python3
"""uopfuzz reproducer finding-a7d497a9: tinygrad computes a tensor program wrong.

Signature   mismatch/tinygrad-codegen/tinygrad-CPU
Details     seed 0: output 0[0] is nan on the tensor oracle but -0 on device CPU; its 2 scheduled kernels agree on uopfuzz's oracle; rules that fired: 78 rules, most applied 266x uop/weak.py:59, 215x uop/weak.py:52, 213x renderer/cstyle.py:64, 119x uop/ops.py:1754, 70x uop/weak.py:75, 63x renderer/cstyle.py:50, ...
Found on    tinygrad tree-ed32e5aa5014 (not checked against a newer tinygrad)
Found by    uopfuzz fuzz --level tensor --simplifier tinygrad --time 1080 --seed 3003 --jobs 1 --corpus /tmp/camp/tensor2 --emit tinygrad --json /tmp/camp/tensor2.json

The tensor program below is the case's, written as tinygrad Tensor code, one line a node
(the .uop node in the comment), as uopfuzz's tinygrad adapter ran it: the inputs are
Buffers on the device holding the case's values (INPUTS), the outputs are realized together
and read back. EXPECTED is what uopfuzz's tensor oracle computes from the program's
definition (SEMANTICS.md, "Tensor programs"). Every output is compared on every device:
floats by bits, except that +0 matches -0 (the adapter declares tinygrad's zero-sign
tolerance) and NaN matches NaN.

Run:   PYTHONPATH=<tinygrad checkout> python3 a7d497a9b1e08b4d.py [DEVICE ...]   (default: PYTHON CPU)
       exit 0: every output is the expected one (fixed); 1: the bug is there (an output
       differs, or tinygrad raises: traceback and tinygrad file:line); 2: cannot check (no
       device runs here, or tinygrad's Tensor gives another dtype or shape)
Test:  PYTHONPATH=<tinygrad checkout> python3 -m unittest a7d497a9b1e08b4d
"""
import math
import os
import shutil
import struct
import sys
import traceback
import unittest

from tinygrad import Tensor, dtypes
from tinygrad.device import Buffer, Device
from tinygrad.helpers import DEV, Context
from tinygrad.uop.ops import UOp

inf, nan = math.inf, math.nan

DEVICES = ("PYTHON", "CPU")
# the inputs: PARAM slot -> every element, row-major
INPUTS = {
  0: [2, -8, -8, 4, -5, -8, 0, -2, -6, -7, -2, -2, -4, 3, -3, -8, -1, -7, -4, -8, 2, -3, -8, 5, 0,
      -2, 6, 7, 4, -5, 3, -6, -5, 2, 5, 3, 1, -7, 8, 3, 7, 8, 6, -5, -4, 0, -8, 1, 4, -8, 1, 8, 0,
      0, 4, 3, 5, -2, 2, -2, -6, 0, 6, -8, -8, -6, -7, -2, -7, -8, 1, -2, 3, 0, -6, -8, -8, 2, 3,
      -5, 0, 7, -7, -6, 3, 1, 1, 4, 2, 5, 8, 2, 8, -3, -4, -1, 4, -3, 8, 1, -3, 2, 7, -5, 3, 7, 4,
      -6, 8, 4, 7, 7, 5, -7, 1, -3, -2, 2, 4, 5, -1, -8, -6, 7, -8, 1, -8, -8, -6, -1, 3, 6, 6, 5,
      0, -8, -1, -8, 7, -1, -7, 3, -6, -7, -7, 6, -1, -7, -1, -1, 4, -2, 4, -6, 8, 5, -2, 7, -8, 3,
      -7, -8, 0, -2, 5, 0, -3, 6, 8, -4, -6, 1, 6, 3, -1, 2, 6, 6, -4, 3, 3, 2, 5, 0, -6, 7, 5, -2,
      -5, -1, 5, -6, 1, -3, 4, -2, 3, 0, 5, 8, 0, 4, 4, 5, 1, 0, -8, 7, -5, -2, -1, 7, 2, -6, -3, 3,
      5, -5, -5, 5, 3, 4, -8, -7, -6, -2, -2, 4, -8, -2, 5, 7, -4, -1, 2, -3, 1, -7, 7, -5, 5, 7, 7,
      6, -4, -7, -6, 1, -2, 6, 1, -6, -4, -2, -2, 1, -6, 5, 3, -2, 4, 0, 1, 8, 0, -8, 6, 2, -8, -2,
      -4, 1, -2, -8, -7, 2, 2, -7, 4, 5, 4, 2, -3, -1, -4, -7, 1, -6, 4, -8, -2, 2, -1, -8, 0, -1,
      -3, 8, -4, -2, 7, 5, 5, -1, 0, -4, -8, 6, -5, -2, -6, 3, -7, 5, 8, -5, -2, -8, 8, 5, 5, 0, 0,
      7, -5, -4, -5, 2, -6, -6, 6, 0, -5, 2, 0, -4, 3, -7, -7, 6, 4, -8, 8, 8, 6, -6, -6, 0, 2, 1,
      5, -6, -3, 6, -1, -8, 7, -1, 7, 1, -7, -4, 3, -1, -5, -3, 4, -3, -2, -1, -7, -4, -3, 8, -8,
      -5, 2, -2, 8, -2, -8, -4, 7, 8, 8, -7, -2, -3, 2, 3, 8, -2, 0, -4, 2, -4, -7, -6, 2, 7, 6, -1,
      4, -5, -3, 0, -1, 6, 2, 2, 1, -3, -8, -6, -8, 1, 7, 1, 3, 4, 2, 1, -5, 1, 6, 5, 7, 8, -5, -4,
      5, -4, 5, -6, 5, 0, 5, 2, 8, -6, 4, -2, -4, 2, -5, -7, -6, -4, -6, 4, 2, 3, -7, -8, -2, -2,
      -5, 7, -8, -3, 0, 8, 5, -6, 0, 8, -1, 0, 1, 2, -6, 1, 2, -6, -8, -2, 3, 5, 6, 7, 6, 3, -6, -1,
      2, 1, -5, -1, 6, -8, 7, 2, -8, 6, -8, -2, 4, 8, 1, 2, 7, 6, -5, -7, -4, 7, 2, -3, 4, -7, 0, 5,
      7, 3, 7, 7, 3, 5, -2, 6, 4, -8, -1, -6, 1, 5, 4, -5, -3, 1, -4, 1, 3, 6, 7, 3, -2, -5, 3, 2,
      -1, -8, -7, -3, 4, -4, -6, 6, 4, -3, 1, -5, -2, 6, 0, -6, -7, 7, 3, 4, -8, 4, 4, -8, -6, 2,
      -5, -5, -8, -2, -7, 7, 5, 7, -4, 0, 5, 7, 6, 0, -5, 6, -5, -4, -7, 2, 8, 5, 2, 2, -5, -2, -3,
      -3, -8, -8, -4, -5, -6, 6, 4, 5, 6, -6, 1, -8, 3, 5, 8, 3, -2, 6, 2, 7, -3, -5, 1, 7, -2, 7,
      -2, -3, 4, -2, -7, -5, 6, 2, 2, 7, -5, -6, 2, 0, -3, 3, 6, -5, -8, 0, 3, 2, -4, 7, -8, 2, 7,
      7, -3, -8, 8, 7, -3, -7, 5, 1, 0, -4, 0, 6, -3, 8, -7, -6, -3, 7, -6, 3, 3, 2, 1, -8, 7, -4,
      -1, 1, -6, -1, 0, 4, 6, 3, 0, -5, 3, 8, -8, -7, -7, 5, 7, -8, -6, -2, -1, 7, -3, 1, 2, -5, -2,
      2, 0, 1, -4, -7, 4, 5, 6, 4, -7, -7, 7, -2, -8, -3, 6, 6, 8, 0, 8, 7, -6, -7, -6, -8, -7, -3,
      8, 0, -4, -6, -4, 0, -4, -3, 1, -1, 7, -4, -6, 0, 8, 2, 1, 7, -3, 0, -2, -7, 3, -5, 6, -7, -8,
      7, -3, -5, 7, 1, -2, -8, -2, 5, -4, -5, 7, 5, -7, 1, 6, 0, 4, 4, 5, 8, 5, -8, -4, 4, 5, 6, -7,
      -4, -4, -3, 7, -3, -2, 3, 2, -7, 1, 7, -1, 3, 5, 5, -4, 8, 5, -4, 0, 5, -6, -3, 7, -7, 7, -2,
      -4, 5, -1, -4, -6, 2, 7, 4, -3, 0, -1, 0, -4, 1, 4, 8, -3, -7, -1, 5, 3, -7, 0, 7, 1, -7, 1,
      6, 0, -2, 1, -8, -4, 6, 6, -5, 2, 5, 7, -1, 1, 8, -2, -5, -4, 5, 0, 6, -3, -7, 4, 6, 8, -7, 3,
      -3, 8, 8, 3, -6, -3, 5, -2, 0, -2, 1, 5, 4, -5, -5, 5, -4, 2, 3, 0, -7, 3, 4, 3, -4, -6, 0, 3,
      0, 4, 0, -6, -6, -2, 5, 6, 5, -7, 3, -1, 0, 8, 7, 2, 8, 3, -2, 0, 4, -7, 4, 4, -3, 1, -2, -7,
      0, -6, 3, 6, 7, 6, -7, -4, 3, 1, -3, -4, 4, 1, -2, -1, -1, -8, -2, -7, 8, -6, -1, 8, 3, 5, 6,
      7, 0, -5, 4, -6, 0, -1, -6, 1, -3, -3, 2, 3, -3, -2, 6, 6, 8, -1, -3, 6, -4, 3, 4, 0, 8, -2,
      -6, 4, -7, 6, -1, -5, 1, 2, -3, -6, -6, -2, -1, -1, 6, 4, -7, 1, -5, -5, 5, -7, -4, 3, -2, 7,
      -2, -7, 0, 2, 4, 3, 5, -2, 2, 0, -2, 6, -8, 8, -2, -8, -6, 1, -6, -6, -6, 4, 3, -8, 1, 3, 5,
      -7, 2, 8, 5, -2, 5, 0, -7, 1, 7, 3, -7, -7, 6, -8, -5, 2, -4, 8, 3, 4, -2, -6, -1, 0, 3, 6,
      -6, 7, 6, 6, 3, 1, 5, -8, 0, -4, -7, 0, -5, -8, 1, 1, 4, 0, 5, 4, 8, 0, 3, 1, 1, 3, -8, -7, 2,
      -5, 6, -3, -6, -1, 3, 3, -8, -1, -5, 0, -6, 5, 4, -6, -5, 4, 0, -7, -5, -5, 5, -7, 1, 7, -4,
      -5, -1, -2, 0, 2, -6, -3, 0, -6, -2, 6, -4, 4, -4, 6, -6, 6, 6, -6, 1, -3, -6, 8, -7, -5, -6,
      6, 3, 1, -5, 7, -1, 0, 3, 0, 4, 8, 3, -3, 0, 4, 7, 2, 6, -6, 6, -5, 2, 0, -8, -8, 2, 0, 3, -1,
      2, 8, -4, -7, -5, 1, 4, -5, -5, 8, -5, -3, -2, -1, 2, 2, 4, -5, 8, 2, 7, -8, 7, -4, -6, 3, -1,
      7, -3, 6, -8, -4, 8, -2, 1, 1, 1, -2, 4, 6, -6, 0, 7, 3, 4, 1, -7, -1, 4, -2, -4, 5, 7, -6, 5,
      -8, 5, -5, 6, 0, -4, 0, 0, -4, -1, -7, 5, 1, -7, 1, -6, 8, 7, -2, -1, -8, 8, 7, -6, 5, 7, 2,
      4, -8, 2, 4, 6, -8, 2, -4, 3, -6, -8, -4, -4, 0, 4, 4, 2, -8, 5, 3, -5, 2, -2, -7, 3, 4, 7, 1,
      5, -2, -4, 4, -8, -2, -3, 6, 6, -5, 7, 0, -8, 7, -6, -8, -6, 6, 6, 7, 4, -5, 7, 7, -6, 8, 2,
      0, -6, -5, 3, -7, 8, 3, -3, -3, -6, -7, 2, -7, -5, 4, 2, -6, 5, 0, 0, -5, -2, 8, 4, 2, -8, 7,
      -2, 0, 4, 1, 3, 4, 1, 7, -4, -2, -6, -6, 7, -6, 2, 8, -2, -5, -1, 1, -1, 6, 3, 3, 7, 0, 4, -8,
      0, 8, 4, 7, 4, 7, 5, 3, -4, -6, 1, 4, -1, -8, 0, 8, -1, -3, 8, 3, 7, -2, -5, 5, 5, 8, 7, 5, 5,
      6, 1, 2, -7, 6, 8, 0, -2, 3, 2, 4, 3, -4, -1, 5, 1, 4, 7, -6, 2, -5, -3, -8, 5, -6, -4, 0, 6,
      8, -7, 6, -1, -6, -2, -8, 6, 7, 2, 2, 5, -5, 1, 5, 8, -3, 1, 6, -2, 5, 0, -1, 6, -4, -3, 8,
      -5, 7, -4, 0, 2, 4, -5, 7, 3, 5, 0, -1, 7, -4, -1, 5, -1, 5, -2, -7, -5, -8, 3, -3, 8, 3, -8,
      -7, -6, -3, -7, 2, -7, -7, 3, -8, 4, 4, 1, -2, 2, 5, 7, 1, -6, 0, 1, 7, 0, 3, 0, -7, 3, -5, 8,
      -1, 3, 3, -5, 0, 2, 5, -2, -7, -8, -7, -7, 5, 7, 2, 5, -6, -8, -7, -7, 6, 3, -6, -4, -3, -5,
      -8, -6, 2, -1, -7, 7, -4, -5, 1, 2, 7, 2, 3, -4, -2, 6, 7, -3, -1, -4, 6, 3, -6, 2, -2, 4, 0,
      -5, 0, -6, 5, 1, -4, 3, 6, 5, -8, 6, 1, 1, -8, -6, 0, -3, -5, -2, 0, -2, 7, 8, 4, -8, -5, 2,
      -8, -6, -1, -8, 7, -8, -8, -1, -5, -8, -2, -6, 6, 7, 7, -8, -7, 2, 6, 1, 3, -1, 8, -3, 3, 5,
      -5, 0, -8, -5, -4, 0, 4, 2, -3, -8, 3, -7, 6, 6, 7, -6, 0, 7, 2, 6, 2, 7, 0, 5, -8, 3, 3, 6,
      -6, -1, 8, 4, 8, 0, 5, -3, -1, -6, 6, -1, -4, 5, -1, -7, 3, 7, -1, -1, -2, -3, -8, 1, 7, 0,
      -7, -3, 7, 5, -6, -7, -1, 7, -2, -1, 3, -6, 7, -8, 7, 5, 1, -8, 2, 0, -2, -3, -7, 3, 1, 8, -7,
      3, 7, 5, 0, 2, -1, -7, -2, 2, -7, 3, 4, -5, 1, -7, 0, -1, -5, -7, 5, -4, -1, 0, -5, -4, 1, 0,
      0, 2, 8, 8, 3, -7, 8, 0, -5, 6, -7, -8, 2, 6, 3, -4, -2, 1, 5, -8, 5, 8, 4, 5, 6, 7, 7, -1, 2,
      5, 2, -4, 6, 1, 2, -3, 8, -8, 6, -1, -1, 2, 6, -1, 0, -5, -3, 0, 8, -2, 8, 8, 7, 7, 0, -4, -3,
      4, -5, 7, 5, -6, 6, -2, 7, -6, 5, -8, 3, -8, -4, 1, 0, 2, -1, 7, 4, 2, -1, -5, -6, -1, 5, 1,
      -6, -8, -2, -5, -7, -8, -7, 8, 0, -5, 5, 8, 5, -3, 4, -8, 7, -3, 4, 2, 2, 7, -5, 6, -6, -4, 0,
      1, -7, -3, 8, -4, 0, 4, -4, -3, -3, 2, 1, -7, 7, 1, 4, 5, 5, -8, 2, -6, 4, 0, 0, -4, -6, -4,
      -5, 7, 2, -2, -8, -4, -2, -5, -8, -8, -6, 7, 4, 8, -2, -6, -7, 6, 2, -5, 7, -1, -8, 8, -3, -6,
      -1, 6, 1, -7, -5, -6, 1, -2, -7, 5, 5, -5, -6, 2, 3, -7, 0, 7, 4, -2, 3, 1, -1, -8, -2, 1, -6,
      0, -4, 4, -8, -8, -1, -7, -5, 4, -1, -7, -5, 4, 3, 5, -1, -4, 2, 2, -5, 0, 1, -6, 4, 3, -2, 1,
      7, -2, 3, -1, -6, -8, 8, -3, -1, -8, -7, -7, 5, -1, 2, 3, -7, -1, 1, -1, -1, -7, -1, 2, -4, 3,
      6, -8, -4, 2, 2, -2, -1, -7, 6, -7, -7, -7, -2, -7, 8, -5, 2, -1, 5, 1, -5, 8, 5, -3, -8, -8,
      -7, 5, 5, -5, -8, 2, 2, 7, 4, 2, -1, 7, -8, 8, 5, 3, -5, -7, -2, 0, 5, 5, -6, 5, 2, -3, -1,
      -8, -3, 8, -6, 5, 6, 2, -8, 0, 6, -7, -6, -5, 0, -2, 1, -6, -7, -4, -6, 0, -8, -3, -5, -8, 2,
      4, 1, -1, 5, 0, -6, -6, 6, 8, 3, 8, -7, -1, -5, 1, 3, 2, -2, -3, 3, -1, -5, 6, -3, -1, 6, 6,
      -5, 5, -4, -2, -3, 0, -5, 7, -4, 0, -3, -6, 3, -4, -4, 3, 3, 3, -1, 7, -7, 7, -1, -6, 4, 2,
      -3, -6, -6, 3, 5, 4, 8, -3, 4, -4, 2, 8, -4, -2, -6, 5, -5, 2, -2, -8, 5, -6, -7, 5, 6, 0, -5,
      -2, 8, 5, -1, -3, -2, 2, 7, 5, 1, 4, -8, 1, 2, 4, -3, -8, -5, -1, -5, -4, -1, 8, 2, -5, 2, -6,
      4, -3, 1, -2, -8, 4, 7, -3, 5, 0, -8, -3, 0, 8, -1, -6, -6, 5, -3, 1, 0, -3, -2, -7, 8, -3,
      -1, 5, 2, 4, 7, -5, 4, 8, 2, -8, -7, 6, -6, 5, 8, -7, -7, 1, -1, 6, 1, 0, -1, -5, -5, -4, -7,
      3, -7, -8, 5, -6, 2, -6, 2, 0, 6, -4, -4, 5, 5, 4, -7, -5, -7, -5, 0, -7, 3, 6, -8, 1, -4, -7,
      3, -5, -5, -2, -2, 4, -2, 3, 1, 3, -6, 0, 1, 0, 8, 4, -5, -1, 5, -4, 3, -8, -6, 2, -2, 6, -6,
      6, 2, -2, -2, 8, 8, 7, -2, 0, -7, -1, -2, 8, 8, -7, 4, 0, -8, -1, -4, -7, -7, -7, 1, 1, 6, -3,
      7, -1, 5, 8, -6, 5, 4, -3, -7, -2, -3, 8, -1, 4, 3, -1, 8, 2, 2, 2, 1, 4, -4, 2, -3, 4, -6,
      -7, 1, 3, 0, -2, -5, -5, 7, 7, 5, -7, 5, -1, 7, 1, -5, 1, 0, -4, -2, -1, 0, -5, 5, -2, -7, 5,
      -3, -4, 3, -1, 3, 3, -5, -3, -5, -7, 1, -2, -4, 8, 4, 8, -5, 6, 5, -4, -5, 2, -5, 1, -8, -6,
      7, 4, 3, -7, 4, -1, -5, -1, 1, -5, 0, -2, -8, 6, -6, 8, 3, 8, 8, -1, 7, -2, -3, 8, 2, -3, 2,
      -8, -7, 3, 5, -3, -8, 8, 5, -5, -3, -5, -3, 1, 6, 5, -1, -6, -3, -3, 6, -3, -3, -1, 5, -6, -2,
      8, 2, -6, 4, 5, -2, -4, -8, 4, 3, 3, -2, -8, -3, 1, 5, -6, -4, -1, 1, 6, -6, 0, 8, -5, 0, -3,
      4, -5, -6, -6, 4, -6, 5, -2, 4, 4, 8, 2, 4, -2, 8, -8, -3, 4, 1, 1, 6, -7, -7, -2, 8, 0, 4,
      -8, 3, 6, 4, -8, 2, -4, -8, 8, 3, 5, 4, 6, -6, 2, 7, -5, -5, 2, -7, -8, 2, -3, 0, 4, -1, 2,
      -2, 5, -8, -3, 3, -7, 4, -6, -8, 7, -4, -2, -7, 5, -8, 5, -8, 6, -5, -6, 7, 5, -1, 5, 1, -5,
      1, -5, 1, 3, 6, 5, 7, -1, -6, 0, -1, 0, 4, -4, 7, 6, 4, -5, -1, 1, 8, 4, -7, -6, 5, 7, 3, 4,
      1, -6, 1, -8, 0, -8, 3, 6, -5, 6, -5, -4, 2, 8, 1, -7, -3, -8, 3, 8, -1, 2, 1, -5, 5, 2, 3, 1,
      8, 3, 4, 4, 4, 8, -3, -7, 8, -8, 5, 4, -5, 5, 1, 7, 8, 2, 2, 3, 4, 4, -6, 4, 1, 7, 5, 3, 7,
      -2, 1, -8, 3, 6, 4, -4, 8, 7, 6, 3, 7, 7, 2, -8, 4, -5, 2, -3, 5, -2, -8, -3, 1, 6, 1, 5, 4,
      -7, 1, -8, -8, 6, 5, -7, 3, -5, -1, -7, -4, 3, -3, -6, -1, 4, -2, 6, -7, -2, 0, 4, 3, -7, 2,
      0, -4, 0, -5, -4, 7, 5, -3, -4, 5, 6, -4, -3, 3, 7, -5, 4, -2, 8, -7, 2, 2, -2, -7, -7, 8, -4,
      2, 1, 2, -3, -2, -5, -7, -3, -4, -6, -4, 0, -1, -4, 7, -3, 4, -6, 7, 8, 0, 3, 1, -1, -5, -1,
      0, -5, -2, 8, -5, 5, 5, -2, -6, 1, 4, -8, -7, 7, -2, -2, -5, 0, -4, 5, 5, 4, 4, 5, -6, -6, 1,
      -7, 2, 3, -2, 8, -4, 1, -4, -4, 4, 6, 1, 0, 8, 0, -8, -6, 6, 0, -4, 3, 0, -4, 1, 1, 6, 1, -8,
      5, 8, 3, -7, 2, 3, 8, 7, 1, 0, -6, 6, 7, 1, -2, 2, -6, 3, 1, 1, -1, -1, 7, 3, 8, 8, 6, -6, 5,
      -6, 5, 3, -7, -4, -5, 6, 8, -6, -7, 7, 1, 5, 5, -3, -5, -5, -8, -4, -7, 4, -2, 4, -1, -7, -3,
      -8, 5, 6, -3, 1, 3, 6, 0, -3, 1, -5, -1, 5, -1, -7, -1, -4, 5, -4, 8, -7, -3, -7, 2, 0, -5,
      -8, 6, -3, -6, 4, 3, -5, 5, 4, 5, 3, 3, 3, 6, -7, 4, 7, -1, -3, 8, 4, -5, 5, -5, 2, -4, 6, -3,
      -6, -7, 2, 7, 8, -1, -3, -2, -4, -6, -3, -2, -7, 0, 1, 7, -7, -1, -4, 0, 4, 4, -4, 7, 5, -3,
      -5, -6, 8, 8, 5, 4, 4, 5, 0, 5, -5, -1, 1, -2, 1, -1, -1, -4, -7, 5, 1, 2, 2, -5, 5, -2, -5,
      7, -7, -6, 8, 1, -8, -3, -6, -8, 8, 8, -6, -1, 4, 4, 5, -8, 5, 5, 0, -8, 5, 0, 1, 0, 1, -5, 5,
      8, 8, -6, -4, 0, -7, -3, -2, 2, 3, 3, -7, 2, 6, -7, 8, 1, -1, 5, 1, 3, 5, 2, 6, 5, -2, 6, -3,
      -1, 8, -5, 8, -1, -6, 3, 7, 4, -7, 0, 7, -6, 2, -2, -6, 8, -2, 7, -1, -2, 4, 5, 7, 0, 6, -1,
      0, 7, 4, -7, -3, 7, 8, 2, -5, -3, -3, 2, -5, 3, -1, 2, -6, -5, 6, 2, 0, -5, 7, 1, -4, -7, 6,
      -6, -7, 1, 3, 2, -1, -3, 3, -1, 2, 0, -5, 8, 8, -5, 1, -3, 4, 4, 6, -5, 5, -1, -5, 7, 1, 3, 1,
      2, -2, 4, 2, 3, -8, -3, 0, -5, 7, -2, -7, 4, -1, 1, -6, 7, 2, 6, 3, 2, -3, -3, 8, -5, 1, 8,
      -3, -7, -2, 0, -5, 4, 3, 1, -5, -5, -6, 4, -3, 4, 6, 7, 4, 1, 2, 4, 0, 4, 0, 5, 3, -5, 8, -7,
      -3, -4, 2, 6, 2, -8, 8, 5, -8, 7, -5, 7, 2, -5, -6, -7, -3, -3, -5, 6, 3, -7, -3, 1, -3, 2, 8,
      -8, -2, -6, 0, -3, 5, 6, 8, -7, 6, -8, -8, 4, 0, -7, 5, -1, -7, 0, 4, -8, -1, 7, 6, 1, -8, -6,
      -1, 8, -4, -4, -7, -4, 6, -7, -8, -5, -1, 7, -7, -7, -8, -1, -4, -1, 6, 2, 3, -6, 4, -7, 5,
      -8, 1, -4, 6, -4, 3, 0, -2, 8, -4, 8, -1, 4, 2, -3, 2, -5, 4, 5, 3, -8, -1, 7, 3, -4, -5, -8,
      -8, 6, -8, -5, -8, -4, 4, -1, -1, 3, 4, -8, -1, 0, -5, -6, -6, -8, 8, 3, -3, 1, 2, 2, 8, 1, 3,
      -7, 1, 1, -7, 7, 2, -2, 7, 4, 6, -1, -1, -7, -2, 6, -5, -8, 5, 4, -4, 0, 3, -7, -1, -6, -8,
      -8, 8, 0, 4, -4, -6, 3, -1, -5, 1, 6, 8, -5, 1, -2, 3, 5, -8, 5, -1, -1, 2, -8, 2, -7, 5, -8,
      -5, -4, 3, -3, -1, -5, -1, -7, -5, 2, -7, 8, -1, 8, 6, -2, -4, 0, -4, 7, -3, 6, -4, -8, -2,
      -6, -5, 6, 0, -8, 8, -2, -1, -8, -2, 4, 6, 2, -8, 6, 7, 2, 4, 3, -3, 4, 5, -7, -7, -5, 1, 2,
      0, -5, 5, -1, -7, 7, 3, -6, 7, 5, -1, -7, -5, -5, 6, -5, 1, -5, 4, 5, -6, -2, -4, 4, -3, -8,
      -6, 2, 0, 0, -5, -4, -8, -6, -8, 7, -3, -8, 3, -3, -5, 4, -7, 3, -4, 6, -3, -4, 1, -7, -5, -3,
      -5, 2, -2, 0, -4, -2, -2, 8, 0, 6, 2, 8, 2, -3, 8, -8, 0, -7, 5, -2, -2, -4, -5, 2, 0, 8],
}
# the expected outputs (uopfuzz's tensor oracle): REALIZE source K -> every element, row-major
EXPECTED = {
  0: [nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
      nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan],
}
# each output's dtype and shape
OUTPUTS = {0: (dtypes.float64, (11, 24, 13))}


def input_tensor(slot, dtype, shape, device):
  """The input PARAM `slot`: a Buffer on the device holding INPUTS[slot], as a Tensor."""
  vals = INPUTS[slot]
  if not vals: return Tensor.empty(*shape, dtype=dtype, device=device)
  buf = Buffer(device, len(vals), dtype, initial_value=struct.pack(f"<{len(vals)}{dtype.fmt}", *vals))
  return Tensor(UOp.from_buffer(buf), device=device).reshape(shape)


def program(device):
  """The tensor program, one Tensor op a line; returns the outputs (REALIZE's sources)."""
  t0 = input_tensor(0, dtypes.int64, (13, 24, 11), device)  # %0 = PARAM slot=0 in : int64[13,24,11]
  t1 = t0.reshape((11, 24, 13))  # %1 = RESHAPE %0 : int64[11,24,13]
  t2 = t1.bitcast(dtypes.float64)  # %2 = BITCAST %1 : float64[11,24,13]
  t3 = t2.trunc()  # %3 = TRUNC %2 : float64[11,24,13]
  t4 = t3.min((2,), keepdim=True)  # %4 = REDUCE_AXIS %3 op=MIN axes=[2] : float64[11,24,1]
  t5 = t4.expand((11, 24, 13))  # %5 = EXPAND %4 : float64[11,24,13]
  return [t5]


def run(device):
  """{K: values} of every output, the program realized on `device`."""
  with Context(PARALLEL=0) if DEV.device == device else Context(DEV=device, PARALLEL=0):
    outs = program(device)
    for k, t in enumerate(outs):
      dtype, shape = OUTPUTS[k]
      if t.dtype != dtype or tuple(t.shape) != shape:
        raise CannotCheck(f"output {k} is {t.dtype}{list(t.shape)} in tinygrad, {dtype}{list(shape)} in the program")
    # read as tinygrad reads a Tensor's values: through contiguous() (a view of an input gets
    # a kernel), on the device (a constant without one is cloned onto it)
    outs = [None if 0 in OUTPUTS[k][1] else t.clone(device=device) if t.uop.device is None else t.contiguous()
            for k, t in enumerate(outs)]
    pending = [t for t in outs if t is not None and not t.uop.is_virtual and not t.uop.has_buffer_identity()]
    if pending: Tensor.realize(*pending)
    got = {}
    for k, t in enumerate(outs):
      n = math.prod(OUTPUTS[k][1])
      if t is None:
        got[k] = []
        continue
      data = bytes(t.uop.buffer.ensure_allocated().as_memoryview())
      got[k] = list(struct.unpack(f"<{n}{t.dtype.fmt}", data[:n * t.dtype.itemsize]))
    return got


class CannotCheck(Exception):
  """tinygrad's Tensor gives an output of another dtype or shape than the program's."""


def available(devices):
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
  return "[" + ", ".join("nan" if isinstance(v, float) and math.isnan(v) else repr(v) for v in vals) + "]"


def tinygrad_where(exc):
  """file:line, relative to the tinygrad package, of the innermost traceback frame in it."""
  import tinygrad
  package, where = os.path.dirname(os.path.abspath(tinygrad.__file__)), None
  for entry in traceback.extract_tb(exc.__traceback__):
    if os.path.abspath(entry.filename).startswith(package + os.sep):
      where = f"{os.path.relpath(os.path.abspath(entry.filename), package)}:{entry.lineno}"
  return where


def check(devices=DEVICES):
  """Runs the program on each device, compares; returns the exit status (see the top)."""
  devices = available(devices)
  if not devices:
    print(f"CANNOT CHECK: none of the devices {' '.join(DEVICES)} runs here")
    return 2
  status = 0
  for device in devices:
    try:
      got = run(device)
    except CannotCheck as e:
      print(f"CANNOT CHECK on {device}: {e}")
      status = max(status, 2) if status != 1 else 1
      continue
    except Exception as e:  # noqa: BLE001  (a crash is the bug)
      traceback.print_exc()
      print(f"FAIL on {device}: tinygrad raised at {tinygrad_where(e)}: {type(e).__name__}: {e}")
      status = 1
      continue
    for k, want in EXPECTED.items():
      same = canonical(got[k]) == canonical(want)
      print(f"out[{k}] on {device}: expected {show(want)} got {show(got[k])}{'' if same else '  <- differs'}")
      if not same: status = 1
  print("ok: every output is the expected one" if status == 0 else
        "FAIL: tinygrad computes the program wrong" if status == 1 else "CANNOT CHECK")
  return status


class TestUopfuzzFindingA7d497a9(unittest.TestCase):
  def test_finding_a7d497a9(self):
    devices = available(DEVICES)
    if not devices: self.skipTest(f"none of the devices {' '.join(DEVICES)} runs here")
    for device in devices:
      with self.subTest(device=device):
        got = run(device)
        for k, want in EXPECTED.items():
          self.assertEqual(canonical(got[k]), canonical(want), f"out[{k}] on {device}")


if __name__ == "__main__":
  sys.exit(check(tuple(sys.argv[1:]) or DEVICES))
