#!/usr/bin/env bash
# The HTML report's cost (issues 13, 23): a run of 100 cells x 20 samples (with latency
# histograms) and 90 comparisons rendered by `fsbench report`; prints the time and the size.
# Goals: under 2 s, under 2 MB.
source "$(dirname "$0")/common.sh"
build_fsbench
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# One real run gives a record with real histograms; it is then widened to 100 cells x 20 samples.
"$FSBENCH" run -q -w rand-read:size=1m,ops=200 --cache warm --runs 20 -t "$WORK" --db "$WORK/r.db" \
  --export-json "$WORK/one.json" >/dev/null
python3 - "$WORK" <<'PY'
import json, sys, copy
d = json.load(open(f"{sys.argv[1]}/one.json"))
cell = d["results"][0]
cells = []
for t in range(10):
    for w in range(10):
        c = copy.deepcopy(cell)
        c["target"] = f"t{t}"
        c["params"]["ops"] = str(200 + w)
        cells.append(c)
d["results"] = cells
# Every target against t0 per workload, as a run's comparisons: the overview, the comparisons
# table and ministat's text are drawn too (labels as the report names cells: by what differs).
d["comparisons"] = [
    {"metric": cell["headline"], "baseline": f"t0/rand-read ops={200 + w}/warm",
     "other": f"t{t}/rand-read ops={200 + w}/warm", "confidence": 95.0,
     "difference": 10.0 * (t - 5), "ci_half": 8.0, "difference_pct": 2.0 * (t - 5),
     "ci_half_pct": 1.5, "proven": t != 5, "method": "student-pooled (ministat table)",
     "comparable": True, "not_comparable": []}
    for w in range(10) for t in range(1, 10)]
d["run"]["id"] = "20250101T000000Z-100cells"
d["environment"]["targets"] = [dict(d["environment"]["targets"][0], label=f"t{t}") for t in range(10)]
json.dump(d, open(f"{sys.argv[1]}/wide.json", "w"))
PY
"$FSBENCH" import "$WORK/wide.json" --db "$WORK/r.db" >/dev/null
t=()
for r in $(seq "$ROUNDS"); do
  t0=$(date +%s.%N); "$FSBENCH" report 20250101T000000Z-100cells -o "$WORK/report.html" --db "$WORK/r.db" 2>/dev/null; t1=$(date +%s.%N)
  t+=("$(python3 -c "print($t1-$t0)")")
done
size=$(stat -c %s "$WORK/report.html")
echo "report of 100 cells x 20 samples: median $(median "${t[@]}") s (goal < 2 s), $(python3 -c "print(f'{$size/1e6:.2f}')") MB (goal < 2 MB), $(grep -c '<svg' "$WORK/report.html") charts"
