#!/usr/bin/env bash
# The character card's two goals, measured:
# 1. Time: `fsbench card --lab ext4 --quick` (19 operations, jobs 1, 2, 4, 300 ms points, 3
#    samples, the profile on) finishes in <= 3 minutes here; printed with the same card without
#    the profile (the profile's share of the time) and fsbench's own estimate.
# 2. Fidelity: a card's ops/s against a plain C loop doing the same operation (bench/fx_ref.c:
#    forked processes started together, each counting over its own active time), on the same
#    loop-mounted ext4, at 1 and 2 jobs; ROUNDS rounds alternate the two and each side's median
#    is compared: fsbench/reference (goal: 0.9 to 1.1; the card adds no work per operation but a
#    look at the clock every 8 operations).
# Usage: bench/card.sh   (root: lab targets, loop mounts, the profile; SKIP_TIME=1: fidelity only)
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: card needs root for its lab and profile"; exit 0; }
need mkfs.ext4 e2fsprogs
build_fsbench
work=$(mktemp -d /var/tmp/fsbench-card-bench.XXXXXX)
mnt="$work/mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$work"; }
trap cleanup EXIT
gcc -O2 -o "$work/fx_ref" "$ROOT/bench/fx_ref.c"

echo "== time of a quick card on lab ext4 (goal <= 180 s)"
arms=(profiled unprofiled)
[ -n "${SKIP_TIME:-}" ] && arms=() && echo "(skipped: SKIP_TIME)"
for arm in "${arms[@]}"; do
  mkdir -p "$work/lab-$arm"
  extra=()
  [ "$arm" = unprofiled ] && extra=(--no-profile)
  t0=$(date +%s.%N)
  "$FSBENCH" card --lab ext4 --lab-dir "$work/lab-$arm" --quick --no-store "${extra[@]}" \
    >"$work/$arm.txt" 2>"$work/$arm.err" || { cat "$work/$arm.err"; exit 1; }
  t1=$(date +%s.%N)
  est=$(grep -o 'estimated [^)]*' "$work/$arm.err" | head -1)
  printf '%-11s %6.1f s  (%s)\n' "$arm" "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" "${est:-no estimate printed}"
done

echo "== ops/s: fsbench card vs a plain C loop, same loop-mounted ext4 (goal 0.9-1.1)"
truncate -s 1G "$work/ext4.img"
mkfs.ext4 -q -F "$work/ext4.img"
mkdir -p "$mnt"
mount -o loop "$work/ext4.img" "$mnt"
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
printf '%-5s %4s %14s %14s %7s\n' op jobs fsbench reference ratio
for op in DRBL MWCM MRDM; do
  for jobs in 1 2; do
    : >"$work/f.txt"
    : >"$work/r.txt"
    for _ in $(seq "$ROUNDS"); do
      d=$(mktemp -d "$mnt/ref.XXXXXX")
      "$work/fx_ref" "$op" "$d" "$jobs" 1 >>"$work/r.txt"
      rm -rf "$d"
      "$FSBENCH" card -t "$mnt" --ops "$op" --jobs "$jobs" --duration 1s --runs 1 --no-profile \
        --no-store -q --json "$work/c.json" >/dev/null 2>"$work/c.err" || { cat "$work/c.err"; exit 1; }
      python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cards"][0]["cells"][0]["points"][0]["ops_per_s"])' \
        "$work/c.json" >>"$work/f.txt"
    done
    f=$(median <"$work/f.txt")
    r=$(median <"$work/r.txt")
    printf '%-5s %4s %14.0f %14.0f %7.3f\n' "$op" "$jobs" "$f" "$r" "$(awk -v a="$f" -v b="$r" "BEGIN{print a/b}")"
  done
done
