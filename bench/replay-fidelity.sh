#!/usr/bin/env bash
# How close a replay comes to the real program (issues 43, 57): four programs, each recorded once
# with `fsbench record` — `git status` over a generated 5,000-file repository, `tar xf` of a
# generated 2,000-file tarball, `make -j2` of a generated 25-file C project, and `grep -r` over a
# generated 2,000-file text tree (it reads every file's content) — then run in one fsbench run
# beside its trace replayed as recorded (`replay:pace=trace`) and as fast as possible
# (`pace=afap`), on each lab filesystem, cold (root: drop_caches) and warm, samples interleaved.
# Prints each replay's median wall time over the real program's, with the real one's median;
# then, over every cell, the mean and worst |replay/real - 1| of the paced replay, and per column
# (program, cache) whether the replay ranks the filesystems as the program does.
# Goal (issue 57): mean <= 5%, no cell outside +-10% without a cause fsbench reports, rankings
# identical.
#
# Recorded in /dev/shm (or DIR); measured on fsbench's lab filesystems (LABS, default
# ext4,xfs,bindfs,gocryptfs: loop images and FUSE over them, not the host's root, whose `discard`
# mount makes every file creation after a deletion slow and erratic here).
#
#   bench/replay-fidelity.sh [RUNS [LABS [DIR]]]   (default 5 samples a cell)
#   PROGRAMS="git status,tar xf" bench/replay-fidelity.sh ...   (some of the four; default all)
source "$(dirname "$0")/common.sh"
need git git
need tar tar
need make make
need cc gcc
build_fsbench
RUNS="${1:-5}"
LABS="${2:-ext4,xfs,bindfs,gocryptfs}"
BASE="${3:-/dev/shm}"
WORK="$(mktemp -d "$BASE/fsbench-replay-fidelity.XXXXXX")"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
if [ "$(id -u)" != 0 ]; then
  echo "bench/replay-fidelity.sh: skipped: lab filesystems need root" >&2
  exit 0
fi
CACHE=both
PROGRAMS="${PROGRAMS:-git status,tar xf,make -j2,grep -r}"
# want NAME: whether PROGRAMS asks for the program NAME.
want() { [[ ",$PROGRAMS," == *",$1,"* ]]; }

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

# A text tree of 2,000 files of 4-32 KiB in 100 directories (36 MiB), one line of which holds
# the needle: `grep -r` reads every file's content.
GREPDIR="$WORK/text"
python3 - "$GREPDIR" <<'PY'
import os, random, sys
random.seed(7)
root = sys.argv[1]
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
for d in range(100):
    os.makedirs(f"{root}/d{d}")
    for f in range(20):
        n = random.randint(4, 32) * 1024
        line = (" ".join(random.choice(words) for _ in range(12)) + "\n").encode()
        body = (line * (n // len(line) + 1))[:n]
        if d == 57 and f == 7:
            body = body[:100] + b"needle-57\n" + body[110:]
        with open(f"{root}/d{d}/f{f}.txt", "wb") as out:
            out.write(body)
PY

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

(cd "$GREPDIR" && "$FSBENCH" record --untraced 5 -o "$WORK/grep.fsbtrace" -- grep -r -l needle-57 . 2>"$WORK/rec4.err" >/dev/null)
grep -E 'traced run took|paced replay' "$WORK/rec4.err" | sed 's/^fsbench: /  grep -r: /'

# compare NAME JSON: per target and cache, each replay's median wall over the real program's;
# then, with more than one target, whether the replay ranks the targets as the program does.
CELLS="$WORK/cells.tsv"
compare() {
  python3 - "$1" "$2" "$CELLS" <<'PY'
import json, statistics, sys
name, path, cells_out = sys.argv[1], sys.argv[2], sys.argv[3]
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
            # The program's own start-up alone (its binary and libraries, outside the root): a
            # cold replay now loads the libraries and files it read as the program does.
            row.append(f"start-up {c['start-up'] / 1e6:6.1f} ms")
        print("  ".join(row))
        with open(cells_out, "a") as out:
            for kind in ("replay trace", "replay afap"):
                if kind in c:
                    out.write(f"{name}\t{t}\t{cache}\t{kind}\t{real}\t{c[kind]}\n")
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
# fidelity NAME KEY RUN START PREPARE: the program NAME (`command` RUN, after PREPARE), its
# start-up alone (START) and its two replays of $WORK/KEY.fsbtrace, paced and as fast as
# possible, in one run on every lab; then the comparison.
fidelity() {
  want "$1" || return 0
  echo "$1: real against its replays, $RUNS samples a cell, cache $CACHE, on $LABS"
  "$FSBENCH" run -q --no-store --order workloads --lab "$LABS" --lab-size 1g --cache "$CACHE" --runs "$RUNS" --json "$WORK/$2.json" \
    -w "command:run='$3',shell=none,prepare='$5'" \
    -w "command:run='$4',shell=none,label=start-up" \
    -w "replay:trace=$WORK/$2.fsbtrace,pace=trace" \
    -w "replay:trace=$WORK/$2.fsbtrace" >/dev/null
  compare "$1" "$WORK/$2.json"
}
fidelity "git status" status 'git -C repo status' 'git --version' \
  "[ -d repo ] || { cp -a $REPO repo && git -C repo status >/dev/null; }"
fidelity "tar xf" tar 'tar xf a.tar -C out' 'tar --version' \
  "[ -f a.tar ] || cp $TARDIR/a.tar .; rm -rf out && mkdir out && sync"
fidelity "make -j2" make 'make -s -j2' 'cc --version' \
  "[ -d src ] || cp -a $MAKEDIR/. .; make -s clean && sync"
fidelity "grep -r" grep 'grep -r -l needle-57 text' 'grep --version' \
  "[ -d text ] || cp -a $GREPDIR text"

# Over every cell: the paced replay's mean and worst distance from the program, and per column
# whether it ranks the filesystems as the program does.
python3 - "$CELLS" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
for kind in ("replay trace", "replay afap"):
    mine = [(n, t, c, float(real), float(r)) for n, t, c, k, real, r in rows if k == kind]
    if not mine:
        continue
    off = [(abs(r / real - 1), n, t, c, r / real) for n, t, c, real, r in mine]
    mean = sum(o[0] for o in off) / len(off)
    worst = max(off)
    outside = sum(1 for o in off if o[0] > 0.10)
    print(f"{kind}: {len(off)} cells, mean |replay/real - 1| {mean * 100:.1f}%, worst {worst[0] * 100:.1f}% "
          f"({worst[1]}, {worst[2]}, {worst[3]}: {worst[4]:.3f}), {outside} outside +-10%")
    columns = sorted({(n, c) for n, _, c, _, _ in mine})
    same = 0
    for n, c in columns:
        col = [(t, real, r) for n2, t, c2, real, r in mine if (n2, c2) == (n, c)]
        by_real = [t for t, _, _ in sorted(col, key=lambda x: x[1])]
        by_replay = [t for t, _, _ in sorted(col, key=lambda x: x[2])]
        same += by_real == by_replay
        if len(col) > 1 and by_real != by_replay:
            print(f"  {kind} ranks {n} {c} as {' < '.join(by_replay)}; the program: {' < '.join(by_real)}")
    print(f"  {kind}: the ranking is the program's in {same} of {len(columns)} columns")
PY

# The replay's own speed next to the syscall floor (issue 57, item 5): the calls of the recorded
# `git status` under its root, made one after another by a C loop (bench/replay_floor.c: one
# system call each, nothing timed but the loop) on a copy of the repository, against
# `replay:pace=afap` in the same order (`order=strict`: one call at a time, each timed and
# checked) and in its own (`order=resource`), warm, on tmpfs. Goal: the replay's call rate at
# least 0.9 of the floor's.
FLOOR="$WORK/replay_floor"
cc -O2 -o "$FLOOR" "$(dirname "$0")/replay_floor.c"
"$FSBENCH" trace show --calls "$WORK/status.fsbtrace" | python3 -c '
import re, sys
line_re = re.compile(r"^\s*\d+\s+[\d.]+ ms (\w+) (.*) = (-?\d+|-1 \w+) \(")
def path(s):
    return (s[1:-1] if s.startswith("\"") else s) or "."
for line in sys.stdin:
    m = line_re.match(line)
    if not m:
        continue
    kind, args = m.group(1), m.group(2)
    fid = re.match(r"#(\d+):(\".*?\")", args)
    if kind == "stat":
        if fid:
            print(f"F {fid.group(1)}")
        else:
            q = re.match(r"(\".*?\")( nofollow)?$", args)
            print(f"S {1 if q.group(2) else 0} {path(q.group(1))}")
    elif kind == "open":
        q = re.match(r"(\".*?\") flags=0o(\d+) mode=0o(\d+) as #(\d+)$", args)
        print(f"O {q.group(4)} {int(q.group(2), 8)} {int(q.group(3), 8)} {path(q.group(1))}")
    elif kind == "close" and fid and "(a copy)" not in args:
        print(f"C {fid.group(1)}")
    elif kind in ("read", "write") and fid:
        q = re.match(r"#\d+:\".*?\" (\d+)(?: @(\d+))?$", args)
        print(f"{kind[0].upper()} {fid.group(1)} {q.group(1)} {q.group(2) or -1}")
    elif kind == "getdents" and fid:
        print(f"G {fid.group(1)} {args.split()[-1]}")
    elif kind == "mmap" and fid:
        q = re.match(r"#\d+:\".*?\" (\d+) @(\d+)", args)
        print(f"M {fid.group(1)} {q.group(1)} {q.group(2)}")
    elif kind == "access":
        q = re.match(r"(\".*?\") mode=(\d+)$", args)
        print(f"A {q.group(2)} {path(q.group(1))}")
    elif kind in ("readlink", "unlink", "rmdir"):
        letter = {"readlink": "L", "unlink": "U", "rmdir": "D"}[kind]
        print(f"{letter} {path(args)}")
    elif kind == "mkdir":
        q = re.match(r"(\".*?\") mode=0o(\d+)$", args)
        print(f"K {int(q.group(2), 8)} {path(q.group(1))}")
    elif kind == "rename":
        q = re.match(r"(\".*?\") (\".*?\")", args)
        print(f"N {path(q.group(1))}\t{path(q.group(2))}")
' >"$WORK/status.calls"
cp -a "$REPO" "$WORK/floor-repo"
mkdir -p "$WORK/floor-target"
FLOOR_OUT="$("$FLOOR" "$WORK/floor-repo" "$WORK/status.calls" 20)"
"$FSBENCH" run -q --no-store --cache warm --runs 20 -t "$WORK/floor-target" --json "$WORK/floor.json" \
  -w "replay:trace=$WORK/status.fsbtrace,order=strict,outside=skip" \
  -w "replay:trace=$WORK/status.fsbtrace,outside=skip" >/dev/null
python3 - "$WORK/floor.json" "$FLOOR_OUT" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
_, calls, _, ns = sys.argv[2].split()
floor_rate = 1e9 / float(ns)
print(f"floor (C loop, {calls} calls of the git status trace, best of 20): {floor_rate / 1e3:.0f} k calls/s")
for r in v["results"]:
    best = min(r["samples"], key=lambda s: s["wall_ns"])
    rate = best["metrics"]["replay_calls"] / (best["wall_ns"] / 1e9)
    print(f"replay pace=afap order={r['params']['order']:<8}: {rate / 1e3:.0f} k calls/s, {rate / floor_rate:.2f} of the floor (best of 20)")
PY
