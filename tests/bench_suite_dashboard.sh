#!/usr/bin/env bash
# Usage: bench_suite_dashboard.sh UOPFUZZ PNG_STATS SOURCE_DIR
#
# The real-size suite as a new user would run it, on cpu and vulkan (at the `tiny` preset,
# the first two sizes of `small`): `bench --suite real` then `dashboard`. Checks that the
# results file's roofline figures are consistent (each backend's bandwidth and rate
# measured; each case's bytes and ops those of bench/suite/cases.def at its size, read here
# from the .def itself; achieved GB/s = bytes / time; the fraction = the larger bound over
# the time; the bound named by which is larger), and that the page, rendered in headless
# Chromium, shows a roofline plot per device with a bar per case and variant.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 UOPFUZZ PNG_STATS SOURCE_DIR" >&2
  exit 2
fi
bin=$1
png_stats=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "bench.suite_dashboard: error: $*" >&2
  exit 1
}
chromium=$(command -v chromium || command -v chromium-browser) ||
  fail "chromium is not installed (scripts/install-deps.sh installs it)"
cd "$src" || fail "cannot cd to $src"

"$bin" bench --suite real --size tiny --backends cpu,vulkan --reps 9 --out "$tmp/r.json" \
  >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "bench --suite failed: $(tail -n 5 "$tmp/err.txt")"
grep -q "^bench: suite real (tiny) x 2 backend(s): " "$tmp/out.txt" ||
  fail "unexpected summary: $(tail -n 3 "$tmp/out.txt")"

python3 - "$tmp/r.json" bench/suite/cases.def <<'PY' || fail "the results file's roofline figures are inconsistent"
import json, re, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
# Each row's name, SMALL sizes, bytes and ops expressions (integer arithmetic, as in C++).
rows = {}
for m in re.finditer(r'SUITE_CASE\(\w+, "(\w+)", \w+, \d+,\s*SIZES\(([^)]*)\), SIZES\([^)]*\),\s*([^,]+), ([^,]+),', text):
    name, small, b, o = m.groups()
    rows[name] = ([eval(s) for s in small.split(',')][:2], b.replace('/', '//'), o.replace('/', '//'))
assert len(rows) >= 10, f"parsed only {len(rows)} rows of cases.def"
assert r["suite"] == {"name": "real", "preset": "tiny"}, r["suite"]
roofs = {x["backend"]: x for x in r["roofline"]}
assert set(roofs) == {"cpu", "vulkan"}, roofs.keys()
for b, x in roofs.items():
    assert x["gbps"] > 0 and x["gops"] > 0, (b, x)
    assert abs(x["gbps"] - x["copy_bytes"] / x["copy_ns"]) < 1e-9 * x["gbps"], x
    assert abs(x["gops"] - x["fma_ops"] / x["fma_ns"]) < 1e-9 * x["gops"], x
seen = set()
for p in r["suite_points"]:
    name, n = p["case"], p["size"]
    sizes, b, o = rows[name]
    assert n in sizes, (name, n, sizes)
    assert p["bytes"] == eval(b, {"n": n}), (name, n, p["bytes"])
    assert p["ops"] == eval(o, {"n": n}), (name, n, p["ops"])
    roof = roofs[p["backend"]]
    mem, cmp = p["bytes"] / roof["gbps"], p["ops"] / roof["gops"]
    assert p["bound"] == ("compute" if cmp > mem else "memory"), p
    for v in ("original", "rewritten"):
        f = p[v]
        assert f["ns"] > 0
        assert abs(f["gbps"] - p["bytes"] / f["ns"]) <= 1e-9 * f["gbps"], (name, v, f)
        assert abs(f["fraction"] - max(mem, cmp) / f["ns"]) <= 1e-9 * f["fraction"], (name, v, f)
    assert abs(p["speedup"] - p["original"]["ns"] / p["rewritten"]["ns"]) < 1e-9 * p["speedup"]
    seen.add((name, p["backend"]))
# Every case is measured on cpu; on vulkan each is measured or refused with its reason.
notes = "\n".join(r["notes"])
for name in rows:
    assert (name, "cpu") in seen, f"{name} not measured on cpu: {notes}"
    assert (name, "vulkan") in seen or f"{name} n=" in notes, f"{name} neither measured nor refused on vulkan"
for n in r["notes"]:
    assert "wrong result" not in n and "failed:" not in n, n
assert any(p["backend"] == "vulkan" for p in r["suite_points"]), "nothing measured on vulkan"
print(f"{len(r['suite_points'])} points, {len(r['notes'])} notes; roofline: " +
      ", ".join(f"{b} {x['gbps']:.2f} GB/s {x['gops']:.2f} GOP/s" for b, x in roofs.items()))
PY

"$bin" dashboard "$tmp/r.json" -o "$tmp/d.html" >"$tmp/dash.txt" 2>&1 ||
  fail "uopfuzz dashboard failed: $(cat "$tmp/dash.txt")"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile"
       --window-size=1280,2400)
timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$tmp/d.html" >"$tmp/dom.html" 2>"$tmp/chromium.log" ||
  fail "chromium --dump-dom failed: $(tail -n 5 "$tmp/chromium.log")"
grep -q '<section id="roofline"' "$tmp/dom.html" || fail "the rendered page has no roofline section"
plots=$(grep -o 'class="plot roofline-plot" data-backend="[a-z]*"' "$tmp/dom.html" | sort -u | wc -l)
[ "$plots" -eq 2 ] || fail "expected a roofline plot per device (cpu, vulkan), found $plots"
bars=$(grep -o 'class="rew" data-fraction="[0-9.]*"' "$tmp/dom.html" | wc -l)
[ "$bars" -ge 10 ] || fail "expected a rewritten fraction bar per case and device, found $bars"
grep -q 'class="plot roofline-history"' "$tmp/dom.html" || fail "no trend plot of the fractions"
grep -q 'id="roofline-points"' "$tmp/dom.html" || fail "no table of the suite's points"

# The roofline view as a reader sees it: clipped from the page by scrolling it to the top.
sed 's|<section id="roofline">|<section id="roofline" style="position:absolute;top:0;left:0;right:0;z-index:9;background:#f4f6f8">|' \
  "$tmp/d.html" >"$tmp/roof.html"
timeout 120 "$chromium" "${flags[@]}" --screenshot="$tmp/d.png" "file://$tmp/roof.html" >>"$tmp/chromium.log" 2>&1 ||
  fail "chromium --screenshot failed: $(tail -n 5 "$tmp/chromium.log")"
stats=$("$png_stats" "$tmp/d.png") || fail "png_stats could not read the screenshot"
echo "screenshot: $stats"
read -r _ width _ height _ nonwhite _ nonbackground _ colors <<<"$stats"
awk -v f="$nonbackground" 'BEGIN { exit !(f >= 0.02) }' || fail "screenshot is only background: $nonbackground"
[ "$colors" -ge 16 ] || fail "screenshot has only $colors colours"
echo "bench.suite_dashboard: ok"
