#!/usr/bin/env bash
# `fsbench trend` on a large history (issue 33): a database of RUNS runs (default 1,000) of CELLS
# cells (default 20, `null` workloads told apart by label=), three samples each, with a step in
# a quarter of the cells at the middle run (and the target's filesystem changing there); prints
# the time of `fsbench trend` on it, of its JSON and HTML exports, and of `--last 50`.
# Goal: under 1 s for 1,000 runs x 20 cells. Asserts nothing.
source "$(dirname "$0")/common.sh"
build_fsbench
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
RUNS="${RUNS:-1000}"
CELLS="${CELLS:-20}"
w=()
for c in $(seq "$CELLS"); do w+=(-w "null:ops=100,label=cell$c"); done
"$FSBENCH" run -q "${w[@]}" --cache warm --runs 3 -t "same=$WORK" --no-store \
  --json "$WORK/one.json" >/dev/null
python3 - "$WORK" "$RUNS" <<'PY'
import json, os, random, sys
work, runs = sys.argv[1], int(sys.argv[2])
d = json.load(open(f"{work}/one.json"))
os.makedirs(f"{work}/many", exist_ok=True)
rng = random.Random(42)
for i in range(runs):
    d["run"]["id"] = f"20250101T{i // 3600:02d}{i // 60 % 60:02d}{i % 60:02d}Z-{i}"
    d["run"]["started_at"] = f"2025-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
    d["environment"]["targets"][0]["fs_type"] = "tmpfs" if i < runs // 2 else "ext4"
    run_level = rng.gauss(1.0, 0.02)
    for c, cell in enumerate(d["results"]):
        level = 1e6 * (0.6 if c % 4 == 0 and i >= runs // 2 else 1.0) * run_level
        for s in cell["samples"]:
            s["metrics"]["iops"] = level * rng.gauss(1.0, 0.01)
    json.dump(d, open(f"{work}/many/{i:05d}.json", "w"))
PY
t0=$(date +%s.%N)
for f in "$WORK"/many/*.json; do "$FSBENCH" import "$f" --db "$WORK/big.db" >/dev/null; done
t1=$(date +%s.%N)
echo "built $RUNS runs x $CELLS cells in $(python3 -c "print(f'{$t1-$t0:.1f}')") s ($WORK/big.db, $(du -h "$WORK/big.db" | cut -f1))"
time_of() { # time_of ARGS...: median wall ms of `fsbench trend ARGS` over ROUNDS rounds
  local t=()
  for r in $(seq "$ROUNDS"); do
    t0=$(date +%s.%N); "$FSBENCH" trend --db "$WORK/big.db" "$@" >/dev/null; t1=$(date +%s.%N)
    t+=("$(python3 -c "print(($t1-$t0)*1000)")")
  done
  median "${t[@]}"
}
echo "fsbench trend on $RUNS runs x $CELLS cells: median $(time_of) ms (goal < 1000 ms)"
echo "  with --export-json and --html: median $(time_of --export-json "$WORK/t.json" --html "$WORK/t.html") ms"
echo "  --last 50: median $(time_of --last 50) ms"
"$FSBENCH" trend --db "$WORK/big.db" | grep -c "stepped" | sed 's/^/  steps found: /;s/$/ (expected: one in each of a quarter of the cells)/'
