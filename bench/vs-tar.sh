#!/usr/bin/env bash
# fsbench tar-extract vs `tar -xf` and tar-delete vs `rm -rf` on the same archive (a source-like
# tree of FILES files, default 76,000 as in the CSAIL study), interleaved, ROUNDS rounds, warm,
# on tmpfs and a loop-mounted ext4 (root). Goal (issue 6): both <= 1.0x the reference tool.
# Usage: bench/vs-tar.sh [FILES]
source "$(dirname "$0")/common.sh"
build_fsbench
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount tmpfs and a loop ext4"; exit 0; }
FILES="${1:-76000}"
WORK="$(mktemp -d /var/tmp/fsbench-tar.XXXXXX)"
cleanup() { umount "$WORK/tmpfs" "$WORK/ext4" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
python3 - "$WORK/src" "$FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(42); dirs = [root]; os.makedirs(root)
for i in range(max(1, n // 11)):
    p = dirs[-1 - rng.randrange(min(len(dirs), 16))] if rng.random() < 0.5 else rng.choice(dirs)
    d = os.path.join(p, f"d{i}"); os.mkdir(d); dirs.append(d)
for i in range(n):
    with open(os.path.join(rng.choice(dirs), f"f{i}.c"), "wb") as f:
        f.write(os.urandom(min(int(rng.lognormvariate(8.99, 1.5)), 1 << 24)))
PY
tar -C "$WORK/src" -cf "$WORK/archive.tar" . && rm -rf "$WORK/src"
echo "archive: $(du -h "$WORK/archive.tar" | cut -f1), $FILES files"
mkdir -p "$WORK/tmpfs" "$WORK/ext4"
mount -t tmpfs -o size=10g tmpfs "$WORK/tmpfs"
truncate -s 10G "$WORK/ext4.img" && mkfs.ext4 -q -F "$WORK/ext4.img" && mount -o loop "$WORK/ext4.img" "$WORK/ext4"
for fs in tmpfs ext4; do
  d="$WORK/$fs"
  tx=(); fx=(); rx=(); fr=()
  for r in $(seq "$ROUNDS"); do
    mkdir "$d/t"; t0=$(date +%s.%N); tar -C "$d/t" -xf "$WORK/archive.tar"; t1=$(date +%s.%N)
    rm -rf "$d/t"; t2=$(date +%s.%N); tx+=("$(python3 -c "print($t1-$t0)")"); rx+=("$(python3 -c "print($t2-$t1)")")
    "$FSBENCH" run -q --target "$d" --cache warm --runs 1 --warmup 0 --json "$WORK/x.json" \
        -w "tar-extract:archive=$WORK/archive.tar" -w "tar-delete:archive=$WORK/archive.tar" >/dev/null
    fx+=("$(json_get "$WORK/x.json" 'd["results"][0]["summary"]["wall_ns"]["mean"]/1e9')")
    fr+=("$(json_get "$WORK/x.json" 'd["results"][1]["summary"]["wall_ns"]["mean"]/1e9')")
  done
  echo "$fs extract: fsbench $(median "${fx[@]}")s, tar -xf $(median "${tx[@]}")s -> ratio $(ratio "$(median "${fx[@]}")" "$(median "${tx[@]}")") (goal <= 1.0)"
  echo "$fs delete:  fsbench $(median "${fr[@]}")s, rm -rf $(median "${rx[@]}")s -> ratio $(ratio "$(median "${fr[@]}")" "$(median "${rx[@]}")") (goal <= 1.0)"
done
