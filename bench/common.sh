# Shared helpers of the bench scripts: build fsbench, find or install the reference tools, a
# scratch directory that is removed on exit, and JSON extraction.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# cargo's target directory (CARGO_TARGET_DIR, relative to the checkout as cargo takes it).
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
[[ "$TARGET_DIR" = /* ]] || TARGET_DIR="$ROOT/$TARGET_DIR"
FSBENCH="$TARGET_DIR/release/fsbench"
ROUNDS="${ROUNDS:-3}"

build_fsbench() {
  (cd "$ROOT" && cargo build --release --quiet)
}

# build_fsbench_mpi: fsbench with its MPI support (`--features mpi`, `fsbench run` under
# mpirun); fails when the build does.
build_fsbench_mpi() {
  (cd "$ROOT" && cargo build --release --quiet --features mpi)
}

# need TOOL PACKAGE: make TOOL available (apt-get as root) or exit 0 with a printed reason.
need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 || true
    fi
  fi
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "SKIP: $1 is not installed (apt-get install $2)"
    exit 0
  fi
}

# json_get FILE EXPR: evaluate a Python expression over the parsed JSON `d`.
json_get() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# ratio A B: A / B with 3 decimals.
ratio() {
  python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.3f}')" "$1" "$2"
}

# make_source_repo DIR FILES: a git repository of FILES source-like files (nested directories, a
# tenth as many as files; lognormal sizes, seed 42), committed; `git status` looked at once. The
# generated tree of bench/vs-git.sh and bench/seed-chromium-replay.sh. CAP (bytes) caps a file.
make_source_repo() {
  python3 - "$1" "$2" "${CAP:-0}" <<'PY'
import os, random, sys
root, n, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(42)
dirs = [root]
os.makedirs(root)
for i in range(n // 10):
    parent = dirs[-1 - rng.randrange(min(len(dirs), 16))] if rng.random() < 0.5 else rng.choice(dirs)
    if parent.count("/") - root.count("/") >= 12:
        parent = root
    d = os.path.join(parent, f"d{i}")
    os.mkdir(d)
    dirs.append(d)
for i in range(n):
    size = int(rng.lognormvariate(8, 1.4))
    with open(os.path.join(rng.choice(dirs), f"f{i}.cc"), "wb") as f:
        f.write(b"x" * (min(size, cap) if cap else size))
PY
  git -C "$1" init -q && git -C "$1" add -A && git -C "$1" -c user.name=b -c user.email=b@b commit -qm tree
  git -C "$1" status >/dev/null
}

# make_repo DIR: a git repository of 5,000 small files in 500 directories, committed, and looked
# at twice after git's racy-timestamp window (so that no timed `git status` refreshes its index).
make_repo() {
  python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(500):
    os.makedirs(f"{root}/d{d // 50}/e{d}")
    for f in range(10):
        with open(f"{root}/d{d // 50}/e{d}/f{f}.c", "w") as out:
            out.write("int x;\n" * (f + 1))
PY
  git -C "$1" init -q && git -C "$1" add -A &&
    git -C "$1" -c user.name=b -c user.email=b@b commit -qm tree
  sleep 2
  git -C "$1" status >/dev/null
  git -C "$1" status >/dev/null
}

# median of the arguments.
median() {
  python3 -c "import sys,statistics; print(statistics.median(map(float, sys.argv[1:])))" "$@"
}

# start_hogs N: N busy loops beside the benchmark ("both CPUs loaded by other work"), killed when
# the script exits.
start_hogs() {
  hogs=()
  for _ in $(seq "$1"); do
    (while :; do :; done) &
    hogs+=("$!")
  done
  trap '[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null' EXIT
}

# paired_cost FILE: FILE holds one "A B" pair per line (the same work without and with what is
# measured, run back to back); prints the median of the pairs' B/A with its 95% interval
# (order statistics of the sorted ratios, as a sign test gives them) and the ratio of medians.
# One process's rate differs from the next one's by up to 10-25% on a shared virtual machine:
# pairing and a median with its interval say what that noise allows to conclude.
paired_cost() {
  python3 - "$1" <<'PY'
import math, statistics as st, sys
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
n = len(pairs)
cdf, k = 0.0, 0
while k < n:
    cdf += math.comb(n, k) / 2**n
    if cdf > 0.025:
        break
    k += 1
r = sorted(b / a for a, b in pairs)
lo, hi = (r[k - 1], r[n - k]) if k >= 1 else (r[0], r[-1])
pooled = st.median(b for _, b in pairs) / st.median(a for a, _ in pairs)
print(f"{st.median(r):.3f} (median of {n} pairs; 95% interval {lo:.3f}-{hi:.3f}; ratio of medians {pooled:.3f})")
PY
}
