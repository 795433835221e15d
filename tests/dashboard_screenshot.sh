#!/usr/bin/env bash
# Usage: dashboard_screenshot.sh UOPFUZZ PNG_STATS SOURCE_DIR
#
# Renders the dashboard of tests/data/results/*.json, opens it in headless Chromium and
# checks what a reader would see: the DOM has every section, a latency plot per device
# and the confirmed regression's link (which must lead to the case file), and the
# screenshot is a page, not a blank or an error screen (png_stats: enough non-white and
# non-background pixels, enough distinct colours). Without Chromium the test fails:
# scripts/install-deps.sh installs it.
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
  echo "dashboard.screenshot: error: $*" >&2
  exit 1
}

chromium=$(command -v chromium || command -v chromium-browser) ||
  fail "chromium is not installed (scripts/install-deps.sh installs it)"

# The fixtures' case paths are relative to the repository root, as the CLI wrote them.
cd "$src" || fail "cannot cd to $src"
"$bin" dashboard tests/data/results/*.json -o "$tmp/d.html" >"$tmp/out.txt" 2>&1 ||
  fail "uopfuzz dashboard failed: $(cat "$tmp/out.txt")"
grep -q "^dashboard: 4 runs (2 bench, 2 fuzz), 2 devices -> $tmp/d.html\$" "$tmp/out.txt" ||
  fail "unexpected summary line: $(cat "$tmp/out.txt")"

# Its own profile directory: no state shared with another Chromium, nothing left behind.
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile"
       --window-size=1280,2400)
timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$tmp/d.html" >"$tmp/dom.html" 2>"$tmp/chromium.log" ||
  fail "chromium --dump-dom failed: $(tail -n 5 "$tmp/chromium.log")"
timeout 120 "$chromium" "${flags[@]}" --screenshot="$tmp/d.png" "file://$tmp/d.html" >>"$tmp/chromium.log" 2>&1 ||
  fail "chromium --screenshot failed: $(tail -n 5 "$tmp/chromium.log")"

for id in runs latency speedup regressions history; do
  grep -q "<section id=\"$id\"" "$tmp/dom.html" || fail "the rendered page has no section id=\"$id\""
done
plots=$(grep -o 'class="plot latency-plot"' "$tmp/dom.html" | wc -l)
[ "$plots" -ge 2 ] || fail "expected a latency plot per device (2), found $plots"
href=$(grep -o 'href="[^"]*corpus/examples/window_sum\.uop"' "$tmp/dom.html" | head -n 1 | sed 's/^href="//; s/"$//')
[ -n "$href" ] || fail "the confirmed regression's link (corpus/examples/window_sum.uop) is missing"
[ -f "$tmp/$href" ] || fail "the regression link '$href' does not lead to the case from $tmp"

[ -s "$tmp/d.png" ] || fail "chromium wrote no screenshot"
stats=$("$png_stats" "$tmp/d.png") || fail "png_stats could not read the screenshot"
echo "screenshot: $stats"
read -r _ width _ height _ nonwhite _ nonbackground _ colors <<<"$stats"
[ "$width" -eq 1280 ] || fail "screenshot is $width pixels wide, expected 1280"
awk -v f="$nonwhite" 'BEGIN { exit !(f >= 0.02) }' || fail "screenshot is blank: $nonwhite non-white"
awk -v f="$nonbackground" 'BEGIN { exit !(f >= 0.02) }' || fail "screenshot is only background: $nonbackground"
[ "$colors" -ge 16 ] || fail "screenshot has only $colors colours"
echo "dashboard.screenshot: ok"
