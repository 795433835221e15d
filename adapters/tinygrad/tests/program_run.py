"""Runs a Program's text (docs/cli.md, "Programs") kernel by kernel with `uopfuzz run`, for the
suites: each `@kernel` block is a kernel file of its own; its input slots get `@input` lines
with the values of the buffers bound to them, its outputs replace its output buffers'.
Buffers start zeroed, inputs hold the tensor program's @input values."""
import json
import math
import os
import tempfile

from adapter_process import uopfuzz
from uopfuzz_adapter import uop_text, values


class ProgramUB(AssertionError):
  """A kernel of the Program is undefined on uopfuzz's oracle (or ran past its step limit)."""


def parse_program(text):
  """([(role, index, dtype, shape)], [(block text, {slot: buffer})]) of a Program's text."""
  buffers, kernels = [], []
  lines = text.splitlines(keepends=True)
  i = 0
  while i < len(lines) and not lines[i].startswith("@kernel"):
    line = lines[i].split("#", 1)[0].strip()
    i += 1
    if not line: continue
    head, _, typ = line.partition(" : ")
    words = head.split()
    assert words[0] == "@buffer" and int(words[1]) == len(buffers), line
    dtype, shape = uop_text.split_type(typ.replace(" ", ""))
    buffers.append((words[2], int(words[3]) if len(words) > 3 and words[3].isdigit() else None, dtype, shape))
  while i < len(lines):
    j = i + 1
    while j < len(lines) and not lines[j].startswith("@kernel"): j += 1
    block = "".join(lines[i:j])
    slots = {}
    for line in lines[i:j]:
      if line.startswith("@slot"):
        w = line.split("#", 1)[0].split()
        slots[int(w[1])] = int(w[2].split("=")[1])
    kernels.append((block, slots))
    i = j
  return buffers, kernels


def _from_json(v, dtype):
  if isinstance(v, str): return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
  if dtype == "bool": return bool(v)
  return float(v) if dtype.startswith("float") else int(v)


def run_program(text, inputs):
  """{REALIZE index: values} of the Program `text` run on uopfuzz's oracle, kernel by kernel;
  inputs: {slot: values} of the tensor program's inputs."""
  buffers, kernels = parse_program(text)
  contents = []
  for role, index, dtype, shape in buffers:
    n = 1
    for d in shape: n *= d
    contents.append(list(inputs[index]) if role == "input" else [0] * n)
  for k, (block, slots) in enumerate(kernels):
    kernel = uop_text.parse(block)
    header = list(kernel.header)
    for node in kernel.nodes:
      if node.op != "PARAM": continue
      kv, bare = node.keyed()
      slot = int(kv["slot"])
      if "in" in bare: header.append(f"@input {slot} {values.format_list(contents[slots[slot]], node.dtype)}")
    with tempfile.NamedTemporaryFile("w", suffix=".uop", delete=False) as f:
      f.write(uop_text.print_kernel(uop_text.Kernel(header, kernel.nodes)))
    try:
      result = json.loads(uopfuzz("run", "--json", f.name, ok_status=(0, 1)))
    finally:
      os.unlink(f.name)
    if result["status"] != "ok":
      raise ProgramUB(f"kernel {k}: {result['status']} {result.get('ub', '')}")
    for out in result["outputs"]:
      contents[slots[out["slot"]]] = [_from_json(v, out["dtype"]) for v in out["values"]]
  return {index: contents[b] for b, (role, index, _, _) in enumerate(buffers) if role == "output"}
