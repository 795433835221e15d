#!/usr/bin/env bash
# Usage: bench_suite_tinygrad.sh UOPFUZZ SOURCE_DIR
#
# `bench --suite real --tinygrad-lowering` on one tensor-program case (layernorm_rows) at the
# `tiny` preset on cpu: every size gets tinygrad's lowering beside ours, and the results
# file's `other_lowering` figures are consistent with the point they sit in (our kernels are
# the point's rewritten Program's, each side made kernels, the ratio is ours/tinygrad's
# median time, and the summary line printed says the same). Exits 77 (skipped) without a
# tinygrad ($TINYGRAD_PATH, else ../shared/vendor/tinygrad beside the checkout).
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 UOPFUZZ SOURCE_DIR" >&2
  exit 2
fi
bin=$1
src=$2
fail() {
  echo "bench.suite_tinygrad: error: $*" >&2
  exit 1
}
export TINYGRAD_PATH=${TINYGRAD_PATH:-$src/../shared/vendor/tinygrad}
if [ ! -f "$TINYGRAD_PATH/tinygrad/__init__.py" ]; then
  echo "SKIP: no tinygrad (TINYGRAD_PATH='$TINYGRAD_PATH')"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" || fail "cannot cd to $src"

"$bin" bench --suite real --size tiny --backends cpu --suite-cases layernorm_rows \
  --tinygrad-lowering --reps 9 --out "$tmp/r.json" >"$tmp/out.txt" 2>"$tmp/err.txt" ||
  fail "bench --suite --tinygrad-lowering failed: $(tail -n 5 "$tmp/err.txt")"

python3 - "$tmp/r.json" "$tmp/out.txt" <<'PY' || fail "the results file's tinygrad figures are inconsistent"
import json, re, sys
r = json.load(open(sys.argv[1]))
printed = open(sys.argv[2]).read()
points = [p for p in r["suite_points"] if p["case"] == "layernorm_rows"]
assert len(points) == 2, f"expected the tiny preset's two sizes, got {len(points)}: {r['notes']}"
for p in points:
    assert p["form"] == "program", p["form"]
    o = p.get("other_lowering")
    assert o is not None, f"n={p['size']}: no other_lowering; notes: {r['notes']}"
    assert o["simplifier"] == "tinygrad", o
    assert o["kernels_ours"] == p["kernels_rewritten"], (o, p["kernels_rewritten"])
    assert o["kernels_ours"] > 0 and o["kernels_theirs"] > 0, o
    assert 0 <= o["intermediates_ours"] < o["kernels_ours"], o
    assert 0 <= o["intermediates_theirs"] < o["kernels_theirs"], o
    assert o["ours_ns"] > 0 and o["theirs_ns"] > 0, o
    assert abs(o["ratio"] - o["ours_ns"] / o["theirs_ns"]) <= 1e-9 * o["ratio"], o
    line = (f"lowering: layernorm_rows n={p['size']} on cpu: ours {o['ours_ns'] / 1e3:.3g} us "
            f"({o['kernels_ours']} kernels, {o['intermediates_ours']} buffers), tinygrad's "
            f"{o['theirs_ns'] / 1e3:.3g} us ({o['kernels_theirs']} kernels, "
            f"{o['intermediates_theirs']} buffers): ours/tinygrad {o['ratio']:.2f}x")
    assert line in printed, f"not printed: {line}"
PY
echo "bench.suite_tinygrad: ok"
