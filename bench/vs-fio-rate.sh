#!/usr/bin/env bash
# Open-loop rates: fsbench rate= vs fio rate_iops= on the same cached file, 4 KiB random reads at
# queue depth 1, ROUNDS rounds (default 3). Prints achieved rate / asked for both, their CPU, and
# the ratio fsbench / fio. Then coordinated omission: both run at 2000 IOPS for 6 s and are
# stopped (SIGSTOP) for 200 ms in the middle, as a stalled disk or a descheduled client would:
# fsbench's latency from each request's scheduled start shows the stall at p99 (400 requests
# were due during it), its service time and fio's completion latency do not. Asserts nothing.
# Goals (issue 24): achieved rate within 2% of asked; a paced run uses well under a core;
# fsbench p99 (scheduled) >= 50 ms with the stall while fio's clat p99 stays small.
# Usage: bench/vs-fio-rate.sh [DIR]   (DIR defaults to a temp dir under /var/tmp)
source "$(dirname "$0")/common.sh"
need fio fio
build_fsbench
BASE="${1:-/var/tmp}"
WORK="$(mktemp -d "$BASE/fsbench-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
FILE="$WORK/data"
head -c $((64 << 20)) /dev/urandom > "$FILE"
cat "$FILE" > /dev/null
SECS=3

fio_rate() { # fio_rate RATE SECS JSON [fio args...]
  local rate="$1" secs="$2" out="$3"; shift 3
  fio --name=rr --filename="$FILE" --rw=randread --bs=4k --size=64m --ioengine=psync \
    --invalidate=0 --direct=0 --rate_iops="$rate" --time_based --runtime="$secs" \
    --output-format=json "$@" > "$out"
}
fs_rate() { # fs_rate RATE SECS JSON
  "$FSBENCH" run -q --target "$WORK" --workload "rand-read:bs=4k,file=$FILE,size=64m,rate=$1,duration=$2s" \
    --cache warm --runs 1 --json "$3" >/dev/null
}
fio_get() { json_get "$1" "$2"; }

echo "== rate accuracy and CPU: 4 KiB random reads from the page cache, ${SECS}s each"
for rate in 1000 5000 20000; do
  for r in $(seq "$ROUNDS"); do
    fio_rate "$rate" "$SECS" "$WORK/fio.json"
    fs_rate "$rate" "$SECS" "$WORK/fs.json"
    fio_iops=$(fio_get "$WORK/fio.json" 'd["jobs"][0]["read"]["iops"]')
    fio_cpu=$(fio_get "$WORK/fio.json" 'd["jobs"][0]["usr_cpu"] + d["jobs"][0]["sys_cpu"]')
    fs_iops=$(json_get "$WORK/fs.json" 'd["results"][0]["summary"]["iops"]["mean"]')
    fs_cpu=$(json_get "$WORK/fs.json" 'd["results"][0]["summary"]["cpu_pct"]["mean"]')
    echo "rate $rate round $r: fsbench $fs_iops IOPS ($(ratio "$fs_iops" "$rate") of asked, CPU $fs_cpu%), fio $fio_iops ($(ratio "$fio_iops" "$rate") of asked, CPU $fio_cpu%) -> fsbench/fio $(ratio "$fs_iops" "$fio_iops")"
  done
done

# stopped CMD...: runs CMD in its own process group, stops the group for 200 ms after 3 s.
stopped() {
  setsid "$@" &
  local pid=$!
  sleep 3
  kill -STOP -- "-$pid" 2>/dev/null || true
  sleep 0.2
  kill -CONT -- "-$pid" 2>/dev/null || true
  wait "$pid"
}

echo "== coordinated omission: 2000 IOPS for 6 s, stopped for 200 ms at 3 s"
for r in $(seq "$ROUNDS"); do
  stopped fio --name=rr --filename="$FILE" --rw=randread --bs=4k --size=64m --ioengine=psync \
    --invalidate=0 --direct=0 --rate_iops=2000 --time_based --runtime=6 \
    --output-format=json > "$WORK/fio.json"
  stopped "$FSBENCH" run -q --target "$WORK" --workload "rand-read:bs=4k,file=$FILE,size=64m,rate=2000,duration=6s" --warmup 0 \
    --cache warm --runs 1 --json "$WORK/fs.json" >/dev/null
  fio_p99=$(fio_get "$WORK/fio.json" 'd["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]/1e6')
  fio_iops=$(fio_get "$WORK/fio.json" 'd["jobs"][0]["read"]["iops"]')
  fs_p99=$(json_get "$WORK/fs.json" 'd["results"][0]["summary"]["lat_p99_ns"]["mean"]/1e6')
  fs_svc=$(json_get "$WORK/fs.json" 'd["results"][0]["summary"]["service_p99_ns"]["mean"]/1e6')
  fs_iops=$(json_get "$WORK/fs.json" 'd["results"][0]["summary"]["iops"]["mean"]')
  echo "round $r: p99 fsbench scheduled ${fs_p99} ms, fsbench service ${fs_svc} ms, fio clat ${fio_p99} ms -> scheduled/fio $(ratio "$fs_p99" "$fio_p99"); IOPS fsbench $fs_iops, fio $fio_iops"
done
