#!/usr/bin/env bash
# Runs redrive-bench against a fresh, throwaway Redrive server:
#   1. starts `redrive serve` on 127.0.0.1 (a free port) with a SQLite store in
#      a new temp dir,
#   2. waits for its "listening on" line,
#   3. runs redrive-bench against it (extra arguments are passed through),
#   4. stops the server with SIGTERM by its PID and removes the temp dir.
# It builds nothing: point it at built binaries (defaults: the `build` tree).
#
#   bench/run.sh                              # both modes, default workload
#   bench/run.sh --mode batch --jobs 50000    # any redrive-bench option
#   bench/run.sh --json > results.jsonl
#
# Environment:
#   REDRIVE_BIN        [<repo>/build/redrive]
#   REDRIVE_BENCH_BIN  [<repo>/build/bench/redrive-bench]
#   REDRIVE_LISTEN     [127.0.0.1:0]  (port 0: the server picks a free port)
#   REDRIVE_SERVE_ARGS extra `redrive serve` flags (word-split)
#   KEEP_TMP=1         keep the temp dir (store and server log)
# Exit status: redrive-bench's (0 ok, 1 a check failed, 2 unusable server),
# or 3 if the server did not start.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
redrive_bin="${REDRIVE_BIN:-$here/../build/redrive}"
bench_bin="${REDRIVE_BENCH_BIN:-$here/../build/bench/redrive-bench}"
listen="${REDRIVE_LISTEN:-127.0.0.1:0}"
start_timeout_s=30
stop_timeout_s=30

for bin in "$redrive_bin" "$bench_bin"; do
  if [[ ! -x "$bin" ]]; then
    echo "run.sh: $bin not found or not executable (build first, e.g. make build," \
         "or set REDRIVE_BIN / REDRIVE_BENCH_BIN)" >&2
    exit 3
  fi
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/redrive-bench.XXXXXX")"
log="$tmp/server.log"
server_pid=""

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  local rc=$? server_rc=0
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for ((i = 0; i < stop_timeout_s * 10; i++)); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      echo "run.sh: server $server_pid ignored SIGTERM for ${stop_timeout_s}s; SIGKILL" >&2
      kill -KILL "$server_pid" 2>/dev/null || true
    fi
    wait "$server_pid" 2>/dev/null || server_rc=$?
    # The contract: exit 0 after a graceful shutdown.
    if [[ $server_rc -ne 0 ]]; then
      echo "run.sh: redrive serve exited $server_rc after SIGTERM (expected 0)" >&2
    fi
  fi
  if [[ "${KEEP_TMP:-0}" == 1 ]]; then
    echo "run.sh: kept $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2086  # REDRIVE_SERVE_ARGS is deliberately word-split
"$redrive_bin" serve --listen "$listen" --store "sqlite:$tmp/redrive.db" \
  ${REDRIVE_SERVE_ARGS:-} >"$log" 2>&1 &
server_pid=$!

url=""
for ((i = 0; i < start_timeout_s * 10; i++)); do
  url="$(grep -o -m1 'listening on http://[^[:space:]]*' "$log" 2>/dev/null | sed 's/^listening on //' || true)"
  [[ -n "$url" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "run.sh: redrive serve did not print 'listening on' within ${start_timeout_s}s; its log:" >&2
  tail -n 30 "$log" >&2 || true
  exit 3
fi
url="${url%/}"
echo "run.sh: server $server_pid at $url (store sqlite:$tmp/redrive.db)" >&2

# For drivers that watch the server while they load it (bench/soak.sh).
export REDRIVE_SERVER_PID="$server_pid" REDRIVE_STORE_PATH="$tmp/redrive.db"
set +e
"$bench_bin" --server "$url" "$@"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "run.sh: redrive-bench exited $rc; last server log lines:" >&2
  tail -n 20 "$log" >&2 || true
fi
exit "$rc"
