"""Forms (uopfuzz_adapter/forms.py, docs/external-simplifier.md "Forms"): a kernel's `@forms`
line makes the converter spell its gated accesses as tinygrad's spec allows and .uop does
not. Each form must change the graph the way it says, pass tinygrad's kernel spec, and
mean the same: tinygrad's rewrite of the spelled kernel, read back, computes the kernel's
own outputs, and the rules that move Invalid back (uop/symbolic.py, pm_data_invalid) fire."""
import unittest

from adapter_process import Adapter, hits_of, kernel_body, run_kernel
from uopfuzz_adapter import convert, forms

# Two gated accesses with compound indexes and a two-clause gate:
#   out[2r+1] = in[(r+1) % 8 gated by r < 5 and 1 < r] * 3 for r in [0, 6) under the same gate.
GATED = """\
@output 0 [0, 0, 0, 0, 0, 12, 0, 15, 0, 18, 0, 0]
@input 1 [1, 2, 3, 4, 5, 6, 7, 8]
%0 = PARAM slot=0 size=12 out : int32
%1 = PARAM slot=1 size=8 in : int32
%2 = CONST 6 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = CONST 5 : index
%5 = CMPLT %3 %4 : bool
%6 = CONST 1 : index
%7 = CMPLT %6 %3 : bool
%8 = AND %5 %7 : bool
%9 = INVALID : index
%10 = ADD %3 %6 : index
%11 = CONST 8 : index
%12 = FLOORMOD %10 %11 : index
%13 = WHERE %8 %12 %9 : index
%14 = INDEX %1 %13 : int32
%15 = LOAD %14 : int32
%16 = CONST 3 : int32
%17 = MUL %15 %16 : int32
%18 = CONST 2 : index
%19 = MUL %3 %18 : index
%20 = ADD %19 %6 : index
%21 = WHERE %8 %20 %9 : index
%22 = INDEX %0 %21 : int32
%23 = STORE %22 %17 : void
%24 = END %23 %3 : void
%25 = SINK %24 : void
"""


def with_forms(words, text=GATED):
  return f"@forms {words}\n" + text


def gates(sink):
  from tinygrad.uop.ops import Ops
  return [u for u in sink.toposort() if u.op is Ops.WHERE and u.src[2].is_invalid or
          u.op is Ops.WHERE and u.src[1].is_invalid]


def consumers(sink):
  out = {}
  for u in sink.toposort():
    for s in u.src: out.setdefault(s, []).append(u)
  return out


def pm_data_invalid_lines():
  """The lines of tinygrad's pm_data_invalid (uop/symbolic.py), as hit names say them."""
  import tinygrad.uop.symbolic as symbolic
  lines = open(symbolic.__file__, encoding="utf-8").read().splitlines()
  start = next(k for k, line in enumerate(lines) if line.startswith("pm_data_invalid"))
  end = next(k for k in range(start, len(lines)) if lines[k].startswith("])"))
  return {f"uop/symbolic.py:{k + 1}" for k in range(start, end)}


class TestFormsGraph(unittest.TestCase):
  def setUp(self):
    from tinygrad.uop.ops import Ops
    self.Ops = Ops
    self.plain, _ = convert.to_tinygrad(GATED)

  def spelled(self, words):
    from tinygrad.uop.spec import spec_tensor, type_verify
    sink, conv = convert.to_tinygrad(with_forms(words))
    type_verify(sink, spec_tensor)  # tinygrad's kernel spec takes it
    self.assertIs(conv.plain, self.plain, "the plain graph is kept for bounds")
    return sink

  def test_plain_gates_sit_on_indexes(self):
    users = consumers(self.plain)
    self.assertEqual(len(gates(self.plain)), 2)
    for g in gates(self.plain): self.assertEqual({u.op for u in users[g]}, {self.Ops.INDEX})

  def test_gate_sink_moves_the_gate_under_alu_ops(self):
    sink = self.spelled("gate-sink")
    users = consumers(sink)
    # both gates reach the same leaf, r, under the same gate: one WHERE, used by r+1 and r*2
    self.assertEqual(len(gates(sink)), 1)
    g = gates(sink)[0]
    self.assertEqual({u.op for u in users[g]}, {self.Ops.ADD, self.Ops.MUL}, "moved into both index expressions")
    self.assertIs(g.src[1].op, self.Ops.RANGE, "down to the leaf")

  def test_gate_value_puts_the_store_gate_on_its_value(self):
    sink = self.spelled("gate-value")
    store = next(u for u in sink.toposort() if u.op is self.Ops.STORE)
    self.assertIs(store.src[1].op, self.Ops.WHERE)
    self.assertTrue(store.src[1].src[2].is_invalid)
    self.assertIs(store.src[0].src[1].op, self.Ops.ADD, "the store's index is ungated")

  def test_gate_nest_splits_an_and(self):
    sink = self.spelled("gate-nest")
    nested = [g for g in gates(sink) if g.src[1].op is self.Ops.WHERE and g.src[1].src[2].is_invalid]
    self.assertEqual(len(nested), 2)
    self.assertFalse(any(g.src[0].op is self.Ops.AND for g in gates(sink)))

  def test_gate_flip_swaps_the_branches(self):
    sink = self.spelled("gate-flip")
    for g in gates(sink):
      self.assertTrue(g.src[1].is_invalid)
      self.assertIs(g.src[0].op, self.Ops.CMPNE)

  def test_an_unknown_form_is_declined(self):
    with self.assertRaises(convert.Unsupported) as e:
      convert.to_tinygrad(with_forms("gate-twist"))
    self.assertEqual(e.exception.cls, "no-tinygrad-form")
    self.assertIn("gate-twist", str(e.exception))

  def test_parse_orders_and_checks(self):
    self.assertEqual(forms.parse("gate-flip gate-sink"), ("gate-sink", "gate-flip"))
    self.assertEqual(forms.parse(None), ())


class TestFormsMeanTheSame(unittest.TestCase):
  """Each form, and all of them, through tinygrad's rewrites and back: the kernel's outputs."""

  def check(self, stage):
    header = "".join(line + "\n" for line in GATED.splitlines() if line.startswith("@"))
    want = [0, 0, 0, 0, 0, 12, 0, 15, 0, 18, 0, 0]
    moved = pm_data_invalid_lines()
    fired = set()
    a = Adapter(stage=stage)
    try:
      self.assertEqual(a.hello.get("forms", "").split(), list(forms.FORMS))
      for words in forms.FORMS + (" ".join(forms.FORMS),):
        frames = a.simplify(with_forms(words, kernel_body(GATED)))
        self.assertEqual(frames[-1][0], "ok", f"{words} at {stage}: {frames[-1]}")
        fired |= set(hits_of(frames))
        result = run_kernel(header, kernel_body(frames[-1][1]))
        self.assertEqual(result["outputs"][0]["values"], want, f"{words} at {stage}: {frames[-1][1]}")
    finally:
      a.close()
    self.assertTrue(fired & moved, f"no rule of pm_data_invalid fired at {stage}: {sorted(fired)[:20]}")

  def test_symbolic(self): self.check("symbolic")

  def test_full(self): self.check("full")


if __name__ == "__main__":
  unittest.main()
