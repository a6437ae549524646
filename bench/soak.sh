#!/usr/bin/env bash
# A soak: mixed load on one server for SOAK_SECONDS, sampling what would
# reveal a leak. Each round runs redrive-bench's three workloads once (W1
# throughput with retries, W2 latency, W3 dead-lettering; batch and single
# claim modes in turn), then samples the server's resident memory, open file
# descriptors, the SQLite WAL and database sizes, and the round's W2 p99. At
# the end it compares the first and last samples.
#
# Every round works on the same six queues (`--run-id soak`), and each phase
# deletes its queue with its jobs when it ends (`--delete-queues`): the work
# is the same in every round and the server's state should not grow with the
# rounds, so anything that does grow is a leak. (Fresh queue names each round
# would grow the store and the per-queue state on purpose, up to --max-queues.)
#
# Resident memory is sampled in two parts: anon (the heap: a leak shows
# here, next to SQLite's page caches, which grow with the database up to
# their cache_size) and file (pages of the database file mapped by
# SQLite's mmap, which grow as more of the file is read, up to mmap_size,
# and which the kernel can drop at any time).
#
#   make soak                          # 30 minutes on a fresh SQLite store
#   SOAK_SECONDS=600 bench/soak.sh     # any length
#
# It runs itself through bench/run.sh (which starts and stops the server),
# as the "bench binary" there; run.sh passes --server URL.
#
# Environment:
#   SOAK_SECONDS       [1800]
#   REDRIVE_BIN        [<repo>/build/redrive]
#   REDRIVE_BENCH_BIN  [<repo>/build/bench/redrive-bench]
#   SOAK_BENCH_ARGS    [-n 5000 --latency-seconds 5 --dlq 200 --run-id soak --delete-queues]
#                      per round
# Exit status: 0 when every round's checks passed (nothing lost or duplicated).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ "${1:-}" != "--server" ]]; then
  export SOAK_REAL_BENCH_BIN="${REDRIVE_BENCH_BIN:-$here/../build/bench/redrive-bench}"
  REDRIVE_BENCH_BIN="$here/soak.sh" exec "$here/run.sh" "$@"
fi
url="$2"
bench_bin="$SOAK_REAL_BENCH_BIN"
pid="${REDRIVE_SERVER_PID:?run me through bench/run.sh}"
db="${REDRIVE_STORE_PATH:?run me through bench/run.sh}"
seconds="${SOAK_SECONDS:-1800}"
read -r -a bench_args <<<"${SOAK_BENCH_ARGS:--n 5000 --latency-seconds 5 --dlq 200 --run-id soak --delete-queues}"

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
anon_kb() { awk '/^RssAnon:/ {print $2}' "/proc/$pid/status"; }
file_kb() { awk '/^RssFile:/ {print $2}' "/proc/$pid/status"; }
fds() { find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }
size_kb() { if [[ -f "$1" ]]; then echo $(($(stat -c %s "$1") / 1024)); else echo 0; fi; }

printf '%8s %6s %9s %9s %9s %5s %9s %10s %9s %s\n' elapsed round rss_kb anon_kb file_kb fds \
  wal_kb db_kb w2_p99ms mode
start=$SECONDS
round=0
failed=0
first_rss="" first_fds="" max_wal=0 last_rss="" last_fds="" first_anon="" last_anon=""
while ((SECONDS - start < seconds)); do
  round=$((round + 1))
  mode=batch
  ((round % 2 == 0)) && mode=single
  set +e
  out="$("$bench_bin" --server "$url" --mode "$mode" "${bench_args[@]}" --json 2>/dev/null)"
  rc=$?
  set -e
  ((rc == 0)) || failed=$((failed + 1))
  p99="$(grep -o '"w2":{[^}]*' <<<"$out" | grep -o '"p99_ms":[0-9.]*' | cut -d: -f2)"
  rss="$(rss_kb)" anon="$(anon_kb)" file="$(file_kb)" fd="$(fds)"
  wal="$(size_kb "$db-wal")" dbk="$(size_kb "$db")"
  printf '%8s %6s %9s %9s %9s %5s %9s %10s %9s %s%s\n' "$((SECONDS - start))s" "$round" "$rss" \
    "$anon" "$file" "$fd" "$wal" "$dbk" "${p99:-?}" "$mode" \
    "$([[ $rc -eq 0 ]] || echo " FAILED (exit $rc)")"
  # The first rounds warm caches and pools: compare from the third sample.
  if ((round == 3)); then first_rss=$rss first_fds=$fd first_anon=$anon; fi
  last_rss=$rss last_fds=$fd last_anon=$anon
  ((wal > max_wal)) && max_wal=$wal
done

echo "soak: $round rounds in $((SECONDS - start)) s, $failed failed"
if [[ -n "$first_rss" ]]; then
  echo "soak: RSS $first_rss kB (round 3) -> $last_rss kB (last), of it anon $first_anon ->" \
    "$last_anon kB; open fds $first_fds -> $last_fds; largest WAL $max_wal kB"
fi
((failed == 0))
