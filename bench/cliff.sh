#!/usr/bin/env bash
# The cliff test of tests/cliff.rs (a 1 GiB buffered write on lab ext4-fscrypt past a lowered
# dirty limit, the interval chosen by fsbench) run ROUNDS times in a row (default 10) with LOAD
# CPU hogs beside it (default 2: both CPUs of this machine loaded by other work, as issue 33's
# "Done when" asks). Prints each round's verdict and the count; exits 1 if any round failed.
# Needs root and mkfs.ext4 (the test is ignored otherwise, which this script reports).
CLIFF_ROUNDS="${ROUNDS:-10}"
source "$(dirname "$0")/common.sh"
ROUNDS="$CLIFF_ROUNDS"
LOAD="${LOAD:-2}"
start_hogs "$LOAD"
cd "$ROOT"
cargo test --locked --test integration --no-run -q 2>/dev/null
passed=0
for i in $(seq "$ROUNDS"); do
  out=$(cargo test --locked --test integration -q cliff:: 2>&1 || true)
  if grep -q "1 passed" <<<"$out"; then
    passed=$((passed + 1))
    echo "round $i: passed"
  elif grep -q "1 ignored" <<<"$out"; then
    echo "round $i: ignored (needs root and mkfs.ext4)"
  else
    echo "round $i: FAILED"
    grep -E "no cliff|panicked" <<<"$out" | head -3
  fi
done
echo "cliff test: $passed of $ROUNDS rounds passed with $LOAD CPU hogs"
[ "$passed" -eq "$ROUNDS" ]
