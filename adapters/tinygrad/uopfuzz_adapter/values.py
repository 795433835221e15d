"""Element values as the .uop text writes them, without tinygrad.

- header values: `@input SLOT [v, v, ...]` and `@var NAME=V` lines of a .uop text
  (docs/uop-format.md);
- parse_value(): a literal as the C++ parser reads it (ir/parser.cpp, parse_literal): float32
  correctly rounded from the decimal, float64 too, float16 through the double nearest the
  decimal (as there), integers and bools as written;
- format_value(): exactly what ir::format_value prints (ir/value.cpp): integers in decimal,
  `true`/`false`, `nan`, `inf`, `-inf`, and other floats as fmt's `{}` prints them: the
  shortest decimal that reads back to the same value at the dtype's own precision (float16
  at float32's, as the C++ side formats a half through a float), fixed notation for decimal
  exponents -4..15 (`0.0001`, `1000000000000000`, `-0`, `1` with no `.0`), else
  `d.ddde+XX` with at least two exponent digits (`1e+20`, `1e-05`);
- pack()/unpack(): a buffer's little-endian bytes and its values.
"""
import math
import re
import struct
from fractions import Fraction

FORMATS = {"bool": "?", "int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint8": "B", "uint16": "H",
           "uint32": "I", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d"}
ITEMSIZE = {name: struct.calcsize("<" + f) for name, f in FORMATS.items()}
INT_RANGE = {name: ((-(1 << (8 * ITEMSIZE[name] - 1)), (1 << (8 * ITEMSIZE[name] - 1)) - 1) if name.startswith("int")
                    else (0, (1 << (8 * ITEMSIZE[name])) - 1)) for name in FORMATS if "int" in name}


class ValueError_(ValueError):
  """A value that does not read as its dtype (message says which)."""


# ---- rounding to the narrow float types

def _round_double(v, dtype):
  """The double `v` rounded to `dtype` (nearest, ties to even; overflow to +-inf), as a double."""
  if dtype == "float64" or math.isnan(v) or math.isinf(v): return v
  fmt = "<" + FORMATS[dtype]
  try:
    return struct.unpack(fmt, struct.pack(fmt, v))[0]
  except OverflowError:  # struct refuses what rounds past the largest finite value
    return math.copysign(math.inf, v)


def _f32_neighbours(f):
  """The float32 values next to the float32 `f` (finite), below and above."""
  bits = struct.unpack("<I", struct.pack("<f", f))[0]
  out = []
  for step in (-1, 1):
    if f == 0: nb = struct.unpack("<f", struct.pack("<I", 1 if step > 0 else 0x80000001))[0]
    else:
      b = bits + (step if f > 0 else -step)
      nb = struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]
    out.append(nb)
  return out


def _f32_of_fraction(x):
  """The float32 nearest the exact rational x (ties to even; overflow to +-inf), as a double."""
  if x == 0: return 0.0
  guess = _round_double(float(x), "float32")  # within one float32 step of the answer
  if math.isinf(guess):
    big = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
    # past the largest float32 by half a step (2^103) or more rounds to inf
    return guess if abs(x) >= Fraction(big) + Fraction(2) ** 103 else math.copysign(big, guess)
  best = None
  for c in [guess] + [n for n in _f32_neighbours(guess) if not math.isinf(n)]:
    d = abs(Fraction(c) - x)
    if best is None or d < best[0] or (d == best[0] and _f32_even(c) and not _f32_even(best[1])): best = (d, c)
  return best[1]


def _f32_even(f):
  return struct.unpack("<I", struct.pack("<f", f))[0] % 2 == 0


# ---- parsing

_DECIMAL = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def parse_value(text, dtype):
  """The value of one literal of `dtype` as the C++ parser reads it: int, bool or float (a
  float as the double holding the dtype's value). Raises ValueError_."""
  t = text.strip()
  if dtype == "bool":
    if t in ("true", "1"): return True
    if t in ("false", "0"): return False
    raise ValueError_(f"expected true or false, got {t!r}")
  if dtype in INT_RANGE:
    try:
      v = int(t, 10)
    except ValueError:
      raise ValueError_(f"expected an integer, got {t!r}") from None
    lo, hi = INT_RANGE[dtype]
    if not lo <= v <= hi: raise ValueError_(f"{t} does not fit in {dtype}")
    return v
  if dtype not in ("float16", "float32", "float64"): raise ValueError_(f"no values of dtype {dtype}")
  neg = t.startswith("-")
  body = t[1:] if t[:1] in "+-" else t
  if body == "inf": return -math.inf if neg else math.inf
  if body == "nan": return math.nan
  if not _DECIMAL.fullmatch(body): raise ValueError_(f"expected a float, got {t!r}")
  if dtype == "float32": v = _f32_of_fraction(Fraction(body))
  else: v = _round_double(float(body), dtype)  # float64; float16 through the double, as ir/parser.cpp
  return -v if neg else v


def _split_list(text):
  """The tokens of `[a, b, c]`."""
  t = text.strip()
  if not (t.startswith("[") and t.endswith("]")): raise ValueError_(f"expected [v, v, ...], got {t[:40]!r}")
  inner = t[1:-1].strip()
  return [x.strip() for x in inner.split(",")] if inner else []


def header_values(header):
  """({slot: [token, ...]} of the @input lines, {name: int} of the @var lines) of a list of
  header lines (uop_text.Kernel.header). Raises ValueError_ for a malformed line."""
  inputs, var_values = {}, {}
  for line in header:
    key, _, rest = line.partition(" ")
    if key == "@input":
      slot, _, values = rest.strip().partition(" ")
      try:
        slot = int(slot)
      except ValueError:
        raise ValueError_(f"@input: expected a slot number, got {slot!r}") from None
      if slot in inputs: raise ValueError_(f"@input {slot} given twice")
      inputs[slot] = _split_list(values)
    elif key == "@var":
      name, eq, value = rest.strip().partition("=")
      if not eq: raise ValueError_(f"@var: expected NAME=V, got {rest.strip()!r}")
      try:
        var_values[name.strip()] = int(value.strip())
      except ValueError:
        raise ValueError_(f"@var {name.strip()}: expected an integer, got {value.strip()!r}") from None
  return inputs, var_values


# ---- formatting

def _layout(digits, exp10, neg):
  """fmt's `{}` layout of the decimal 0.d1d2... with d1 at 10^exp10 (digits: no trailing zeros)."""
  sign = "-" if neg else ""
  n = len(digits)
  if -4 <= exp10 < 16:
    if exp10 >= n - 1: return sign + digits + "0" * (exp10 - n + 1)
    if exp10 >= 0: return sign + digits[:exp10 + 1] + "." + digits[exp10 + 1:]
    return sign + "0." + "0" * (-exp10 - 1) + digits
  mant = digits[0] + ("." + digits[1:] if n > 1 else "")
  return f"{sign}{mant}e{'+' if exp10 >= 0 else '-'}{abs(exp10):02d}"


def _sci(text):
  """(digits without trailing zeros, decimal exponent of the first digit) of '%e' or repr text."""
  mant, _, exp = text.partition("e")
  exp = int(exp) if exp else 0
  if "." in mant:
    whole, frac = mant.split(".")
  else:
    whole, frac = mant, ""
  digits = (whole + frac).lstrip("0")
  lead = len(whole.lstrip("0")) - 1 if whole.lstrip("0") else -(len(frac) - len(frac.lstrip("0")) + 1)
  digits = digits.rstrip("0") or "0"
  return digits, exp + lead


def _shortest_f32(v):
  """(digits, exp10) of the shortest decimal that reads back as the float32 v (finite, > 0),
  the one nearest v among the shortest."""
  for p in range(1, 10):
    digits, exp10 = _sci("%.*e" % (p - 1, v))
    base = int(digits.ljust(p, "0"))
    scale = exp10 - (p - 1)
    found = []
    for d in (base, base - 1, base + 1):
      # the double-rounded read (decimal -> double -> float32) filters; the exact one decides
      if d <= 0 or _round_double(float(f"{d}e{scale}"), "float32") != v: continue
      if _f32_of_fraction(Fraction(d) * Fraction(10) ** scale) == v: found.append(d)
    if found:
      d = min(found, key=lambda d: abs(Fraction(d) * Fraction(10) ** scale - Fraction(v)))
      s = str(d)
      return s.rstrip("0") or "0", scale + len(s) - 1
  return _sci("%.8e" % v)  # nine digits always read back


def format_value(value, dtype):
  """The text ir::format_value writes for `value` of `dtype`."""
  if dtype == "bool": return "true" if value else "false"
  if dtype in INT_RANGE or dtype == "index": return str(int(value))
  v = float(value)
  if math.isnan(v): return "nan"
  if math.isinf(v): return "inf" if v > 0 else "-inf"
  neg = math.copysign(1.0, v) < 0
  if v == 0: return "-0" if neg else "0"
  if dtype == "float64": digits, exp10 = _sci(repr(abs(v)))
  else: digits, exp10 = _shortest_f32(_round_double(abs(v), "float32"))  # a half is exact in float32
  return _layout(digits, exp10, neg)


def format_list(values, dtype):
  """`[v, v, ...]` as the @input/@output lines and the outputs frame write it."""
  return "[" + ", ".join(format_value(v, dtype) for v in values) + "]"


# ---- buffers

def pack(values, dtype):
  """The little-endian bytes of `values` (already of the dtype: parse_value's)."""
  f = FORMATS[dtype]
  if dtype in ("float16", "float32"): values = [_round_double(float(v), dtype) for v in values]
  if dtype == "float16":  # struct refuses an infinity past the largest half only when packing finite values
    return b"".join(struct.pack("<e", v) for v in values)
  return struct.pack(f"<{len(values)}{f}", *values)


def unpack(data, dtype):
  """The values of a buffer's little-endian bytes."""
  f = FORMATS[dtype]
  n = len(data) // ITEMSIZE[dtype]
  return list(struct.unpack(f"<{n}{f}", bytes(data[:n * ITEMSIZE[dtype]])))
