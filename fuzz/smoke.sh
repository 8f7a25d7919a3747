#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 20) from its committed corpus
# (fuzz/corpus/TARGET, read only; new inputs go to a temporary directory) and
# prints executions and corpus size per target. Fails on any crash, leaving
# the reproducer in fuzz/artifacts/TARGET.
#   fuzz/smoke.sh [SECONDS] [extra cargo-fuzz flags, e.g. --sanitizer none]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-20}
shift || true
targets=$(cargo +nightly fuzz list)
cargo +nightly fuzz build "$@" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-14s %12s %10s %10s\n' target executions "exec/s" corpus
for t in $targets; do
  mkdir -p "$work/$t"
  log="$work/$t.log"
  if ! cargo +nightly fuzz run "$@" "$t" "$work/$t" "corpus/$t" -- \
      -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz target $t failed"
    exit 1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  found=$(find "$work/$t" -type f | wc -l)
  seeds=$(find "corpus/$t" -type f | wc -l)
  printf '%-14s %12s %10s %10s\n' "$t" "$execs" "$rate" "$((seeds + found))"
done
