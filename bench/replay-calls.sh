#!/usr/bin/env bash
# What timing each replayed call costs (issue 58: at most 3% of a replay's wall time): the same
# recorded program replayed with its calls timed one by one (`calls=time`, the default: the
# sample's latencies, its time by call kind and its slowest calls) and without (`calls=off`: the
# sample's wall time only), in one fsbench run, samples interleaved, warm (its cheapest calls,
# where the clock reads weigh most) and cold. Prints each pair's median wall times and their
# ratio; then one sample's breakdown as fsbench prints it.
#
# Two programs: `git status` over a generated 5,000-file repository (about 12,000 calls, most of
# them lstat of cached inodes) and `grep -r` over a generated 2,000-file text tree (reads).
#
#   bench/replay-calls.sh [RUNS [DIR [ROUNDS]]]   (default 10 samples a cell, 6 rounds; DIR defaults
#                                          to /dev/shm)
source "$(dirname "$0")/common.sh"
need git git
need grep grep
build_fsbench
RUNS="${1:-10}"
ROUNDS="${3:-6}"
BASE="${2:-/dev/shm}"
WORK="$(mktemp -d "$BASE/fsbench-replay-calls.XXXXXX")"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
CACHE=warm
[ "$(id -u)" = 0 ] && CACHE=both

REPO="$WORK/repo"
make_repo "$REPO"
GREPDIR="$WORK/text"
python3 - "$GREPDIR" <<'PY'
import os, random, sys
random.seed(7)
root = sys.argv[1]
for d in range(100):
    os.makedirs(f"{root}/d{d}")
    for f in range(20):
        n = random.randint(4, 32) * 1024
        with open(f"{root}/d{d}/f{f}.txt", "wb") as out:
            out.write((b"alpha beta gamma delta\n" * (n // 23 + 1))[:n])
PY
(cd "$REPO" && "$FSBENCH" record -o "$WORK/status.fsbtrace" -- git status >/dev/null 2>&1)
(cd "$GREPDIR" && "$FSBENCH" record -o "$WORK/grep.fsbtrace" -- grep -r -l needle . >/dev/null 2>&1 || true)

# cost NAME TRACE PACE: timed against untimed, ROUNDS runs, the two in turn first (fsbench
# interleaves the samples of targets, not of workloads: a run samples one workload, then the
# next); each round's ratio of medians, then their median (one round's ratio moves by several %
# on this shared VM).
cost() {
  for round in $(seq "$ROUNDS"); do
    local json="$WORK/$1-$3-$round.json" first=time second=off
    [ $((round % 2)) = 0 ] && first=off second=time
    "$FSBENCH" run -q --no-store --cache "$CACHE" --runs "$RUNS" --json "$json" -t "$WORK" \
      -w "replay:trace=$2,pace=$3,calls=$first" \
      -w "replay:trace=$2,pace=$3,calls=$second" >/dev/null
  done
  python3 - "$1" "$3" "$WORK" "$ROUNDS" <<'PY'
import json, statistics, sys
name, pace, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for cache in ("cold", "warm"):
    ratios, times, offs = [], [], []
    for k in range(1, rounds + 1):
        v = json.load(open(f"{work}/{name}-{pace}-{k}.json"))
        cells = {}
        for r in v["results"]:
            if r["cache"]["state"] == cache:
                cells[r["params"].get("calls", "time")] = statistics.median(
                    s["wall_ns"] for s in r["samples"])
        if "time" in cells and "off" in cells:
            ratios.append(cells["time"] / cells["off"])
            times.append(cells["time"])
            offs.append(cells["off"])
    if ratios:
        each = " ".join(f"{r:.3f}" for r in ratios)
        print(f"  {name:<10} pace={pace:<5} {cache:<4}  timed {statistics.median(times) / 1e6:7.2f} ms"
              f"  untimed {statistics.median(offs) / 1e6:7.2f} ms  ratio {statistics.median(ratios):.3f}"
              f"  (rounds: {each}; goal <= 1.030)")
PY
}

echo "timing each call against none: median wall of $RUNS samples a cell, $ROUNDS rounds, cache $CACHE"
cost "git-status" "$WORK/status.fsbtrace" afap
cost "git-status" "$WORK/status.fsbtrace" trace
cost "grep-r" "$WORK/grep.fsbtrace" afap

echo
echo "git status replayed warm, its time by call kind (fsbench's table):"
"$FSBENCH" run -q --no-store --cache warm --runs 3 -t "$WORK" \
  -w "replay:trace=$WORK/status.fsbtrace" | sed -n '/^Time by call/,/^Slowest\|^$/p' | head -30
