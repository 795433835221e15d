"""The run requests' semantic gate (uopfuzz_adapter/semantics.py run_gate, asked first by
server.answer_run): each declared difference of corpus/findings/tinygrad/root-causes.md it
implements is declined with its class on the inputs where it can show, and only there; the
real bugs next to it stay checkable.

- nan-max (max-reduce-skips-nan): a float MAX/MIN reduce over a NaN on this run;
- signed-overflow (subint-signed-overflow-not-gated-end-to-end, signed-cdiv-overflow-not-gated):
  an int8/int16 result that overflows into an op reading it unwrapped, a signed MIN / -1;
- transcendental-ulps (device-transcendental-ulps): EXP2/LOG2/SIN of float16/bfloat16;
- float-sum-order (device-opts-reassociate-float-sum): a float sum reaching an output through
  other ops where the order of its additions can change that output.
"""
import math
import unittest

from uopfuzz_adapter import semantics, server, tensor
from uopfuzz_adapter.declines import CLASSES, class_of


def program(body, **inputs):
  """A tensor program's text: `body` (node lines) with an @input line per slot=values."""
  lines = [f"@input {slot[1:]} [{', '.join('nan' if isinstance(v, float) and math.isnan(v) else repr(v) for v in vals)}]"
           for slot, vals in inputs.items()]
  return "\n".join(lines) + "\n" + body


MAX_OVER_BITCAST = """\
%0 = PARAM slot=0 in : int32[2,3]
%1 = BITCAST %0 : float32[2,3]
%2 = REDUCE_AXIS %1 op={op} axes=[1] : float32[2,1]
%3 = REALIZE %2 : void
"""

INT8_PLUS_126_WIDENED = """\
%0 = PARAM slot=0 in : {dt}[1]
%1 = CONST 126 : {dt}[1]
%2 = ADD %0 %1 : {dt}[1]
%3 = CAST %2 : int64[1]
%4 = REALIZE %3 : void
"""

INT8_PLUS_126_STORED = """\
%0 = PARAM slot=0 in : int8[1]
%1 = CONST 126 : int8[1]
%2 = ADD %0 %1 : int8[1]
%3 = RESHAPE %2 : int8[1,1]
%4 = REALIZE %3 : void
"""

FLOORMOD_BY_ODD = """\
%0 = PARAM slot=0 in : int32[2]
%1 = PARAM slot=1 in : int32[2]
%2 = CONST 1 : int32[2]
%3 = OR %1 %2 : int32[2]
%4 = FLOORMOD %0 %3 : int32[2]
%5 = REALIZE %4 : void
"""

EXP2_OF = """\
%0 = PARAM slot=0 in : {dt}[2]
%1 = EXP2 %0 : {dt}[2]
%2 = REALIZE %1 : void
"""

EXP2_KERNEL = """\
%0 = PARAM slot=0 size=1 out : float16
%1 = PARAM slot=1 size=1 in : float16
%2 = CONST 0 : index
%3 = INDEX %1 %2 : float16
%4 = LOAD %3 : float16
%5 = EXP2 %4 : float16
%6 = INDEX %0 %2 : float16
%7 = STORE %6 %5 : void
%8 = SINK %7 : void
"""

# a sum of {n} float32 terms, then `+ p` (the sum is not stored as it is)
SUM_THEN_ADD = """\
%0 = PARAM slot=0 in : float32[{n}]
%1 = REDUCE_AXIS %0 op=ADD axes=[0] : float32[1]
%2 = PARAM slot=1 in : float32[1]
%3 = ADD %1 %2 : float32[1]
%4 = REALIZE %3 : void
"""

SUM_ALONE = """\
%0 = PARAM slot=0 in : float32[48]
%1 = REDUCE_AXIS %0 op=ADD axes=[0] : float32[1]
%2 = REALIZE %1 : void
"""

# the bits of NaN (0x7fc00000) and of 1.0f, 2.0f as int32
NAN_BITS, ONE_BITS, TWO_BITS = 2143289344, 1065353216, 1073741824


def gate(text):
  return semantics.run_gate(text)


def cls(text):
  reason = gate(text)
  return None if reason is None else class_of(reason)


class TestNanMax(unittest.TestCase):
  def test_max_reduce_over_a_nan_is_declined(self):
    text = program(MAX_OVER_BITCAST.format(op="MAX"), s0=[NAN_BITS, ONE_BITS, TWO_BITS, ONE_BITS, TWO_BITS, ONE_BITS])
    self.assertEqual(cls(text), "nan-max")

  def test_min_reduce_over_a_nan_is_declined(self):
    text = program(MAX_OVER_BITCAST.format(op="MIN"), s0=[ONE_BITS, ONE_BITS, TWO_BITS, ONE_BITS, TWO_BITS, NAN_BITS])
    self.assertEqual(cls(text), "nan-max")

  def test_the_same_reduce_without_a_nan_is_checked(self):
    text = program(MAX_OVER_BITCAST.format(op="MAX"), s0=[ONE_BITS, ONE_BITS, TWO_BITS, ONE_BITS, TWO_BITS, ONE_BITS])
    self.assertIsNone(gate(text))

  def test_a_sum_over_a_nan_is_checked(self):
    text = program(MAX_OVER_BITCAST.format(op="ADD"), s0=[NAN_BITS, ONE_BITS, TWO_BITS, ONE_BITS, TWO_BITS, ONE_BITS])
    self.assertIsNone(gate(text))


class TestSignedOverflow(unittest.TestCase):
  def test_int8_overflow_into_a_widening_cast_is_declined(self):
    self.assertEqual(cls(program(INT8_PLUS_126_WIDENED.format(dt="int8"), s0=[2])), "signed-overflow")

  def test_no_overflow_on_this_run_is_checked(self):
    self.assertIsNone(gate(program(INT8_PLUS_126_WIDENED.format(dt="int8"), s0=[1])))

  def test_unsigned_wrap_stays_checked(self):
    # uint8 250 + 126 wraps in C too: tinygrad's unnarrowed result is cstyle-subint-alu-not-narrowed, a real bug
    self.assertIsNone(gate(program(INT8_PLUS_126_WIDENED.format(dt="uint8"), s0=[250])))

  def test_overflow_only_stored_is_checked(self):
    self.assertIsNone(gate(program(INT8_PLUS_126_STORED, s0=[2])))

  def test_min_floormod_minus_one_is_declined(self):
    self.assertEqual(cls(program(FLOORMOD_BY_ODD, s0=[-2**31, 7], s1=[-2, 4])), "signed-overflow")

  def test_min_floormod_another_divisor_is_checked(self):
    self.assertIsNone(gate(program(FLOORMOD_BY_ODD, s0=[-2**31, 7], s1=[2, 4])))


class TestTranscendentalUlps(unittest.TestCase):
  def test_float16_exp2_is_declined(self):
    self.assertEqual(cls(program(EXP2_OF.format(dt="float16"), s0=[1.5, -2.25])), "transcendental-ulps")

  def test_float32_exp2_is_checked(self):
    self.assertIsNone(gate(program(EXP2_OF.format(dt="float32"), s0=[1.5, -2.25])))

  def test_float16_exp2_kernel_is_declined(self):
    self.assertEqual(cls(EXP2_KERNEL), "transcendental-ulps")


class TestFloatSumOrder(unittest.TestCase):
  def test_a_cancelling_sum_then_an_add_is_declined(self):
    terms = [1e6 + k * 0.37 if k % 2 else -1e6 + k * 0.11 for k in range(48)]
    self.assertEqual(cls(program(SUM_THEN_ADD.format(n=48), s0=terms, s1=[0.5])), "float-sum-order")

  def test_a_sum_of_two_terms_then_an_add_is_checked(self):
    # two terms add the same in either order
    self.assertIsNone(gate(program(SUM_THEN_ADD.format(n=2), s0=[1e6 + 0.37, -3.25], s1=[0.5])))

  def test_exact_small_integers_are_checked(self):
    # every partial sum is exact in float32, whatever the order: the bound stays below half a ULP
    self.assertIsNone(gate(program(SUM_THEN_ADD.format(n=4), s0=[1.0, 2.0, 3.0, 4.0], s1=[0.5])))

  def test_a_sum_stored_as_it_is_is_left_to_uopfuzz(self):
    terms = [1e6 + k * 0.37 if k % 2 else -1e6 + k * 0.11 for k in range(48)]
    self.assertIsNone(gate(program(SUM_ALONE, s0=terms)))


  def test_a_float16_sum_past_any_bound_is_declined(self):
    # 3070 float16 ones: 2048 in order, 3070 pairwise (tinygrad folds the sum of a constant to
    # c*n): n*u >= 1, so no reassociation bound holds even for the sum stored as it is
    text = """\
%0 = CONST 1 : float16[1,1,3070]
%1 = REDUCE_AXIS %0 op=ADD axes=[2] : float16[1,1,1]
%2 = REALIZE %1 : void
"""
    self.assertEqual(cls(text), "float-sum-order")

  def test_a_float16_sum_within_the_bound_is_left_to_uopfuzz(self):
    self.assertIsNone(gate(program("""\
%0 = PARAM slot=0 in : float16[5]
%1 = REDUCE_AXIS %0 op=ADD axes=[0] : float16[1]
%2 = REALIZE %1 : void
""", s0=[1.5, -3.25, 7.125, 0.3, 2.0])))


class TestEvaluator(unittest.TestCase):
  def test_values_follow_semantics(self):
    # int8 wraps, FLOORMOD takes the divisor's sign, a PAD adds zeros, a FLIP reverses
    text = program("""\
%0 = PARAM slot=0 in : int8[3]
%1 = CONST 100 : int8[3]
%2 = ADD %0 %1 : int8[3]
%3 = CONST -3 : int8[3]
%4 = FLOORMOD %2 %3 : int8[3]
%5 = PAD %4 pad=[1:0] : int8[4]
%6 = FLIP %5 axes=[0] : int8[4]
%7 = REALIZE %6 : void
""", s0=[30, -5, 7])
    prog = tensor.Program(text)
    ev = semantics.TensorValues(prog)
    # 130 -> -126, 95, 107; floormod -3: 0, -1, -1; padded [0, 0, -1, -1]; flipped
    self.assertEqual(ev.vals[prog.outputs[0]], [-1, -1, 0, 0])


class TestServer(unittest.TestCase):
  def test_answer_run_declines_with_the_gate(self):
    class Sim:
      package_dir = "/nonexistent"
    text = program(MAX_OVER_BITCAST.format(op="MAX"), s0=[NAN_BITS, ONE_BITS, TWO_BITS, ONE_BITS, TWO_BITS, ONE_BITS])
    out = server.answer_run(Sim(), text, ["PYTHON"])
    self.assertTrue(out.startswith(b"unsupported "), out[:80])
    self.assertIn(b"[nan-max]", out)

  def test_every_class_is_declared(self):
    for c in ("nan-max", "signed-overflow", "transcendental-ulps", "float-sum-order"):
      self.assertIn(c, CLASSES)


if __name__ == "__main__":
  unittest.main()
