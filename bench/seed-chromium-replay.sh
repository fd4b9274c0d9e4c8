#!/usr/bin/env bash
# The Chromium seed answered without the program on the target (issue 43): `git status` over a
# generated source tree (vs-git.sh's generator: nested directories, lognormal sizes) recorded
# once with `fsbench record`, then on each lab filesystem, cold and warm, in one fsbench run:
# the real `git status` (the repository copied into the target, its index refreshed there,
# untimed), its start-up alone (`git --version`: binary and libraries, outside the root, which a
# replay never loads), the trace replayed as recorded (`pace=trace`) and as fast as possible
# (`pace=afap`), and `status-scan` (git status's filesystem work on its own generated tree of the
# same size). Prints a Markdown table of medians, ms, and the replay's ranking beside git's;
# then (issue 58) the paced replay alone, profiled, and per target against the first which call
# kinds make its difference and the kernel's reason for the largest.
#
#   bench/seed-chromium-replay.sh [FILES [LABS [RUNS]]]
#   (default 10000 files; ext4,xfs,btrfs,ext4-fscrypt,gocryptfs,bindfs,sshfs; 5 samples a cell)
source "$(dirname "$0")/common.sh"
need git git
FILES="${1:-10000}"
LABS="${2:-ext4,xfs,btrfs,ext4-fscrypt,gocryptfs,bindfs,sshfs}"
RUNS="${3:-5}"
if [ "$(id -u)" != 0 ]; then
  echo "bench/seed-chromium-replay.sh: skipped: lab filesystems and cold caches need root" >&2
  exit 0
fi
build_fsbench
WORK="$(mktemp -d /dev/shm/fsbench-seed-replay.XXXXXX)"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
REPO="$WORK/repo"
CAP=$((1 << 20)) make_source_repo "$REPO" "$FILES"
# Past git's racy-timestamp window, so that no recorded or timed status refreshes its index.
sleep 2
git -C "$REPO" status >/dev/null

(cd "$REPO" && "$FSBENCH" record -o "$WORK/status.fsbtrace" --untraced 10 -- git status >/dev/null 2>"$WORK/rec.err")
sed 's/^fsbench: /  /' "$WORK/rec.err"

SCALE="$(python3 -c "print($FILES / 250000)")"
"$FSBENCH" run -q --no-store --lab "$LABS" --lab-size 2g --cache both --runs "$RUNS" --json "$WORK/r.json" \
  -w "command:run='git -C repo status',shell=none,label=git status,prepare='[ -d repo ] || { cp -a $REPO repo && git -C repo status >/dev/null; }'" \
  -w "command:run='git --version',shell=none,label=start-up" \
  -w "replay:trace=$WORK/status.fsbtrace,pace=trace,label=replay trace" \
  -w "replay:trace=$WORK/status.fsbtrace,label=replay afap" \
  -w "status-scan:profile=chromium,scale=$SCALE,label=status-scan" >/dev/null

python3 - "$WORK/r.json" "$FILES" <<'PY'
import json, statistics, sys
v = json.load(open(sys.argv[1]))
cells, errors = {}, []
for r in v["results"]:
    label = r["params"].get("label", r["workload"])
    if not r["samples"]:
        errors.append(f"{r['target']} {label}: {r.get('error')}")
        continue
    cells[(r["target"], r["cache"]["state"], label)] = statistics.median(s["wall_ns"] for s in r["samples"]) / 1e6
cols = ["git status", "start-up", "replay trace", "replay afap", "status-scan"]
targets = sorted({t for t, _, _ in cells}, key=lambda t: cells.get((t, "warm", "git status"), 0))
print(f"git status over {int(sys.argv[2]):,} files, medians in ms; trace/real = replay trace / git status")
print("| target | cache | " + " | ".join(cols) + " | trace/real |")
print("|---|---|" + "---:|" * (len(cols) + 1))
for cache in ("cold", "warm"):
    for t in targets:
        row = [cells.get((t, cache, c)) for c in cols]
        ratio = row[2] / row[0] if row[0] and row[2] else None
        fmt = lambda x: "–" if x is None else f"{x:.1f}"
        print(f"| {t} | {cache} | " + " | ".join(fmt(x) for x in row) + f" | {'–' if ratio is None else f'{ratio:.2f}'} |")
for cache in ("cold", "warm"):
    for c in ("git status", "replay trace", "replay afap", "status-scan"):
        have = [t for t in targets if (t, cache, c) in cells]
        order = sorted(have, key=lambda t: cells[(t, cache, c)])
        print(f"{cache}, fastest first, {c:<12}: {' < '.join(order)}")
for e in errors:
    print("no samples:", e)
PY

# Why each target differs from the first (issue 58): the paced replay alone, profiled, on the
# same labs, cold and warm; from its Markdown export, per target and cache, the difference, the
# call kinds that make it (their share and time per call) and the kernel's reason for the
# largest, as fsbench prints them in its "Why B differs from A, by call" tables.
"$FSBENCH" run -q --no-store --lab "$LABS" --lab-size 2g --cache both --runs "$RUNS" --profile \
  --export-markdown "$WORK/why.md" \
  -w "replay:trace=$WORK/status.fsbtrace,pace=trace" >/dev/null 2>"$WORK/why.err" \
  || { echo "the profiled replay failed:"; cat "$WORK/why.err"; }
python3 - "$WORK/why.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read() if sys.argv[1] else ""
sections = re.split(r"^### ", text, flags=re.M)
print()
print("Why each target's replay differs from the first target's (kinds holding >= 5% of the difference):")
print("| target | cache | difference | by call | kernel's reason, largest kind |")
print("|---|---|---:|---|---|")
for s in sections:
    m = re.match(r"Why (\S+)/replay/(\w+) differs from (\S+)/replay/\w+, by call", s)
    if not m:
        continue
    target, cache = m.group(1), m.group(2)
    rows = [l for l in s.splitlines() if l.startswith("| ") and not l.startswith("| call")]
    head = next(l for l in s.splitlines() if l.startswith("| call"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    parsed = [dict(zip(cols, [c.strip() for c in r.strip("|").split("|")])) for r in rows]
    wall = next((r for r in parsed if r.get("call") == "wall time"), {})
    kinds = [r for r in parsed if r.get("call") not in ("wall time", "no call in flight")]
    def pct(r):
        try:
            return float(r.get("share", "0%").rstrip("%"))
        except ValueError:
            return 0.0
    big = [r for r in kinds if abs(pct(r)) >= 5]
    parts = ", ".join(f"{r['call']} {r['share']} ({r['A per call']} → {r['B per call']})" for r in big[:4])
    reason = next((r.get("kernel's reason in B (--profile)", "") for r in big[:1]), "")
    print(f"| {target} | {cache} | {wall.get('B − A', '?')} ({wall.get('verdict', '')}) | {parts or '–'} | {reason or '–'} |")
PY
