#!/usr/bin/env bash
# What do live-event subscribers cost the job path? (issue #14)
#
# Runs the peers harness's W1 (../shared/bench/peers, relative to the repo
# root: N jobs bulk-enqueued, 16 consumers, 10% fail once and are retried)
# against Redrive on SQLite as its `httpq` peer, through the harness's own
# driver (drivers/redrive.js), alternately with no SSE subscriber and with
# SUBSCRIBERS streams open on GET /api/v1/events (every event) for the server's
# whole life. Per round and claim mode it runs: none, then SUBSCRIBERS.
#   mode single: REDRIVE_CLAIM_MAX=1   REDRIVE_ACKS=each  (claim + complete per job)
#   mode batch:  REDRIVE_CLAIM_MAX=100 REDRIVE_ACKS=batch (acks ride on the next claim)
# Each run is one `run.sh` with a fresh server and store. The server command it
# gets (HTTPQ_CMD) is bench/sse-serve.sh, which starts the subscribers
# (bench/sse-subscribers.mjs) before redrive, so they connect as soon as it
# listens, and stops both by PID when run.sh stops it.
#
# It prints, per run, W1 jobs/s (the harness's process_rate), the server's and
# the subscribers' CPU time, and how many events each subscriber received, then
# per mode and subscriber count: jobs/s per round, the median and the ratio to
# the median with no subscriber. A subscriber must receive every job's events:
# 4 per job plus 3 per failed attempt (JobCreated, the claim's JobStatusChange,
# JobStatusChange + JobCompleted; a failure adds JobStatusChange, JobFailed and
# another claim). Exit status 1 if a run failed, or a subscriber did not
# connect, was dropped as a slow consumer, or missed events (all listed under
# PROBLEMS); 2 on bad settings. The server drops a stream whose buffer stays
# full (--event-buffer events, 1024) for a second (bench/README.md).
#
#   bench/sse-subscribers.sh                          # 2 rounds, N=20000, 50 subscribers
#   ROUNDS=3 N=50000 bench/sse-subscribers.sh
#   MODES=batch SUBSCRIBERS=200 bench/sse-subscribers.sh
#
# Environment (defaults in brackets):
#   REDRIVE_BIN        [<repo>/build/redrive]
#   ROUNDS             [2]      rounds; each runs none and SUBSCRIBERS, per mode
#   N                  [20000]  W1 jobs (the harness's N); C, FAIL_PCT, BULK,
#                               PAYLOAD_BYTES, W1_TIMEOUT_S pass through to it too
#   SUBSCRIBERS        [50]     SSE streams in the "with" runs
#   MODES              ["single batch"]
#   PEERS_DIR          [<repo>/../shared/bench/peers]  the harness. It is only
#                      read: when it has no node_modules (its install.sh not
#                      run), a copy is run from the temp dir with an empty
#                      node_modules, which is all the redrive driver needs
#                      (Node's own http); run.sh only checks that it exists.
#   HTTP_BENCH_PORT    [18411]  the harness's port for the server (127.0.0.1)
#   REDRIVE_SERVE_ARGS extra `redrive serve` flags (word-split), e.g. --event-buffer 4096
#   REDRIVE_API_KEY    sent by the driver and the subscribers; only needed if
#                      REDRIVE_SERVE_ARGS configures keys
#   RUN_TIMEOUT        [420]    seconds one run.sh may take before it is stopped
#   KEEP_TMP=1         keep the temp dir (harness, server and subscriber logs)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
redrive_bin="${REDRIVE_BIN:-$repo/build/redrive}"
rounds="${ROUNDS:-2}"
jobs="${N:-20000}"
subscribers="${SUBSCRIBERS:-50}"
modes="${MODES:-single batch}"
peers_dir="${PEERS_DIR:-$repo/../shared/bench/peers}"
run_timeout="${RUN_TIMEOUT:-420}"

fail() { echo "sse-subscribers.sh: $*" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "ROUNDS must be a positive integer"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || fail "N must be a positive integer"
[[ $subscribers =~ ^[1-9][0-9]*$ ]] || fail "SUBSCRIBERS must be a positive integer"
[[ $run_timeout =~ ^[1-9][0-9]*$ ]] || fail "RUN_TIMEOUT must be a positive integer"
for mode in $modes; do
  [[ $mode == single || $mode == batch ]] || fail "MODES: unknown mode '$mode' (single, batch)"
done
[[ -x $redrive_bin ]] || fail "$redrive_bin not found or not executable (build first, or set REDRIVE_BIN)"
redrive_bin="$(cd "$(dirname "$redrive_bin")" && pwd)/$(basename "$redrive_bin")"
command -v node >/dev/null || fail "node not found"
[[ -x $peers_dir/run.sh && -f $peers_dir/drivers/redrive.js ]] ||
  fail "no peers harness with drivers/redrive.js at $peers_dir (set PEERS_DIR)"
peers_dir="$(cd "$peers_dir" && pwd)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/redrive-sse-bench.XXXXXX")"

# Whatever a run left alive (sse-serve.sh killed before it could stop its
# children): stopped by the PIDs it recorded, if they are still those programs.
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  local f pid what i
  for f in "$tmp"/*.pids; do
    [[ -e $f ]] || continue
    while read -r pid what; do
      grep -qaF -- "$what" "/proc/$pid/cmdline" 2>/dev/null || continue
      echo "sse-subscribers.sh: stopping leftover $what (pid $pid)" >&2
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    done <"$f"
  done
  if [[ ${KEEP_TMP:-0} == 1 ]]; then
    echo "sse-subscribers.sh: kept $tmp" >&2
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

peers="$peers_dir"
if [[ ! -d $peers_dir/node_modules ]]; then
  echo "sse-subscribers.sh: $peers_dir has no node_modules; running a copy with an empty one" \
       "(the redrive driver uses only Node's http)" >&2
  cp -R "$peers_dir" "$tmp/peers"
  chmod -R u+w "$tmp/peers"
  mkdir "$tmp/peers/node_modules"
  peers="$tmp/peers"
fi
printf -v serve_cmd '%q {PORT} {DATA}' "$here/sse-serve.sh"

echo "== W1 of the peers harness on Redrive (SQLite: WAL, synchronous=FULL), 0 vs $subscribers SSE subscribers on /api/v1/events"
echo "   N=$jobs C=${C:-16} FAIL_PCT=${FAIL_PCT:-10}, modes: $modes, $rounds round(s)," \
     "server: $redrive_bin ${REDRIVE_SERVE_ARGS:-}"
echo "   $(nproc) CPUs shared by the server, the harness's client and the subscribers; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

run_one() { # MODE SUBS ROUND
  local mode=$1 subs=$2 round=$3 claim acks id prefix rc=0 rate events
  case $mode in
    single) claim=1 acks=each ;;
    batch) claim=100 acks=batch ;;
  esac
  id="sse-$mode-s$subs-r$round-$$"
  prefix="$tmp/$id"
  printf '{"run_id":"%s","mode":"%s","subscribers":%d,"round":%d}\n' "$id" "$mode" "$subs" "$round" >>"$tmp/runs.jsonl"
  (
    cd "$peers"
    export RUN_ID="$id" RESULTS="$tmp/results.jsonl" PEERS=httpq WORKLOADS=W1 N="$jobs" \
      HTTPQ_DRIVER=redrive HTTPQ_CMD="$serve_cmd" \
      HTTPQ_VERSION="redrive (sqlite WAL, synchronous=FULL), $mode, $subs SSE subscribers" \
      REDRIVE_CLAIM_MAX="$claim" REDRIVE_ACKS="$acks" \
      REDRIVE_BIN="$redrive_bin" SSE_SUBSCRIBERS="$subs" SSE_PREFIX="$prefix"
    timeout --foreground -k 30 "$run_timeout" ./run.sh
  ) >"$prefix.harness.log" 2>&1 || rc=$?
  rate=$(grep -F "\"run_id\":\"$id\"" "$tmp/results.jsonl" 2>/dev/null | grep -o '"process_rate":[^,]*' | cut -d: -f2 || true)
  events=""
  if ((subs > 0)); then
    events=$(grep -o '"events_min":[0-9]*,"events_max":[0-9]*' "$prefix.sse.json" 2>/dev/null | tr -dc '0-9,' | tr ',' '-' || true)
    events=", events per subscriber ${events:-?}"
  fi
  echo "   $mode, $subs subscribers, round $round: W1 ${rate:-?} jobs/s$events (run.sh exit $rc)"
  if [[ $rc != 0 ]]; then
    echo "   last lines of the harness's output:" >&2
    tail -5 "$prefix.harness.log" | sed 's/^/     /' >&2
  fi
  return 0
}

for ((round = 1; round <= rounds; round++)); do
  for mode in $modes; do
    run_one "$mode" 0 "$round"
    run_one "$mode" "$subscribers" "$round"
  done
done

echo "   load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
rc=0
node "$here/sse-subscribers.mjs" table "$tmp" || rc=$?

# The server's own word: warnings and errors in its logs (a dropped slow
# subscriber ends with an Error event on its stream, counted above).
warned=$(cat "$tmp"/*.server.log 2>/dev/null | grep -ciE '\b(warn|warning|error|critical)\b|drop' || true)
if [[ ${warned:-0} != 0 ]]; then
  echo
  echo "Server logs: $warned warning/error line(s), the first:"
  cat "$tmp"/*.server.log | grep -iE '\b(warn|warning|error|critical)\b|drop' | head -5 | sed 's/^/  /'
fi
exit "$rc"
