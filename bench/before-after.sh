#!/usr/bin/env bash
# fsbench against an earlier fsbench: the same workloads through the build of REV (default
# HEAD~1) and the working tree's build, alternating, ROUNDS rounds (default 7), on one cached
# 256 MiB file. Prints each build's median, every value, and new/old. For refactors that must
# be "no slower": the per-operation path (rand-read 4 KiB IOPS), a copy-bound path (seq-read
# 1 MiB MiB/s), the per-sample cost (10,000 `null` samples, seconds), and the metadata and
# archive paths that count every operation as they go (tree-create files/s on tmpfs, and
# tar-extract's wall time, as speed old/new). OLD_TARGET keeps the old build's target directory
# between runs (default: a fresh one, a full release build); CASES=meta runs only the last two.
# Usage: bench/before-after.sh [REV]
source "$(dirname "$0")/common.sh"
REV="${1:-HEAD~1}"
ROUNDS="${ROUNDS:-7}"
build_fsbench
WORK="$(mktemp -d /var/tmp/fsbench-ab.XXXXXX)"
OLD_SRC="$WORK/old-src"
trap 'git -C "$ROOT" worktree remove --force "$OLD_SRC" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git -C "$ROOT" worktree add --detach "$OLD_SRC" "$REV" >/dev/null 2>&1
OLD_TARGET="${OLD_TARGET:-$WORK/old-target}"
(cd "$OLD_SRC" && CARGO_TARGET_DIR="$OLD_TARGET" cargo build --release --quiet)
OLD="$OLD_TARGET/release/fsbench"
NEW="$FSBENCH"
FILE="$WORK/data"
head -c $((256 << 20)) /dev/urandom > "$FILE"
cat "$FILE" > /dev/null

# one BIN SPEC METRIC RUNS [DIR] -> the metric's median over RUNS warm samples (on DIR, default
# the work directory)
one() {
  "$1" run -q --no-store -t "${5:-$WORK}" -w "$2" --cache warm --runs "$4" --json "$WORK/o.json" >/dev/null
  json_get "$WORK/o.json" "d['results'][0]['summary']['$3']['median']"
}

# meta NAME SPEC METRIC RUNS DIR INVERT: old and new alternating, ROUNDS rounds; INVERT=1 for a
# time (its speed is 1/time, so new/old speed is old/new time)
meta() {
  local o=() n=() x
  for _ in $(seq "$ROUNDS"); do
    x="$(one "$OLD" "$2" "$3" "$4" "$5")"; o+=("$([ "$6" = 1 ] && python3 -c "print(1e9/$x)" || echo "$x")")
    x="$(one "$NEW" "$2" "$3" "$4" "$5")"; n+=("$([ "$6" = 1 ] && python3 -c "print(1e9/$x)" || echo "$x")")
  done
  compare "$1 (higher is better)" "${o[*]}" "${n[*]}"
}

# null_time BIN -> seconds for 10,000 `null` samples (runner, recorder and CPU counters per sample)
null_time() {
  local t0 t1
  t0=$(date +%s.%N)
  "$1" run -q --no-store -t "$WORK" -w null:ops=1 --cache warm --runs 10000 --warmup 0 >/dev/null
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)"
}

compare() { # compare NAME OLD_VALUES NEW_VALUES
  python3 - "$@" <<'PY'
import statistics as s, sys
name, o, n = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
r = lambda v: [round(x, 3) if x < 100 else round(x) for x in v]
print(f"{name}: old median {s.median(o):.4g} {r(o)}, new median {s.median(n):.4g} {r(n)} -> new/old {s.median(n) / s.median(o):.3f}")
PY
}

echo "== $REV ($(git -C "$ROOT" rev-parse --short "$REV")) against the working tree, $ROUNDS rounds, alternating"
SHM="${SHM:-/dev/shm}"
[ -d "$SHM" ] && [ -w "$SHM" ] || SHM="$WORK"
SHM_DIR="$(mktemp -d "$SHM/fsbench-ab.XXXXXX")"
trap 'git -C "$ROOT" worktree remove --force "$OLD_SRC" >/dev/null 2>&1 || true; rm -rf "$WORK" "$SHM_DIR"' EXIT
meta "tree-create files/s, flat, 20,000 files on $(stat -f -c %T "$SHM_DIR")" \
  "tree-create:profile=flat,scale=10" files_per_s 5 "$SHM_DIR" 0
meta "tar-extract 1/wall (extractions/s), small, on $(stat -f -c %T "$SHM_DIR")" \
  "tar-extract:profile=small,scale=5,archive_on=target" wall_ns 5 "$SHM_DIR" 1
[ "${CASES:-all}" = meta ] && exit 0
for case in "rand-read:bs=4k,file=$FILE,size=256m,duration=2s iops 1" \
            "seq-read:bs=1m,file=$FILE,size=256m throughput_mib_s 5"; do
  set -- $case
  o=(); n=()
  for _ in $(seq "$ROUNDS"); do
    o+=("$(one "$OLD" "$1" "$2" "$3")")
    n+=("$(one "$NEW" "$1" "$2" "$3")")
  done
  compare "${1%%:*} $2 (higher is better)" "${o[*]}" "${n[*]}"
done
o=(); n=()
for _ in $(seq "$ROUNDS"); do
  o+=("$(null_time "$OLD")")
  n+=("$(null_time "$NEW")")
done
compare "10,000 null samples, s (lower is better)" "${o[*]}" "${n[*]}"
