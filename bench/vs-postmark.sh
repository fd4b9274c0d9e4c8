#!/usr/bin/env bash
# `fsbench postmark` (release) vs Debian's postmark on the CSAIL configuration (8192 files in 256
# subdirectories, 500 B - 1 MiB, seed 42, 4 KiB blocks) with 500 and 20000 transactions, on a
# fresh tmpfs and on a loop-mounted ext4 (both need root; otherwise /dev/shm only). Runs are
# interleaved (postmark, fsbench, postmark, ...), each process's wall time measured from
# outside, with a `sync` before each run. Both tools work one directory below the mount point
# (fsbench always works in its scratch directory; postmark gets a fresh pm-work/), so ext4's
# placement of top-level directories (Orlov) treats them alike. Prints medians and the ratio fsbench / postmark
# (goal <= 1.0). Usage: bench/vs-postmark.sh [TRANSACTIONS...] (default 500 20000); ROUNDS=3.
source "$(dirname "$0")/common.sh"
need postmark postmark
build_fsbench
TXS=("${@:-500}")
[ $# -gt 0 ] || TXS=(500 20000)
WORK="$(mktemp -d /var/tmp/fsbench-postmark.XXXXXX)"
MOUNTS=()
cleanup() {
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Filesystems to test: label=dir.
FS=()
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$WORK/tmpfs" "$WORK/ext4"
  mount -t tmpfs -o size=12g tmpfs "$WORK/tmpfs" && MOUNTS+=("$WORK/tmpfs") && FS+=("tmpfs=$WORK/tmpfs")
  truncate -s 16G "$WORK/ext4.img"
  if mkfs.ext4 -q -F "$WORK/ext4.img" && mount -o loop "$WORK/ext4.img" "$WORK/ext4"; then
    MOUNTS+=("$WORK/ext4"); FS+=("ext4-loop=$WORK/ext4")
  else
    echo "SKIP ext4: cannot make or loop-mount an ext4 image"
  fi
else
  echo "SKIP own tmpfs and ext4: need root (mount); using /dev/shm"
  d="$(mktemp -d /dev/shm/fsbench-postmark.XXXXXX)"; FS+=("shm=$d")
  trap 'cleanup; rm -rf "$d"' EXIT
fi

# wall SECONDS of running "$@" in directory $1.
wall() {
  local dir="$1"; shift
  sync
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$dir" && "$@" >/dev/null)
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1-$t0:.3f}')"
}

for fs in "${FS[@]}"; do
  label="${fs%%=*}"; dir="${fs#*=}"
  for tx in "${TXS[@]}"; do
    cfg="$dir/csail-$tx.pmrc"
    printf 'set number 8192\nset subdirectories 256\nset size 500 1048576\nset seed 42\nset read 4096\nset write 4096\nset transactions %s\nrun\nquit\n' "$tx" >"$cfg"
    p=(); f=()
    for r in $(seq "$ROUNDS"); do
      mkdir "$dir/pm-work"
      p+=("$(wall "$dir/pm-work" postmark "$cfg")")
      rmdir "$dir/pm-work"
      f+=("$(wall "$dir" "$FSBENCH" postmark "$cfg")")
      echo "  $label tx=$tx round $r: postmark ${p[-1]}s, fsbench ${f[-1]}s"
    done
    pm=$(median "${p[@]}"); fm=$(median "${f[@]}")
    echo "$label CSAIL tx=$tx: postmark ${pm}s, fsbench postmark ${fm}s (medians of $ROUNDS) -> ratio $(ratio "$fm" "$pm") (goal <= 1.0)"
  done
done
