#!/usr/bin/env bash
# The store's cost (issue 12): a run of 10,000 `null` samples with and without the store, and
# `history` / `show` on a database of 1,000 runs. Prints ratios and times; asserts nothing.
# Goals: store/no-store <= 1.05 on the whole run; history and show each under 100 ms.
source "$(dirname "$0")/common.sh"
build_fsbench
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
SAMPLES="${SAMPLES:-10000}"
run() { # run WORKLOAD EXTRA...: wall seconds of one fsbench run
  local w="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$FSBENCH" run -q -w "$w" --runs "$SAMPLES" --warmup 0 --cache warm -t "$WORK" "$@" >/dev/null
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1-$t0:.3f}')"
}
# Pairs of runs back to back (order alternating), the store's cost as the median of the pairs'
# ratios with its interval: PAIRS pairs (default 12).
PAIRS="${PAIRS:-12}"
for w in null "rand-read:size=1m,ops=256"; do
  : >"$WORK/pairs"
  s=(); n=()
  for r in $(seq "$PAIRS"); do
    rm -f "$WORK/s.db"*
    if [ $((r % 2)) = 1 ]; then
      n+=("$(run "$w" --no-store)"); s+=("$(run "$w" --db "$WORK/s.db")")
    else
      s+=("$(run "$w" --db "$WORK/s.db")"); n+=("$(run "$w" --no-store)")
    fi
    echo "${n[-1]} ${s[-1]}" >>"$WORK/pairs"
    echo "$w pair $r: no store ${n[-1]}s, store ${s[-1]}s"
  done
  per=$(python3 -c "import statistics as st; print(f'{(st.median(map(float, \"${s[*]}\".split()))-st.median(map(float, \"${n[*]}\".split())))/$SAMPLES*1e6:.1f}')")
  echo "$w x $SAMPLES samples: store/no-store = $(paired_cost "$WORK/pairs") (goal <= 1.05); the store adds ${per} us per sample"
done
# A database of 1,000 runs: one stored run exported, then imported under 999 other ids.
"$FSBENCH" run -q -w null:ops=100 -w latency:count=5,interval=1ms,size=64k --cache warm --runs 5 \
  -t "$WORK" --db "$WORK/big.db" --export-json "$WORK/one.json" >/dev/null
python3 - "$WORK" <<'PY'
import json, sys, os
d = json.load(open(f"{sys.argv[1]}/one.json"))
os.makedirs(f"{sys.argv[1]}/many", exist_ok=True)
for i in range(999):
    d["run"]["id"] = f"20250101T{i // 3600:02d}{i // 60 % 60:02d}{i % 60:02d}Z-{i}"
    d["run"]["started_at"] = f"2025-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
    json.dump(d, open(f"{sys.argv[1]}/many/{i}.json", "w"))
PY
for f in "$WORK"/many/*.json; do "$FSBENCH" import "$f" --db "$WORK/big.db" >/dev/null; done
for cmd in "history" "history --limit 20" "show last" "show last~500" "compare last~1 last"; do
  t=()
  for r in $(seq "$ROUNDS"); do
    t0=$(date +%s.%N); "$FSBENCH" $cmd --db "$WORK/big.db" >/dev/null; t1=$(date +%s.%N)
    t+=("$(python3 -c "print(($t1-$t0)*1000)")")
  done
  echo "fsbench $cmd on 1,000 runs: median $(median "${t[@]}") ms (goal < 100 ms)"
done
# Opening for writing checks every page read-only first (PRAGMA quick_check, so that a damaged
# database is refused before anything writes to it): its cost on the 1,000-run database.
big=(); fresh=()
for r in $(seq "$ROUNDS"); do
  rm -f "$WORK/fresh.db"*
  t0=$(date +%s.%N); "$FSBENCH" run -q -w null:ops=1 --runs 1 --warmup 0 --cache warm -t "$WORK" --db "$WORK/big.db" >/dev/null; t1=$(date +%s.%N)
  big+=("$(python3 -c "print(($t1-$t0)*1000)")")
  t0=$(date +%s.%N); "$FSBENCH" run -q -w null:ops=1 --runs 1 --warmup 0 --cache warm -t "$WORK" --db "$WORK/fresh.db" >/dev/null; t1=$(date +%s.%N)
  fresh+=("$(python3 -c "print(($t1-$t0)*1000)")")
done
echo "a one-sample run storing into the 1,000-run database ($(du -k "$WORK/big.db" | cut -f1) KiB): median $(median "${big[@]}") ms, into a new one $(median "${fresh[@]}") ms (the page check is the difference)"
