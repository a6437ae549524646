#!/usr/bin/env bash
# What one UPDATE of a job costs PostgreSQL, on the schema a Redrive binary
# migrates to: the fixed part of a statement that writes redrive.jobs (its
# executor start, the table's CHECK constraints), apart from the network,
# the server and the client.
#
#   1. starts a throwaway PostgreSQL 15 cluster (pg-cluster.sh) and
#      `redrive serve` on it once, to migrate the database and enqueue one
#      job, then stops the server;
#   2. copies that job into 20,000 rows;
#   3. runs, ROUNDS times, a PL/pgSQL loop that updates each row once as a
#      claim would (status, attempts and the lease) and once back, and
#      prints the mean time of an UPDATE of each kind, in µs.
#
#   bench/pg-update-cost.sh
#   REDRIVE_BIN=/path/to/an/older/redrive bench/pg-update-cost.sh
#
# Run the binaries to compare one after the other in the same window: the
# times move with the machine's load. Not part of `make test`.
#
# Environment:
#   REDRIVE_BIN  [<repo>/build/redrive]
#   PG_BIN       [/usr/lib/postgresql/15/bin]
#   ROUNDS       [4]
#   KEEP_TMP=1   keep the temp dir (cluster, logs)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
redrive_bin="${REDRIVE_BIN:-$here/../build/redrive}"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
rounds="${ROUNDS:-4}"
for bin in "$redrive_bin" "$pg_bin/initdb" "$pg_bin/pg_ctl" "$pg_bin/psql"; do
  [[ -x "$bin" ]] || { echo "pg-update-cost: $bin not found" >&2; exit 3; }
done

# shellcheck source=bench/pg-cluster.sh
source "$here/pg-cluster.sh"
pg_cluster_start pg-update-cost
psql -d postgres -c "CREATE DATABASE redrive" >/dev/null

serve_on_cluster "$redrive_bin" redrive
curl -sf -X POST "http://127.0.0.1:$server_port/api/v1/jobs" -H 'content-type: application/json' \
  -d '{"queue_name":"q","payload":{"n":1}}' >/dev/null
kill -TERM "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""

psql -d redrive -q -c "
  INSERT INTO redrive.jobs
  SELECT (r).* FROM (
    SELECT jsonb_populate_record(NULL::redrive.jobs, to_jsonb(j) || jsonb_build_object('id', 'u' || g)) AS r
    FROM redrive.jobs j, generate_series(1, 20000) AS g) AS s"
psql -d redrive -q -c "VACUUM ANALYZE redrive.jobs"
echo "schema $(psql -d redrive -At -c "SELECT max(version) FROM redrive.schema_migrations"):" \
  "$(psql -d redrive -At -c "SELECT count(*) FROM pg_constraint
       WHERE conrelid = 'redrive.jobs'::regclass AND contype = 'c'") CHECK constraints on redrive.jobs"
for ((r = 1; r <= rounds; r++)); do
  psql -d redrive -q -c "
    DO \$\$
    DECLARE t0 timestamptz; claim numeric; back numeric;
    BEGIN
      t0 := clock_timestamp();
      FOR i IN 1..20000 LOOP
        UPDATE redrive.jobs SET status = 'processing', attempts = attempts + 1, lease_id = 'l',
          lease_expires_at = 1, assigned_worker_id = 'w', updated_at = i WHERE id = 'u' || i;
      END LOOP;
      claim := extract(epoch FROM clock_timestamp() - t0) * 1e6 / 20000;
      t0 := clock_timestamp();
      FOR i IN 1..20000 LOOP
        UPDATE redrive.jobs SET status = 'pending', lease_id = NULL, lease_expires_at = NULL,
          assigned_worker_id = NULL, updated_at = i WHERE id = 'u' || i;
      END LOOP;
      back := extract(epoch FROM clock_timestamp() - t0) * 1e6 / 20000;
      RAISE NOTICE 'round $r: % µs an UPDATE as a claim, % µs back', round(claim, 1), round(back, 1);
    END \$\$;" 2>&1 | sed -n 's/.*NOTICE: *//p'
  psql -d redrive -q -c "VACUUM redrive.jobs"
done
