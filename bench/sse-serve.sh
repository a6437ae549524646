#!/usr/bin/env bash
# The server command that bench/sse-subscribers.sh hands to the peers harness
# (../shared/bench/peers/run.sh, as HTTPQ_CMD): Redrive on SQLite, plus
# SSE_SUBSCRIBERS live event streams held open on it for the server's whole life.
# run.sh starts it as
#
#   bench/sse-serve.sh PORT DATA        (run.sh fills in {PORT} and {DATA})
#
# waits until PORT accepts, runs its workload, and stops it with SIGTERM by its
# PID (SIGKILL after 30 s). This script:
#   1. when SSE_SUBSCRIBERS > 0, starts `node bench/sse-subscribers.mjs subscribe
#      http://127.0.0.1:PORT/api/v1/events S` first and waits (10 s at most) until
#      node runs, so the streams open as soon as the server listens: run.sh polls
#      the port every 100 ms and then has to start its own node client, so the
#      subscribers are connected before the first job (sse-subscribers.sh checks
#      it: every subscriber must see every job's JobCreated);
#   2. starts `redrive serve --listen 127.0.0.1:PORT --store sqlite:DATA/redrive.db`
#      (no API keys: loopback only, every caller is admin), with
#      --max-event-streams raised when S would not fit under the default 256;
#   3. waits for redrive. On SIGTERM or SIGINT it stops the subscribers
#      (SIGTERM: they print their counts; SIGKILL after 10 s), records redrive's
#      CPU time, then stops redrive (SIGTERM; SIGKILL after 15 s), all by PID,
#      and exits 0. If redrive exits by itself, it stops the subscribers and
#      exits with redrive's status.
#
# Environment (sse-subscribers.sh sets it):
#   REDRIVE_BIN         the redrive binary
#   REDRIVE_SERVE_ARGS  extra `redrive serve` flags (word-split)
#   SSE_SUBSCRIBERS     streams to hold open (0: none, and no node process)
#   SSE_PREFIX          path prefix of this run's files: .server.log (redrive's
#                       output), .sse.json (the subscribers' counts), .sse.log,
#                       .server-cpu.json, .pids (each PID started here and a
#                       string of its command line, for sse-subscribers.sh's cleanup)
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: sse-serve.sh PORT DATA_DIR (environment: see the top of this file)" >&2
  exit 2
fi
port=$1
data=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${REDRIVE_BIN:?}" "${SSE_PREFIX:?}"
subs=${SSE_SUBSCRIBERS:-0}
read -r -a serve_args <<<"${REDRIVE_SERVE_ARGS:-}"
if ((subs + 16 > 256)); then serve_args+=(--max-event-streams "$((subs + 16))"); fi

sub_pid=""
srv_pid=""

is_gone() { # the process has exited (or is a zombie waiting to be reaped)
  local state
  kill -0 "$1" 2>/dev/null || return 0
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
  [[ $state == Z ]]
}

stop_pid() { # PID LIMIT_S: SIGTERM, SIGKILL after LIMIT_S, then reap it
  local pid=$1 limit=$2 i
  if ! is_gone "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < limit * 10; i++)); do is_gone "$pid" && break; sleep 0.1; done
    if ! is_gone "$pid"; then
      echo "sse-serve.sh: pid $pid ignored SIGTERM for ${limit}s; SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

record_cpu() { # redrive's user + system CPU time so far, all threads
  local -a st
  [[ -n $srv_pid && -r /proc/$srv_pid/stat ]] || return 0
  # Fields after the ")" that closes the command name: state is [0], utime [11], stime [12].
  read -r -a st <<<"$(sed 's/^.*) //' "/proc/$srv_pid/stat")"
  awk -v u="${st[11]}" -v s="${st[12]}" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "{\"server_cpu_s\":%.2f}\n", (u + s) / hz }' >"$SSE_PREFIX.server-cpu.json"
}

shutdown() { # the subscribers first (their counts), then redrive
  trap - TERM INT
  if [[ -n $sub_pid ]]; then stop_pid "$sub_pid" 10; sub_pid=""; fi
  record_cpu
  if [[ -n $srv_pid ]]; then stop_pid "$srv_pid" 15; srv_pid=""; fi
}
trap 'shutdown; exit 0' TERM INT

if ((subs > 0)); then
  node "$here/sse-subscribers.mjs" subscribe "http://127.0.0.1:$port/api/v1/events" "$subs" \
    >"$SSE_PREFIX.sse.json" 2>"$SSE_PREFIX.sse.log" &
  sub_pid=$!
  echo "$sub_pid sse-subscribers.mjs" >>"$SSE_PREFIX.pids"
  for ((i = 0; i < 1000; i++)); do # until node has started (10 s at most)
    grep -q 'opening' "$SSE_PREFIX.sse.log" 2>/dev/null && break
    is_gone "$sub_pid" && break
    sleep 0.01
  done
fi

"$REDRIVE_BIN" serve --listen "127.0.0.1:$port" --store "sqlite:$data/redrive.db" \
  "${serve_args[@]}" >"$SSE_PREFIX.server.log" 2>&1 &
srv_pid=$!
echo "$srv_pid $REDRIVE_BIN" >>"$SSE_PREFIX.pids"

rc=0
wait "$srv_pid" || rc=$? # a trapped SIGTERM interrupts this wait and runs shutdown
srv_pid=""
echo "sse-serve.sh: redrive exited by itself ($rc)" >&2
shutdown
exit "$rc"
