#!/usr/bin/env bash
# What one job costs on PostgreSQL: statements, transactions, and the CPU of
# PostgreSQL and of the server per job, for one redrive-bench workload.
#
#   1. starts a throwaway PostgreSQL 15 cluster (initdb into a temp dir, as the
#      `postgres` user when run as root; fsync and synchronous_commit on, the
#      defaults; pg_stat_statements loaded) on a free loopback port, and
#      `redrive serve` on it;
#   2. runs redrive-bench once with a tenth of the jobs to warm up (plans,
#      connections, caches), then resets pg_stat_statements and reads the
#      CPU time (utime + stime, /proc/PID/stat) of the server and of every
#      PostgreSQL process, and the cluster's commit count;
#   3. runs redrive-bench with the given arguments, reads them again, and
#      prints the per-job costs (divided by --jobs) and the statements that
#      ran, most called first;
#   4. stops both by PID and removes the temp dir.
#
#   bench/pg-cost.sh --mode single --jobs 5000
#   bench/pg-cost.sh --mode batch --jobs 20000
#
# Give --jobs N (it divides by it) and W1 only: it adds --latency-seconds 0
# --dlq 0 when they are not given. Not part of `make test`.
#
# Environment:
#   REDRIVE_BIN        [<repo>/build/redrive]
#   REDRIVE_BENCH_BIN  [<repo>/build/bench/redrive-bench]
#   PG_BIN             [/usr/lib/postgresql/15/bin]
#   REDRIVE_SERVE_ARGS extra `redrive serve` flags (word-split)
#   PG_SETTINGS        extra server settings, e.g. "-c plan_cache_mode=force_generic_plan"
#   TOP                [25] statements listed
#   SAMPLE_SECONDS     every that many seconds of the measured run, print what
#                      the claim's SELECT cost in that interval (calls, ms and
#                      buffers a call) and the dead rows and vacuums of
#                      redrive.jobs so far: the claim walks the dead entries of
#                      the jobs claimed since the last vacuum (docs/benchmarks.md,
#                      "Claims between two vacuums")
#   KEEP_TMP=1         keep the temp dir (cluster, logs)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
redrive_bin="${REDRIVE_BIN:-$here/../build/redrive}"
bench_bin="${REDRIVE_BENCH_BIN:-$here/../build/bench/redrive-bench}"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
top="${TOP:-25}"

jobs=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --jobs | -n) jobs="${args[$((i + 1))]:-}" ;;
    --jobs=*) jobs="${args[$i]#--jobs=}" ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "pg-cost: give --jobs N (N > 0)" >&2; exit 3; }
[[ " $* " == *" --latency-seconds "* ]] || args+=(--latency-seconds 0)
[[ " $* " == *" --dlq "* ]] || args+=(--dlq 0)
warm=("${args[@]}")
for ((i = 0; i < ${#warm[@]}; i++)); do
  case "${warm[$i]}" in --jobs | -n) warm[$((i + 1))]=$(((jobs + 9) / 10)) ;; esac
done

for bin in "$redrive_bin" "$bench_bin" "$pg_bin/initdb" "$pg_bin/pg_ctl" "$pg_bin/psql"; do
  [[ -x "$bin" ]] || { echo "pg-cost: $bin not found" >&2; exit 3; }
done

# shellcheck source=bench/pg-cluster.sh
source "$here/pg-cluster.sh"
pg_cluster_start pg-cost "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all ${PG_SETTINGS:-}"
pg_pid="$(head -1 "$tmp/data/postmaster.pid")"
psql -d postgres -c "CREATE DATABASE redrive"
psql -d redrive -c "CREATE EXTENSION pg_stat_statements"

# shellcheck disable=SC2086  # REDRIVE_SERVE_ARGS is deliberately word-split
serve_on_cluster "$redrive_bin" redrive ${REDRIVE_SERVE_ARGS:-}
url="http://127.0.0.1:$server_port"

# CPU ticks of a process: utime + stime (+ those of its reaped children).
ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_ticks() {
  local sum=0 pid
  for pid in $pg_pid $(pgrep -P "$pg_pid"); do sum=$((sum + $(ticks "$pid"))); done
  echo "$sum"
}
# Ticks of each PostgreSQL process with its kind (the process title without
# the client's address and state), and the postmaster's reaped children
# (autovacuum workers come and go) under "exited children".
pg_ticks_by_kind() {
  local pid
  awk '{print "exited children", $16 + $17}' "/proc/$pg_pid/stat"
  for pid in $(pgrep -P "$pg_pid"); do
    local title kind
    title="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || continue
    case "$title" in
      *postgres\ redrive\ *) kind="backend (redrive)" ;;
      *) kind="$(sed -E 's/^postgres: //; s/ +$//' <<<"$title")" ;;
    esac
    echo "$kind $(ticks "$pid")"
  done
}
commits() {
  psql -d redrive -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'redrive'"
}

"$bench_bin" --server "$url" --queue-prefix warm "${warm[@]}" >"$tmp/warm.log" 2>&1 ||
  { tail -20 "$tmp/warm.log" >&2; exit 1; }
sleep 1
psql -d redrive -c "SELECT pg_stat_statements_reset()" >/dev/null
psql -d redrive -c "SELECT pg_stat_reset()" >/dev/null
sleep 1  # the statistics collector applies the reset
c0="$(commits)" p0="$(pg_ticks)" s0="$(ticks "$server_pid")"
pg_ticks_by_kind >"$tmp/kinds0"
sampler=""
if [[ -n "${SAMPLE_SECONDS:-}" ]]; then
  [[ "$SAMPLE_SECONDS" =~ ^[1-9][0-9]*$ ]] || { echo "pg-cost: SAMPLE_SECONDS: seconds > 0" >&2; exit 3; }
  # Totals so far: claim calls, their ms and buffers, jobs' dead rows, vacuums.
  # The claim is kSelectClaimable (src/store/postgres/pg_job_sql.h); its status
  # is matched by a wildcard, for pg_stat_statements may show it as a $n.
  claim_totals() {
    psql -d redrive -F ' ' -c "
      SELECT coalesce(sum(calls), 0), coalesce(sum(total_exec_time), 0),
             coalesce(sum(shared_blks_hit + shared_blks_read), 0),
             (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'redrive.jobs'::regclass),
             (SELECT vacuum_count + autovacuum_count FROM pg_stat_user_tables
               WHERE relid = 'redrive.jobs'::regclass)
      FROM pg_stat_statements
      WHERE query LIKE '%FROM redrive.jobs WHERE status = % AND queue_name = \$1 AND (expires_at%'"
  }
  (
    echo "-- the claim's SELECT every ${SAMPLE_SECONDS} s: seconds, calls, ms/call, buffers/call, dead rows of jobs, vacuums of jobs"
    read -r n0 t0 b0 _ <<<"$(claim_totals)" || exit 0
    for ((k = 1; ; k++)); do
      sleep "$SAMPLE_SECONDS"
      read -r n1 t1 b1 dead vacuums <<<"$(claim_totals)" || break
      awk -v k="$((k * SAMPLE_SECONDS))" -v n="$((n1 - n0))" -v t="$t1" -v t0="$t0" -v b="$((b1 - b0))" \
        -v d="$dead" -v v="$vacuums" 'BEGIN { if (n > 0) printf "%d\t%d\t%.3f\t%.0f\t%s\t%s\n",
          k, n, (t - t0) / n, b / n, d, v }'
      n0=$n1 t0=$t1 b0=$b1
    done
  ) &
  sampler=$!
fi
"$bench_bin" --server "$url" "${args[@]}" || echo "pg-cost: redrive-bench exited $?" >&2
[[ -z "$sampler" ]] || { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true; }
p1="$(pg_ticks)" s1="$(ticks "$server_pid")"
pg_ticks_by_kind >"$tmp/kinds1"
sleep 1
c1="$(commits)"
hz="$(getconf CLK_TCK)"
echo "== pg-cost: per job over $jobs jobs =="
awk -v n="$jobs" -v hz="$hz" -v p="$((p1 - p0))" -v s="$((s1 - s0))" -v c="$((c1 - c0))" \
  'BEGIN { printf "postgresql cpu %.3f ms/job, server cpu %.3f ms/job, commits %.2f/job\n",
           p * 1000 / hz / n, s * 1000 / hz / n, c / n }'
echo "-- postgresql cpu by process kind, ms/job"
awk -v n="$jobs" -v hz="$hz" '
  { kind = $0; sub(/ [0-9]+$/, "", kind); t = $NF }
  FNR == NR { before[kind] += t; next }
  { after[kind] += t }
  END { for (k in after) { d = after[k] - before[k]; if (d > 0) printf "%.3f\t%s\n", d * 1000 / hz / n, k } }
' "$tmp/kinds0" "$tmp/kinds1" | sort -rn
psql -d redrive -F $'\t' -c "
  SELECT round(sum(calls)::numeric / $jobs, 2) AS statements_per_job,
         round(sum(total_exec_time + total_plan_time)::numeric / $jobs, 3) AS ms_per_job
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'redrive')" |
  awk -F'\t' '{ printf "statements %s/job (exec+plan %s ms/job)\n", $1, $2 }'
echo "-- calls/job  ms/call  statement"
psql -d redrive -F $'\t' -c "
  SELECT round(calls::numeric / $jobs, 3), round((total_exec_time / calls)::numeric, 3),
         left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'redrive')
  ORDER BY calls DESC LIMIT $top"
