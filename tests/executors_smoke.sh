#!/usr/bin/env bash
# Usage: executors_smoke.sh BIN
#
# The default campaign as a new user runs it: the oracle checks every graph, the cpu (and
# vulkan, when a device opens) the graphs they pick in their share of the time; the
# summary line and --json say how many each checked and what share of the time it took.
# With --backends oracle,cpu every graph is checked on the cpu, kernels at the levels drawn
# per graph, and the JSON has each level's compile median.
set -eu

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 BIN (the uopfuzz binary)" >&2
  exit 2
fi
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

set +e
"$bin" fuzz --time 8 --seed 3 --jobs 2 --corpus "$tmp/c" --json "$tmp/default.json" > "$tmp/default.log" 2>&1
rc_default=$?
"$bin" fuzz --backends oracle,cpu --level kernel --max-graphs 300 --time 120 --seed 3 --jobs 2 --corpus "$tmp/c" \
  --json "$tmp/all.json" > "$tmp/all.log" 2>&1
rc_all=$?
set -e
for run in default all; do
  rc_var=rc_$run
  if [ "${!rc_var}" -gt 1 ]; then
    echo "FAIL: the $run campaign exited ${!rc_var}" >&2
    cat "$tmp/$run.log" >&2
    exit 1
  fi
done
grep -q "^  executors: oracle" "$tmp/default.log" || {
  echo "FAIL: no executors line in the summary" >&2
  cat "$tmp/default.log" >&2
  exit 1
}
vulkan_expected=1
grep -q "^fuzz: vulkan checks no graphs" "$tmp/default.log" && vulkan_expected=0

python3 - "$tmp/default.json" "$tmp/all.json" "$vulkan_expected" <<'PY'
import json, sys

default, every, vulkan_expected = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3] == "1"
fail = []

ex = default["executors"]
if ex["oracle"]["graphs"] != default["graphs"]:
    fail.append(f"the oracle checked {ex['oracle']['graphs']} of {default['graphs']} graphs")
for name in ["cpu"] + (["vulkan"] if vulkan_expected else []):
    if name not in ex or not (0 < ex[name]["graphs"] < default["graphs"]):
        fail.append(f"{name} should check some but not all graphs: {ex.get(name)}")
shares = sum(e["time_share"] for e in ex.values())
if abs(shares - 1) > 0.01:
    fail.append(f"the time shares add up to {shares}, not 1")
backends = shares - ex["oracle"]["time_share"]
if not 0.1 <= backends <= 0.9:
    fail.append(f"the compiled backends took {backends:.2f} of the time (target 0.5)")
if sorted(default["backends"]) != sorted(["oracle", "cpu"] + (["vulkan"] if vulkan_expected else [])):
    fail.append(f"backends listed: {default['backends']}")

ex = every["executors"]
if ex["cpu"]["graphs"] != every["graphs"] or ex["oracle"]["graphs"] != every["graphs"]:
    fail.append(f"--backends oracle,cpu: cpu {ex['cpu']['graphs']}, oracle {ex['oracle']['graphs']} of {every['graphs']}")
levels = ex["cpu"].get("compile_median_ms", {})
if set(levels) != {"O0", "O1", "O2", "O3"} or not all(ms > 0 for ms in levels.values()):
    fail.append(f"compile medians by level: {levels}")
# One compile of each kernel's original and rewrite together (none for a graph whose
# check stopped before the backends).
if not 0.95 * every["graphs"] <= sum(ex["cpu"]["compiles"].values()) <= every["graphs"]:
    fail.append(f"compiles {ex['cpu']['compiles']} for {every['graphs']} graphs")
o2 = ex["cpu"]["compiles"]["O2"] / every["graphs"]
if o2 < 0.18:
    fail.append(f"O2 is {o2:.2f} of the compiles (drawn: a quarter)")

for f in fail:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fail else 0)
PY
echo "executors smoke: ok"
