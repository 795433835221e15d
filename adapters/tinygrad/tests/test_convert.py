"""The converter one op and dtype at a time, both ways, and the semantics gate's decisions
on hand-written kernels. Expected values come from the definitions (SEMANTICS.md, the
.uop format, tinygrad's UOp constructors), written out by hand."""
import math
import unittest

from tinygrad.dtype import AddrSpace, Invalid, dtypes
from tinygrad.uop.ops import AxisType, KernelInfo, Ops, UOp

from uopfuzz_adapter import convert, semantics, uop_text
from uopfuzz_adapter.convert import Unsupported


def kernel(*body, out="int32", header=""):
  """A kernel storing the last body node into out[0]; body lines number from %3."""
  pre = [f"%0 = PARAM slot=0 size=1 out : {out}", "%1 = CONST 0 : index", f"%2 = INDEX %0 %1 : {out}"]
  n = 3 + len(body)
  return header + "\n".join(pre + list(body) + [f"%{n} = STORE %2 %{n - 1} : void", f"%{n + 1} = SINK %{n} : void"]) + "\n"


def stored(sink):
  """The value the kernel's one STORE writes."""
  return sink.src[0].src[1]


def nodes(text):
  return [uop_text.node_line(i, n).split(" = ", 1)[1] for i, n in enumerate(uop_text.parse(text).nodes)]


def back(sink, text=None):
  """.uop lines of a tinygrad sink, converted with the Conversion of `text` (default: the
  plain int32 kernel, whose PARAM is slot 0)."""
  _, conv = convert.to_tinygrad(text or kernel("%3 = CONST 1 : int32"))
  return nodes(convert.from_tinygrad(sink, conv))


def out_param(dt=dtypes.int32):
  return UOp.param(0, dt, shape=(1,))


def store_sink(value, dt=dtypes.int32):
  idx = UOp(Ops.INDEX, dt, src=(out_param(dt), UOp(Ops.CONST, dtypes.weakint, arg=0)))
  return UOp(Ops.SINK, dtypes.void, src=(UOp(Ops.STORE, dtypes.void, src=(idx, value)),), arg=KernelInfo())


class ToTinygrad(unittest.TestCase):
  def test_float_constants_keep_inf_nan_and_negative_zero(self):
    for lit, check in (("inf", lambda v: v == math.inf), ("-inf", lambda v: v == -math.inf), ("nan", math.isnan),
                       ("-0.0", lambda v: v == 0 and math.copysign(1, v) == -1), ("0.5", lambda v: v == 0.5)):
      with self.subTest(lit=lit):
        c = stored(convert.to_tinygrad(kernel(f"%3 = CONST {lit} : float32", out="float32"))[0])
        self.assertIs(c.op, Ops.CONST)
        self.assertIs(c.dtype, dtypes.float32)
        self.assertTrue(check(float(c.arg)))

  def test_int_bool_and_index_constants(self):
    c = stored(convert.to_tinygrad(kernel("%3 = CONST -128 : int8", out="int8"))[0])
    self.assertEqual((c.dtype, c.arg), (dtypes.int8, -128))
    c = stored(convert.to_tinygrad(kernel("%3 = CONST true : bool", out="bool"))[0])
    self.assertEqual((c.dtype, c.arg), (dtypes.bool, True))
    sink, _ = convert.to_tinygrad(kernel("%3 = CONST 7 : index", "%4 = CAST %3 : int32"))
    self.assertEqual((stored(sink).src[0].dtype, stored(sink).src[0].arg), (dtypes.weakint, 7))

  def test_dtypes_map_both_ways(self):
    for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64"):
      with self.subTest(dtype=name):
        self.assertEqual(convert.DTYPE_TO_TG[name].name, {
          "bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long",
          "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
          "uint64": "unsigned long", "float16": "half", "float32": "float", "float64": "double"}[name])
        self.assertEqual(convert.DTYPE_FROM_TG[convert.DTYPE_TO_TG[name]], name)
    self.assertIs(convert.DTYPE_TO_TG["index"], dtypes.weakint)

  def test_param_slot_size_and_bounds(self):
    text = kernel("%3 = PARAM slot=2 size=8 in vmin=-3 vmax=12 : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32")
    p = stored(convert.to_tinygrad(text)[0]).src[0]
    self.assertIs(p.op, Ops.PARAM)
    self.assertEqual((p.arg.slot, p.arg.dtype, p.arg.vmin_vmax), (2, dtypes.int32, (-3, 12)))
    self.assertEqual((p.src[0].op, p.src[0].arg), (Ops.CONST, 8))
    one_sided = kernel("%3 = PARAM slot=1 size=2 in vmin=0 : uint8", "%4 = INDEX %3 %1 : uint8", "%5 = LOAD %4 : uint8", out="uint8")
    self.assertEqual(stored(convert.to_tinygrad(one_sided)[0]).src[0].arg.vmin_vmax, (0, 255))

  def test_var_is_an_alu_param_with_bounds(self):
    sink, _ = convert.to_tinygrad(kernel("%3 = VAR name=n min=2 max=9 : index", "%4 = CAST %3 : int32"))
    v = stored(sink).src[0]
    self.assertEqual((v.op, v.arg.addrspace, v.arg.name, v.arg.vmin_vmax, v.dtype),
                     (Ops.PARAM, AddrSpace.ALU, "n", (2, 9), dtypes.weakint))

  def test_range_axis_ids_and_type(self):
    text = kernel("%3 = CONST 4 : index", "%4 = RANGE %3 axis=3.1 LOOP : index", "%5 = CAST %4 : int32",
                  "%6 = REDUCE %5 %4 op=MUL : int32")
    red = stored(convert.to_tinygrad(text)[0])
    self.assertEqual((red.op, red.arg[0]), (Ops.REDUCE, Ops.MUL))
    rng = red.src[1]
    self.assertEqual((rng.op, rng.arg, rng.dtype), (Ops.RANGE, (3, 1, AxisType.LOOP), dtypes.weakint))

  def test_gated_index_and_loads(self):
    text = kernel("%3 = PARAM slot=1 size=4 in : int32", "%4 = CONST 4 : index", "%5 = RANGE %4 axis=0 REDUCE : index",
                  "%6 = CONST 2 : index", "%7 = CMPLT %5 %6 : bool", "%8 = INVALID : index", "%9 = WHERE %7 %5 %8 : index",
                  "%10 = INDEX %3 %9 : int32", "%11 = CONST 5 : int32", "%12 = LOAD %10 %11 : int32", "%13 = LOAD %10 : int32",
                  "%14 = ADD %12 %13 : int32", "%15 = REDUCE %14 %5 op=ADD : int32")
    add = stored(convert.to_tinygrad(text)[0]).src[0]
    with_alt, plain = add.src
    # an explicit LOAD only where it carries an alt; otherwise tinygrad reads the INDEX
    self.assertEqual((with_alt.op, len(with_alt.src)), (Ops.LOAD, 2))
    self.assertIs(plain.op, Ops.INDEX)
    gate = plain.src[1]
    self.assertIs(gate.op, Ops.WHERE)
    self.assertIs(gate.src[2].arg, Invalid)

  def test_alu_ops_keep_their_names(self):
    for name in ("ADD", "SUB", "MUL", "CDIV", "CMOD", "FLOORDIV", "FLOORMOD", "MAX", "AND", "OR", "XOR", "SHL", "SHR"):
      with self.subTest(op=name):
        text = kernel("%3 = CONST 6 : int32", "%4 = CONST 3 : int32", f"%5 = {name} %3 %4 : int32")
        self.assertIs(stored(convert.to_tinygrad(text)[0]).op, getattr(Ops, name))
    for name in ("CMPLT", "CMPNE", "CMPEQ"):
      text = kernel("%3 = CONST 6 : int32", "%4 = CONST 3 : int32", f"%5 = {name} %3 %4 : bool", out="bool")
      self.assertIs(stored(convert.to_tinygrad(text)[0]).op, getattr(Ops, name))
    for name in ("NEG", "RECIPROCAL", "SQRT", "EXP2", "LOG2", "SIN", "TRUNC"):
      text = kernel("%3 = CONST 2.5 : float32", f"%4 = {name} %3 : float32", out="float32")
      self.assertIs(stored(convert.to_tinygrad(text)[0]).op, getattr(Ops, name))

  def test_cast_and_bitcast_carry_the_target_dtype(self):
    for op in ("CAST", "BITCAST"):
      u = stored(convert.to_tinygrad(kernel("%3 = CONST 1 : int32", f"%4 = {op} %3 : float32", out="float32"))[0])
      self.assertEqual((u.op, u.dtype, u.arg), (getattr(Ops, op), dtypes.float32, dtypes.float32))

  def test_min_goes_as_flipped_max(self):
    u = stored(convert.to_tinygrad(kernel("%3 = CONST 6 : int32", "%4 = CONST 3 : int32", "%5 = MIN %3 %4 : int32"))[0])
    self.assertEqual((u.op, u.src[1].arg), (Ops.XOR, -1))
    self.assertIs(u.src[0].op, Ops.MAX)
    u = stored(convert.to_tinygrad(kernel("%3 = CONST 6 : uint8", "%4 = CONST 3 : uint8", "%5 = MIN %3 %4 : uint8", out="uint8"))[0])
    self.assertEqual(u.src[1].arg, 255)
    u = stored(convert.to_tinygrad(kernel("%3 = CONST 6 : float32", "%4 = CONST 3 : float32", "%5 = MIN %3 %4 : float32",
                                          out="float32"))[0])
    self.assertEqual((u.op, u.src[0].op), (Ops.NEG, Ops.MAX))
    text = kernel("%3 = CONST 4 : index", "%4 = RANGE %3 axis=0 REDUCE : index", "%5 = CAST %4 : int32",
                  "%6 = REDUCE %5 %4 op=MIN : int32")
    u = stored(convert.to_tinygrad(text)[0])
    self.assertEqual((u.op, u.src[0].op, u.src[0].arg[0]), (Ops.XOR, Ops.REDUCE, Ops.MAX))

  def test_refusals_name_the_reason(self):
    with self.assertRaisesRegex(Unsupported, r"^\[tensor-program\] .*REALIZE"):
      convert.to_tinygrad("%0 = PARAM slot=0 in : int32[2]\n%1 = REALIZE %0 : void\n")
    # a reason names the cause alone (no line, no value), so reasons count by cause
    for text in ("%0 = CONST 1 : int32\n%1 = ADD %0 %9 : int32\n%2 = SINK : void\n",
                 "%0 = CONST 1 : int32\n%1 = CONST 7 : int32\n%2 = ADD %1 %5 : int32\n%3 = SINK : void\n"):
      with self.assertRaises(Unsupported) as e:
        convert.to_tinygrad(text)
      self.assertEqual(str(e.exception), "[no-tinygrad-form] not a .uop kernel (it does not parse)")
    with self.assertRaises(Unsupported) as e:
      convert.to_tinygrad(kernel("%3 = RANGE %1 axis=0 NOTANAXIS : index", "%4 = CAST %3 : int32"))
    self.assertNotRegex(str(e.exception), r"line|\d")


# out[r] = REQUANTIZE(in[r]) from qint8<0.03,0> to qint8<0.12,0> (docs/uop-format.md, "Quantized types").
QUANTIZED_KERNEL = """\
%0 = PARAM slot=0 size=4 in : qint8<0.03,0>
%1 = PARAM slot=1 size=4 out : qint8<0.12,0>
%2 = CONST 4 : index
%3 = RANGE %2 axis=0 LOOP : index
%4 = INDEX %0 %3 : qint8<0.03,0>
%5 = LOAD %4 : qint8<0.03,0>
%6 = REQUANTIZE %5 : qint8<0.12,0>
%7 = INDEX %1 %3 : qint8<0.12,0>
%8 = STORE %7 %6 : void
%9 = END %8 %3 : void
%10 = SINK %9 : void
"""


class Quantized(unittest.TestCase):
  """Quantized types are uopfuzz's own: tinygrad has none, so a kernel with one is refused
  by name, never converted to something that means another thing."""

  def test_quantized_text_parses_and_prints_back(self):
    self.assertEqual(uop_text.print_kernel(uop_text.parse(QUANTIZED_KERNEL)), QUANTIZED_KERNEL)
    self.assertEqual(uop_text.quantized_storage("quint8<0.08,3>"), "uint8")
    self.assertEqual(uop_text.quantized_storage("qint32<1e-05,0>"), "int32")
    self.assertIsNone(uop_text.quantized_storage("int8"))
    self.assertIsNone(uop_text.quantized_storage("qint64<1,0>"))

  def test_quantized_dtype_is_refused_by_cause(self):
    with self.assertRaises(Unsupported) as e:
      convert.to_tinygrad(QUANTIZED_KERNEL)
    self.assertEqual(str(e.exception), "[quantized] quantized dtype qint8 (tinygrad has no quantized types)")
    self.assertEqual(e.exception.cls, "quantized")

  def test_every_quantized_conversion_is_refused(self):
    cases = (
      ("%3 = CONST 1.5 : float32", "%4 = QUANTIZE %3 : quint8<0.5,3>", "quint8<0.5,3>", "[quantized] quantized dtype quint8"),
      ("%3 = CONST 11 : qint8<0.04,7>", "%4 = DEQUANTIZE %3 : float32", "float32", "[quantized] quantized dtype qint8"),
      ("%3 = CONST 11 : int16", "%4 = BITCAST %3 : qint16<0.04,7>", "int16", "[quantized] quantized dtype qint16"),
    )
    for first, second, out, reason in cases:
      with self.assertRaises(Unsupported) as e:
        convert.to_tinygrad(kernel(first, second, out=out))
      self.assertTrue(str(e.exception).startswith(reason), str(e.exception))
    # an op refused by name even where no quantized dtype precedes it
    with self.assertRaisesRegex(Unsupported, r"^\[quantized\] op DEQUANTIZE"):
      convert._to_uop(uop_text.Node("DEQUANTIZE", [0], [], "float32"), [None], None, None)


class FromTinygrad(unittest.TestCase):
  def test_weak_constant_takes_its_use_dtype(self):
    x = UOp(Ops.CAST, dtypes.int32, src=(UOp.variable("n", 0, 9, param=True),), arg=dtypes.int32)
    text = kernel("%3 = VAR name=n min=0 max=9 : index", "%4 = CAST %3 : int32")
    got = back(store_sink(UOp(Ops.ADD, dtypes.int32, src=(x, UOp(Ops.CONST, dtypes.weakint, arg=5)))), text)
    self.assertIn("CONST 5 : int32", got)
    self.assertIn("VAR name=n min=0 max=9 : index", got)

  def test_sized_constant_outside_its_dtype_wraps(self):
    self.assertIn("CONST 3 : int32", back(store_sink(UOp(Ops.CONST, dtypes.int32, arg=2**32 + 3))))
    self.assertIn("CONST -56 : int8", back(store_sink(UOp(Ops.CONST, dtypes.int8, arg=200), dtypes.int8),
                                            kernel("%3 = CONST 1 : int8", out="int8")))

  def test_index_constant_past_int64_is_refused(self):
    c = UOp(Ops.CONST, dtypes.weakint, arg=2**63)
    with self.assertRaisesRegex(Unsupported, r"^\[index-past-int64\] .*outside int64"):
      back(store_sink(UOp(Ops.CAST, dtypes.int32, src=(UOp(Ops.ADD, dtypes.weakint, src=(c, c)),), arg=dtypes.int32)))

  def test_index_read_as_a_value_is_a_load(self):
    text = kernel("%3 = PARAM slot=1 size=2 in : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32")
    src = UOp(Ops.INDEX, dtypes.int32, src=(UOp.param(1, dtypes.int32, shape=(2,)), UOp(Ops.CONST, dtypes.weakint, arg=1)))
    got = back(store_sink(src), text)
    # %3 PARAM, %4 CONST 1 : index, %5 INDEX
    self.assertEqual(got[-3:], ["LOAD %5 : int32", "STORE %2 %6 : void", "SINK %7 : void"])

  def test_noop_effect_is_dropped(self):
    sink = UOp(Ops.SINK, dtypes.void, src=(UOp(Ops.NOOP),), arg=KernelInfo())
    self.assertEqual(back(sink), ["SINK : void"])

  def test_tinygrad_only_op_is_refused_by_name(self):
    after = UOp(Ops.AFTER, dtypes.int32, src=(UOp(Ops.CONST, dtypes.int32, arg=1), UOp(Ops.CONST, dtypes.int32, arg=2)))
    with self.assertRaisesRegex(Unsupported, r"^\[no-uop-form\] .*AFTER"):
      back(store_sink(after))
    with self.assertRaisesRegex(Unsupported, r"^\[no-uop-form\] .*(weakfloat|bfloat16|MULACC)"):
      f = UOp.const(1.0, dtypes.float32)
      back(store_sink(UOp(Ops.MULACC, dtypes.float32, src=(f, f, f)), dtypes.float32), kernel("%3 = CONST 1.0 : float32", out="float32"))

  def test_narrowed_range_is_an_index_range_and_a_cast(self):
    rng = UOp(Ops.RANGE, dtypes.int32, src=(UOp(Ops.CONST, dtypes.int32, arg=4),), arg=(0, AxisType.REDUCE))
    red = UOp(Ops.REDUCE, dtypes.int32, src=(rng, rng), arg=(Ops.ADD, 0))
    got = back(store_sink(red))
    # the loop runs on index (a constant end is that constant); the value is its int32 CAST
    self.assertEqual(got[3:7], ["CONST 4 : index", "RANGE %3 axis=0 REDUCE : index", "CAST %4 : int32",
                                "REDUCE %5 %4 op=ADD : int32"])

  def test_pinned_buffer_reads_as_its_constant(self):
    text = kernel("%3 = PARAM slot=1 size=2 in vmin=3 vmax=3 : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32")
    exp = UOp(Ops.EXPAND, dtypes.int32, src=(UOp(Ops.CONST, dtypes.int32, arg=3), UOp(Ops.CONST, dtypes.weakint, arg=2)))
    got = back(store_sink(UOp(Ops.INDEX, dtypes.int32, src=(exp, UOp(Ops.CONST, dtypes.weakint, arg=1)))), text)
    self.assertEqual(got[-3:], ["CONST 3 : int32", "STORE %2 %3 : void", "SINK %4 : void"])
    # its index folded to a bare Invalid (gate always false): the read is gated off, 0
    got = back(store_sink(UOp(Ops.INDEX, dtypes.int32, src=(exp, UOp.invalid()))), text)
    self.assertEqual(got[-3:], ["CONST 0 : int32", "STORE %2 %3 : void", "SINK %4 : void"])

  def test_closers_drop_a_range_folded_to_a_constant(self):
    # tinygrad folds a RANGE of end 1 to CONST 0 and leaves it among the closed ranges;
    # its lowering skips such entries (one iteration), so they read back dropped
    four, folded = UOp(Ops.CONST, dtypes.weakint, arg=4), UOp(Ops.CONST, dtypes.weakint, arg=0)
    r0 = UOp(Ops.RANGE, dtypes.weakint, src=(four,), arg=(0, AxisType.LOOP))
    sink = store_sink(UOp(Ops.CONST, dtypes.int32, arg=1))
    ended = sink.replace(src=(UOp(Ops.END, dtypes.void, src=(sink.src[0], folded, r0)),))
    self.assertEqual(back(ended)[-5:], ["STORE %2 %3 : void", "CONST 4 : index", "RANGE %5 axis=0 LOOP : index",
                                        "END %4 %6 : void", "SINK %7 : void"])
    x = UOp(Ops.CAST, dtypes.int32, src=(r0,), arg=dtypes.int32)
    got = back(store_sink(UOp(Ops.REDUCE, dtypes.int32, src=(x, folded, r0), arg=(Ops.ADD, 0))))
    self.assertEqual(got[-3], "REDUCE %5 %4 op=ADD : int32")

  def test_reduce_of_folded_ranges_only_is_one_fold_step(self):
    # no RANGE left: acc = identity, acc = acc op x (SEMANTICS.md's identities)
    folded = UOp(Ops.CONST, dtypes.weakint, arg=0)
    f32 = kernel("%3 = CONST 1.0 : float32", out="float32")
    x = UOp(Ops.CONST, dtypes.float32, arg=-0.0)
    for op, identity in ((Ops.ADD, "0.0"), (Ops.MUL, "1.0"), (Ops.MAX, "-inf")):
      got = back(store_sink(UOp(Ops.REDUCE, dtypes.float32, src=(x, folded), arg=(op, 0)), dtypes.float32), f32)
      self.assertEqual(got[3:6], ["CONST -0.0 : float32", f"CONST {identity} : float32", f"{op.name} %4 %3 : float32"])
    i8 = kernel("%3 = CONST 1 : int8", out="int8")
    y = UOp(Ops.CONST, dtypes.int8, arg=5)
    got = back(store_sink(UOp(Ops.REDUCE, dtypes.int8, src=(y, folded), arg=(Ops.MAX, 0)), dtypes.int8), i8)
    self.assertEqual(got[3:6], ["CONST 5 : int8", "CONST -128 : int8", "MAX %4 %3 : int8"])
    b = kernel("%3 = CONST true : bool", out="bool")
    t = UOp(Ops.CONST, dtypes.bool, arg=True)
    got = back(store_sink(UOp(Ops.REDUCE, dtypes.bool, src=(t, folded), arg=(Ops.MAX, 0)), dtypes.bool), b)
    self.assertEqual(got[3:6], ["CONST true : bool", "CONST false : bool", "OR %4 %3 : bool"])
    flipped = UOp(Ops.NEG, dtypes.float32, src=(UOp(Ops.REDUCE, dtypes.float32, src=(UOp(Ops.NEG, dtypes.float32, src=(x,)), folded), arg=(Ops.MAX, 0)),))
    got = back(store_sink(flipped, dtypes.float32), f32)
    self.assertEqual(got[3:6], ["CONST -0.0 : float32", "CONST inf : float32", "MIN %4 %3 : float32"])

  def test_index_folded_to_invalid_reads_back_gated_off(self):
    text = kernel("%3 = PARAM slot=1 size=2 in : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32")
    src = UOp(Ops.INDEX, dtypes.int32, src=(UOp.param(1, dtypes.int32, shape=(2,)), UOp.invalid()))
    got = back(store_sink(src), text)
    # %1 is the kernel's CONST 0 : index
    self.assertEqual(got[3:9], ["PARAM slot=1 size=2 in : int32", "CONST false : bool", "INVALID : index",
                                "WHERE %4 %1 %5 : index", "INDEX %3 %6 : int32", "LOAD %7 : int32"])

  def test_end_of_no_range_is_its_body(self):
    sink = store_sink(UOp(Ops.CONST, dtypes.int32, arg=1))
    ended = sink.replace(src=(UOp(Ops.END, dtypes.void, src=(sink.src[0],)),))
    self.assertEqual(back(ended)[-2:], ["STORE %2 %3 : void", "SINK %4 : void"])

  def test_gated_index_lowered_to_int32_stays_index(self):
    text = kernel("%3 = PARAM slot=1 size=2 in : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32")
    i = UOp(Ops.CONST, dtypes.int32, arg=1)
    gated = UOp(Ops.WHERE, dtypes.int32, src=(UOp(Ops.CONST, dtypes.bool, arg=True), i, UOp.invalid()))
    got = back(store_sink(UOp(Ops.INDEX, dtypes.int32, src=(UOp.param(1, dtypes.int32, shape=(2,)), gated))), text)
    self.assertEqual(got[3:9], ["PARAM slot=1 size=2 in : int32", "CONST true : bool", "CONST 1 : index", "INVALID : index",
                                "WHERE %4 %5 %6 : index", "INDEX %3 %7 : int32"])

  def test_header_of_a_buffer_the_rewrite_dropped_goes(self):
    text = kernel("%3 = PARAM slot=1 size=1 in vmin=3 vmax=3 : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32",
                  header="@name pinned\n@input 1 [3]\n@output 0 [3]\n")
    _, conv = convert.to_tinygrad(text)
    got = convert.from_tinygrad(store_sink(UOp(Ops.CONST, dtypes.int32, arg=3)), conv)
    self.assertEqual(got.splitlines()[:3], ["@name pinned", "@output 0 [3]", "%0 = PARAM slot=0 size=1 out : int32"])

  def test_integer_mulacc_is_mul_then_add(self):
    a = UOp(Ops.CONST, dtypes.int32, arg=2)
    got = back(store_sink(UOp(Ops.MULACC, dtypes.int32, src=(a, a, a))))
    self.assertEqual(got[-4:], ["MUL %3 %3 : int32", "ADD %4 %3 : int32", "STORE %2 %5 : void", "SINK %6 : void"])

  def test_flipped_max_reads_back_as_min(self):
    text = kernel("%3 = CONST 6 : float32", "%4 = CONST -0.0 : float32", "%5 = MIN %3 %4 : float32", out="float32")
    sink, conv = convert.to_tinygrad(text)
    self.assertIn("MIN %3 %4 : float32", nodes(convert.from_tinygrad(sink, conv)))


class UopText(unittest.TestCase):
  def test_errors_name_the_line(self):
    for text, line, what in (("@name x\n%0 = CONST 1 : int32\n%1 = ADD %0 %7 : int32\n", 3, "undefined node"),
                             ("%0 = FOO : int32\n", 1, "unknown op"), ("%0 = CONST 1 : int33\n", 1, "unknown dtype"),
                             ("%0 = CONST 1 : int32\n@name late\n", 2, "header"), ("%0 = CONST 1 int32\n", 1, "dtype")):
      with self.subTest(text=text):
        with self.assertRaisesRegex(uop_text.UopTextError, f"^line {line}: .*{what}"):
          uop_text.parse(text)

  def test_print_keeps_header_and_renumbers(self):
    k = uop_text.parse("# c\n@name  two words\n@output 0 [1, 2]\n%a = CONST 1 : int32  # one\n%b = SINK : void\n")
    self.assertEqual(uop_text.print_kernel(k), "@name two words\n@output 0 [1, 2]\n%0 = CONST 1 : int32\n%1 = SINK : void\n")


def gate(*body, out="int32", full=False):
  return semantics.semantic_gate(convert.to_tinygrad(kernel(*body, out=out))[0], full_rewrite=full)


class SemanticGate(unittest.TestCase):
  LOADED = ("%3 = PARAM slot=1 size=1 in : int32", "%4 = INDEX %3 %1 : int32", "%5 = LOAD %4 : int32")

  def test_plain_kernel_passes(self):
    self.assertIsNone(gate("%3 = CONST 4 : index", "%4 = RANGE %3 axis=0 REDUCE : index", "%5 = CAST %4 : int32",
                           "%6 = REDUCE %5 %4 op=ADD : int32"))

  def test_index_past_int64_is_refused(self):
    # 4 * [-2^62, 2^62] reaches 2^64 in tinygrad's unbounded index
    self.assertRegex(gate("%3 = VAR name=x min=-4611686018427387904 max=4611686018427387904 : index", "%4 = CONST 4 : index",
                          "%5 = MUL %3 %4 : index", "%6 = CAST %5 : int32") or "", r"^\[index-past-int64\] .*int64")
    self.assertIsNone(gate("%3 = VAR name=x min=-1000 max=1000 : index", "%4 = CONST 4 : index",
                           "%5 = MUL %3 %4 : index", "%6 = CAST %5 : int32"))

  def test_signed_wrap_read_by_bounds_is_refused(self):
    body = self.LOADED + ("%6 = CONST 1 : int32", "%7 = ADD %5 %6 : int32")
    self.assertRegex(gate(*body, "%8 = CMPLT %7 %6 : bool", out="bool") or "", r"^\[signed-wrap\] .*wrap")
    # stored as it is, the wrapped value is judged by the check, not refused
    self.assertIsNone(gate(*body))
    bounded = ("%3 = PARAM slot=1 size=1 in vmin=0 vmax=100 : int32",) + body[1:]
    self.assertIsNone(gate(*bounded, "%8 = CMPLT %7 %6 : bool", out="bool"))

  def test_unsigned_wrap_stays_reportable(self):
    body = ("%3 = PARAM slot=1 size=1 in : uint32", "%4 = INDEX %3 %1 : uint32", "%5 = LOAD %4 : uint32",
            "%6 = CONST 1 : uint32", "%7 = ADD %5 %6 : uint32", "%8 = CMPLT %7 %6 : bool")
    self.assertIsNone(gate(*body, out="bool"))

  def test_float_fast_math_shapes_are_refused(self):
    x = ("%3 = PARAM slot=1 size=1 in : float32", "%4 = INDEX %3 %1 : float32", "%5 = LOAD %4 : float32")
    fast, fold = r"^\[float-fast-math\] .*", r"^\[float-const-fold\] .*"
    for extra, why in ((("%6 = CONST -0.0 : float32", "%7 = MUL %5 %6 : float32"), fast + "x\\*0"),
                       (("%6 = CONST 1.5 : float32", "%7 = ADD %5 %6 : float32", "%8 = ADD %7 %6 : float32"), fast + "chain"),
                       (("%6 = CONST 2.0 : float32", "%7 = CONST 3.0 : float32", "%8 = MUL %5 %6 : float32",
                         "%9 = MUL %5 %7 : float32", "%10 = ADD %8 %9 : float32"), fast + "x\\*c0\\+x\\*c1"),
                       (("%6 = CONST 1.0 : float32", "%7 = CMPLT %6 %5 : bool", "%8 = WHERE %7 %5 %6 : float32"), fast + "MAX"),
                       (("%6 = CONST nan : float32", "%7 = MAX %5 %6 : float32"), fold + "MAX of a NaN"),
                       (("%6 = CONST -0.0 : float32", "%7 = MAX %5 %6 : float32", "%8 = RECIPROCAL %7 : float32"),
                        fold + "MAX with a zero constant reaching RECIPROCAL"),
                       (("%6 = CONST -0.5 : float32", "%7 = TRUNC %6 : float32", "%8 = ADD %5 %7 : float32",
                         "%9 = BITCAST %8 : int32"), fold + "TRUNC of a constant in \\(-1, -0\\] reaching BITCAST")):
      with self.subTest(why=why):
        self.assertRegex(gate(*x, *extra, out="float32") or "", why)
    # x+0 -> x differs only in the sign of a zero, which the hello's zero-sign tolerance covers,
    # unless the sum reaches an op that shows that sign as another value
    for zero in ("0.0", "-0.0"):
      plus = (f"%6 = CONST {zero} : float32", "%7 = ADD %5 %6 : float32")
      self.assertIsNone(gate(*x, *plus, out="float32"))
      self.assertIsNone(gate(*x, *plus, "%8 = SQRT %7 : float32", "%9 = MUL %8 %5 : float32", out="float32"))
      self.assertRegex(gate(*x, *plus, "%8 = NEG %7 : float32", "%9 = RECIPROCAL %8 : float32", out="float32") or "",
                       fast + "x\\+0 reaching RECIPROCAL")
      self.assertRegex(gate(*x, *plus, "%8 = BITCAST %7 : int32", out="int32") or "", fast + "x\\+0 reaching BITCAST")
    self.assertIsNone(gate(*x, "%6 = CONST 1.5 : float32", "%7 = ADD %5 %6 : float32", out="float32"))
    self.assertIsNone(gate(*x, "%6 = CONST -1.5 : float32", "%7 = TRUNC %6 : float32", "%8 = MAX %5 %7 : float32", out="float32"))
    # folds that differ only in the sign of a zero pass where no op shows that sign
    self.assertIsNone(gate(*x, "%6 = CONST -0.0 : float32", "%7 = MAX %5 %6 : float32", out="float32"))
    self.assertIsNone(gate(*x, "%6 = CONST -0.5 : float32", "%7 = TRUNC %6 : float32", "%8 = ADD %5 %7 : float32", out="float32"))

  def test_ranges_of_end_0_and_1_only_matter_to_the_full_rewrite(self):
    for end in (0, 1):
      text = kernel(f"%3 = CONST {end} : index", "%4 = RANGE %3 axis=0 REDUCE : index", "%5 = CAST %4 : int32",
                    "%6 = REDUCE %5 %4 op=ADD : int32")
      sink, _ = convert.to_tinygrad(text)
      self.assertIsNone(semantics.semantic_gate(sink))
      self.assertRegex(semantics.semantic_gate(sink, full_rewrite=True), rf"^\[range-end-0-1\] .*RANGE of end {end}")
    sink, _ = convert.to_tinygrad(kernel("%3 = CONST 2 : index", "%4 = RANGE %3 axis=0 REDUCE : index",
                                         "%5 = CAST %4 : int32", "%6 = REDUCE %5 %4 op=ADD : int32"))
    self.assertIsNone(semantics.semantic_gate(sink, full_rewrite=True))

  def test_range_closed_twice_only_matters_to_the_full_rewrite(self):
    text = ("%0 = PARAM slot=0 size=2 out : int32\n%1 = CONST 2 : index\n%2 = RANGE %1 axis=0 LOOP : index\n"
            "%3 = INDEX %0 %2 : int32\n%4 = CAST %2 : int32\n%5 = STORE %3 %4 : void\n%6 = END %5 %2 : void\n"
            "%7 = PARAM slot=1 size=2 out : int32\n%8 = INDEX %7 %2 : int32\n%9 = STORE %8 %4 : void\n"
            "%10 = END %9 %2 : void\n%11 = SINK %6 %10 : void\n")
    sink, _ = convert.to_tinygrad(text)
    self.assertIsNone(semantics.semantic_gate(sink))
    self.assertRegex(semantics.semantic_gate(sink, full_rewrite=True) or "", r"^\[range-closed-twice\] .*two ENDs")


if __name__ == "__main__":
  unittest.main()
