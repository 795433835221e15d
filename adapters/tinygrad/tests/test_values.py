"""Values as .uop writes them: uopfuzz_adapter/values.py against ir::format_value and the C++
parser (ir/value.cpp, ir/parser.cpp). The table is what `uopfuzz run` prints; the sweep
formats thousands of random float32/float16/float64 values and has uopfuzz print the same
values (skipped without the binary)."""
import math
import os
import random
import struct
import subprocess
import tempfile
import unittest

from uopfuzz_adapter import values

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def uopfuzz_bin():
  path = os.environ.get("UOPFUZZ_BIN") or os.path.join(REPO, "build", "uopfuzz")
  return path if os.access(path, os.X_OK) else None


def bits(v):
  return struct.pack("<d", v)


# (dtype, literal as written, what ir::format_value prints for its value)
TABLE = [
  ("float32", "1e20", "1e+20"), ("float32", "0.1", "0.1"), ("float32", "1", "1"), ("float32", "-0.0", "-0"),
  ("float32", "0", "0"), ("float64", "1e16", "1e+16"), ("float64", "1e15", "1000000000000000"),
  ("float32", "0.0001", "0.0001"), ("float32", "0.00001", "1e-05"), ("float16", "0.1", "0.099975586"),
  ("float32", "1e-45", "1e-45"), ("float32", "16777216", "16777216"), ("float32", "1e16", "1e+16"),
  ("float32", "123456789", "123456790"), ("float16", "65504", "65504"), ("float16", "65520", "inf"),
  ("float64", "5e-324", "5e-324"), ("float32", "3.4028235e38", "3.4028235e+38"), ("float32", "1e39", "inf"),
  ("float32", "nan", "nan"), ("float64", "-inf", "-inf"), ("float32", "inf", "inf"), ("float16", "-0", "-0"),
  ("float64", "0.30000000000000004", "0.30000000000000004"), ("float32", "2.5", "2.5"), ("float32", "-1.5e-7", "-1.5e-07"),
  ("int8", "-128", "-128"), ("uint64", "18446744073709551615", "18446744073709551615"), ("bool", "true", "true"),
  ("bool", "0", "false"), ("int32", "+5", "5"),
]


class Values(unittest.TestCase):
  def test_table(self):
    for dtype, literal, printed in TABLE:
      with self.subTest(dtype=dtype, literal=literal):
        self.assertEqual(values.format_value(values.parse_value(literal, dtype), dtype), printed)

  def test_parse_rounds_as_the_cpp_parser(self):
    self.assertEqual(values.parse_value("0.1", "float32"), struct.unpack("<f", struct.pack("<f", 0.1))[0])
    # float16 through the double nearest the decimal (ir/parser.cpp), overflow to inf
    self.assertEqual(values.parse_value("0.1", "float16"), struct.unpack("<e", struct.pack("<e", 0.1))[0])
    self.assertEqual(values.parse_value("1e6", "float16"), math.inf)
    self.assertEqual(bits(values.parse_value("-0", "float32")), bits(-0.0))
    self.assertTrue(math.isnan(values.parse_value("nan", "float64")))
    # a decimal halfway between two float32 values in its double rounding: read at float
    # precision directly, 1 + 2^-24 + 2^-60 is above the midpoint, so it rounds up
    self.assertEqual(values.parse_value("1.000000059604644776135426", "float32"), 1 + 2 ** -23)
    for bad, dtype in (("1.5", "int32"), ("300", "uint8"), ("-1", "uint8"), ("maybe", "bool"), ("1e", "float32"), ("--1", "float32")):
      with self.subTest(bad=bad, dtype=dtype), self.assertRaises(ValueError):
        values.parse_value(bad, dtype)

  def test_header_values(self):
    inputs, var_values = values.header_values(["@name x", "@input 0 [1, -2.5, nan]", "@input 3 []", "@var n=5", "@output 0 [1]"])
    self.assertEqual(inputs, {0: ["1", "-2.5", "nan"], 3: []})
    self.assertEqual(var_values, {"n": 5})
    with self.assertRaises(ValueError): values.header_values(["@input x [1]"])
    with self.assertRaises(ValueError): values.header_values(["@input 0 1, 2"])

  def test_pack_round_trip(self):
    for dtype, vals in (("float16", [1.5, -0.0, math.inf, 65504.0]), ("int8", [-128, 127]), ("bool", [True, False]),
                        ("uint64", [2 ** 64 - 1]), ("float32", [0.1])):
      with self.subTest(dtype=dtype):
        got = values.unpack(values.pack(vals, dtype), dtype)
        want = [values.parse_value(values.format_value(v, dtype), dtype) for v in vals]
        self.assertEqual([bits(float(x)) for x in got], [bits(float(x)) for x in want])

  def test_random_values_print_as_uopfuzz_prints_them(self):
    binary = uopfuzz_bin()
    if binary is None: self.skipTest("no uopfuzz binary (build/uopfuzz or UOPFUZZ_BIN)")
    rng = random.Random(1)
    cases = []  # (dtype, [values]) per output, 16 a line (uopfuzz run prints 16 values of each)
    for dtype, fmt, nbits in (("float32", "<f", 32), ("float16", "<e", 16), ("float64", "<d", 64)):
      vals = []
      while len(vals) < 800:
        v = struct.unpack(fmt, rng.getrandbits(nbits).to_bytes(nbits // 8, "little"))[0]
        if not math.isnan(v): vals.append(v)
      vals += [0.1, 1e-4, 9.999e-5, 1e15, 1e16, 2.0 ** -126, 2.0 ** -24, 123456.0, -0.0]
      vals = [values.parse_value(repr(v), dtype) for v in vals]
      cases += [(dtype, vals[i:i + 16]) for i in range(0, len(vals), 16)]
    text = "".join(f"@input {i} [{', '.join('%.17g' % v for v in vs)}]\n" for i, (_, vs) in enumerate(cases))
    text += "".join(f"%p{i} = PARAM slot={i} in : {dt}[{len(vs)}]\n" for i, (dt, vs) in enumerate(cases))
    text += "%r = REALIZE " + " ".join(f"%p{i}" for i in range(len(cases))) + " : void\n"
    with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f: f.write(text)
    try:
      out = subprocess.run([binary, "run", f.name], capture_output=True, text=True, timeout=120).stdout
    finally:
      os.unlink(f.name)
    checked = 0
    for line in out.splitlines():
      line = line.strip()
      if not line.startswith("out["): continue
      k = int(line[4:line.index("]")])
      printed = line[line.index(": [") + 3:-1].split(", ")
      dtype, vs = cases[k]
      self.assertEqual(len(printed), len(vs), line)
      for v, p in zip(vs, printed):
        self.assertEqual(values.format_value(v, dtype), p, f"{dtype} {v!r}")
        self.assertEqual(bits(values.parse_value(p, dtype)), bits(v), f"{dtype} {p}")
        checked += 1
    self.assertEqual(checked, sum(len(vs) for _, vs in cases))


if __name__ == "__main__":
  unittest.main()
