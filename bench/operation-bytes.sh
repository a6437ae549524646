#!/usr/bin/env bash
# What a bulk operation writes to disk per job it retries, on the embedded
# store: runs `bench/run.sh --mode batch --jobs 0 --latency-seconds 0 --dlq 0
# --operation N` (W5 alone: N dead jobs, then one operation retrying them) and,
# while the operation runs, samples the server's `wchar` (/proc/PID/io: bytes
# handed to write(2), i.e. the WAL, the checkpoints' copies and the few HTTP
# answers) against the operation's `done` count (GET /api/v1/operations).
# Prints the bytes per job between the first and the last sample taken while
# the operation ran.
#
#   bench/operation-bytes.sh 50000
#   bench/operation-bytes.sh 50000 --operation-batch 16   # flags for `redrive serve`
#
# Environment: REDRIVE_BIN [<repo>/build/redrive]. Not part of `make test`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$(realpath "${REDRIVE_BIN:-$here/../build/redrive}")"
n="${1:?give the number of jobs}"
shift
out="$(mktemp)"
samples="$(mktemp)"
trap 'rm -f "$out" "$samples"' EXIT

REDRIVE_BIN="$bin" REDRIVE_SERVE_ARGS="$*" "$here/run.sh" --mode batch --jobs 0 \
  --latency-seconds 0 --dlq 0 --operation "$n" >"$out" 2>&1 &
bench_pid=$!
pid=""
for ((i = 0; i < 300; i++)); do
  sleep 0.1
  pid="$(pgrep -f "^$bin serve" | head -1 || true)"
  [[ -z "$pid" ]] || break
done
[[ -n "$pid" ]] || { cat "$out" >&2; exit 3; }
port=""
for ((i = 0; i < 100; i++)); do
  sleep 0.1
  port="$(ss -ltnpH | grep "pid=$pid," | awk '{print $4}' | head -1 || true)"
  [[ -z "$port" ]] || break
done
while kill -0 "$pid" 2>/dev/null; do
  ops="$(curl -s --max-time 1 "http://$port/api/v1/operations?limit=1" || true)"
  if [[ "$ops" == *'"state":"running"'* ]]; then
    done_count="$(grep -o '"done":[0-9]*' <<<"$ops" | head -1 | cut -d: -f2)"
    echo "$done_count $(awk '/^wchar/ {print $2}' "/proc/$pid/io" 2>/dev/null || echo 0)" >>"$samples"
  fi
  sleep 0.1
done
wait "$bench_pid" || { cat "$out" >&2; exit 1; }
grep -E 'completed:' "$out"
awk 'NR == 1 { d0 = $1; w0 = $2 } { d1 = $1; w1 = $2 }
     END {
       if (NR < 2 || d1 <= d0) { print "operation-bytes: too few samples (a faster run needs more jobs)"; exit 1 }
       printf "written per retried job: %.0f bytes (over %d jobs)\n", (w1 - w0) / (d1 - d0), d1 - d0
     }' "$samples"
