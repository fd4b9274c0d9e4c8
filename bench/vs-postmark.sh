#!/usr/bin/env bash
# fsbench postmark vs Debian postmark on the CSAIL configuration (8,192 files, 256 directories,
# 500 B - 1 MiB, seed 42, 4 KiB blocks) with 500 and 20,000 transactions, interleaved, ROUNDS
# rounds, on tmpfs and on a loop-mounted ext4 (root; skipped otherwise). Goal (issue 6): fsbench's
# time <= 1.0x postmark's. Times are wall times of the whole program.
source "$(dirname "$0")/common.sh"
need postmark postmark
build_fsbench
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount tmpfs and a loop ext4"; exit 0; }
WORK="$(mktemp -d /var/tmp/fsbench-pm.XXXXXX)"
cleanup() { umount "$WORK/tmpfs" "$WORK/ext4" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/tmpfs" "$WORK/ext4"
mount -t tmpfs -o size=12g tmpfs "$WORK/tmpfs"
truncate -s 12G "$WORK/ext4.img" && mkfs.ext4 -q -F "$WORK/ext4.img" && mount -o loop "$WORK/ext4.img" "$WORK/ext4"
for fs in tmpfs ext4; do
  for tx in 500 20000; do
    # fsbench works in a scratch directory one level below `location`; postmark gets a directory
    # at that same depth, so both meet the same inode and block placement (ext4's Orlov
    # allocator spreads top-level directories differently from deeper ones).
    mkdir -p "$WORK/$fs/postmark"
    cfg="$WORK/csail-$fs-$tx.pmrc"; cfg_real="$WORK/csail-$fs-$tx-real.pmrc"
    common=("set number 8192" "set subdirectories 256" "set size 500 1048576" "set seed 42" \
      "set read 4096" "set write 4096" "set transactions $tx")
    printf '%s\n' "${common[@]}" "set location $WORK/$fs" "run" "quit" > "$cfg"
    printf '%s\n' "${common[@]}" "set location $WORK/$fs/postmark" "run" "quit" > "$cfg_real"
    p=(); f=()
    for r in $(seq "$ROUNDS"); do
      # Alternate who goes first: the second program pays for freeing the first one's 4 GiB.
      order=(real ours); [ $((r % 2)) = 0 ] && order=(ours real)
      for who in "${order[@]}"; do
        sync; sleep 1; t0=$(date +%s.%N)
        if [ "$who" = real ]; then postmark "$cfg_real" >/dev/null; else "$FSBENCH" postmark "$cfg" >/dev/null; fi
        t1=$(date +%s.%N)
        if [ "$who" = real ]; then p+=("$(python3 -c "print($t1-$t0)")"); else f+=("$(python3 -c "print($t1-$t0)")"); fi
      done
    done
    echo "$fs, $tx transactions: fsbench $(median "${f[@]}")s, postmark $(median "${p[@]}")s -> ratio $(ratio "$(median "${f[@]}")" "$(median "${p[@]}")") (goal <= 1.0)"
  done
done
