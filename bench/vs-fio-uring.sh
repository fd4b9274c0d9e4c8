#!/usr/bin/env bash
# fsbench vs fio, both on io_uring at the same queue depth: 4 KiB random reads of the same file
# for the same time, QD 1, 8 and 32, on two targets:
#   loop-direct  ext4 on a loop device with direct-io on (a sparse image), O_DIRECT reads
#   tmpfs        buffered reads from tmpfs (the page cache: pure per-request overhead)
# Rounds alternate which tool goes first; the figures are medians over ROUNDS rounds (default 3).
# Prints IOPS and p99 latency per tool and the ratios; asserts nothing. Goal (issue 15):
#   fsbench IOPS >= 1.0 x fio, p99 no worse (ratio <= 1.0).
# Latency: fsbench times each request from the moment it is queued to the reaping of its
# completion, so it is compared with fio's total latency (lat = slat + clat, --lat_percentiles).
# Both read the clock for each request once its SQE is built (fio: start_time in get_io_u;
# fsbench: just before building it) and once per batch of reaped completions (fio: after
# io_getevents; fsbench: after io_uring_enter returns), so the definitions match; fsbench's also
# includes building the SQE (a few ns) and never the reaping of earlier completions.
# fio runs with --norandommap (uniform offsets with repeats, as fsbench draws them).
#
# What differs, by design (fio 3.33, kernel 6.18, strace and perf tracepoints):
# - Both rings are IORING_SETUP_SINGLE_ISSUER|DEFER_TASKRUN (fio adds COOP_TASKRUN, a no-op then).
# - fio submits with io_uring_enter(n, min_complete=0, GETEVENTS) and then waits with
#   io_uring_enter(0, 1, GETEVENTS): two system calls per request at QD1. fsbench submits and
#   waits in one io_uring_enter(n, 1, GETEVENTS).
# - fio reads with IORING_OP_READ on a plain fd (--fixedbufs and --registerfiles are off by
#   default); fsbench uses READ_FIXED on registered buffers and a registered file.
# - tmpfs cannot serve a buffered read without blocking (no FMODE_NOWAIT): io_uring hands every
#   request to an io-wq worker thread (io_uring:io_uring_queue_async_work fires once per request,
#   for both tools), so the tmpfs rows measure the hand-off between the submitting thread and that
#   worker, which the scheduler decides: on a busy 2-CPU machine both tools' tmpfs IOPS vary
#   tenfold from run to run. Compare tmpfs rows only from a quiet machine (the CPU pressure
#   printed before and after the rows shows how quiet it was). On a 2-vCPU VM with guest halt
#   polling off (/sys/module/haltpoll/parameters/guest_halt_poll_ns = 0), a request whose worker
#   runs on the other CPU costs two cross-CPU wake-ups of a halted vCPU, tens of µs (QD1 p50
#   50-65 µs for both tools), while a worker on the submitter's CPU hands over in about 2 µs
#   (p50 2.2-2.7 µs): which one a run gets is up to the scheduler, so unpinned tmpfs rows swing
#   between the two from run to run. PIN=CPU runs both tools on that one CPU (taskset; io-wq
#   workers inherit it), which takes the placement out and leaves the per-request cost.
#   Unpinned on a quiet machine, fio gets more same-CPU hand-offs than fsbench at QD1 and QD8
#   (fio's QD1 p50 in some runs 3-27 µs, fsbench's 60-65 µs; fsbench 0.71-0.87 x fio's IOPS).
#   Not from the differences above: fsbench with two system calls, or without registered
#   buffers and file, was no faster, and fio with --fixedbufs --registerfiles no slower.
# - fsbench's IOPS is operations over the sample's wall time, which also covers opening the file
#   and setting up the ring (well under 1 ms of the SECS seconds); fio's runtime starts after.
# Usage (root): [PIN=CPU] bench/vs-fio-uring.sh [DIR]   (DIR holds the loop image; default
# /var/tmp; the loop rows also see that disk's other traffic, e.g. a build writing to it)
# FSBENCH_BIN=path uses that binary instead of building one; otherwise fsbench is built with
# cargo and taken from $CARGO_TARGET_DIR (see common.sh) or target/.
source "$(dirname "$0")/common.sh"
need fio fio
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (loop device, mounts)"; exit 0; fi
if [ -n "${FSBENCH_BIN:-}" ]; then
  FSBENCH="$FSBENCH_BIN"
else
  build_fsbench
fi
RUN=()
if [ -n "${PIN:-}" ]; then need taskset util-linux; RUN=(taskset -c "$PIN"); fi
# CPU pressure (share of time some task waited for a CPU), 10 s and 60 s averages.
pressure() { sed -n 's/^some avg10=\([0-9.]*\) avg60=\([0-9.]*\).*/\1% (10 s), \2% (60 s)/p' /proc/pressure/cpu 2>/dev/null; }
BASE="${1:-/var/tmp}"
WORK="$(mktemp -d "$BASE/fsbench-uring.XXXXXX")"
SECS="${SECS:-3}"
SIZE_MB=256
LOOPDEV=""
cleanup() {
  for m in "$WORK/loop" "$WORK/tmpfs"; do mountpoint -q "$m" && umount "$m"; done
  [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/loop" "$WORK/tmpfs" "$WORK/out"
truncate -s 1G "$WORK/ext4.img"
LOOPDEV=$(losetup --direct-io=on -f --show "$WORK/ext4.img")
mkfs.ext4 -q -F "$LOOPDEV"
mount "$LOOPDEV" "$WORK/loop"
mount -t tmpfs -o size=$((SIZE_MB + 64))m tmpfs "$WORK/tmpfs"
for d in loop tmpfs; do head -c $((SIZE_MB << 20)) /dev/urandom > "$WORK/$d/data"; done
sync

fio_run() { # fio_run FILE QD DIRECT -> "IOPS P99_NS P50_NS"
  "${RUN[@]}" fio --name=rr --filename="$1" --rw=randread --bs=4k --size=${SIZE_MB}m --ioengine=io_uring \
      --iodepth="$2" --direct="$3" --invalidate=0 --norandommap --time_based --runtime="$SECS" \
      --lat_percentiles=1 --output-format=json \
    | python3 -c 'import json,sys; r=json.load(sys.stdin)["jobs"][0]["read"]; p=r["lat_ns"]["percentile"]; print(r["iops"], p["99.000000"], p["50.000000"])'
}

fs_run() { # fs_run FILE QD DIRECT -> "IOPS P99_NS P50_NS"
  local direct=false; [ "$3" = 1 ] && direct=true
  "${RUN[@]}" "$FSBENCH" run -q --target "$WORK/out" --cache warm --runs 1 --warmup 0 --json "$WORK/out.json" \
      --workload "rand-read:bs=4k,file=$1,size=${SIZE_MB}m,duration=${SECS}s,engine=io_uring,iodepth=$2,direct=$direct" >/dev/null
  json_get "$WORK/out.json" '"%s %s %s" % (d["results"][0]["samples"][0]["metrics"]["iops"], d["results"][0]["samples"][0]["latency"]["p99_ns"], d["results"][0]["samples"][0]["latency"]["p50_ns"])'
}

echo "CPU pressure before: $(pressure)${PIN:+; both tools pinned to CPU $PIN}"

for target in loop-direct tmpfs; do
  if [ "$target" = loop-direct ]; then file="$WORK/loop/data"; direct=1; else file="$WORK/tmpfs/data"; direct=0; fi
  for qd in 1 8 32; do
    fs_iops=(); fs_p99=(); fs_p50=(); fio_iops=(); fio_p99=(); fio_p50=()
    for r in $(seq "$ROUNDS"); do
      if [ $((r % 2)) = 1 ]; then
        read -r a b e < <(fio_run "$file" "$qd" "$direct"); read -r c d f < <(fs_run "$file" "$qd" "$direct")
      else
        read -r c d f < <(fs_run "$file" "$qd" "$direct"); read -r a b e < <(fio_run "$file" "$qd" "$direct")
      fi
      fio_iops+=("$a"); fio_p99+=("$b"); fio_p50+=("$e"); fs_iops+=("$c"); fs_p99+=("$d"); fs_p50+=("$f")
    done
    fi_m=$(median "${fio_iops[@]}"); fp_m=$(median "${fio_p99[@]}"); f5_m=$(median "${fio_p50[@]}")
    si_m=$(median "${fs_iops[@]}"); sp_m=$(median "${fs_p99[@]}"); s5_m=$(median "${fs_p50[@]}")
    printf '%-11s QD%-2s fsbench %9.0f IOPS p99 %8.0f ns | fio %9.0f IOPS p99 %8.0f ns | IOPS ratio %s (goal >= 1.0), p99 ratio %s (goal <= 1.0) | p50 fsbench %7.0f fio %7.0f ns\n' \
      "$target" "$qd" "$si_m" "$sp_m" "$fi_m" "$fp_m" "$(ratio "$si_m" "$fi_m")" "$(ratio "$sp_m" "$fp_m")" "$s5_m" "$f5_m"
  done
done
echo "CPU pressure after: $(pressure)"
