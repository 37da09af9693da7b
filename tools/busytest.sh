#!/usr/bin/env bash
# Runs the test suite on a busy machine: CPU-bound loops beside `go test`, as on the loaded
# CI machines where timing-sensitive tests used to fail (load average 4-12 on 2 cores).
# Tests must assert behaviour, not speed; this is how we check that they do.
#
#   tools/busytest.sh                 # 3 runs of go test ./... with 4 busy loops beside it
#   RUNS=1 BUSY=2 tools/busytest.sh ./internal/core/...   # fewer, or other packages
#
# Exits non-zero on the first failed run; prints each run's result and the load it saw.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
BUSY=${BUSY:-4}
PKGS=("$@")
[ ${#PKGS[@]} -gt 0 ] || PKGS=(./...)

pids=()
stop_busy() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; pids=(); }
trap stop_busy EXIT INT TERM

go test -count=1 -run '^$' "${PKGS[@]}" >/dev/null   # build first, so the loops load the tests, not the compiler

for i in $(seq 1 "$BUSY"); do
  ( while :; do :; done ) &
  pids+=($!)
done

for run in $(seq 1 "$RUNS"); do
  start=$(date +%s)
  if go test -count=1 "${PKGS[@]}" >"/tmp/natsperf-busytest-$run.log" 2>&1; then
    status=passed
  else
    status=FAILED
  fi
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "run $run: $status in $(( $(date +%s) - start ))s, load average $load (log: /tmp/natsperf-busytest-$run.log)"
  if [ "$status" = FAILED ]; then
    grep -E '^(--- FAIL|FAIL|panic)' "/tmp/natsperf-busytest-$run.log" | head -20
    exit 1
  fi
done
