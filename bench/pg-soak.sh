#!/usr/bin/env bash
# Claim latency on PostgreSQL as finished jobs pile up: is a claim as fast
# with two million completed jobs in redrive.jobs as with none?
#
#   1. starts a throwaway PostgreSQL 15 cluster (initdb into a temp dir, as the
#      `postgres` user when run as root; fsync and synchronous_commit on, the
#      defaults) on a free loopback port, and `redrive serve` on it;
#   2. for each level of FINISHED_LEVELS, adds completed jobs of the measured
#      queue (each with its three history entries, as a real one has) until
#      the table holds that many, then
#   3. enqueues SAMPLES jobs and times SAMPLES claims of one job each (wait 0,
#      each followed by its completion) with curl, one after the other;
#   4. prints, per level, the claim latency p50/p90/p99/max and the size of
#      redrive.jobs; stops both by PID and removes the temp dir.
# It is not part of `make test` (a run takes several minutes); `make bench-pg-soak`.
#
# Environment:
#   REDRIVE_BIN      [<repo>/build/redrive]
#   PG_BIN           [/usr/lib/postgresql/15/bin]
#   FINISHED_LEVELS  ["0 500000 1000000 2000000"]
#   SAMPLES          [1000]
#   KEEP_TMP=1       keep the temp dir (cluster, logs)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
redrive_bin="${REDRIVE_BIN:-$here/../build/redrive}"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
levels="${FINISHED_LEVELS:-0 500000 1000000 2000000}"
samples="${SAMPLES:-1000}"
queue=soak

for bin in "$redrive_bin" "$pg_bin/initdb" "$pg_bin/pg_ctl" "$pg_bin/psql"; do
  [[ -x "$bin" ]] || { echo "pg-soak: $bin not found" >&2; exit 3; }
done
command -v curl >/dev/null || { echo "pg-soak: curl not found" >&2; exit 3; }

# shellcheck source=bench/pg-cluster.sh
source "$here/pg-cluster.sh"
pg_cluster_start pg-soak
psql -d postgres -c "CREATE DATABASE redrive"
url="postgresql://postgres@127.0.0.1:$pg_port/redrive"

http_port="$(free_port)"
base="http://127.0.0.1:$http_port"
"$redrive_bin" serve --listen "127.0.0.1:$http_port" --store "$url" >"$tmp/server.log" 2>&1 &
server_pid=$!
for ((i = 0; i < 300; i++)); do
  curl -fs "$base/health/ready" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/server.log" >&2; exit 3; }
  sleep 0.1
done
api="$base/api/v1"
curl -fs -X POST "$api/jobs" -H 'Content-Type: application/json' \
  -d "{\"queue_name\":\"$queue\",\"payload\":{}}" >/dev/null  # creates the queue

# Completed jobs of the measured queue until redrive.jobs holds `target` of
# them, 250,000 per transaction.
fill_to() {
  local target=$1 have chunk
  have="$(psql -d redrive -c "SELECT count(*) FROM redrive.jobs WHERE status = 'completed'")"
  while ((have < target)); do
    chunk=$((target - have < 250000 ? target - have : 250000))
    psql -d redrive <<SQL
BEGIN;
WITH g AS (
  SELECT n, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint - 3600000000 + n AS t
  FROM generate_series($have + 1, $have + $chunk) AS n)
INSERT INTO redrive.jobs (id, queue_name, status, payload, result, priority, retry_count,
  max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, tags,
  created_at, updated_at, scheduled_at, started_at, completed_at, attempts)
SELECT 'soak-' || lpad(n::text, 9, '0'), '$queue', 'completed', '{"i":' || n || '}', '{}', 0, 0,
  3, 300, 1000, 60000, 500, '{}', t, t + 2000, t, t + 1000, t + 2000, 1 FROM g;
WITH g AS (SELECT n FROM generate_series($have + 1, $have + $chunk) AS n),
     e AS (SELECT * FROM (VALUES ('created', 0), ('processing', 1000), ('completed', 2000))
           AS v(type, at))
INSERT INTO redrive.job_history (id, job_id, event_type, worker_id, details, created_at)
SELECT 'soak-h-' || n || '-' || e.type, 'soak-' || lpad(n::text, 9, '0'), e.type,
  CASE WHEN e.type = 'created' THEN NULL ELSE 'soak-worker' END, '{}',
  (extract(epoch FROM clock_timestamp()) * 1000000)::bigint - 3600000000 + n + e.at
FROM g CROSS JOIN e;
COMMIT;
SQL
    have=$((have + chunk))
  done
}

# Latency (seconds) of `samples` claims, one per line.
measure() {
  local out=$1 left=$samples bulk items i body resp id lease
  while ((left > 0)); do
    bulk=$((left < 1000 ? left : 1000))
    items=""
    for ((i = 0; i < bulk; i++)); do items+="${items:+,}{\"payload\":{\"i\":$i}}"; done
    curl -fs -X POST "$api/jobs/bulk" -H 'Content-Type: application/json' \
      -d "{\"queue_name\":\"$queue\",\"jobs\":[$items]}" >/dev/null
    left=$((left - bulk))
  done
  : >"$out"
  body="{\"queue_name\":\"$queue\",\"worker_id\":\"soak\",\"limit\":1,\"wait_ms\":0}"
  for ((i = 0; i < samples; i++)); do
    resp="$(curl -fs -X POST "$api/jobs/claim" -H 'Content-Type: application/json' -d "$body" \
      -w '\n%{time_total}')"
    echo "${resp##*$'\n'}" >>"$out"
    id="$(grep -o '"id":"[^"]*"' <<<"$resp" | head -1 | cut -d'"' -f4)"
    lease="$(grep -o '"lease_id":"[^"]*"' <<<"$resp" | head -1 | cut -d'"' -f4)"
    [[ -n "$id" && -n "$lease" ]] || { echo "pg-soak: claim got no job: $resp" >&2; exit 1; }
    curl -fs -X POST "$api/jobs/$id/complete" -H 'Content-Type: application/json' \
      -d "{\"worker_id\":\"soak\",\"lease_id\":\"$lease\"}" >/dev/null
  done
}

percentile() {  # file p -> milliseconds
  sort -n "$1" | awk -v p="$2" '{v[NR] = $1} END {i = int(NR * p / 100 + 0.999); if (i < 1) i = 1;
    printf "%.2f", v[i] * 1000}'
}

printf '%-12s %-10s %8s %8s %8s %8s\n' finished jobs_size p50_ms p90_ms p99_ms max_ms
for level in $levels; do
  fill_to "$level"
  measure "$tmp/lat-$level.txt"
  size="$(psql -d redrive -c "SELECT pg_size_pretty(pg_total_relation_size('redrive.jobs'))")"
  printf '%-12s %-10s %8s %8s %8s %8s\n' "$level" "$size" \
    "$(percentile "$tmp/lat-$level.txt" 50)" "$(percentile "$tmp/lat-$level.txt" 90)" \
    "$(percentile "$tmp/lat-$level.txt" 99)" "$(percentile "$tmp/lat-$level.txt" 100)"
done
