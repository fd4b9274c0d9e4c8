#!/usr/bin/env bash
# fsbench `status-scan` vs `git status` on the same tree (a git repository of a generated
# source-like tree), warm, with the untracked cache off and on. Goal (issue 5): status-scan warm
# <= git status's time. Usage: bench/vs-git.sh [FILES] (default 100000)
source "$(dirname "$0")/common.sh"
need git git
build_fsbench
FILES="${1:-100000}"
WORK="$(mktemp -d /var/tmp/fsbench-git.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
REPO="$WORK/repo"
make_source_repo "$REPO" "$FILES"

for uc in false true; do
  git -C "$REPO" config core.untrackedCache "$uc"
  git -C "$REPO" status >/dev/null; git -C "$REPO" status >/dev/null
  g=()
  for r in $(seq "$ROUNDS"); do
    t0=$(date +%s.%N); git -C "$REPO" status >/dev/null; t1=$(date +%s.%N)
    g+=("$(python3 -c "print($t1-$t0)")")
  done
  mode=$([ "$uc" = true ] && echo on || echo off)
  "$FSBENCH" run -q --target "$WORK" --workload "status-scan:tree=$REPO,untracked-cache=$mode" \
      --cache warm --runs "$ROUNDS" --json "$WORK/s.json" >/dev/null
  fs=$(json_get "$WORK/s.json" 'd["results"][0]["summary"]["wall_ns"]["median"]/1e9')
  gm=$(median "${g[@]}")
  echo "untracked cache $mode: fsbench status-scan ${fs}s, git status ${gm}s -> ratio $(ratio "$fs" "$gm") (goal <= 1.0)"
done
