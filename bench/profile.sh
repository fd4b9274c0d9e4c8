#!/usr/bin/env bash
# What --profile costs: a cached 4 KiB rand-read with and without --profile, side by side, and
# the ratio of the profiled rate to the unprofiled one (goal: >= 0.98 at the default sampling
# frequency). Root only (system-wide perf events).
#
# One fsbench process's rate differs from the next one's by up to 25% on a shared virtual
# machine (where the buffers land, what the host does that second), whichever side it is, so a
# few runs a side say little. The runs are paired: ROUNDS pairs (default 20) of one unprofiled
# and one profiled run back to back on the same cached file (which goes first alternates), each
# run's rate the median of its 3 samples. The cost is the median of the pairs' ratios, with the
# 95% confidence interval of that median (order statistics of the sorted ratios, as a sign
# test gives them), and beside it the ratio of the two sides' medians over all their samples.
# Usage: bench/profile.sh [DIR]   (default: a scratch directory under /var/tmp)
ROUNDS="${ROUNDS:-20}"
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: --profile needs root (system-wide perf events)"; exit 0; }
build_fsbench
work=$(mktemp -d "${1:-/var/tmp}/fsbench-profile-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
head -c 64M /dev/urandom >"$work/data"
W="rand-read:bs=4k,file=$work/data,ops=200000"
run() { # run OUT [--profile]: the IOPS of each of 3 warm samples, one per line
  "$FSBENCH" run -q --no-store -t "$work" -w "$W" --cache warm --runs 3 --json "$1" "${@:2}" \
    >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  json_get "$1" "' '.join(str(s['metrics']['iops']) for s in d['results'][0]['samples'])"
}
: >"$work/pairs"; lost=()
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then
    p=$(run "$work/p.json"); q=$(run "$work/q.json" --profile)
  else
    q=$(run "$work/q.json" --profile); p=$(run "$work/p.json")
  fi
  echo "$p | $q" >>"$work/pairs"
  lost+=("$(json_get "$work/q.json" "d['results'][0]['profile']['lost']")")
  echo "round $round: unprofiled $(median $p | cut -d. -f1) IOPS, profiled $(median $q | cut -d. -f1) IOPS"
done
hz=$(json_get "$work/q.json" "d['results'][0]['profile']['frequency_hz']")
python3 - "$work/pairs" "$hz" "${lost[*]}" <<'PY'
import math, statistics as st, sys
pairs = [[list(map(float, side.split())) for side in line.split("|")] for line in open(sys.argv[1])]
ratios = sorted(st.median(q) / st.median(p) for p, q in pairs)
n = len(ratios)
# The median's 95% interval: the k-th smallest and k-th largest ratios, k from the binomial(n, 1/2).
cdf, k = 0.0, 0
while k < n:
    cdf += math.comb(n, k) / 2**n
    if cdf > 0.025:
        break
    k += 1
lo, hi = (ratios[k - 1], ratios[n - k]) if k >= 1 else (ratios[0], ratios[-1])
plain = [x for p, _ in pairs for x in p]; prof = [x for _, q in pairs for x in q]
print(f"cached 4 KiB rand-read, {n} pairs of runs: unprofiled median {st.median(plain):.0f} IOPS, "
      f"profiled median {st.median(prof):.0f} IOPS at {sys.argv[2]} Hz per CPU; "
      f"lost records per run: {sys.argv[3]}")
print(f"ratio profiled/unprofiled: {st.median(ratios):.3f} (median of the pairs; 95% interval "
      f"{lo:.3f}-{hi:.3f}); all samples' medians: {st.median(prof) / st.median(plain):.3f} (goal >= 0.98)")
PY
