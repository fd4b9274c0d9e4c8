#!/usr/bin/env bash
# fsbench's `command` workload against hyperfine, the tool every user of it will hold fsbench
# against (issue 51): the same program, the same machine, in interleaved blocks (hyperfine a
# block, fsbench a block, ...), so that drift hits both alike. Per row: the median of each
# block's median ratio fsbench/hyperfine, with the blocks' lowest and highest ratio; the
# program's user and system time under each (the cost of its start is in its system time), and
# fsbench's own CPU per sample (fsbench_cpu_ns, not in the program's); for warm rows without a
# shell, the bare start's ratio (bench/spawn_ref.c: fsbench's way of starting a program, nothing
# else). Goal: every ratio 0.97-1.03.
#
#   bench/vs-hyperfine.sh [BLOCKS [RUNS]]     (default 8 blocks of 40 runs each side)
#
# Rows: /bin/true (the start alone) and `git status` over a generated 5,000-file repository and
# over this checkout, without a shell (hyperfine -N, fsbench shell=none) and with one (both
# subtract the shell's start-up), warm, and cold (hyperfine --prepare dropping the caches,
# fsbench --cache cold, which drops them before every sample; as root only).
source "$(dirname "$0")/common.sh"
need hyperfine hyperfine
need git git
build_fsbench
BLOCKS="${1:-8}"
RUNS="${2:-40}"
WORK="$(mktemp -d /var/tmp/fsbench-vs-hyperfine.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# The bare start (bench/spawn_ref.c): the program started exactly as fsbench starts it, and
# nothing else; its ratio to hyperfine is what the start method alone gives (warm rows without a
# shell).
gcc -O2 -o "$WORK/spawn_ref" "$ROOT/bench/spawn_ref.c"

# A generated repository: 5,000 files in 500 directories, committed.
REPO="$WORK/repo"
make_repo "$REPO"

# As words for hyperfine -N too (it splits a command as a shell would, without running one).
drop="sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'"
# row NAME DIR CACHE SHELL PROGRAM...: BLOCKS interleaved blocks of RUNS runs a side.
row() {
  local name="$1" dir="$2" cache="$3" shell="$4"
  shift 4
  local cmd="$*"
  local hf=(hyperfine --style none --warmup 3 --runs "$RUNS")
  [ "$shell" = none ] && hf+=(-N)
  [ "$cache" = cold ] && hf+=(--prepare "$drop")
  local ratios=() fs_sys=() hf_sys=() fs_user=() hf_user=() owns=() bare=() fs_bare=()
  local words=($cmd)
  local path
  path="$(command -v "${words[0]}")"
  for b in $(seq "$BLOCKS"); do
    # Who goes first alternates from block to block: neither tool always follows the other.
    if [ $((b % 2)) = 1 ]; then
      (cd "$dir" && "${hf[@]}" --export-json "$WORK/h.json" "$cmd" >/dev/null 2>&1)
    fi
    "$FSBENCH" run -q --no-store --runs "$RUNS" --cache "$cache" -t "$WORK" \
      -w "command:run='$cmd',shell=$shell,cwd=$dir" --json "$WORK/f.json" >/dev/null
    if [ $((b % 2)) = 0 ]; then
      (cd "$dir" && "${hf[@]}" --export-json "$WORK/h.json" "$cmd" >/dev/null 2>&1)
    fi
    local bare_s=0
    if [ "$shell" = none ] && [ "$cache" = warm ]; then
      bare_s="$(cd "$dir" && "$WORK/spawn_ref" "$RUNS" "$path" "${words[@]}")"
    fi
    read -r r fsys hsys fuser huser own bare_r fs_bare_r < <(python3 - "$WORK/f.json" "$WORK/h.json" "$bare_s" <<'PY'
import json, statistics, sys
f = json.load(open(sys.argv[1]))["results"][0]["samples"]
h = json.load(open(sys.argv[2]))["results"][0]
bare = float(sys.argv[3])
fs = statistics.median(s["metrics"]["command_ns"] for s in f) / 1e9
hf = statistics.median(h["times"])
fsys = statistics.median(s["metrics"]["sys_ns"] for s in f) / 1e6
hsys = h["system"] * 1e3
fuser = statistics.median(s["metrics"]["user_ns"] for s in f) / 1e6
huser = h["user"] * 1e3
own = statistics.median(s["metrics"].get("fsbench_cpu_ns", 0) for s in f) / 1e6
# hyperfine clamps a time less its shell's start-up at 0: such a block has no ratio.
ratio = lambda x: f"{x / hf:.4f}" if hf > 0 else "nan"
over_bare = f"{fs / bare:.4f}" if bare > 0 else "nan"
print(f"{ratio(fs)} {fsys:.3f} {hsys:.3f} {fuser:.3f} {huser:.3f} {own:.3f} {ratio(bare)} {over_bare}")
PY
)
    ratios+=("$r") fs_sys+=("$fsys") hf_sys+=("$hsys") fs_user+=("$fuser") hf_user+=("$huser")
    owns+=("$own") bare+=("$bare_r") fs_bare+=("$fs_bare_r")
  done
  python3 - "$name" "${ratios[*]}" "${fs_sys[*]}" "${hf_sys[*]}" "${fs_user[*]}" \
    "${hf_user[*]}" "${owns[*]}" "${bare[*]}" "${fs_bare[*]}" <<'PY'
import statistics, sys
name, r, fs, hs, fu, hu, own, bare, fb = sys.argv[1], *[list(map(float, a.split())) for a in sys.argv[2:]]
m = statistics.median
r = [x for x in r if x == x] or [float("nan")]
bare = [x for x in bare if x == x] or [0.0]
fb = [x for x in fb if x == x]
ok = "ok" if 0.97 <= m(r) <= 1.03 else "OUTSIDE 0.97-1.03"
ref = f"  bare start/hyperfine {m(bare):.3f}" if m(bare) > 0 else ""
# fsbench against the bare start of the same program (issue 59: 0.95-1.05, multi-threaded
# programs included), block by block.
if fb:
    fb_ok = "ok" if 0.95 <= m(fb) <= 1.05 else "OUTSIDE 0.95-1.05"
    ref += f"  fsbench/bare start {m(fb):.3f} ({min(fb):.3f}-{max(fb):.3f}) {fb_ok}"
print(f"{name:<44} ratio {m(r):.3f} ({min(r):.3f}-{max(r):.3f})  {ok}{ref}\n"
      f"{'':<44} user/sys ms fsbench {m(fu):.3f}/{m(fs):.3f} hyperfine {m(hu):.3f}/{m(hs):.3f}"
      f"  fsbench's own CPU {m(own):.3f} ms")
PY
}

echo "fsbench command / hyperfine, median of $BLOCKS blocks x $RUNS runs a side (lowest-highest)"
row "/bin/true, no shell, warm" "$WORK" warm none /bin/true
row "/bin/true, shell, warm" "$WORK" warm sh /bin/true
row "git status, generated 5,000 files, no shell" "$REPO" warm none git status
row "git status, generated 5,000 files, shell" "$REPO" warm sh git status
row "git status, this checkout, no shell" "$ROOT" warm none git status
if [ "$(id -u)" = 0 ]; then
  row "git status, generated, cold, no shell" "$REPO" cold none git status
else
  echo "cold rows: need root (drop_caches)"
fi
