# Sourced by the PostgreSQL bench scripts (pg-soak.sh, pg-cost.sh,
# pg-update-cost.sh): a throwaway cluster in a temporary folder, owned by
# the postgres user when run as root, on a free loopback port, stopped by PID
# (with the Redrive server the script starts, $server_pid) when the script
# exits.
#
#   pg_cluster_start NAME [EXTRA_POSTGRES_OPTIONS]
#
# Needs $pg_bin. Sets $tmp (the folder), $pg_port, $as_pg (the command
# prefix that runs as the cluster's owner) and a psql() function; defines
# free_port. KEEP_TMP=1 keeps the folder.
#
#   serve_on_cluster BIN DATABASE [SERVE_FLAGS...]
#
# starts `BIN serve` on the cluster's DATABASE on a free port, its log in
# $tmp/server.log, and waits until it listens (exits 3 if it does not). Sets
# $server_pid (stopped on exit) and $server_port.

pg_cluster_name=""
server_pid=""

# shellcheck disable=SC2317  # invoked by the EXIT trap
pg_cluster_cleanup() {
  local rc=$?
  if [[ -n "$server_pid" ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -f "$tmp/data/postmaster.pid" ]]; then
    local pg_pid
    pg_pid="$(head -1 "$tmp/data/postmaster.pid")"
    kill -INT "$pg_pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do kill -0 "$pg_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if [[ "${KEEP_TMP:-}" == 1 ]]; then
    echo "$pg_cluster_name: kept $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}

free_port() {
  local p
  for ((i = 0; i < 100; i++)); do
    p=$((20000 + RANDOM % 40000))
    if ! (: <"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "$pg_cluster_name: no free port" >&2
  exit 3
}

pg_cluster_start() {
  pg_cluster_name=$1
  local extra=${2:-}
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/redrive-$pg_cluster_name.XXXXXX")"
  chmod 755 "$tmp"
  as_pg=()
  if [[ $(id -u) -eq 0 ]]; then
    chown postgres "$tmp"
    as_pg=(runuser -u postgres --)
  fi
  trap pg_cluster_cleanup EXIT
  pg_port="$(free_port)"
  "${as_pg[@]}" "$pg_bin/initdb" -D "$tmp/data" -U postgres -A trust -E UTF8 >"$tmp/initdb.log"
  "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$tmp/data" -l "$tmp/pg.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $tmp -c max_wal_size=4GB $extra" \
    start >/dev/null
}

psql() { "${as_pg[@]}" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -X -q -At "$@"; }

serve_on_cluster() {
  local bin=$1 db=$2
  shift 2
  server_port="$(free_port)"
  "$bin" serve --listen "127.0.0.1:$server_port" \
    --store "postgresql://postgres@127.0.0.1:$pg_port/$db" "$@" >"$tmp/server.log" 2>&1 &
  server_pid=$!
  for ((i = 0; i < 300; i++)); do
    grep -q 'listening on' "$tmp/server.log" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q 'listening on' "$tmp/server.log" || { tail -20 "$tmp/server.log" >&2; exit 3; }
}
