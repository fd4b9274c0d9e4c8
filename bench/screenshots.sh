#!/usr/bin/env bash
# Screenshots of the HTML report (issue 23), for a reviewer to look at: four small real runs,
# each rendered by `fsbench report` and photographed by headless Chromium at 1280 px wide.
#   two-targets   a disk directory and a tmpfs, cold and warm (the quick study's question)
#   sweep         a walk over 1, 2 and 4 processes on both (the readdir-locks study)
#   two-runs      the same plan run twice, the label moved from disk to tmpfs in between
#   overhead      a disk-speed-like run in the seed's overhead layout (ext4 against
#                 ext4-fscrypt and bindfs lab targets as root, else two plain directories)
# Usage: bench/screenshots.sh [OUTDIR]   (default: ./screenshots); prints the files written.
# Needs chromium (Debian's package); root for cold caches and lab targets. About 3 minutes.
source "$(dirname "$0")/common.sh"
need chromium chromium
OUT="${1:-$ROOT/screenshots}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
build_fsbench
WORK="$(mktemp -d)"
SHM="$(mktemp -d -p /dev/shm fsbench-shots.XXXXXX)"
# KEEP=1 keeps the runs' database (printed) to render the reports again without measuring.
if [ "${KEEP:-0}" = 1 ]; then trap 'rm -rf "$SHM"; echo "database kept: $WORK/r.db"' EXIT
else trap 'rm -rf "$WORK" "$SHM"' EXIT; fi
mkdir -p "$WORK/disk" "$SHM/mem"
DB="$WORK/r.db"
run() { "$FSBENCH" run -q --db "$DB" "$@" >/dev/null; }

# 1. Two targets, cold and warm.
run -t disk="$WORK/disk" -t mem="$SHM/mem" --cache both --runs 5 \
  -w seq-read:size=64m -w rand-read:size=16m,ops=4000 -w latency:count=400,interval=0ms,size=16m \
  -w walk:profile=small,scale=0.05 --note two-targets
"$FSBENCH" report last -o "$OUT/two-targets.html" --db "$DB" 2>/dev/null

# 2. A workers sweep.
run -t disk="$WORK/disk" -t mem="$SHM/mem" --cache warm --runs 3 \
  -w walk:profile=small,scale=0.3,workers=1,2,4,walks=4,mode=procs --note sweep
"$FSBENCH" report last -o "$OUT/sweep.html" --db "$DB" 2>/dev/null

# 3. Two runs of one plan; between them the label `t` moves from the disk to tmpfs.
PLAN=(--cache both --runs 5 -w rand-read:size=16m,ops=4000 -w seq-write:size=32m
  -w latency:count=400,interval=0ms,size=16m)
run -t t="$WORK/disk" "${PLAN[@]}" --note before
run -t t="$SHM/mem" "${PLAN[@]}" --note after
"$FSBENCH" report last~1 last -o "$OUT/two-runs.html" --db "$DB" 2>/dev/null

# 4. The encryption-overhead layout (report = "overhead"), cold.
cat >"$WORK/overhead.toml" <<'TOML'
name = "overhead-shot"
description = "A small disk-speed: dd-style writes and reads, ioping latency and seek rate, cold."
cache = "cold"
runs = 4
report = "overhead"
compare = "targets"

[[workload]]
name = "seq-write"
bs = ["1m", "4k"]
size = "32m"
direct = false

[[workload]]
name = "seq-read"
bs = ["1m", "4k"]
size = "32m"
direct = false

[[workload]]
name = "seek-rate"
size = "16m"
duration = "1s"
direct = false

[[workload]]
name = "latency"
count = 100
interval = "1ms"
direct = false
TOML
if [ "$(id -u)" = 0 ] && "$FSBENCH" lab list 2>/dev/null | grep -q '^ext4-fscrypt *yes'; then
  run --suite "$WORK/overhead.toml" --lab ext4,ext4-fscrypt,bindfs --lab-size 256m --lab-dir "$WORK"
else
  run --suite "$WORK/overhead.toml" -t plain="$WORK/disk" -t mem="$SHM/mem"
fi
"$FSBENCH" report last -o "$OUT/overhead.html" --db "$DB" 2>/dev/null

for name in two-targets sweep two-runs overhead; do
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run \
    --user-data-dir="$(mktemp -d -p "$WORK")" --hide-scrollbars \
    --screenshot="$OUT/$name.png" --window-size=1280,4000 "file://$OUT/$name.html" >/dev/null 2>&1
  echo "$OUT/$name.png ($(stat -c %s "$OUT/$name.html") bytes of HTML)"
done
