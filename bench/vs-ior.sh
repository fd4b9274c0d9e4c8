#!/usr/bin/env bash
# fsbench under MPI vs IOR and mdtest (built from the IOR source kept in shared/peers), with the
# same ranks, sizes and file mode on the same target, several rounds that alternate who goes
# first. Prints each figure and the ratio fsbench / peer; asserts nothing. Goal (issue 15):
#   aggregate bandwidth (seq write, seq read)  fsbench >= 1.0 x IOR
#   metadata rates (file create, stat, remove) fsbench >= 1.0 x mdtest
# Cases, each in both file modes:
#   per-rank  IOR -F (a file per rank), mdtest -u (a directory per rank); fsbench --layout per-rank
#   shared    IOR one file, segmented by rank (rank k writes block k), mdtest one directory for
#             all ranks; fsbench --layout shared
# Data: IOR -a POSIX -w -r -e -t 1m -b BLOCK; each rank reads back what it wrote, from the page
# cache as it is left after the write (no -C, no cache dropping), so fsbench runs --cache warm.
# IOR's bandwidth is all ranks' bytes over (last close - first open), its write phase covering
# open, the writes, the fsync of -e and close; fsbench's seq-write (fsync=end, its default) times
# open(O_CREAT), the writes and one fdatasync inside the sample, so -e is the matching IOR
# setting and fsbench's throughput_mib_s (all ranks' bytes / the slowest rank's time) is the
# figure compared. fsbench's stonewall_mib_s (the data moved when the first rank finished) is
# printed beside it: IOR reports no stonewalled figure without -D.
# Metadata: mdtest -F -C -T -r -n ITEMS -w MD_WRITE (create, stat, remove, no read phase);
# its rate is all ranks' items over the slowest rank's phase (barrier to barrier). fsbench:
#   create, stat,   tree-create:profile=PROFILE,scale=ITEMS/2000,stat=true,delete=names: ITEMS
#   remove          files per rank; files_per_s, stat_files_per_s, delete_files_per_s, each all
#                   ranks' files over the slowest rank's phase, the ranks meeting at a barrier
#                   after each phase as mdtest's do. PROFILE=flat (default) is mdtest's shape:
#                   every file in one directory (a rank's own, or with --layout shared one for
#                   every rank, its files named .rK), each 4163 bytes; PROFILE=small is a source
#                   tree (200 directories, sizes around 2 KB). stat=true lstats every file by its
#                   name; delete=names unlinks each file by its known name, then the directories,
#                   as mdtest's remove phase (the default, delete=walk, is rm -rf).
# mdtest's files get MD_WRITE bytes each (its -w; default 4163, the size of flat's files and the
# small tree's mean; MD_WRITE=0 for empty files).
# IOR removes its files after each iteration, untimed, and creates them anew: fsbench's seq-write
# runs with remove=before, which does the same (its default, remove=inside, truncates the
# previous sample's file inside the sample, as dd does; with --layout shared rank 0 empties the
# one file before the sample). Known differences left in: IOR's -e is fsync, fsbench's
# fdatasync. mdtest meets at a barrier between phases; fsbench's tree-create meets at one between
# create and delete too (outside both timed phases).
# Figures: the median of RUNS runs (IOR iterations, mdtest runs, fsbench samples) in each round,
# then the median over ROUNDS rounds (default 3).
# Needs mpicc and mpirun (openmpi-bin, libopenmpi-dev) and autotools for the IOR build, which is
# cached in ${XDG_CACHE_HOME:-~/.cache}/fsbench-bench/ior-5fcf0ba and reused.
# Usage: [NP=4] [BLOCK_MB=128] [ITEMS=2000] [RUNS=3] [ROUNDS=3] [TMPFS=1] [PROFILE=flat|small]
#        [MD_WRITE=4163] bench/vs-ior.sh [DIR]
#   DIR holds a fresh temp directory, the target of every tool (default /var/tmp); TMPFS=1 (root)
#   also runs every case on a tmpfs mounted inside it. IOR_TARBALL=FILE overrides the source.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
need mpicc libopenmpi-dev
need mpirun openmpi-bin
need autoreconf autoconf
need automake automake
need libtoolize libtool
need pkg-config pkg-config
need make make

NP="${NP:-4}"
BLOCK_MB="${BLOCK_MB:-128}"
ITEMS="${ITEMS:-2000}"
RUNS="${RUNS:-3}"
MD_WRITE="${MD_WRITE:-4163}"
PROFILE="${PROFILE:-flat}"
IOR_VERSION=ior-5fcf0ba
SCALE=$(python3 -c "import sys; print(int(sys.argv[1]) / 2000)" "$ITEMS")

# The IOR source: IOR_TARBALL, else shared/peers beside the checkout (or the workplace's).
TARBALL="${IOR_TARBALL:-}"
if [ -z "$TARBALL" ]; then
  for t in "$ROOT/../shared/peers/$IOR_VERSION.tar.gz" "/work/shared/peers/$IOR_VERSION.tar.gz"; do
    if [ -f "$t" ]; then TARBALL="$t"; break; fi
  done
fi
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/fsbench-bench/$IOR_VERSION"
IOR="$CACHE/src/ior"
MDTEST="$CACHE/src/mdtest"

BASE="${1:-/var/tmp}"
WORK="$(mktemp -d "$BASE/fsbench-ior.XXXXXX")"
BUILD=""
cleanup() {
  if mountpoint -q "$WORK/tmpfs" 2>/dev/null; then umount "$WORK/tmpfs"; fi
  rm -rf "$WORK"
  if [ -n "$BUILD" ]; then rm -rf "$BUILD"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# IOR and mdtest, built once into the cache (a half-done build never takes the cache's place).
if [ ! -x "$IOR" ] || [ ! -x "$MDTEST" ]; then
  if [ -z "$TARBALL" ] || [ ! -f "$TARBALL" ]; then
    echo "SKIP: no IOR source ($IOR_VERSION.tar.gz in shared/peers, or IOR_TARBALL=FILE)"
    exit 0
  fi
  mkdir -p "$(dirname "$CACHE")"
  BUILD="$(mktemp -d "$CACHE.build.XXXXXX")"
  echo "building IOR and mdtest from $TARBALL (once, into $CACHE)"
  tar -xzf "$TARBALL" -C "$BUILD" --strip-components=1
  if ! (cd "$BUILD" && ./bootstrap && ./configure CC=mpicc && make -j"$(nproc)") \
      >"$WORK/ior-build.log" 2>&1; then
    tail -n 20 "$WORK/ior-build.log"
    echo "SKIP: the IOR build failed"
    exit 0
  fi
  rm -rf "$CACHE"
  mv "$BUILD" "$CACHE"
  BUILD=""
fi

# Open MPI refuses root without --allow-run-as-root, and more ranks than cores without
# --oversubscribe.
MPIRUN=(mpirun -n "$NP")
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  MPIRUN+=(--oversubscribe)
  if [ "$(id -u)" = 0 ]; then MPIRUN+=(--allow-run-as-root); fi
fi

# fsbench's half needs its MPI build (`--features mpi`, `run --layout`); without it the peers'
# figures are still printed.
FS=1
if ! build_fsbench_mpi >"$WORK/cargo.log" 2>&1; then
  FS=0
  echo "NOTE: fsbench does not build with --features mpi here ($(grep -m1 -i error "$WORK/cargo.log" || true)); IOR and mdtest only"
elif ! "$FSBENCH" run --help 2>/dev/null | grep -q -- "--layout"; then
  FS=0
  echo "NOTE: this fsbench has no run --layout (no MPI support yet); IOR and mdtest only"
fi

TARGETS=(disk)
mkdir -p "$WORK/disk"
if [ "${TMPFS:-0}" = 1 ]; then
  if [ "$(id -u)" = 0 ]; then
    mkdir -p "$WORK/tmpfs"
    # Room for two shared files or 2 x NP files of BLOCK_MB, and the trees.
    mount -t tmpfs -o size=$((2 * NP * BLOCK_MB + 512))m tmpfs "$WORK/tmpfs"
    TARGETS+=(tmpfs)
  else
    echo "NOTE: TMPFS=1 needs root (mount); disk only"
  fi
fi

# median_of JSON-less lists: med "1 2 3" -> 2
med() {
  # shellcheck disable=SC2086  # the list is split on purpose
  median $1
}

ior_run() { # ior_run DIR MODE -> "WRITE_MIB_S READ_MIB_S" (medians over the RUNS iterations)
  local dir="$1/ior" flags=()
  [ "$2" = per-rank ] && flags=(-F)
  mkdir -p "$dir"
  "${MPIRUN[@]}" "$IOR" -a POSIX -w -r -e -t 1m -b "${BLOCK_MB}m" -s 1 -i "$RUNS" "${flags[@]}" \
      -o "$dir/ior.dat" -O summaryFormat=JSON -O "summaryFile=$WORK/ior.json" >"$WORK/ior.log" 2>&1 \
    || { cat "$WORK/ior.log" >&2; return 1; }
  rm -rf "$dir"
  python3 - "$WORK/ior.json" <<'EOF'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
res = d["tests"][0]["Results"]
flat = [r for it in res for r in (it if isinstance(it, list) else [it])]
bw = {a: statistics.median(r["bwMiB"] for r in flat if r["access"] == a) for a in ("write", "read")}
print(bw["write"], bw["read"])
EOF
}

mdtest_run() { # mdtest_run DIR MODE -> "CREATE STAT REMOVE" (ops/s, medians over RUNS runs)
  local dir="$1/mdtest" flags=() c=() s=() r=()
  [ "$2" = per-rank ] && flags=(-u)
  for _ in $(seq "$RUNS"); do
    "${MPIRUN[@]}" "$MDTEST" -F -C -T -r -n "$ITEMS" -w "$MD_WRITE" -i 1 "${flags[@]}" -d "$dir" \
        >"$WORK/mdtest.log" 2>&1 || { cat "$WORK/mdtest.log" >&2; return 1; }
    rm -rf "$dir"
    # The summary table: "   File creation   MAX MIN MEAN STDDEV" (one iteration: all equal).
    c+=("$(awk '$1 == "File" && $2 == "creation" {print $3}' "$WORK/mdtest.log")")
    s+=("$(awk '$1 == "File" && $2 == "stat" {print $3}' "$WORK/mdtest.log")")
    r+=("$(awk '$1 == "File" && $2 == "removal" {print $3}' "$WORK/mdtest.log")")
  done
  echo "$(median "${c[@]}") $(median "${s[@]}") $(median "${r[@]}")"
}

fs_run() { # fs_run DIR MODE WORKLOAD... -> runs fsbench under mpirun into $WORK/fs.json
  local dir="$1/fsbench" mode="$2" args=() w rc=0
  shift 2
  for w in "$@"; do args+=(-w "$w"); done
  mkdir -p "$dir"
  "${MPIRUN[@]}" "$FSBENCH" run -q --target "$dir" --cache warm --runs "$RUNS" --warmup 0 \
      --no-store --layout "$mode" --json "$WORK/fs.json" "${args[@]}" >"$WORK/fs.log" 2>&1 || rc=$?
  rm -rf "$dir"
  return "$rc"
}

fs_metric() { # fs_metric WORKLOAD METRIC -> the median of METRIC in $WORK/fs.json, "-" if none
  json_get "$WORK/fs.json" \
    "next(r for r in d['results'] if r['workload'].split(':')[0] == '$1')['summary'].get('$2', {}).get('median', '-')"
}

fs_data() { # fs_data DIR MODE -> "WRITE WRITE_STONEWALL READ READ_STONEWALL" (MiB/s)
  fs_run "$1" "$2" "seq-write:size=${BLOCK_MB}m,bs=1m,remove=before" "seq-read:size=${BLOCK_MB}m,bs=1m" \
    || { cat "$WORK/fs.log" >&2; return 1; }
  echo "$(fs_metric seq-write throughput_mib_s) $(fs_metric seq-write stonewall_mib_s)" \
       "$(fs_metric seq-read throughput_mib_s) $(fs_metric seq-read stonewall_mib_s)"
}

fs_meta() { # fs_meta DIR MODE -> "CREATE STAT REMOVE" (files/s)
  fs_run "$1" "$2" "tree-create:profile=$PROFILE,scale=$SCALE,stat=true,delete=names" \
    || { cat "$WORK/fs.log" >&2; return 1; }
  echo "$(fs_metric tree-create files_per_s) $(fs_metric tree-create stat_files_per_s)" \
       "$(fs_metric tree-create delete_files_per_s)"
}

# The runs write their figures to $WORK/res (no subshell: Ctrl-C and a failed run end the script
# with the run's own processes, then the cleanup).
# Per case (target mode phase), the figures of each round, space-separated.
declare -A PEER=() FSB=() SW=()
# A "-" (no figure: a run fsbench refused) is left out.
add() {
  PEER[$1]+="$2 "
  if [ "$FS" = 1 ] && [ "$3" != - ]; then FSB[$1]+="$3 "; fi
  if [ "$FS" = 1 ] && [ -n "${4:-}" ] && [ "$4" != - ]; then SW[$1]+="$4 "; fi
}

echo "fsbench vs IOR/mdtest: $NP ranks, ${BLOCK_MB} MiB per rank, $ITEMS files per rank (tree profile $PROFILE; mdtest -w $MD_WRITE)," \
     "$RUNS runs x $ROUNDS rounds, in $WORK"
for r in $(seq "$ROUNDS"); do
  for t in "${TARGETS[@]}"; do
    dir="$WORK/$t"
    for mode in per-rank shared; do
      iw="" ir="" fw="" fws="" fr="" frs="" mc="" ms="" mr="" fc="" fst="" frm=""
      if [ $((r % 2)) = 1 ] || [ "$FS" = 0 ]; then
        ior_run "$dir" "$mode" >"$WORK/res"; read -r iw ir <"$WORK/res"
        if [ "$FS" = 1 ]; then fs_data "$dir" "$mode" >"$WORK/res"; read -r fw fws fr frs <"$WORK/res"; fi
        mdtest_run "$dir" "$mode" >"$WORK/res"; read -r mc ms mr <"$WORK/res"
        if [ "$FS" = 1 ]; then fs_meta "$dir" "$mode" >"$WORK/res"; read -r fc fst frm <"$WORK/res"; fi
      else
        fs_data "$dir" "$mode" >"$WORK/res"; read -r fw fws fr frs <"$WORK/res"
        ior_run "$dir" "$mode" >"$WORK/res"; read -r iw ir <"$WORK/res"
        fs_meta "$dir" "$mode" >"$WORK/res"; read -r fc fst frm <"$WORK/res"
        mdtest_run "$dir" "$mode" >"$WORK/res"; read -r mc ms mr <"$WORK/res"
      fi
      if [ -z "$iw" ] || [ -z "$mc" ]; then
        echo "a peer run failed (round $r, $t $mode)" >&2; exit 1
      fi
      if [ "$FS" = 1 ] && { [ -z "$fw" ] || [ -z "$fc" ]; }; then
        echo "an fsbench run failed (round $r, $t $mode)" >&2; exit 1
      fi
      add "$t $mode write" "$iw" "$fw" "$fws"
      add "$t $mode read" "$ir" "$fr" "$frs"
      add "$t $mode create" "$mc" "$fc"
      add "$t $mode stat" "$ms" "$fst"
      add "$t $mode remove" "$mr" "$frm"
    done
  done
  echo "round $r done"
done

echo
printf '%-6s %-9s %-7s %15s %15s %7s %18s\n' target mode phase "IOR/mdtest" fsbench ratio "fsbench stonewall"
for t in "${TARGETS[@]}"; do
  for mode in per-rank shared; do
    for phase in write read create stat remove; do
      key="$t $mode $phase"
      unit=MiB/s
      case $phase in create | stat | remove) unit=ops/s ;; esac
      p=$(med "${PEER[$key]}")
      f=- rat=- sw=-
      if [ -n "${FSB[$key]:-}" ]; then
        f=$(printf '%.1f' "$(med "${FSB[$key]}")")
        rat=$(ratio "$f" "$p")
      fi
      if [ -n "${SW[$key]:-}" ]; then
        sw=$(printf '%.1f' "$(med "${SW[$key]}")")
      fi
      goal=""
      [ "$rat" != - ] && goal=" (goal >= 1.0)"
      printf '%-6s %-9s %-7s %15.1f %15s %7s %18s  %s%s\n' \
        "$t" "$mode" "$phase" "$p" "$f" "$rat" "$sw" "$unit" "$goal"
    done
  done
done
