#!/usr/bin/env bash
# How good the time estimate printed before a run is (issue 20, class 10), and what its probe
# costs. For each plan: a first run estimated by the probe and the workloads' sizes, a second
# estimated from the first's stored history; prints estimate / actual for both. With root, the
# plan also runs on a FUSE lab target (bindfs), where the tar study's 21-minute surprise came
# from. Asserts nothing. Goals: history-based estimates within 0.8-1.25x of the actual time;
# probe-based ones within 0.5-2x; the probe under 0.2 s on a local disk.
source "$(dirname "$0")/common.sh"
build_fsbench
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
SCALE="${SCALE:-0.1}"
LAB=()
if [ "$(id -u)" = 0 ] && command -v bindfs >/dev/null; then LAB=(--lab ext4,bindfs --lab-dir "$WORK"); fi
plans=(
  "tar-extract:scale=$SCALE tar-delete:scale=$SCALE"
  "postmark:number=2000,size_high=100k tree-create:profile=small,scale=$SCALE"
)
for p in "${plans[@]}"; do
  args=(); for w in $p; do args+=(-w "$w"); done
  rm -f "$WORK/e.db"*
  for pass in probe history; do
    out="$WORK/err"
    t0=$(date +%s.%N)
    "$FSBENCH" run "${args[@]}" --cache warm --runs 3 -t "$WORK" "${LAB[@]}" --db "$WORK/e.db" \
      >/dev/null 2>"$out"
    t1=$(date +%s.%N)
    est=$(grep -o 'took .*' "$out" | sed 's/took .*(estimated \(.*\))/\1/')
    secs() { python3 -c "import re,sys; t=sys.argv[1]; m={'h':3600,'min':60,'s':1}; print(sum(float(n)*m[u] for n,u in re.findall(r'([0-9.]+) (h|min|s)\b', t)))" "$1"; }
    actual=$(python3 -c "print(f'{$t1-$t0:.1f}')")
    echo "$p [$pass]: estimated $(secs "$est") s, took $actual s, estimate/actual = $(ratio "$(secs "$est")" "$actual")"
  done
done
# The probe alone: an --estimate of a plan with no history, on the scratch's filesystem.
t0=$(date +%s.%N)
"$FSBENCH" run --estimate -w tar-extract:scale=0.01 -t "$WORK" --db "$WORK/none.db" >/dev/null
t1=$(date +%s.%N)
echo "--estimate with the probe on $(stat -f -c %T "$WORK"): $(python3 -c "print(f'{$t1-$t0:.3f}')") s (fsbench start-up included)"
