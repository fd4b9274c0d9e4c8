#!/usr/bin/env bash
# How close a replay comes to the real program (issue 43): `git status` over a generated
# 5,000-file repository, `tar xf` of a generated 2,000-file tarball and `make -j2` of a generated
# 25-file C project, each recorded once with
# `fsbench record`, then run in one fsbench run beside its trace replayed as recorded
# (`replay:pace=trace`) and as fast as possible (`pace=afap`), on the same filesystem, cold
# (root: drop_caches) and warm, samples interleaved. Prints each replay's median wall time
# over the real program's, with the real one's median. Goal: pace=trace within 0.90-1.10.
#
# Recorded in /dev/shm (or DIR); measured on fsbench's lab filesystems (LABS, default ext4: a
# loop image, not the host's root, whose `discard` mount makes every file creation after a
# deletion slow and erratic here). With several labs it also prints whether the replay ranks
# them as the program does.
#
#   bench/replay-fidelity.sh [RUNS [LABS [DIR]]]   (default 10 samples a cell, ext4, /dev/shm)
source "$(dirname "$0")/common.sh"
need git git
need tar tar
need make make
need cc gcc
build_fsbench
RUNS="${1:-10}"
LABS="${2:-ext4}"
BASE="${3:-/dev/shm}"
WORK="$(mktemp -d "$BASE/fsbench-replay-fidelity.XXXXXX")"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
if [ "$(id -u)" != 0 ]; then
  echo "bench/replay-fidelity.sh: skipped: lab filesystems need root" >&2
  exit 0
fi
CACHE=both

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

# A small C project of 24 files and its Makefile, built with make -j2 (gcc: its compiler's CPU
# time is the program's own, outside the root; a paced replay must keep it).
MAKEDIR="$WORK/build"
mkdir -p "$MAKEDIR/src"
python3 - "$MAKEDIR" <<'PY'
import sys
root = sys.argv[1]
objs = []
for i in range(24):
    with open(f"{root}/src/m{i}.c", "w") as out:
        out.write(f"int f{i}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += k * {i + 1}; return s; }}\n")
        for j in range(40):
            out.write(f"static int g{i}_{j}(int y) {{ return y * {j} + {i}; }}\n")
        out.write(f"int h{i}(int y) {{ return " + " + ".join(f"g{i}_{j}(y)" for j in range(40)) + "; }\n")
    objs.append(f"obj/m{i}.o")
with open(f"{root}/src/main.c", "w") as out:
    out.write("".join(f"int h{i}(int);\n" for i in range(24)))
    out.write("int main(void) { return " + " + ".join(f"h{i}(1)" for i in range(24)) + " > 0 ? 0 : 1; }\n")
with open(f"{root}/Makefile", "w") as out:
    out.write("OBJS = " + " ".join(objs) + " obj/main.o\n")
    out.write("prog: $(OBJS)\n\tcc -o $@ $(OBJS)\n")
    out.write("obj/%.o: src/%.c | obj\n\tcc -O1 -c -o $@ $<\n")
    out.write("obj:\n\tmkdir -p obj\n")
    out.write("clean:\n\trm -rf obj prog\n")
PY

echo "recording (fsbench record; each line: what tracing cost the program)"
(cd "$REPO" && "$FSBENCH" record --untraced 10 -o "$WORK/status.fsbtrace" -- git status >/dev/null 2>"$WORK/rec1.err")
grep -E 'traced run took|paced replay' "$WORK/rec1.err" | sed 's/^fsbench: /  git status: /'
# Each run extracts into an emptied directory (--prepare): the untraced runs do the traced
# run's work, so their CPU time is the program's.
(cd "$TARDIR" && "$FSBENCH" record --untraced 5 --prepare 'rm -rf out && mkdir out' -o "$WORK/tar.fsbtrace" -- tar xf a.tar -C out 2>"$WORK/rec2.err")
grep -E 'traced run took|paced replay' "$WORK/rec2.err" | sed 's/^fsbench: /  tar xf: /'

# Each build starts clean (--prepare): the untraced runs compile what the traced one did.
(cd "$MAKEDIR" && "$FSBENCH" record --untraced 3 --prepare 'make -s clean' -o "$WORK/make.fsbtrace" -- make -s -j2 2>"$WORK/rec3.err" >/dev/null)
grep -E 'traced run took|paced replay' "$WORK/rec3.err" | sed 's/^fsbench: /  make -j2: /'

# compare NAME JSON: per target and cache, each replay's median wall over the real program's;
# then, with more than one target, whether the replay ranks the targets as the program does.
compare() {
  python3 - "$1" "$2" <<'PY'
import json, statistics, sys
name, path = sys.argv[1], sys.argv[2]
v = json.load(open(path))
cells = {}
for r in v["results"]:
    if not r["samples"]:
        print(f"  {name}: {r['target']} {r['workload']}: no samples ({r.get('error')})")
        continue
    if r["workload"] == "command":
        kind = "start-up" if r["params"].get("label") == "start-up" else "real"
    else:
        kind = "replay " + r["params"].get("pace", "afap")
    key = (r["target"], r["cache"]["state"])
    cells.setdefault(key, {})[kind] = statistics.median(s["wall_ns"] for s in r["samples"])
targets = sorted({t for t, _ in cells})
for cache in ("cold", "warm"):
    for t in targets:
        c = cells.get((t, cache), {})
        real = c.get("real")
        if real is None:
            continue
        row = [f"{name:<11} {t:<12} {cache:<5} real {real / 1e6:8.1f} ms"]
        for kind in ("replay trace", "replay afap"):
            if kind in c:
                row.append(f"{kind}/real {c[kind] / real:6.3f}")
        if "start-up" in c:
            # The program's own start-up (its binary and libraries, outside the root): part of
            # the real run, never of a replay.
            row.append(f"start-up {c['start-up'] / 1e6:6.1f} ms")
        print("  ".join(row))
    if len(targets) > 1:
        for kind in ("real", "replay trace", "replay afap"):
            have = [t for t in targets if kind in cells.get((t, cache), {})]
            order = sorted(have, key=lambda t: cells[(t, cache)][kind])
            print(f"{name:<11} {cache:<5} fastest first, {kind:<12}: {' < '.join(order)}")
PY
}

# Both run in each target's scratch: the repository copied in once (and its index refreshed
# there, untimed), the tarball copied in and the output directory emptied and synced before
# every sample (a replay syncs its rebuilt start state likewise). Each program's start-up alone
# (`--version`: its binary and libraries, outside the root, which a replay never loads) is
# measured beside it: cold, it is much of what the replay cannot see.
echo "git status: real against its replays, $RUNS samples a cell, cache $CACHE, on $LABS"
"$FSBENCH" run -q --no-store --lab "$LABS" --lab-size 1g --cache "$CACHE" --runs "$RUNS" --json "$WORK/status.json" \
  -w "command:run='git -C repo status',shell=none,prepare='[ -d repo ] || { cp -a $REPO repo && git -C repo status >/dev/null; }'" \
  -w "command:run='git --version',shell=none,label=start-up" \
  -w "replay:trace=$WORK/status.fsbtrace,pace=trace" \
  -w "replay:trace=$WORK/status.fsbtrace" >/dev/null
compare "git status" "$WORK/status.json"

echo "tar xf: real against its replays, $RUNS samples a cell, cache $CACHE, on $LABS"
"$FSBENCH" run -q --no-store --lab "$LABS" --lab-size 1g --cache "$CACHE" --runs "$RUNS" --json "$WORK/tar.json" \
  -w "command:run='tar xf a.tar -C out',shell=none,prepare='[ -f a.tar ] || cp $TARDIR/a.tar .; rm -rf out && mkdir out && sync'" \
  -w "command:run='tar --version',shell=none,label=start-up" \
  -w "replay:trace=$WORK/tar.fsbtrace,pace=trace" \
  -w "replay:trace=$WORK/tar.fsbtrace" >/dev/null
compare "tar xf" "$WORK/tar.json"

echo "make -j2: real against its replays, $RUNS samples a cell, cache $CACHE, on $LABS"
"$FSBENCH" run -q --no-store --lab "$LABS" --lab-size 1g --cache "$CACHE" --runs "$RUNS" --json "$WORK/make.json" \
  -w "command:run='make -s -j2',shell=none,prepare='[ -d src ] || cp -a $MAKEDIR/. .; make -s clean && sync'" \
  -w "command:run='cc --version',shell=none,label=start-up" \
  -w "replay:trace=$WORK/make.fsbtrace,pace=trace" \
  -w "replay:trace=$WORK/make.fsbtrace" >/dev/null
compare "make -j2" "$WORK/make.json"
