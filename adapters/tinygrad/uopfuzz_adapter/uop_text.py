""".uop kernel text: parse and print, without tinygrad.

The grammar is the one ir/parser.cpp reads (docs/uop-format.md): header lines
`@key value` before the first node, then one node a line, `%name = OP %srcs... args... :
dtype`, `#` starts a comment. Header lines are kept verbatim (their meaning is the C++
side's business); nodes keep their argument tokens as written, so printing a parsed
kernel gives text that `uopfuzz parse` reads to the same graph.
"""
import re

OPS = frozenset((
  "CONST", "INVALID", "PARAM", "VAR", "RANGE", "INDEX", "LOAD", "STORE", "END", "REDUCE", "SINK",
  "NEG", "CAST", "BITCAST", "RECIPROCAL", "SQRT", "EXP2", "LOG2", "SIN", "TRUNC",
  "QUANTIZE", "DEQUANTIZE", "REQUANTIZE",
  "ADD", "SUB", "MUL", "CDIV", "CMOD", "FLOORDIV", "FLOORMOD", "MAX", "MIN",
  "CMPLT", "CMPNE", "CMPEQ", "AND", "OR", "XOR", "SHL", "SHR", "WHERE",
  "RESHAPE", "PERMUTE", "EXPAND", "PAD", "SHRINK", "FLIP", "REDUCE_AXIS", "CONTIGUOUS", "REALIZE",
  "BUFFERIZE"))

DTYPES = frozenset(("void", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "float32", "float64", "index"))

# A quantized dtype: a storage integer with a scale and a zero point, `qint8<0.03,0>`,
# `quint8<0.08,3>` (docs/uop-format.md, "Quantized types"); the scale and zero point are not checked here.
QUANTIZED = re.compile(r"q(u?int(?:8|16|32))<[^<>,]+,[^<>,]+>")


def quantized_storage(dtype):
  """The storage integer of a quantized dtype name ("int8" for qint8<0.03,0>), or None."""
  m = QUANTIZED.fullmatch(dtype)
  return m.group(1) if m else None


def split_type(text):
  """(dtype, shape) of a node's type: `float32[2,3]` is ("float32", (2, 3)), `int32[]` is
  ("int32", ()) (a tensor program's rank-0 tensor), `index` is ("index", None) (a kernel
  node has no shape). Raises ValueError for a shape that is not a list of integers."""
  at = text.find("[")
  if at < 0: return text, None
  if not text.endswith("]"): raise ValueError(f"expected a shape like [2,3] after the dtype, got '{text}'")
  inner = text[at + 1:-1]
  return text[:at], tuple(int(d) for d in inner.split(",")) if inner else ()


def int_list(text):
  """The integers of `[1,0,2]` (an argument's list), () for `[]`."""
  if not (text.startswith("[") and text.endswith("]")): raise ValueError(f"expected a list like [1,0], got '{text}'")
  inner = text[1:-1]
  return tuple(int(x) for x in inner.split(",")) if inner.strip() else ()


def pair_list(text):
  """The (a, b) pairs of `[1:2,0:3]` (PAD's pad=, SHRINK's shrink=)."""
  if not (text.startswith("[") and text.endswith("]")): raise ValueError(f"expected a list like [1:2,0:3], got '{text}'")
  inner = text[1:-1]
  out = []
  for item in inner.split(",") if inner.strip() else ():
    a, colon, b = item.partition(":")
    if not colon: raise ValueError(f"expected before:after pairs, got '{item}'")
    out.append((int(a), int(b)))
  return tuple(out)


class UopTextError(ValueError):
  """Text that is not .uop; str(e) starts with `line N:`."""

  def __init__(self, line, message):
    super().__init__(f"line {line}: {message}")
    self.line = line


class Node:
  """One node line: `srcs` index Kernel.nodes, `args` are the argument tokens as written."""
  __slots__ = ("op", "srcs", "args", "dtype", "line")

  def __init__(self, op, srcs, args, dtype, line=0):
    self.op, self.srcs, self.args, self.dtype, self.line = op, list(srcs), list(args), dtype, line

  def keyed(self):
    """(key=value arguments as a dict, bare arguments as a list)."""
    kv, bare = {}, []
    for a in self.args:
      k, eq, v = a.partition("=")
      if eq and k: kv[k] = v
      else: bare.append(a)
    return kv, bare


class Kernel:
  """Header lines (`@key value`, verbatim) and nodes in topological order; the last is the root."""

  def __init__(self, header=None, nodes=None):
    self.header = list(header or [])
    self.nodes = list(nodes or [])

  @property
  def root(self):
    return self.nodes[-1]

  def header_value(self, key):
    for h in self.header:
      k, _, v = h[1:].partition(" ")
      if k == key: return v.strip()
    return None


def _strip_comment(line):
  at = line.find("#")
  return (line if at < 0 else line[:at]).rstrip(" \t\r")


def parse(text):
  """Kernel of `text`. Raises UopTextError naming the line."""
  kernel, names = Kernel(), {}
  last = 0
  for ln, raw in enumerate(text.split("\n"), start=1):
    line = _strip_comment(raw).lstrip(" \t")
    if not line: continue
    last = ln
    if line.startswith("@"):
      if kernel.nodes: raise UopTextError(ln, "header lines (@...) must come before the first node")
      if len(line.split()) < 2: raise UopTextError(ln, f"expected a value after {line.split()[0]}")
      kernel.header.append(" ".join(line.split(None, 1)))
      continue
    kernel.nodes.append(_parse_node(ln, line, names, len(kernel.nodes)))
  if not kernel.nodes: raise UopTextError(last or 1, "expected at least one node (the file has no SINK)")
  if kernel.root.op not in ("SINK", "REALIZE"):
    raise UopTextError(kernel.root.line, f"the last node must be the root (SINK or REALIZE), got {kernel.root.op}")
  return kernel


def _parse_node(ln, line, names, index):
  toks = line.replace("\t", " ").split()
  if not toks[0].startswith("%") or len(toks[0]) < 2:
    raise UopTextError(ln, f"expected a node name like %3 or a header line, got '{toks[0]}'")
  if len(toks) < 2 or toks[1] != "=": raise UopTextError(ln, "expected '=' after the node name")
  if len(toks) < 3: raise UopTextError(ln, "expected an op name after '='")
  op = toks[2]
  if op not in OPS: raise UopTextError(ln, f"unknown op '{op}'")
  if ":" not in toks[3:]: raise UopTextError(ln, "expected ': dtype' at the end of the node")
  colon = len(toks) - 1 - toks[::-1].index(":")
  dtype = "".join(toks[colon + 1:])
  if not dtype: raise UopTextError(ln, "expected a dtype after ':'")
  try:
    scalar, shape = split_type(dtype)
  except ValueError as e:
    raise UopTextError(ln, str(e)) from None
  if scalar not in DTYPES and not quantized_storage(scalar): raise UopTextError(ln, f"unknown dtype '{dtype}'")
  if shape is not None and any(d < 0 for d in shape): raise UopTextError(ln, f"a negative size in '{dtype}'")
  srcs, args = [], []
  for t in toks[3:colon]:
    if t.startswith("%"):
      if args: raise UopTextError(ln, "operands (%...) must come before the op's arguments")
      if t[1:] not in names: raise UopTextError(ln, f"use of undefined node '{t}'")
      srcs.append(names[t[1:]])
    else:
      args.append(t)
  if toks[0][1:] in names: raise UopTextError(ln, f"node {toks[0]} is defined twice")
  names[toks[0][1:]] = index
  return Node(op, srcs, args, dtype, ln)


def node_line(i, node):
  parts = [f"%{i} = {node.op}"] + [f"%{s}" for s in node.srcs] + node.args + [":", node.dtype]
  return " ".join(parts)


def print_kernel(kernel):
  """The kernel as .uop text (nodes named %0, %1, ... in order)."""
  lines = list(kernel.header) + [node_line(i, n) for i, n in enumerate(kernel.nodes)]
  return "\n".join(lines) + "\n"
