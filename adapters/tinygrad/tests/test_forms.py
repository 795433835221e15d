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


# A variable cast to float32 and halved: tinygrad's float variable of bounds [-1.5, 3]
# folds v < 3.25 to true and MAX(v, -2) to v; n = 5 gives [1, 2.5, 2.75].
FLOATS = """\
@output 0 [1, 2.5, 2.75]
@var n=5
%0 = PARAM slot=0 size=3 out : float32
%1 = CONST 0 : index
%2 = INDEX %0 %1 : float32
%3 = VAR name=n min=-3 max=6 : int32
%4 = CAST %3 : float32
%5 = CONST 0.5 : float32
%6 = MUL %4 %5 : float32
%7 = CONST 3.25 : float32
%8 = CMPLT %6 %7 : bool
%9 = CAST %8 : float32
%10 = STORE %2 %9 : void
%11 = CONST 1 : index
%12 = INDEX %0 %11 : float32
%13 = CONST -2 : float32
%14 = MAX %6 %13 : float32
%15 = STORE %12 %14 : void
%16 = CONST 2 : index
%17 = INDEX %0 %16 : float32
%18 = CONST 0.25 : float32
%19 = ADD %6 %18 : float32
%20 = STORE %17 %19 : void
%21 = SINK %10 %15 %20 : void
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

  def test_float_var_is_a_variable_with_the_expressions_bounds(self):
    from tinygrad.dtype import dtypes
    sink, conv = convert.to_tinygrad(with_forms("float-var", FLOATS))
    floats = [u for u in sink.toposort() if u.op is self.Ops.PARAM and u.dtype == dtypes.float32 and u.arg.vmin_vmax is not None]
    self.assertEqual(len(floats), 1)
    self.assertEqual(floats[0].arg.vmin_vmax, (-1.5, 3.0))
    self.assertFalse(any(u.op is self.Ops.CAST and u.src[0].op is self.Ops.PARAM for u in sink.toposort()))
    self.assertEqual(convert.var_values(conv, {"n": 5}), {"n": 5, floats[0].arg.name: 2.5})
    self.assertEqual(forms.offered("pipeline"), tuple(f for f in forms.FORMS if f != "float-var"),
                     "tinygrad's runtimes take int variable values only")

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
      self.assertEqual(a.hello.get("forms", "").split(), list(forms.offered(stage)))
      gates = tuple(f for f in forms.FORMS if f.startswith("gate-"))
      for words in gates + (" ".join(forms.FORMS),):
        frames = a.simplify(with_forms(words, kernel_body(GATED)))
        self.assertEqual(frames[-1][0], "ok", f"{words} at {stage}: {frames[-1]}")
        fired |= set(hits_of(frames))
        result = run_kernel(header, kernel_body(frames[-1][1]))
        self.assertEqual(result["outputs"][0]["values"], want, f"{words} at {stage}: {frames[-1][1]}")
    finally:
      a.close()
    self.assertTrue(fired & moved, f"no rule of pm_data_invalid fired at {stage}: {sorted(fired)[:20]}")

  def check_floats(self, stage):
    a = Adapter(stage=stage)
    try:
      frames = a.simplify(with_forms("float-var", kernel_body(FLOATS)))
    finally:
      a.close()
    self.assertEqual(frames[-1][0], "ok", frames[-1])
    rewritten = kernel_body(frames[-1][1])
    self.assertNotIn("CMPLT", rewritten, "v < 3.25 folds by the float variable's bounds")
    self.assertNotIn("MAX", rewritten, "MAX(v, -2) folds to v")
    header = "".join(line + "\n" for line in FLOATS.splitlines() if line.startswith("@"))
    self.assertEqual(run_kernel(header, rewritten)["outputs"][0]["values"], [1, 2.5, 2.75])

  def test_symbolic(self): self.check("symbolic")

  def test_float_var_symbolic(self): self.check_floats("symbolic")

  def test_float_var_full(self): self.check_floats("full")

  def test_full(self): self.check("full")


if __name__ == "__main__":
  unittest.main()
