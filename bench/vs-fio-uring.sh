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
# fio runs with --norandommap (uniform offsets with repeats, as fsbench draws them).
# Usage (root): bench/vs-fio-uring.sh [DIR]   (DIR holds the loop image; default /var/tmp)
source "$(dirname "$0")/common.sh"
need fio fio
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (loop device, mounts)"; exit 0; fi
build_fsbench
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

fio_run() { # fio_run FILE QD DIRECT -> "IOPS P99_NS"
  fio --name=rr --filename="$1" --rw=randread --bs=4k --size=${SIZE_MB}m --ioengine=io_uring \
      --iodepth="$2" --direct="$3" --invalidate=0 --norandommap --time_based --runtime="$SECS" \
      --lat_percentiles=1 --output-format=json \
    | python3 -c 'import json,sys; r=json.load(sys.stdin)["jobs"][0]["read"]; print(r["iops"], r["lat_ns"]["percentile"]["99.000000"])'
}

fs_run() { # fs_run FILE QD DIRECT -> "IOPS P99_NS"
  local direct=false; [ "$3" = 1 ] && direct=true
  "$FSBENCH" run -q --target "$WORK/out" --cache warm --runs 1 --warmup 0 --json "$WORK/out.json" \
      --workload "rand-read:bs=4k,file=$1,size=${SIZE_MB}m,duration=${SECS}s,engine=io_uring,iodepth=$2,direct=$direct" >/dev/null
  json_get "$WORK/out.json" '"%s %s" % (d["results"][0]["samples"][0]["metrics"]["iops"], d["results"][0]["samples"][0]["latency"]["p99_ns"])'
}

for target in loop-direct tmpfs; do
  if [ "$target" = loop-direct ]; then file="$WORK/loop/data"; direct=1; else file="$WORK/tmpfs/data"; direct=0; fi
  for qd in 1 8 32; do
    fs_iops=(); fs_p99=(); fio_iops=(); fio_p99=()
    for r in $(seq "$ROUNDS"); do
      if [ $((r % 2)) = 1 ]; then
        read -r a b < <(fio_run "$file" "$qd" "$direct"); read -r c d < <(fs_run "$file" "$qd" "$direct")
      else
        read -r c d < <(fs_run "$file" "$qd" "$direct"); read -r a b < <(fio_run "$file" "$qd" "$direct")
      fi
      fio_iops+=("$a"); fio_p99+=("$b"); fs_iops+=("$c"); fs_p99+=("$d")
    done
    fi_m=$(median "${fio_iops[@]}"); fp_m=$(median "${fio_p99[@]}")
    si_m=$(median "${fs_iops[@]}"); sp_m=$(median "${fs_p99[@]}")
    printf '%-11s QD%-2s fsbench %9.0f IOPS p99 %8.0f ns | fio %9.0f IOPS p99 %8.0f ns | IOPS ratio %s (goal >= 1.0), p99 ratio %s (goal <= 1.0)\n' \
      "$target" "$qd" "$si_m" "$sp_m" "$fi_m" "$fp_m" "$(ratio "$si_m" "$fi_m")" "$(ratio "$sp_m" "$fp_m")"
  done
done
