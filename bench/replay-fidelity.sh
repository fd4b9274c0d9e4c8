#!/usr/bin/env bash
# How close a replay comes to the real program (issue 43): `git status` over a generated
# 5,000-file repository and `tar xf` of a generated 2,000-file tarball, each recorded once with
# `fsbench record`, then run in one fsbench run beside its trace replayed as recorded
# (`replay:pace=trace`) and as fast as possible (`pace=afap`), on the same filesystem, cold
# (root: drop_caches) and warm, samples interleaved. Prints each replay's median wall time
# over the real program's, with the real one's median. Goal: pace=trace within 0.90-1.10.
#
#   bench/replay-fidelity.sh [RUNS [DIR]]     (default 10 samples a cell, in /var/tmp)
source "$(dirname "$0")/common.sh"
need git git
need tar tar
build_fsbench
RUNS="${1:-10}"
BASE="${2:-/var/tmp}"
WORK="$(mktemp -d "$BASE/fsbench-replay-fidelity.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
CACHE=warm
[ "$(id -u)" = 0 ] && CACHE=both

# A repository of 5,000 files in 500 directories, committed (as bench/vs-hyperfine.sh's).
REPO="$WORK/repo"
make_repo "$REPO"

# A tarball of 2,000 files of 1-16 KiB in 100 directories, and a directory to extract into.
TARDIR="$WORK/tarwork"
mkdir -p "$TARDIR/src" "$TARDIR/out"
python3 - "$TARDIR/src" <<'PY'
import os, random, sys
random.seed(42)
root = sys.argv[1]
for d in range(100):
    os.makedirs(f"{root}/d{d}")
    for f in range(20):
        with open(f"{root}/d{d}/f{f}", "wb") as out:
            out.write(os.urandom(random.randint(1, 16) * 1024))
PY
tar cf "$TARDIR/a.tar" -C "$TARDIR/src" . && rm -rf "$TARDIR/src"

echo "recording (fsbench record; each line: what tracing cost the program)"
(cd "$REPO" && "$FSBENCH" record --untraced 3 -o "$WORK/status.fsbtrace" -- git status >/dev/null 2>"$WORK/rec1.err")
grep 'traced run took' "$WORK/rec1.err" | sed 's/^fsbench: /  git status: /'
# The untraced runs extract over the traced run's files (what tracing costs, measured).
(cd "$TARDIR" && "$FSBENCH" record --untraced 3 -o "$WORK/tar.fsbtrace" -- tar xf a.tar -C out 2>"$WORK/rec2.err")
grep 'traced run took' "$WORK/rec2.err" | sed 's/^fsbench: /  tar xf: /'

# compare NAME JSON: each replay cell's median wall over the command cell's, cold and warm.
compare() {
  python3 - "$1" "$2" <<'PY'
import json, statistics, sys
name, path = sys.argv[1], sys.argv[2]
v = json.load(open(path))
cells = {}
for r in v["results"]:
    w = r["workload"]
    kind = "real" if w == "command" else "replay " + r["params"].get("pace", "afap")
    cells[(kind, r["cache"]["state"])] = statistics.median(s["wall_ns"] for s in r["samples"])
for cache in ("cold", "warm"):
    real = cells.get(("real", cache))
    if real is None:
        continue
    row = [f"{name:<11} {cache:<5} real {real / 1e6:8.1f} ms"]
    for kind in ("replay trace", "replay afap"):
        if (kind, cache) in cells:
            row.append(f"{kind}/real {cells[(kind, cache)] / real:6.3f}")
    print("  ".join(row))
PY
}

echo "git status: real against its replays, $RUNS samples a cell, cache $CACHE"
"$FSBENCH" run -q --no-store -t "$WORK" --cache "$CACHE" --runs "$RUNS" --json "$WORK/status.json" \
  -w "command:run='git status',shell=none,cwd=$REPO" \
  -w "replay:trace=$WORK/status.fsbtrace,pace=trace" \
  -w "replay:trace=$WORK/status.fsbtrace" >/dev/null
compare "git status" "$WORK/status.json"

echo "tar xf: real against its replays, $RUNS samples a cell, cache $CACHE"
"$FSBENCH" run -q --no-store -t "$WORK" --cache "$CACHE" --runs "$RUNS" --json "$WORK/tar.json" \
  -w "command:run='tar xf a.tar -C out',shell=none,cwd=$TARDIR,prepare='rm -rf out && mkdir out'" \
  -w "replay:trace=$WORK/tar.fsbtrace,pace=trace" \
  -w "replay:trace=$WORK/tar.fsbtrace" >/dev/null
compare "tar xf" "$WORK/tar.json"
