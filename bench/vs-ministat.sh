#!/usr/bin/env bash
# fsbench ministat vs Debian ministat on two files of 1,000,000 numbers each, interleaved,
# ROUNDS rounds. Goal (issue 4): fsbench <= 1.0x ministat's time. Also checks the outputs match.
source "$(dirname "$0")/common.sh"
need ministat ministat
build_fsbench
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK" <<'PY'
import random, sys
random.seed(7)
for name, mu in (("a", 1000.0), ("b", 1000.3)):
    with open(f"{sys.argv[1]}/{name}", "w") as f:
        f.write("".join(f"{random.gauss(mu, 25):.6f}\n" for _ in range(1_000_000)))
PY
cmp <(ministat "$WORK/a" "$WORK/b") <("$FSBENCH" ministat "$WORK/a" "$WORK/b") && echo "outputs identical"
m=(); f=()
for r in $(seq "$ROUNDS"); do
  t0=$(date +%s.%N); ministat "$WORK/a" "$WORK/b" >/dev/null; t1=$(date +%s.%N)
  "$FSBENCH" ministat "$WORK/a" "$WORK/b" >/dev/null; t2=$(date +%s.%N)
  m+=("$(python3 -c "print($t1-$t0)")"); f+=("$(python3 -c "print($t2-$t1)")")
  echo "round $r: ministat ${m[-1]}s, fsbench ${f[-1]}s"
done
echo "medians: fsbench $(median "${f[@]}")s, ministat $(median "${m[@]}")s -> ratio $(ratio "$(median "${f[@]}")" "$(median "${m[@]}")") (goal <= 1.0)"
