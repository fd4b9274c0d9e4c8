#!/usr/bin/env bash
# What --profile costs: a cached 4 KiB rand-read with and without --profile, side by side, and
# the ratio of the profiled rate to the unprofiled one (goal: >= 0.98 at the default sampling
# frequency). Beside it, the reference: the unprofiled run under `perf record -a -g -F 997`
# (the same on-CPU sampling by Linux's own tool, without fsbench's tracepoints), when `perf` is
# installed. Root only (system-wide perf events).
#
# One fsbench process's rate differs from the next one's by up to 25% on a shared virtual
# machine (where the buffers land, what the host does that second), whichever side it is, so a
# few runs a side say little. The runs are grouped: ROUNDS groups (default 24) of one run of
# each kind back to back on the same cached file (the order rotates), each run's rate the median
# of its 3 samples. A cost is the median of the groups' ratios, with the 95% confidence interval
# of that median (order statistics of the sorted ratios, as a sign test gives them), and beside
# it the ratio of the two sides' medians (`paired_cost` in common.sh).
# With DIRECT=1 the reads bypass the page cache (`direct=true`, 20,000 a run): every one is a
# block request (and, on a loop device, a kernel work item), so the block and workqueue
# tracepoints' cost is in the ratio; give a DIR on the filesystem to measure (a loop ext4).
# Usage: bench/profile.sh [DIR]   (default: a scratch directory under /var/tmp)
ROUNDS="${ROUNDS:-24}"
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: --profile needs root (system-wide perf events)"; exit 0; }
build_fsbench
work=$(mktemp -d "${1:-/var/tmp}/fsbench-profile-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
head -c 64M /dev/urandom >"$work/data"
W="rand-read:bs=4k,file=$work/data,ops=200000"
what="cached 4 KiB rand-read"
if [ "${DIRECT:-0}" = 1 ]; then
  W="rand-read:bs=4k,file=$work/data,ops=20000,direct=true"
  what="direct 4 KiB rand-read on $(df --output=fstype "$work" | tail -1) ($(df --output=source "$work" | tail -1))"
fi
kinds=(plain profiled)
if command -v perf >/dev/null 2>&1; then
  kinds+=(perf)
else
  echo "note: no perf binary (apt-get install linux-perf): no reference arm"
fi
run() { # run KIND: the IOPS of each of 3 warm samples of one run, space-separated
  local out="$work/$1.json" extra=() rec=""
  case "$1" in
    profiled) extra=(--profile) ;;
    perf)
      perf record -a -g -F 997 -q -o "$work/perf.data" -- sleep 1000 >/dev/null 2>&1 &
      rec=$!
      sleep 0.5
      ;;
  esac
  "$FSBENCH" run -q --no-store -t "$work" -w "$W" --cache warm --runs 3 --json "$out" "${extra[@]}" \
    >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  [ -n "$rec" ] && { kill -INT "$rec"; wait "$rec" 2>/dev/null || true; }
  json_get "$out" "' '.join(str(s['metrics']['iops']) for s in d['results'][0]['samples'])"
}
declare -A got
: >"$work/groups"; lost=()
for round in $(seq "$ROUNDS"); do
  got=()
  n=${#kinds[@]}
  for i in $(seq 0 $((n - 1))); do
    k=${kinds[$(((i + round) % n))]}
    got[$k]=$(run "$k")
  done
  line=""
  for k in "${kinds[@]}"; do line+="${got[$k]} | "; done
  echo "${line% | }" >>"$work/groups"
  lost+=("$(json_get "$work/profiled.json" "d['results'][0]['profile']['lost']")")
  echo "round $round: unprofiled $(median ${got[plain]} | cut -d. -f1) IOPS, profiled $(median ${got[profiled]} | cut -d. -f1) IOPS${got[perf]:+, under perf record $(median ${got[perf]} | cut -d. -f1) IOPS}"
done
hz=$(json_get "$work/profiled.json" "d['results'][0]['profile']['frequency_hz']")
# Per side, the groups as pairs of run medians (unprofiled, that side) for paired_cost.
python3 - "$work" <<'PY'
import statistics as st, sys
groups = [[st.median(map(float, side.split())) for side in line.split("|")] for line in open(f"{sys.argv[1]}/groups")]
for side in range(1, len(groups[0])):
    with open(f"{sys.argv[1]}/pairs{side}", "w") as f:
        f.writelines(f"{g[0]} {g[side]}\n" for g in groups)
PY
echo "$what, $ROUNDS groups of runs at $hz Hz per CPU; lost records per run: ${lost[*]}"
echo "ratio profiled/unprofiled: $(paired_cost "$work/pairs1") (goal >= 0.98)"
if [ -f "$work/pairs2" ]; then
  echo "reference, ratio under perf record -a -g -F 997 / unprofiled: $(paired_cost "$work/pairs2")"
fi
