#!/usr/bin/env bash
# The races of tests/races.rs, run longer: every round count times STRESS (default 5: 250 runs
# interrupted by two SIGINTs at random moments, 100 by SIGTERM then SIGINT, 100 by two SIGHUPs,
# 100 pairs of concurrent runs on a fresh database and 100 on databases of 1,000 runs, 100 rounds
# of a guard stopped by a mount then `clean`). Prints each test's result and time; with a load
# (LOAD=2) two CPU hogs run beside it, as the issue asks ("with both CPUs loaded by other work").
source "$(dirname "$0")/common.sh"
STRESS="${STRESS:-5}"
LOAD="${LOAD:-0}"
start_hogs "$LOAD"
cd "$ROOT"
t0=$(date +%s)
FSBENCH_STRESS_ROUNDS="$STRESS" cargo test --locked --test integration races -- --include-ignored 2>&1 |
  grep -E '^test |^test result|panicked|Signal::|^pair [0-9]|round [0-9]'
echo "races x$STRESS with $LOAD CPU hogs: $(( $(date +%s) - t0 )) s"
