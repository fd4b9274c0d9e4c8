#!/usr/bin/env bash
# fsbench `walk` vs `find DIR -printf '%s\n'` and a minimal C getdents64 + fstatat walker, warm,
# interleaved, ROUNDS rounds, on /usr (read only) and a generated 250,000-file tree; then J=2 vs
# J=1 and peak RSS. Goals (issue 5): walk J=1 <= 1.0x find's time and <= 1.1x the C walker's;
# J=2 rate >= 1.6x J=1 on 2 cores; peak RSS <= 64 MiB on a 1,000,000-entry tree.
# Usage: bench/vs-find.sh [BASE_DIR]  (the generated trees go under BASE_DIR, default /var/tmp)
source "$(dirname "$0")/common.sh"
build_fsbench
BASE="${1:-/var/tmp}"
WORK="$(mktemp -d "$BASE/fsbench-walk.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -o "$WORK/walk" "$ROOT/bench/walk.c"

secs() { python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$1" "$2"; }
timed() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); secs "$t0" "$t1"; }

compare_on() { # compare_on DIR
  local dir="$1" f=() c=() w=()
  find "$dir" -printf '%s\n' >/dev/null  # warm the caches
  for r in $(seq "$ROUNDS"); do
    f+=("$(timed find "$dir" -printf '%s\n')")
    c+=("$(timed "$WORK/walk" "$dir")")
    "$FSBENCH" run -q --target "$WORK" --workload "walk:tree=$dir,workers=1" --cache warm --runs 3 --json "$WORK/w.json" >/dev/null
    w+=("$(json_get "$WORK/w.json" 'd["results"][0]["summary"]["wall_ns"]["median"]/1e9')")
  done
  local fm cm wm
  fm=$(median "${f[@]}"); cm=$(median "${c[@]}"); wm=$(median "${w[@]}")
  echo "$dir: fsbench walk ${wm}s, find ${fm}s, C walker ${cm}s -> fsbench/find $(ratio "$wm" "$fm") (goal <= 1.0), fsbench/C $(ratio "$wm" "$cm") (goal <= 1.1)"
}

echo "== walk J=1, warm, median of $ROUNDS rounds"
compare_on /usr
"$FSBENCH" run -q --target "$WORK" --workload "walk:profile=chromium,scale=1,workers=1" --cache warm --runs 1 --warmup 0 --json "$WORK/gen.json" >/dev/null
echo "generated chromium tree (250,000 files) walk J=1: $(json_get "$WORK/gen.json" 'd["results"][0]["summary"]["entries_per_s"]["mean"]') entries/s"

echo "== J=2 vs J=1 on /usr (2 cores)"
"$FSBENCH" run -q --target "$WORK" --workload "walk:tree=/usr,workers=1,2" --cache warm --runs 3 --json "$WORK/j.json" >/dev/null
json_get "$WORK/j.json" '"speedup J=2: %.2fx (goal >= 1.6) — %s" % (d["scaling"][0]["rows"][1]["speedup"], d["scaling"][0]["explanation"])'

echo "== peak RSS walking a 1,000,000-entry tree"
mkdir -p "$WORK/big"
python3 - "$WORK/big" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(1000):
    p = os.path.join(root, f"d{d:04}")
    os.mkdir(p)
    for f in range(999):
        open(os.path.join(p, f"f{f}"), "w").close()
PY
/usr/bin/time -v "$FSBENCH" run -q --target "$WORK" --workload "walk:tree=$WORK/big,workers=1" --cache warm --runs 1 --warmup 0 2> "$WORK/time.txt" >/dev/null
echo "peak RSS: $(awk -F: '/Maximum resident/ {print $2/1024 " MiB"}' "$WORK/time.txt") (goal <= 64 MiB)"
