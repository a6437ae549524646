#!/usr/bin/env bash
# The reads operators, the console and Prometheus make all the time, as
# finished jobs pile up: are GET /api/v1/jobs/stats, GET /api/v1/queues and
# GET /metrics as fast with ten million completed jobs in the store as with
# none?
#
#   1. starts `redrive serve` on a SQLite store in a new temp dir (a free
#      loopback port);
#   2. for each level of FINISHED_LEVELS, runs redrive-bench's batch mode
#      (or FILL_MODE; W1 only, CHUNK jobs per run) until that many jobs have
#      been enqueued, claimed and completed: real rows, each with its history;
#   3. times SAMPLES requests of each read with curl, one after the other;
#   4. prints one line per level: p50 / p90 / max milliseconds of each read
#      and the store's size on disk; at the end, when the sqlite3 shell is
#      installed (it is not a dependency), the bytes per finished job of each
#      table and index and how many of them are free space in its pages
#      (SQLite's dbstat); stops the server by PID and removes the temp dir.
# Not part of `make test`: ten million jobs take about ten minutes to write
# and about 15 GB of disk.
#
# Environment:
#   REDRIVE_BIN        [<repo>/build/redrive]
#   REDRIVE_BENCH_BIN  [<repo>/build/bench/redrive-bench]
#   REDRIVE_SERVE_ARGS extra `redrive serve` flags (word-split)
#   REDRIVE_BENCH_ARGS extra redrive-bench flags (word-split), e.g.
#                      "--run-id s" for short queue names, "--payload-bytes 1000";
#                      "{chunk}" in them becomes the run's number (0, 1, ...), so
#                      "--run-id s{chunk}" gives each of several runs its own
#                      short queue (redrive-bench checks its queue's counts)
#   FINISHED_LEVELS    ["0 1000000 3000000 10000000"]
#   CHUNK              [1000000] jobs per redrive-bench run
#   FILL_MODE          [batch] how the jobs are claimed: batch (100 a claim)
#                      or single (one a claim, 16 consumers); the jobs table's
#                      free space depends on it
#   SAMPLES            [30]
#   KEEP_TMP=1         keep the temp dir (store and server log)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
redrive_bin="${REDRIVE_BIN:-$here/../build/redrive}"
bench_bin="${REDRIVE_BENCH_BIN:-$here/../build/bench/redrive-bench}"
levels="${FINISHED_LEVELS:-0 1000000 3000000 10000000}"
chunk="${CHUNK:-1000000}"
samples="${SAMPLES:-30}"
fill_mode="${FILL_MODE:-batch}"
[[ "$fill_mode" == batch || "$fill_mode" == single ]] ||
  { echo "reads-at-scale: FILL_MODE is batch or single, not '$fill_mode'" >&2; exit 2; }

for bin in "$redrive_bin" "$bench_bin"; do
  [[ -x "$bin" ]] || { echo "reads-at-scale: $bin not found (build first)" >&2; exit 3; }
done
command -v curl >/dev/null || { echo "reads-at-scale: curl not found" >&2; exit 3; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/redrive-reads.XXXXXX")"
server_pid=""
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  local rc=$?
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ "${KEEP_TMP:-0}" == 1 ]]; then echo "reads-at-scale: kept $tmp" >&2; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2086  # REDRIVE_SERVE_ARGS is deliberately word-split
"$redrive_bin" serve --listen 127.0.0.1:0 --store "sqlite:$tmp/redrive.db" \
  ${REDRIVE_SERVE_ARGS:-} >"$tmp/server.log" 2>&1 &
server_pid=$!
base=""
for ((i = 0; i < 300; i++)); do
  base="$(grep -o -m1 'listening on http://[^[:space:]]*' "$tmp/server.log" 2>/dev/null |
    sed 's/^listening on //; s:/$::' || true)"
  [[ -n "$base" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/server.log" >&2; exit 3; }
  sleep 0.1
done
[[ -n "$base" ]] || { echo "reads-at-scale: the server did not start" >&2; exit 3; }

# p50 p90 max of SAMPLES sequential GETs of $1, in milliseconds.
time_get() {
  local path=$1
  for ((s = 0; s < samples; s++)); do
    curl -fsS -o /dev/null -w '%{time_total}\n' "$base$path"
  done | sort -g | awk '{ v[NR] = $1 * 1000 }
    END { printf "%.2f / %.2f / %.2f", v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR] }'
}

printf '%-12s | %-24s | %-24s | %-24s | %s\n' "finished" "GET /jobs/stats ms" \
  "GET /queues ms" "GET /metrics ms" "store MB"
done=0
runs=0
for level in $levels; do
  while ((done < level)); do
    n=$((level - done < chunk ? level - done : chunk))
    bench_args="${REDRIVE_BENCH_ARGS:-}"
    bench_args="${bench_args//\{chunk\}/$runs}"
    # shellcheck disable=SC2086  # the bench's flags are deliberately word-split
    "$bench_bin" --server "$base" --mode "$fill_mode" --jobs "$n" --latency-seconds 0 --dlq 0 \
      --w1-timeout 3600 $bench_args >"$tmp/bench.log" 2>&1 ||
      { tail -n 20 "$tmp/bench.log" >&2; exit 1; }
    done=$((done + n))
    runs=$((runs + 1))
  done
  stats="$(time_get /api/v1/jobs/stats)"
  queues="$(time_get /api/v1/queues)"
  metrics="$(time_get /metrics)"
  mb="$(du -sm "$tmp" | cut -f1)"
  printf '%-12s | %-24s | %-24s | %-24s | %s\n' "$level" "$stats" "$queues" "$metrics" "$mb"
done

# What each table and index takes per finished job, at the last level.
if command -v sqlite3 >/dev/null && ((done > 0)); then
  echo
  echo "bytes per finished job, by table and index, and how many are free space (dbstat):"
  printf '%-28s %8s %8s\n' "" bytes free
  sqlite3 -readonly "$tmp/redrive.db" \
    "SELECT printf('%-28s %8.1f %8.1f', name, sum(pgsize) * 1.0 / $done,
                   sum(unused) * 1.0 / $done) FROM dbstat
     GROUP BY name HAVING sum(pgsize) * 1.0 / $done >= 1 ORDER BY sum(pgsize) DESC;
     SELECT printf('%-28s %8.1f %8.1f', 'total', sum(pgsize) * 1.0 / $done,
                   sum(unused) * 1.0 / $done) FROM dbstat;"
fi
