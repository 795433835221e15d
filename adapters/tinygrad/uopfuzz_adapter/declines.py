"""What the adapter declines, named: the class id every `unsupported` reason starts with,
and the shape families the hello's `declines:` line names (docs/external-simplifier.md,
"Declines"). No tinygrad needed.

Every reason is `[class] text`: a campaign counts its declines per class (the text names
the cause in more detail, and varies with dtypes and ops). CLASSES: one cause each.
"""

CLASSES = {
  "quantized": "a quantized dtype or conversion (tinygrad has no quantized types)",
  "tensor-program": "a tensor program, not a kernel (uopfuzz lowers it first)",
  "no-tinygrad-form": "an input node tinygrad cannot represent (a dtype, an axis type, an op, text that does not parse)",
  "no-uop-form": "the rewrite holds what .uop cannot express (tinygrad-only ops and dtypes, float MULACC, a gated LOAD, a retyped PARAM or INDEX)",
  "index-past-int64": "an index value or constant past int64 (tinygrad's index is unbounded, ours is int64)",
  "signed-wrap": "a signed value that may wrap reaches a fold reading its bounds (tinygrad assumes no signed overflow)",
  "float-fast-math": "a float shape tinygrad folds as fast-math does (x*0, -1*(x+c), regrouped constants, WHERE as MAX)",
  "float-const-fold": "a float constant tinygrad folds with Python (max of NaN or -0, trunc to +0)",
  "range-end-0-1": "a RANGE of end 0 or 1 (full stage: tinygrad's scheduler makes none, its full rewrite assumes so)",
  "range-closed-twice": "a RANGE closed by two ENDs (full stage: tinygrad takes one END per RANGE)",
  "no-reproducer": "--emit: a kernel neither pyrender nor UOp(...) lines rebuild",
  "no-tensor-form": "a tensor program node tinygrad's Tensor cannot express as .uop means it (a kernel op, the index dtype, a method that changes the dtype)",
  "kernel-run": "a kernel in a run request, and no kernel pipeline (uopfuzz_adapter/pipeline.py) to run it",
  "pipeline-stage": "a simplify request at stage pipeline, which answers run requests only",
  "nan-max": "a run: a float MAX/MIN reduce over a NaN on this run's inputs (tinygrad's MAX is a select that keeps or drops a NaN by operand order)",
  "signed-overflow": "a run: an int8/int16 ADD/SUB/MUL/NEG that overflows on this run into an op that reads it unwrapped, or a signed MIN / -1 (tinygrad's C computes 8/16-bit ops in int and traps on MIN / -1)",
  "float-sum-order": "a run: a float sum of 3 terms or more reaches an output through other ops, and the order of its additions (tinygrad's opts choose it) can change that output on this run",
  "transcendental-ulps": "a run: EXP2/LOG2/SIN of float16/bfloat16 (tinygrad's polynomial approximations in the narrow type, a few ULPs off)",
}


def tag(cls, text):
  """`[cls] text`, the form of every reason."""
  if cls not in CLASSES: raise ValueError(f"unknown decline class {cls!r}")
  return f"[{cls}] {text}"


def class_of(reason):
  """The class id a reason starts with, or None."""
  if not reason.startswith("["): return None
  end = reason.find("] ")
  return reason[1:end] if end > 0 else None


# Shape families the generator can leave out (the hello's `declines:` words, uopfuzz's
# gen::avoid_shapes): the ones declined whatever else the kernel holds.
SHAPES = {
  "quantized": "quantized dtypes and QUANTIZE/DEQUANTIZE/REQUANTIZE",
  "range-end-0": "a RANGE whose end is the constant 0 (or pinned to 0 by its bounds)",
  "range-end-1": "a RANGE whose end is the constant 1 (or pinned to 1 by its bounds)",
  "range-closed-twice": "a RANGE listed by two ENDs",
}


def declined_shapes(stage):
  """The shapes always declined at `stage` ("symbolic", "full" or "pipeline"), in the hello's order."""
  shapes = ["quantized"]
  # the pipeline stage runs kernels through the whole of full_rewrite_to_sink: its limits too
  if stage in ("full", "pipeline"): shapes += ["range-end-0", "range-end-1", "range-closed-twice"]
  return shapes
