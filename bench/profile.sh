#!/usr/bin/env bash
# What --profile costs: a cached 4 KiB rand-read with and without --profile, side by side (the
# two alternate, ROUNDS times), and the ratio of the profiled rate to the unprofiled one (goal:
# >= 0.98 at the default sampling frequency). Root only (system-wide perf events).
# Usage: bench/profile.sh [DIR]   (default: a scratch directory under /var/tmp)
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: --profile needs root (system-wide perf events)"; exit 0; }
build_fsbench
work=$(mktemp -d "${1:-/var/tmp}/fsbench-profile-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
W="rand-read:bs=4k,size=64m,ops=300000"
run() { # run OUT [--profile]: median IOPS of 5 warm samples
  "$FSBENCH" run -q --no-store -t "$work" -w "$W" --cache warm --runs 5 --json "$1" "${@:2}" >/dev/null
  json_get "$1" "d['results'][0]['summary']['iops']['median']"
}
plain=(); profiled=(); lost=()
for round in $(seq "$ROUNDS"); do
  plain+=("$(run "$work/plain.json")")
  profiled+=("$(run "$work/profiled.json" --profile)")
  lost+=("$(json_get "$work/profiled.json" "d['results'][0]['profile']['lost']")")
  echo "round $round: unprofiled ${plain[-1]} IOPS, profiled ${profiled[-1]} IOPS"
done
p=$(median "${plain[@]}"); q=$(median "${profiled[@]}")
hz=$(json_get "$work/profiled.json" "d['results'][0]['profile']['frequency_hz']")
echo "cached 4 KiB rand-read, median of $ROUNDS rounds: unprofiled $p IOPS, profiled $q IOPS (at $hz Hz per CPU; lost records per round: ${lost[*]})"
echo "ratio profiled/unprofiled: $(ratio "$q" "$p") (goal >= 0.98)"
