#!/usr/bin/env bash
# Sequential decisions (`--runs auto`, issue 44), proven valid and measured:
# 1. A/A: sample sets recorded here (cold reads on lab ext4, FUSE reads on lab bindfs, random
#    reads on tmpfs beside two CPU hogs; 30 samples each) are resampled into PAIRS (default
#    10,000) simulated A/A comparisons each, stopped as fsbench stops them, with heavy-tailed
#    synthetic draws beside them: prints "A/A false positives: P% (95% interval L-H%)" (goal:
#    <= 5%), and what each look at 95% (no spending) would have given.
# 2. Power and cost: true changes of 2, 5, 10 and 30% on the same sets: the share decided
#    `different`, the mean samples a side, and the fixed-N Welch test of the same power.
# 3. Seed suites (SUITES, default "afs-study"; also disk-speed, readdir-locks, fs-shootout), at
#    --scale 0.1, run once with a fixed 20 samples and once sequentially (--runs auto
#    --max-runs 20), interleaved: each comparison's verdict both ways, the samples and the time
#    of each. Goal: the same verdicts in <= 50% of the samples.
# Root for the lab targets and drop_caches. Asserts nothing.
source "$(dirname "$0")/common.sh"
build_fsbench
(cd "$ROOT" && cargo build --release --quiet -p fsbench-stats --example sequential_sim)
SIM="$TARGET_DIR/release/examples/sequential_sim"
WORK="$(mktemp -d /var/tmp/fsbench-seq.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
PAIRS="${PAIRS:-10000}"
SUITES="${SUITES:-afs-study}"

# values JSON NAME: the headline values of the JSON's first cell, one per line, into NAME.txt
values() {
  python3 - "$1" > "$WORK/$2.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
for s in r["samples"]:
    print(s["metrics"][r["headline"]])
PY
  echo "$2=$WORK/$2.txt"
}

echo "== recording sample sets (30 samples each)"
sets=()
if [ "$(id -u)" = 0 ]; then
  "$FSBENCH" run -q --no-store --lab ext4 --lab-dir "$WORK" -w seq-read:bs=1m,size=64m \
    --cache cold --runs 30 --json "$WORK/cold.json" >/dev/null
  sets+=("$(values "$WORK/cold.json" cold-seq-read-ext4)")
  if command -v bindfs >/dev/null; then
    "$FSBENCH" run -q --no-store --lab bindfs --lab-dir "$WORK" -w seq-read:bs=128k,size=32m \
      --cache warm --runs 30 --json "$WORK/fuse.json" >/dev/null
    sets+=("$(values "$WORK/fuse.json" fuse-seq-read-bindfs)")
  fi
fi
mkdir -p "$WORK/busy"
(
  start_hogs 2
  "$FSBENCH" run -q --no-store -t "$WORK/busy" -w rand-read:size=32m,ops=20000 --cache warm \
    --runs 30 --json "$WORK/busy.json" >/dev/null
)
sets+=("$(values "$WORK/busy.json" busy-rand-read)")
for s in "${sets[@]}"; do
  f="${s#*=}"
  python3 - "$s" "$f" <<'PY'
import statistics, sys
v = [float(x) for x in open(sys.argv[2])]
m = statistics.mean(v)
print(f"  {sys.argv[1].split('=')[0]}: n={len(v)} mean={m:.4g} cv={statistics.stdev(v) / m * 100:.1f}% "
      f"min={min(v):.4g} max={max(v):.4g}")
PY
done

echo "== A/A and power ($PAIRS pairs a set)"
"$SIM" --pairs "$PAIRS" --max 30 "${sets[@]}"

echo "== seed suites: fixed 20 samples against sequential (--runs auto --max-runs 20)"
[ "$(id -u)" = 0 ] || { echo "SKIP: the seed suites need root (lab targets)"; exit 0; }
labs() {
  case "$1" in
    disk-speed) echo "ext4,ext4-fscrypt,gocryptfs" ;;
    afs-study) echo "ext4,xfs" ;;
    readdir-locks) echo "ext4,bindfs" ;;
    *) echo "" ;;
  esac
}
for suite in $SUITES; do
  lab="$(labs "$suite")"
  args=(--suite "$suite" --scale 0.1 --yes -q --no-store --lab-dir "$WORK")
  [ -n "$lab" ] && args+=(--lab "$lab")
  start=$(date +%s.%N)
  "$FSBENCH" run "${args[@]}" --runs 20 --json "$WORK/fixed.json" >/dev/null
  mid=$(date +%s.%N)
  "$FSBENCH" run "${args[@]}" --runs auto --max-runs 20 --json "$WORK/seq.json" >/dev/null
  end=$(date +%s.%N)
  python3 - "$suite" "$WORK/fixed.json" "$WORK/seq.json" "$start" "$mid" "$end" <<'PY'
import json, sys
suite, fixed, seq = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
t0, t1, t2 = map(float, sys.argv[4:7])
def verdict(c):
    if not c.get("comparable", True):
        return "not comparable"
    d = c.get("decision")
    if d:
        if d["verdict"] != "different":
            return d["verdict"]
        return "different " + ("+" if d["effect_pct"] > 0 else "-")
    return ("different " + ("+" if c["difference"] > 0 else "-")) if c["proven"] else "no difference"
def same(a, b):
    # Equivalent or undecided sequentially and "no difference" at 20 fixed: the same verdict.
    return a == b or (a == "no difference" and b in ("equivalent", "undecided"))
samples = lambda d: sum(len(r["samples"]) for r in d["results"])
fc = {(c["baseline"], c["other"]): c for c in fixed["comparisons"]}
agree = total = 0
for c in seq["comparisons"]:
    f = fc.get((c["baseline"], c["other"]))
    if f is None:
        continue
    a, b = verdict(f), verdict(c)
    total += 1
    agree += same(a, b)
    d = c.get("decision") or {}
    print(f"  {suite}: {c['other']} vs {c['baseline']}: fixed {a} ({f['difference_pct']:+.1f}%), "
          f"sequential {b} after {d.get('samples_each')} ({d.get('effect_pct', float('nan')):+.1f}%)"
          + ("" if same(a, b) else "  <- differs"))
sf, ss = samples(fixed), samples(seq)
print(f"{suite}: same verdicts {agree} of {total}; samples fixed {sf}, sequential {ss} "
      f"({ss / sf * 100:.0f}%); time fixed {t1 - t0:.0f} s, sequential {t2 - t1:.0f} s "
      f"({(t2 - t1) / (t1 - t0) * 100:.0f}%)")
PY
done
