#!/usr/bin/env bash
# The encryption seed's question on one machine: an fscrypt directory vs a plain one on the same
# loop-mounted ext4 (loop direct-io on), seek-rate and latency, cold and warm. Without inline
# encryption hardware the kernel accepts O_DIRECT on the encrypted side but serves it from the
# page cache; fsbench must say so (not comparable), not report a proven 55x. Root only.
# Usage: bench/fscrypt-vs-plain.sh [FSBENCH_BINARY ...]   (default: target/release/fsbench)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (loop devices, mount, fscrypt keys)"; exit 0; }
command -v mkfs.ext4 >/dev/null || { echo "skipped: mkfs.ext4 missing (apt-get install e2fsprogs)"; exit 0; }
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then cargo build --release --locked -q; bins=(target/release/fsbench); fi
work=$(mktemp -d)
dev=""
cleanup() { umount "$work/mnt" 2>/dev/null || true; [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
truncate -s 256M "$work/img"
mkfs.ext4 -q -F -b 4096 -O encrypt "$work/img"
dev=$(losetup -f --show --direct-io=on "$work/img")
mkdir "$work/mnt" && mount "$dev" "$work/mnt"
mkdir "$work/mnt/plain" "$work/mnt/enc"
python3 - "$work/mnt" "$work/mnt/enc" <<'PY'
import fcntl, os, struct, sys
root, enc = sys.argv[1], sys.argv[2]
ADD_KEY = (3 << 30) | (80 << 16) | (0x66 << 8) | 23
SET_POLICY = (2 << 30) | (12 << 16) | (0x66 << 8) | 19
key = os.urandom(64)
arg = bytearray(80 + 64)
struct.pack_into("I", arg, 0, 2)          # FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
struct.pack_into("I", arg, 40, 64)        # raw_size
arg[80:] = key
fd = os.open(root, os.O_RDONLY)
fcntl.ioctl(fd, ADD_KEY, arg)
os.close(fd)
policy = bytearray(24)
policy[0:4] = bytes([2, 1, 4, 0x03])      # v2, AES-256-XTS, AES-256-CTS, PAD_32
policy[8:24] = arg[8:24]                  # identifier computed by the kernel
fd = os.open(enc, os.O_RDONLY)
fcntl.ioctl(fd, SET_POLICY, policy)
os.close(fd)
PY
for bin in "${bins[@]}"; do
  echo "== $bin"
  "$bin" run -t "plain=$work/mnt/plain" -t "enc=$work/mnt/enc" -w seek-rate -w latency --cache both \
    | sed -n '/metric .*baseline/,$p' | grep -v "^note: .*first sample" || true
done
