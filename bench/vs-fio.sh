#!/usr/bin/env bash
# fsbench vs fio, dd, ioping and a bare C pread loop, on the same file and machine, interleaved,
# ROUNDS rounds (default 3). Prints each figure and the ratio. Goals (issue 3):
#   rand-read 4 KiB from the page cache, QD1, latency recording on:
#       fsbench IOPS >= 1.1 x fio (psync, invalidate=0) and >= 0.9 x the bare C loop
#   seq-read 1 MiB from the page cache: fsbench >= 0.95 x fio
#   seq-write 1 MiB, fsync at end: fsbench within 5% of dd conv=fdatasync
#   latency direct 4 KiB: fsbench median within 5% of ioping -D
# Usage: bench/vs-fio.sh [DIR]   (DIR defaults to a temp dir under /var/tmp; not tmpfs)
source "$(dirname "$0")/common.sh"
need fio fio
need ioping ioping
build_fsbench
BASE="${1:-/var/tmp}"
WORK="$(mktemp -d "$BASE/fsbench-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -o "$WORK/pread_loop" "$ROOT/bench/pread_loop.c"
FILE="$WORK/data"
SECS=3
head -c $((256 << 20)) /dev/urandom > "$FILE"
cat "$FILE" > /dev/null

fs_run() { # fs_run WORKLOAD JSON -> runs fsbench once, warm, on the shared file
  "$FSBENCH" run -q --target "$WORK" --workload "$1" --cache warm --runs 1 --json "$2" >/dev/null
}

echo "== rand-read 4 KiB, page cache, QD1, ${SECS}s per tool per round"
for r in $(seq "$ROUNDS"); do
  fio_iops=$(fio --name=rr --filename="$FILE" --rw=randread --bs=4k --size=256m --ioengine=psync \
      --invalidate=0 --direct=0 --time_based --runtime=$SECS --output-format=json \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])')
  fs_run "rand-read:bs=4k,file=$FILE,size=256m,duration=${SECS}s" "$WORK/rr.json"
  fs_iops=$(json_get "$WORK/rr.json" 'd["results"][0]["summary"]["iops"]["mean"]')
  c_iops=$("$WORK/pread_loop" "$FILE" 4096 $SECS)
  echo "round $r: fsbench $fs_iops IOPS, fio $fio_iops, bare C $c_iops -> fsbench/fio $(ratio "$fs_iops" "$fio_iops") (goal >= 1.1), fsbench/C $(ratio "$fs_iops" "$c_iops") (goal >= 0.9)"
done

echo "== seq-read 1 MiB, page cache"
for r in $(seq "$ROUNDS"); do
  fio_bw=$(fio --name=sr --filename="$FILE" --rw=read --bs=1m --size=256m --ioengine=psync \
      --invalidate=0 --direct=0 --time_based --runtime=$SECS --output-format=json \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["bw_bytes"]/1048576)')
  fs_bw=()
  for _ in 1 2 3 4 5; do
    fs_run "seq-read:bs=1m,file=$FILE,size=256m" "$WORK/sr.json"
    fs_bw+=("$(json_get "$WORK/sr.json" 'd["results"][0]["summary"]["throughput_mib_s"]["mean"]')")
  done
  fs=$(median "${fs_bw[@]}")
  echo "round $r: fsbench $fs MiB/s (median of 5 passes), fio $fio_bw MiB/s -> ratio $(ratio "$fs" "$fio_bw") (goal >= 0.95)"
done

echo "== seq-write 1 MiB x 512, fdatasync at end (both rewrite an existing file: open O_TRUNC)"
dd if=/dev/zero of="$WORK/dd.out" bs=1M count=512 conv=fdatasync status=none  # untimed: allocate once
dd_all=(); fs_all=()
for r in $(seq "$ROUNDS"); do
  t0=$(date +%s.%N)
  dd if=/dev/zero of="$WORK/dd.out" bs=1M count=512 conv=fdatasync status=none
  t1=$(date +%s.%N)
  dd_bw=$(python3 -c "print(512/($t1-$t0))")
  "$FSBENCH" run -q --target "$WORK" --workload "seq-write:bs=1m,size=512m,fsync=end,data=zero" \
      --cache warm --runs 2 --warmup 0 --json "$WORK/sw.json" >/dev/null
  fs=$(json_get "$WORK/sw.json" 'd["results"][0]["samples"][1]["metrics"]["throughput_mib_s"]')
  dd_all+=("$dd_bw"); fs_all+=("$fs")
  echo "round $r: fsbench $fs MiB/s, dd $dd_bw MiB/s -> ratio $(ratio "$fs" "$dd_bw")"
done
echo "seq-write medians: fsbench $(median "${fs_all[@]}") MiB/s, dd $(median "${dd_all[@]}") MiB/s -> ratio $(ratio "$(median "${fs_all[@]}")" "$(median "${dd_all[@]}")") (goal 0.95..1.05)"

LAT_ROUNDS=$((ROUNDS * 3))
echo "== latency, direct 4 KiB, 10 ms apart, same 64 MiB file, $LAT_ROUNDS alternating rounds of 50 requests"
head -c $((64 << 20)) /dev/urandom > "$WORK/lat.dat"
sync
io_all=(); fs_all=()
for r in $(seq "$LAT_ROUNDS"); do
  # ioping -p 1 prints one raw line per request; field 6 is that request's time in ns.
  io_med=$(ioping -D -c 51 -i 10ms -s 4k -S 64m -p 1 -q "$WORK/lat.dat" | awk '{print $6}' | tail -n 50 \
      | python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.stdin))')
  fs_run "latency:count=50,interval=10ms,bs=4k,size=64m,direct=true,file=$WORK/lat.dat" "$WORK/lat.json"
  fs=$(json_get "$WORK/lat.json" 'd["results"][0]["summary"]["lat_p50_ns"]["mean"]')
  io_all+=("$io_med"); fs_all+=("$fs")
done
echo "latency medians over rounds: fsbench $(median "${fs_all[@]}") ns, ioping -D $(median "${io_all[@]}") ns -> ratio $(ratio "$(median "${fs_all[@]}")" "$(median "${io_all[@]}")") (goal 0.95..1.05)"
